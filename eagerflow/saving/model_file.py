"""Weights files and whole-model files: what `Model.save_weights/load_weights/save` and
`ef.models.load_model` call.

Both are checkpoint files (see `h5format`) with the model's variables under ``model/``,
keyed by attribute path, so a weights file, a model file and a ``Checkpoint(model=...)``
file can all be read by `load_weights`. A model file adds the optimizer's state under
``optimizer/`` and the architecture as JSON (``/.eagerflow/model_config``)::

    {"format": "eagerflow-model", "format_version": 1,
     "model": {"class_name": "Sequential", "config": {...}},
     "build_config": {...} or null, "compile_config": {...} or null}

What a model object provides (all optional except where said):

* its variables through the Trackable protocol (required);
* ``get_config()`` and a class registered with `register_serializable` (or passed in
  ``custom_objects``) for `save_model` / `load_model`; ``from_config(config)`` if the
  config is not just constructor keyword arguments;
* ``get_build_config()`` / ``build_from_config(config)`` to create its variables right
  at load time (otherwise they are restored when the model is first built);
* ``get_compile_config()`` / ``compile_from_config(config)`` to come back compiled;
* an ``optimizer`` attribute (a Trackable) whose state `save_model` stores.

Examples:
    >>> import os, tempfile
    >>> import eagerflow as ef
    >>> from eagerflow.core.trackable import Trackable
    >>> class Affine(Trackable):
    ...     def __init__(self):
    ...         self.w = ef.Variable([[1.0, 2.0]])
    >>> path = os.path.join(tempfile.mkdtemp(), "affine.weights.h5")
    >>> _ = ef.saving.save_weights(Affine(), path)
    >>> fresh = Affine()
    >>> _ = fresh.w.assign([[0.0, 0.0]])
    >>> ef.saving.load_weights(fresh, path).matched
    ['model/w']
    >>> fresh.w.numpy()
    array([[1., 2.]], dtype=float32)
"""

from __future__ import annotations

import json
import os
import warnings
from typing import Any

import numpy as np

from eagerflow.core import errors, trackable
from eagerflow.saving import (
    checkpoint,
    fileio,
    h5format,
    layer_state,
    load_budget,
    registry,
    restore,
)

MODEL_CONFIG = "model_config"
_MODEL_FORMAT = "eagerflow-model"
_MODEL_VERSION = 1


def _check_model(model, function: str) -> None:
    if not isinstance(model, trackable.Trackable):
        raise errors.InvalidArgumentError(
            f"{function} expects a model (a Trackable such as ef.Model). Received: "
            f"{type(model).__name__}"
        )


def _optimizer_of(model):
    optimizer = getattr(model, "optimizer", None)
    return optimizer if isinstance(optimizer, trackable.Trackable) else None


def save_weights(model: Any, filepath: str | os.PathLike[str]) -> str:
    """Saves the model's variables (not its optimizer's) to an HDF5 file, atomically.

    Args:
        model: a built model (any Trackable).
        filepath: the file to write, e.g. ``"model.weights.h5"``.

    Returns:
        The path written.

    Raises:
        InvalidArgumentError: if `model` is not a Trackable or has no variables yet.

    Examples:
        >>> import os, tempfile
        >>> import eagerflow as ef
        >>> from eagerflow.core.trackable import Trackable
        >>> model = Trackable()
        >>> model.w = ef.Variable([1.0, 2.0])
        >>> path = ef.saving.save_weights(model, os.path.join(tempfile.mkdtemp(), "m.h5"))
        >>> ef.saving.list_variables(path)
        [('model/w', (2,), 'float32')]
    """
    _check_model(model, "save_weights")
    optimizer = _optimizer_of(model)
    arrays = checkpoint.collect_arrays({"model": model}, [optimizer] if optimizer else [])
    if not arrays:
        raise errors.InvalidArgumentError(
            f"save_weights: {type(model).__name__} has no variables yet (it is not built). "
            "Call it on a batch of data, or build it, before saving its weights."
        )
    return h5format.write(filepath, arrays, kind="weights", metadata=layer_state.collect(model))


def load_weights(model: Any, filepath: str | os.PathLike[str], skip_mismatch: bool = False,
                 max_bytes: int | None = None) -> Any:
    """Loads variables saved by `save_weights`, `save_model` or a ``Checkpoint(model=...)``.

    Values are matched by attribute path. Variables the model has not created yet get
    their values when they are created (deferred restore).

    Args:
        model: the model to load into.
        filepath: the file (``.h5`` may be omitted), or a directory (its latest checkpoint).
        skip_mismatch: skip values whose shape or dtype differs, and variables the file has
            no value for, with a warning listing them, instead of raising.
        max_bytes: the most this load may allocate, in bytes (weights, values read, build
            probes, buffers, decompression; see `eagerflow.saving.load_budget`); default
            ``ef.config.get_load_budget()``, or else twice the file's size plus 1 GiB.

    Returns:
        A `CheckpointLoadStatus` (the report).

    Raises:
        NotFoundError: if the file does not exist.
        InvalidCheckpointError: if it is not a valid checkpoint file.
        InvalidArgumentError: if a value does not fit its variable or a variable has no
            value in the file (with a side-by-side table; nothing is assigned then), or if
            the file has no ``model/`` values matching the model at all.
        ResourceExhaustedError: if the load would allocate more than `max_bytes`.

    Examples:
        >>> import os, tempfile
        >>> import eagerflow as ef
        >>> from eagerflow.core.trackable import Trackable
        >>> model = Trackable()
        >>> model.w = ef.Variable([1.0, 2.0])
        >>> path = ef.saving.save_weights(model, os.path.join(tempfile.mkdtemp(), "m.h5"))
        >>> fresh = Trackable()
        >>> fresh.w = ef.Variable([0.0, 0.0])
        >>> ef.saving.load_weights(fresh, path).matched, fresh.w.numpy()
        (['model/w'], array([1., 2.], dtype=float32))
    """
    _check_model(model, "load_weights")
    optimizer = _optimizer_of(model)
    path = checkpoint.resolve_path(filepath)
    with load_budget.scope("load_weights", path, max_bytes):
        with h5format.Reader(path) as reader:
            blob = reader.metadata(layer_state.LAYER_STATE)
        # All or nothing: the layers' hook state is parsed and checked before any variable
        # changes, and a hook that fails gives the variables their previous values back.
        hooks = layer_state.read(model, blob, path)
        status = restore.restore(
            path, {"model": model}, exclude=[optimizer] if optimizer else [],
            skip_mismatch=skip_mismatch, strict=True,
            then=(lambda: layer_state.apply(hooks, path)) if hooks else None)
    skipped = [m.describe() for m in status.mismatched] + [
        f"{p!r}: no value in the file" for p in status.missing]
    if skip_mismatch and skipped:
        warnings.warn(
            f"load_weights skipped {len(skipped)} variable(s) of {type(model).__name__} that "
            f"do not match {status.save_path!r}: " + "; ".join(skipped[:10]),
            errors.EagerflowWarning, stacklevel=2,
        )
    return status


def _json_default(value):
    if isinstance(value, (np.generic, np.ndarray)):
        return value.tolist()
    if isinstance(value, np.dtype):
        return value.name
    raise TypeError(
        f"a value of type {type(value).__name__} ({str(value)[:80]}) is not JSON-serializable"
    )


def _optional_config(model, method: str):
    function = getattr(model, method, None)
    return function() if callable(function) else None


def _refuse_keras_format(filepath, function: str) -> None:
    """Keras 3's ``.keras`` files are zip archives eagerflow does not write or read: a clear
    error instead of an HDF5 file under a name that promises something else."""
    if str(filepath).endswith(".keras"):
        raise errors.InvalidArgumentError(
            f"{function}({str(filepath)!r}): the .keras format (Keras 3's zip of config.json "
            "and model.weights.h5) is not supported; eagerflow saves whole models as one "
            f"HDF5 file. Use a .h5 name, e.g. {str(filepath)[:-6] + '.h5'!r}.")


def save_model(model: Any, filepath: str | os.PathLike[str],
               include_optimizer: bool = True) -> str:
    """Saves architecture (JSON config), weights and optimizer state to one HDF5 file.

    Args:
        model: a model implementing ``get_config()`` (see the module docstring).
        filepath: the file to write, e.g. ``"model.h5"``.
        include_optimizer: also save the state of ``model.optimizer`` (step counter,
            slots), so a loaded model continues training exactly.

    Returns:
        The path written.

    Raises:
        InvalidArgumentError: if the model has no ``get_config()`` or its config is not
            JSON-serializable.

    Examples:
        >>> import os, tempfile
        >>> import eagerflow as ef
        >>> from eagerflow.core.trackable import Trackable
        >>> @ef.saving.register_serializable(name="DocBias")
        ... class Bias(Trackable):
        ...     def __init__(self, size):
        ...         self.size, self.b = size, ef.Variable(ef.ones((size,)))
        ...     def get_config(self):
        ...         return {"size": self.size}
        >>> path = ef.saving.save_model(Bias(2), os.path.join(tempfile.mkdtemp(), "b.h5"))
        >>> loaded = ef.saving.load_model(path)
        >>> type(loaded).__name__, loaded.size, loaded.b.numpy()
        ('Bias', 2, array([1., 1.], dtype=float32))
    """
    _check_model(model, "save_model")
    _refuse_keras_format(filepath, "save")
    document = {"format": _MODEL_FORMAT, "format_version": _MODEL_VERSION,
                "model": registry.serialize(model),
                "build_config": registry.serialize_config_values(
                    _optional_config(model, "get_build_config")),
                "compile_config": registry.serialize_config_values(
                    _optional_config(model, "get_compile_config"))}
    try:
        blob = json.dumps(document, default=_json_default).encode("utf-8")
    except (TypeError, ValueError) as e:
        raise errors.InvalidArgumentError(
            f"save_model: the config of {type(model).__name__} cannot be stored as JSON: {e}. "
            "get_config() must return plain Python values (numbers, strings, lists, dicts)."
        ) from e
    optimizer = _optimizer_of(model)
    roots, exclude = {"model": model}, []
    if optimizer is not None:
        if include_optimizer:
            roots["optimizer"] = optimizer  # saved once, at its own root
        else:
            exclude.append(optimizer)
    arrays = checkpoint.collect_arrays(roots, exclude)
    return h5format.write(filepath, arrays, kind="model",
                          metadata={MODEL_CONFIG: blob, **layer_state.collect(model)})


def _read_document(path: str):
    """Returns the model config document and the set of saved variable paths."""
    with h5format.Reader(path) as reader:
        keys = set(reader.entries)
        if reader.kind != "model":
            raise h5format.InvalidCheckpointError(
                f"{path!r} is a {reader.kind} file, not a whole-model file: it has no "
                "architecture. Build the model in code and call model.load_weights(path)."
            )
        blob = reader.metadata(MODEL_CONFIG)
        hooks = reader.metadata(layer_state.LAYER_STATE)
    if blob is None:
        raise h5format.InvalidCheckpointError(
            f"Model file {path!r} has no /{h5format.META}/{MODEL_CONFIG} dataset.")
    try:
        text = blob.decode("utf-8")
    except ValueError as e:
        raise h5format.InvalidCheckpointError(
            f"Model file {path!r}: the model config is not valid UTF-8 ({e}).") from e
    document = fileio.loads_json(text, f"Model file {path!r}: the model config",
                                 h5format.InvalidCheckpointError)
    if not isinstance(document, dict) or document.get("format") != _MODEL_FORMAT:
        raise h5format.InvalidCheckpointError(
            f"Model file {path!r}: the model config is not an {_MODEL_FORMAT!r} document.")
    if document.get("format_version") != _MODEL_VERSION:
        raise h5format.InvalidCheckpointError(
            f"Model file {path!r}: model config format_version "
            f"{document.get('format_version')!r} is not supported (this eagerflow reads "
            f"{_MODEL_VERSION}).")
    return document, keys, hooks


def load_model(filepath: str | os.PathLike[str], custom_objects: dict[str, Any] | None = None,
               compile: bool = True, safe_mode: bool = True,  # noqa: A002
               max_bytes: int | None = None) -> Any:
    """Rebuilds a model saved by `save_model`: architecture, weights, optimizer state.

    Classes are looked up by name in `custom_objects` and the registry
    (`register_serializable`); nothing is imported from names in the file, and no path
    named in it is read (see `safe_mode`).

    Args:
        filepath: the model file.
        custom_objects: ``{name: class or function}`` for classes that are not registered.
        compile: restore the compile state (``compile_from_config``) and optimizer state.
        safe_mode: refuse a config that names a file to read (a lookup layer's
            ``vocabulary`` path), as Keras does. Pass False only for a file you trust;
            files are still read only if regular and not too large.
        max_bytes: the most this load may allocate, in bytes (weights, values read, build
            probes, buffers, decompression; see `eagerflow.saving.load_budget`); default
            ``ef.config.get_load_budget()``, or else twice the file's size plus 1 GiB.

    Returns:
        The model. Variables it creates later (if it has no ``build_from_config``) receive
        their saved values when created, and so do optimizer slots.

    Raises:
        NotFoundError: if the file does not exist.
        InvalidCheckpointError: if it is not a valid model file.
        InvalidArgumentError: for an unknown class name or weights that do not fit.
        ResourceExhaustedError: if rebuilding the model would allocate more than
            `max_bytes` (a layer config naming huge sizes); the error names the layer.

    Examples:
        >>> import os, tempfile
        >>> import eagerflow as ef
        >>> from eagerflow.core.trackable import Trackable
        >>> class Gain(Trackable):  # not registered: found through custom_objects
        ...     def __init__(self):
        ...         self.g = ef.Variable(3.0)
        ...     def get_config(self):
        ...         return {}
        >>> path = ef.saving.save_model(Gain(), os.path.join(tempfile.mkdtemp(), "g.h5"))
        >>> float(ef.saving.load_model(path, custom_objects={"Gain": Gain}).g)
        3.0
    """
    _refuse_keras_format(filepath, "load_model")
    path = checkpoint.resolve_path(filepath)
    # One budget for the whole load: the weights the architecture builds, its build
    # probes and buffers, the values read and the layer state (see `load_budget`).
    with load_budget.scope("load_model", path, max_bytes):
        document, saved, hooks = _read_document(path)
        with registry.safe_mode_scope(safe_mode, f"load_model({path!r})"):
            model = _build(document, custom_objects, compile)
        optimizer = _optimizer_of(model)
        checked_hooks = layer_state.read(model, hooks, path)  # before anything is assigned
        _restore_loaded(model, optimizer, path, saved, compile, checked_hooks)
    return model


def _build(document, custom_objects, compile):  # noqa: A002 - Keras's name
    """The model of a file's config, built and compiled (not yet restored)."""
    with registry.custom_object_scope(custom_objects or {}):
        model = registry.deserialize(document.get("model"), custom_objects, "layer")
        _check_model(model, "load_model")
        if document.get("build_config") is not None and callable(
                getattr(model, "build_from_config", None)):
            model.build_from_config(document["build_config"])
        if compile and document.get("compile_config") is not None and callable(
                getattr(model, "compile_from_config", None)):
            model.compile_from_config(document["compile_config"])
    return model


def _restore_loaded(model, optimizer, path, saved, compile, hooks):  # noqa: A002
    """Restores a loaded model (and its optimizer) from its file, then calls the layers'
    load hooks (`layer_state.Hook`s); returns the model."""
    roots = {"model": model}
    saved_optimizer = any(key.startswith("optimizer/") for key in saved)
    if saved_optimizer and optimizer is not None and compile:
        roots["optimizer"] = optimizer
    elif saved_optimizer and compile:
        warnings.warn(
            f"{path!r} holds optimizer state, but the loaded {type(model).__name__} has no "
            "optimizer (it defines no compile_from_config); the optimizer state was not "
            "restored.", errors.EagerflowWarning, stacklevel=2,
        )
    exclude = [optimizer] if optimizer is not None and "optimizer" not in roots else []
    if saved:  # a model saved before it was built has no weights yet
        restore.restore(path, roots, exclude=exclude, strict=True,
                        then=(lambda: layer_state.apply(hooks, path)) if hooks else None)
    else:
        layer_state.apply(hooks, path)
    return model

