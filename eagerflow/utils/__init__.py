"""Utilities (`ef.utils`).

Examples:
    >>> import eagerflow as ef
    >>> callable(ef.utils.plot_history)
    True
"""

from eagerflow import absent as _absent
from eagerflow.utils.categorical import to_categorical
from eagerflow.utils.image_utils import array_to_img, img_to_array, load_img, save_img
from eagerflow.utils.model_plot import plot_model
from eagerflow.utils.plotting import plot_history
from eagerflow.utils.file_utils import get_file
from eagerflow.utils.py_dataset import PyDataset, Sequence
from eagerflow.utils.random_seed import set_random_seed
from eagerflow.utils.sequences import pad_sequences

# Keras 3 also exports the serialization helpers from `keras.utils`: the same functions
# as `ef.saving`'s, loaded on first use (the registry itself imports `eagerflow.utils`).
_SAVING = (
    "custom_object_scope", "deserialize_keras_object", "get_custom_objects",
    "get_registered_name", "get_registered_object", "register_keras_serializable",
    "serialize_keras_object",
)

# Keras's dataset makers live with the input pipeline (`ef.data` imports `ef.utils`' own
# modules, so they load on first use).
_DATA = {
    "image_dataset_from_directory": "eagerflow.data.directories",
    "split_dataset": "eagerflow.data.splitting",
    "text_dataset_from_directory": "eagerflow.data.directories",
    "timeseries_dataset_from_array": "eagerflow.data.timeseries",
}

__all__ = [
    "PyDataset", "Sequence", "array_to_img", "get_file", "img_to_array", "load_img",
    "plot_history", "pad_sequences", "plot_model", "save_img", "set_random_seed",
    "to_categorical", *_SAVING, *_DATA,
]


_absent_getattr = _absent.namespace_getattr(__name__, "keras.utils")


def __getattr__(name: str):
    import importlib

    if name in _DATA:
        value = getattr(importlib.import_module(_DATA[name]), name)
    elif name in _SAVING:
        from eagerflow.saving import registry

        value = getattr(registry, name)
    else:
        _absent_getattr(name)  # raises, saying what to write instead
    globals()[name] = value
    return value


def __dir__() -> list:
    return sorted(set(globals()) | set(_SAVING) | set(_DATA))
