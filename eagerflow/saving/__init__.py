"""Object-based checkpoints in plain HDF5: save and restore anything Trackable by path.

`Checkpoint` saves named objects; `CheckpointManager` keeps the newest few in a directory;
`latest_checkpoint` finds the newest; `save_weights` / `load_weights` / `save_model` /
`load_model` are what models use; `registry` is the one place that turns layers, losses,
metrics, optimizers and the rest into configs and back (`get`, `serialize`, `deserialize`,
`register_serializable`). The file format is documented in `eagerflow.saving.h5format` and
the README.

Examples:
    >>> import os, tempfile
    >>> import eagerflow as ef
    >>> v = ef.Variable([1.0, 2.0])
    >>> path = ef.Checkpoint(v=v).save(os.path.join(tempfile.mkdtemp(), "ckpt"))
    >>> ef.saving.list_variables(path)
    [('save_counter', (), 'int64'), ('v', (2,), 'float32')]
"""

from eagerflow import absent as _absent
from eagerflow.saving.registry import (
    custom_object_scope,
    deserialize,
    deserialize_keras_object,
    get,
    get_custom_objects,
    get_registered_name,
    get_registered_object,
    register_keras_serializable,
    register_serializable,
    serialize,
    serialize_keras_object,
)

# The checkpoint machinery imports h5py (a tenth of a second): it loads on first use, so
# that the layers, losses, metrics and optimizers can register with `registry` cheaply.
_LAZY = {
    "Checkpoint": "checkpoint", "CheckpointLoadStatus": "status",
    "CheckpointManager": "manager", "InvalidCheckpointError": "h5format",
    "Mismatch": "status", "latest_checkpoint": "index", "list_variables": "listing",
    "load_variable": "listing", "load_model": "model_file", "load_weights": "model_file",
    "save_model": "model_file", "save_weights": "model_file", "warn_pending_restores": "status",
}

__all__ = [
    "custom_object_scope", "deserialize", "deserialize_keras_object", "get",
    "get_custom_objects", "get_registered_name", "get_registered_object",
    "register_keras_serializable", "register_serializable", "serialize",
    "serialize_keras_object",
]
__all__ += list(_LAZY)


_absent_getattr = _absent.namespace_getattr(__name__, "keras.saving")


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        _absent_getattr(name)
    import importlib

    value = getattr(importlib.import_module(f"eagerflow.saving.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list:
    return sorted(set(globals()) | set(_LAZY))
