"""Layers' own saving hooks, as Keras 3 calls them: `save_own_variables` /
`load_own_variables` and `save_assets` / `load_assets`.

Variables are saved by attribute path (`object_graph`) whatever a layer does; a layer that
overrides `save_own_variables` (to store more than its variables, or in another form) or
defines `save_assets` (files such as a vocabulary) gets its hook called at save time, and
what it stored is kept in one metadata dataset of the same HDF5 file (``layer_state``: an
``.npz`` archive plus a JSON manifest naming each entry's object path and key). Loading
calls the matching `load_own_variables(store)` with the same ``{key: array}`` store and
`load_assets(directory)` with the same files, after the variables are restored (so the
hook has the last word), in the order Keras uses. Objects are found by duck typing: this
module knows the Trackable protocol, not the layer classes.

Examples:
    >>> import os, tempfile
    >>> import numpy as np
    >>> import eagerflow as ef
    >>> class Counted(ef.layers.Dense):
    ...     def __init__(self, units, calls=0, **kwargs):
    ...         super().__init__(units, **kwargs)
    ...         self.calls = calls  # a plain int: no Variable holds it
    ...     def save_own_variables(self, store):
    ...         super().save_own_variables(store)
    ...         store["calls"] = np.array(self.calls)
    ...     def load_own_variables(self, store):
    ...         super().load_own_variables({k: v for k, v in store.items() if k != "calls"})
    ...         self.calls = int(store["calls"])
    >>> model = ef.Sequential([ef.Input((2,)), Counted(1)])
    >>> model.layers[0].calls = 7
    >>> path = model.save(os.path.join(tempfile.mkdtemp(), "m.h5"))
    >>> ef.models.load_model(path).layers[0].calls
    7
"""

from __future__ import annotations

import io
import json
import os
import tempfile
from typing import Any

import numpy as np

from eagerflow.saving import h5format, load_budget, object_graph

LAYER_STATE = "layer_state"  # the metadata dataset's name
_DEFAULT_MODULE = "eagerflow.layers.base"  # where Layer's own (not overridden) hooks live


def _overrides(obj, method: str) -> bool:
    function = getattr(type(obj), method, None)
    return callable(function) and getattr(function, "__module__", None) != _DEFAULT_MODULE


def _nodes(model) -> dict:
    return {path: obj for path, obj in object_graph.walk({"model": model}).nodes.items()
            if not isinstance(obj, (list, tuple, dict)) and hasattr(obj, "__dict__")}


def _array(value, path: str, key: str) -> np.ndarray:
    array = np.asarray(value.numpy() if hasattr(value, "numpy") else value)
    if array.dtype.kind not in "biufcU":
        raise h5format.InvalidCheckpointError(
            f"save_own_variables of the layer at {path!r} stored {key!r} as a value of type "
            f"{type(value).__name__} (dtype {array.dtype}); the store holds arrays of numbers "
            "or strings.")
    return array


def collect(model: Any) -> dict[str, bytes]:
    """``{LAYER_STATE: blob}`` for the metadata of `model`'s file, or ``{}`` when no object
    in it overrides `save_own_variables` or defines `save_assets`."""
    manifest: list[dict[str, Any]] = []
    arrays: dict[str, np.ndarray] = {}
    for path, obj in _nodes(model).items():
        if _overrides(obj, "save_own_variables"):
            store: dict = {}
            obj.save_own_variables(store)
            manifest.append({"path": path, "kind": "variables", "entries": []})
            for key, value in store.items():
                name = f"e{len(arrays)}"
                arrays[name] = _array(value, path, str(key))
                manifest[-1]["entries"].append([str(key), name])
        if callable(getattr(obj, "save_assets", None)):
            manifest.append({"path": path, "kind": "assets", "entries": []})
            with tempfile.TemporaryDirectory() as directory:
                obj.save_assets(directory)
                for root, _, files in os.walk(directory):
                    for file in sorted(files):
                        full = os.path.join(root, file)
                        name = f"e{len(arrays)}"
                        with open(full, "rb") as handle:
                            arrays[name] = np.frombuffer(handle.read(), dtype=np.uint8)
                        manifest[-1]["entries"].append(
                            [os.path.relpath(full, directory), name])
    if not manifest:
        return {}
    buffer = io.BytesIO()
    # the stubs type `allow_pickle` as the only keyword; the arrays go in by name
    np.savez(buffer, **arrays)  # type: ignore[arg-type]
    header = json.dumps(manifest).encode("utf-8")
    return {LAYER_STATE: len(header).to_bytes(8, "little") + header + buffer.getvalue()}


def restore(model: Any, blob: bytes | None, filepath: str) -> None:
    """Calls the `load_own_variables` / `load_assets` hooks with what `collect` saved.

    Raises:
        InvalidCheckpointError: if the file holds a hook's state for an object the model
            does not have, or that has no matching load hook.
    """
    if blob is None:
        return
    size = int.from_bytes(blob[:8], "little")
    manifest = json.loads(blob[8:8 + size].decode("utf-8"))
    # Bounded: declared sizes are charged to the load's budget before decompressing.
    arrays = load_budget.read_npz(blob[8 + size:], f"the layer state of {filepath!r}",
                                  h5format.InvalidCheckpointError)
    nodes = _nodes(model)
    for record in manifest:
        obj = nodes.get(record["path"])
        hook = "load_own_variables" if record["kind"] == "variables" else "load_assets"
        if obj is None or not callable(getattr(obj, hook, None)):
            raise h5format.InvalidCheckpointError(
                f"{filepath!r} holds the {record['kind']} a layer's save hook wrote for the "
                f"object at {record['path']!r}, but the loaded model has "
                f"{'no object there' if obj is None else 'no ' + hook + ' method on it'}.")
        if record["kind"] == "variables":
            obj.load_own_variables({key: arrays[name] for key, name in record["entries"]})
            continue
        with tempfile.TemporaryDirectory() as directory:
            for relative, name in record["entries"]:
                target = os.path.join(directory, relative)
                os.makedirs(os.path.dirname(target), exist_ok=True)
                with open(target, "wb") as handle:
                    handle.write(arrays[name].tobytes())
            obj.load_assets(directory)
