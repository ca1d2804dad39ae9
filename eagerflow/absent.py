"""TensorFlow and Keras names that eagerflow lacks: an error that says what to write instead.

Each public namespace ends its module with one line naming the TensorFlow or Keras
namespaces it mirrors::

    __getattr__ = absent.namespace_getattr(__name__, "keras.layers")

Python calls a module's ``__getattr__`` only for a name the module does not define, so a
real name always wins: adding ``ef.ops.sum`` makes its entry here unused, with nothing to
remove. A missing name raises `AbsentNameError`, an `AttributeError` (so `hasattr` and
``getattr(module, name, default)`` work as usual) whose message depends on the name:

* a hint written for it (``ef.ragged``: what eagerflow does instead);
* a name of the mirrored TensorFlow/Keras namespace that eagerflow has under another name
  or in another namespace (``ef.ops.sum`` -> ``ef.reduce_sum``, ``ef.ops.relu`` ->
  ``ef.nn.relu``): "eagerflow has no `keras.ops.sum`; write `ef.reduce_sum` instead";
* any other public name of that namespace: "`keras.utils.get_file` is not implemented in
  eagerflow";
* anything else (a typo): Python's plain message, with its "Did you mean" suggestion.

The names of the TensorFlow and Keras namespaces are read from ``absent_names.json``,
generated once from real installs by ``.ci/absent_names.py`` (eagerflow never imports
TensorFlow). The message is built only when it is shown: `hasattr` on a missing name, and
the import system probing for submodules, cost no file read.

Examples:
    >>> import eagerflow as ef
    >>> hasattr(ef, "ragged")
    False
    >>> try:
    ...     ef.ragged
    ... except AttributeError as error:
    ...     print(str(error)[:69])
    module 'eagerflow' has no attribute 'ragged': eagerflow has no ragged
    >>> from eagerflow import absent
    >>> print(absent.message("eagerflow.ops", "sum", ("keras.ops",)).split(": ", 1)[1])
    eagerflow has no `keras.ops.sum`; write `ef.reduce_sum` instead.
"""

from __future__ import annotations

import functools
import importlib
import json
import os
import sys
from collections.abc import Callable
from typing import Any, NoReturn

# Where eagerflow keeps each public namespace, by the prefix users write; searched in this
# order for a name that a TensorFlow/Keras namespace has and the eagerflow one lacks.
_EF_NAMESPACES = {
    "ef": "eagerflow", "ef.nn": "eagerflow.nn", "ef.math": "eagerflow.math",
    "ef.linalg": "eagerflow.linalg", "ef.random": "eagerflow.ops.random",
    "ef.image": "eagerflow.image", "ef.layers": "eagerflow.layers",
    "ef.activations": "eagerflow.layers.activations", "ef.losses": "eagerflow.losses",
    "ef.metrics": "eagerflow.metrics", "ef.optimizers": "eagerflow.optim",
    "ef.optimizers.schedules": "eagerflow.optim.schedules",
    "ef.callbacks": "eagerflow.callbacks", "ef.models": "eagerflow.models",
    "ef.utils": "eagerflow.utils", "ef.data": "eagerflow.data",
    "ef.data.experimental": "eagerflow.data.experimental", "ef.train": "eagerflow.train",
    "ef.saving": "eagerflow.saving", "ef.summary": "eagerflow.summary",
    "ef.config": "eagerflow.config", "ef.debugging": "eagerflow.ops.debugging",
    "ef.initializers": "eagerflow.layers.initializers",
    "ef.regularizers": "eagerflow.layers.regularizers",
    "ef.constraints": "eagerflow.layers.constraints",
}

# TensorFlow/Keras names whose eagerflow spelling differs (found by name otherwise).
_RENAMES = {
    "keras.ops.sum": "ef.reduce_sum", "keras.ops.mean": "ef.reduce_mean",
    "keras.ops.max": "ef.reduce_max", "keras.ops.amax": "ef.reduce_max",
    "keras.ops.min": "ef.reduce_min", "keras.ops.amin": "ef.reduce_min",
    "keras.ops.prod": "ef.reduce_prod", "keras.ops.std": "ef.reduce_std",
    "keras.ops.var": "ef.reduce_variance", "keras.ops.logsumexp": "ef.reduce_logsumexp",
    "keras.ops.any": "ef.reduce_any", "keras.ops.all": "ef.reduce_all",
    "keras.ops.concatenate": "ef.concat", "keras.ops.take": "ef.gather",
    "keras.ops.arange": "ef.range", "keras.ops.full": "ef.fill",
    "keras.ops.power": "ef.pow", "keras.ops.absolute": "ef.abs",
    "keras.ops.clip": "ef.clip_by_value", "keras.ops.true_divide": "ef.divide",
    "keras.ops.dot": "ef.tensordot", "keras.ops.swapaxes": "ef.transpose",
    "keras.ops.logical_xor": "ef.not_equal", "keras.ops.size": "ef.size",
    "keras.ops.ndim": "ef.rank", "keras.ops.cast": "ef.cast",
    "keras.ops.fori_loop": "ef.while_loop", "keras.ops.scatter": "ef.scatter_nd",
    "keras.Model": "ef.Model", "keras.Sequential": "ef.Sequential",
}

# What eagerflow does instead of a feature it leaves out on purpose
# (docs/guides/keras-compatibility.md, "What differs on purpose").
_RAGGED = ("eagerflow has no ragged tensors (tf.ragged, tf.RaggedTensor); pad the rows to "
           "one length and carry their lengths or a mask (ef.sequence_mask)")
_SPARSE = ("eagerflow has no sparse tensors (tf.sparse, tf.SparseTensor); use dense tensors "
           "(ef.scatter_nd builds one from indices and values)")
_HINTS = {
    "tf.ragged": _RAGGED,
    "tf.RaggedTensor": _RAGGED,
    "tf.sparse": _SPARSE,
    "tf.SparseTensor": _SPARSE,
    "tf.io": "eagerflow has no tf.io (file reading, parsing and byte decoding); read and "
             "decode files with Python or NumPy, then make tensors",
    "keras.applications": "there is no model zoo (keras.applications); build the network "
                          "from ef.layers",
    "tf.types": "there is no tf.types (the TraceType tracing protocol): ef.function keys "
                "Python objects by identity, so pass the values that matter (such as "
                "`fruit.flavor`) as arguments",
    "tf.compat": "eagerflow has no TensorFlow 1 API (tf.compat.v1: sessions, placeholders); "
                 "write the TensorFlow 2 form (eager code, ef.function)",
    "tf.keras": "eagerflow's Keras API is at the top level: write ef.layers.Dense for "
                "tf.keras.layers.Dense, ef.optimizers.Adam for tf.keras.optimizers.Adam, ...",
    "keras.ops.vectorized_map": "there is no vectorized_map: map with a Python loop and "
                                "ef.stack the results (or write the batched op directly)",
}


class AbsentNameError(AttributeError):
    """An `AttributeError` for a name an eagerflow namespace lacks; its message says whether
    TensorFlow or Keras has the name, and what to write in eagerflow instead.

    Attributes:
        name: the missing name.
        module_name: the eagerflow module asked for it.
        sources: the TensorFlow/Keras namespaces that module mirrors (``"keras.layers"``).
    """

    def __init__(self, module_name: str, name: str, sources: tuple[str, ...]) -> None:
        super().__init__(name=name, obj=sys.modules.get(module_name))
        self.module_name = module_name
        self.sources = sources

    def __str__(self) -> str:  # built when shown, not when `hasattr` raises it
        return message(self.module_name, str(self.name), self.sources)

    def __reduce__(self) -> tuple:
        return AbsentNameError, (self.module_name, self.name, self.sources)


def namespace_getattr(module_name: str, *sources: str) -> Callable[[str], NoReturn]:
    """The module ``__getattr__`` of an eagerflow namespace that mirrors `sources`.

    Args:
        module_name: the namespace module's ``__name__``.
        *sources: the TensorFlow/Keras namespaces it mirrors, such as ``"tf.nn"``.

    Returns:
        A function raising `AbsentNameError` for every name (Python calls it only for
        names the module lacks).
    """

    def __getattr__(name: str) -> NoReturn:
        if name.startswith("_"):  # dunder probes (copy, pickle, doctest): the plain error
            raise AttributeError(f"module {module_name!r} has no attribute {name!r}")
        raise AbsentNameError(module_name, name, sources)

    return __getattr__


def message(module_name: str, name: str, sources: tuple[str, ...]) -> str:
    """The text of `AbsentNameError` for `name` missing from `module_name`."""
    text = f"module {module_name!r} has no attribute {name!r}"
    for source in sources:
        qualified = f"{source}.{name}"
        if qualified in _HINTS:
            return f"{text}: {_HINTS[qualified]}."
    for source in sources:
        qualified = f"{source}.{name}"
        if qualified not in _RENAMES and name not in _names().get(source, ()):
            continue
        instead = _RENAMES.get(qualified) or _elsewhere(name, module_name)
        if instead is not None:
            return f"{text}: eagerflow has no `{qualified}`; write `{instead}` instead."
        return (f"{text}: `{qualified}` is not implemented in eagerflow "
                "(docs/guides/keras-compatibility.md lists what differs from Keras and "
                "TensorFlow).")
    return text


@functools.cache
def _names() -> dict[str, frozenset[str]]:
    path = os.path.join(os.path.dirname(__file__), "absent_names.json")
    with open(path, encoding="utf-8") as file:
        listing = json.load(file)
    return {key: frozenset(value) for key, value in listing.items() if isinstance(value, list)}


def _elsewhere(name: str, module_name: str) -> str | None:
    """``ef.<namespace>.<name>`` of the first other eagerflow namespace that has `name`."""
    for public, namespace in _EF_NAMESPACES.items():
        if namespace == module_name:
            continue
        try:
            module: Any = importlib.import_module(namespace)
        except ImportError:  # (an optional part that cannot load: look further)
            continue
        if name in getattr(module, "__all__", ()):
            return f"{public}.{name}"
    return None
