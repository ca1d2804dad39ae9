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

Loading is inert and all-or-nothing (see DESIGN.md, "Loading is inert"): `read` parses the
whole state into memory and checks it against the model before anything is assigned (the
manifest's shape and nesting, every archive member, that each object exists and has the
hook, and every asset name), and `apply` then calls the hooks. Asset names are relative
``/``-separated paths without ``.``/``..``/empty segments, backslashes, NUL or drive
letters, refused at save and at load; `load_assets` gets a fresh private directory that
holds exactly those files, so a file can never name a path outside it.

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
import re
import tempfile
import zipfile
from typing import Any, NamedTuple, NoReturn

import numpy as np

from eagerflow.core import errors
from eagerflow.saving import fileio, h5format, load_budget, object_graph

LAYER_STATE = "layer_state"  # the metadata dataset's name
_DEFAULT_MODULE = "eagerflow.layers.base"  # where Layer's own (not overridden) hooks live
_HOOKS = {"variables": "load_own_variables", "assets": "load_assets"}
_STORE_KINDS = "biufcU"  # numbers and strings: never objects
_DRIVE = re.compile(r"[A-Za-z]:")
_MAX_NAME = 4096  # bytes in an asset name (PATH_MAX); 255 in each segment (NAME_MAX)


class Hook(NamedTuple):
    """One load hook to call, with what it gets: ``{key: array}`` for
    ``load_own_variables``, ``{asset name: bytes}`` for ``load_assets``."""

    path: str
    kind: str
    obj: Any
    content: dict


def _overrides(obj, method: str) -> bool:
    function = getattr(type(obj), method, None)
    return callable(function) and getattr(function, "__module__", None) != _DEFAULT_MODULE


def _nodes(model) -> dict:
    return {path: obj for path, obj in object_graph.walk({"model": model}).nodes.items()
            if not isinstance(obj, (list, tuple, dict)) and hasattr(obj, "__dict__")}


def _array(value, path: str, key: str) -> np.ndarray:
    array = np.asarray(value.numpy() if hasattr(value, "numpy") else value)
    if array.dtype.kind not in _STORE_KINDS:
        raise h5format.InvalidCheckpointError(
            f"save_own_variables of the layer at {path!r} stored {key!r} as a value of type "
            f"{type(value).__name__} (dtype {array.dtype}); the store holds arrays of numbers "
            "or strings.")
    return array


def asset_name_problem(name: Any) -> str | None:
    """Why `name` cannot be an asset name (a relative path inside the assets directory), or
    None if it can.

    Examples:
        >>> from eagerflow.saving import layer_state
        >>> layer_state.asset_name_problem("vocab/words.txt") is None
        True
        >>> layer_state.asset_name_problem("../../etc/x.pth")
        "it has an empty, '.' or '..' segment"
    """
    if not isinstance(name, str) or not name:
        return "it is not a non-empty string"
    if len(name.encode("utf-8", "surrogatepass")) > _MAX_NAME:
        return f"it is longer than {_MAX_NAME} bytes"
    if "\0" in name:
        return "it contains a NUL character"
    if "\\" in name:
        return "it contains a backslash (names are '/'-separated)"
    if name.startswith("/") or _DRIVE.match(name):
        return "it is an absolute path"
    segments = name.split("/")
    if any(segment in ("", ".", "..") for segment in segments):
        return "it has an empty, '.' or '..' segment"
    if any(len(segment.encode("utf-8", "surrogatepass")) > 255 for segment in segments):
        return "a segment is longer than 255 bytes"
    return None


def collect(model: Any) -> dict[str, bytes]:
    """``{LAYER_STATE: blob}`` for the metadata of `model`'s file, or ``{}`` when no object
    in it overrides `save_own_variables` or defines `save_assets`.

    Raises:
        InvalidCheckpointError: if a hook stored something that is not an array of numbers
            or strings, or `save_assets` wrote a file whose name `read` would refuse.
    """
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
                        relative = os.path.relpath(full, directory).replace(os.sep, "/")
                        problem = asset_name_problem(relative)
                        if problem is not None:
                            raise h5format.InvalidCheckpointError(
                                f"save_assets of the layer at {path!r} wrote a file named "
                                f"{relative!r} that could not be loaded back: {problem}.")
                        name = f"e{len(arrays)}"
                        with open(full, "rb") as handle:
                            arrays[name] = np.frombuffer(handle.read(), dtype=np.uint8)
                        manifest[-1]["entries"].append([relative, name])
    if not manifest:
        return {}
    buffer = io.BytesIO()
    # the stubs type `allow_pickle` as the only keyword; the arrays go in by name
    np.savez(buffer, **arrays)  # type: ignore[arg-type]
    header = json.dumps(manifest).encode("utf-8")
    return {LAYER_STATE: len(header).to_bytes(8, "little") + header + buffer.getvalue()}


def read(model: Any, blob: bytes | None, filepath: str) -> list[Hook]:
    """Parses and checks the layer state `blob` of `filepath` against `model`, changing
    nothing: the hooks to call, in order, with what each gets.

    Raises:
        InvalidCheckpointError: naming the file, for a blob that is not what `collect`
            writes (truncated, not JSON, nested too deep, a damaged or compressed archive,
            an unsafe array, a duplicate or missing entry, an unsafe asset name), or that
            holds a hook's state for an object the model does not have or that has no
            matching load hook.
    """
    if blob is None:
        return []
    where = f"{filepath!r}: the layer state (/{h5format.META}/{LAYER_STATE})"

    def fail(message: str) -> NoReturn:
        raise h5format.InvalidCheckpointError(
            f"{where} {message}; the file was not written by eagerflow or was altered. "
            "Nothing was loaded.")

    size = int.from_bytes(blob[:8], "little")
    if len(blob) < 8 or size > len(blob) - 8:
        fail(f"is truncated ({len(blob)} bytes, its manifest claims {size})")
    try:
        text = blob[8:8 + size].decode("utf-8")
    except UnicodeDecodeError as e:
        fail(f"has a manifest that is not UTF-8 ({e})")
    manifest = fileio.loads_json(text, f"{where}'s manifest", h5format.InvalidCheckpointError)
    arrays = _read_archive(blob[8 + size:], fail)
    if not isinstance(manifest, list):
        fail("has a manifest that is not a list of records")
    nodes, hooks, seen, used = _nodes(model), [], set(), set()
    for record in manifest:
        if not (isinstance(record, dict) and isinstance(record.get("path"), str)
                and record.get("kind") in _HOOKS and isinstance(record.get("entries"), list)
                and all(isinstance(entry, list) and len(entry) == 2
                        and all(isinstance(part, str) for part in entry)
                        for entry in record["entries"])):
            fail(f"has a malformed manifest record {str(record)[:200]}")
        path, kind = record["path"], record["kind"]
        if (path, kind) in seen:
            fail(f"holds the {kind} of the object at {path!r} twice")
        seen.add((path, kind))
        obj = nodes.get(path)
        if obj is None or not callable(getattr(obj, _HOOKS[kind], None)):
            raise h5format.InvalidCheckpointError(
                f"{filepath!r} holds the {kind} a layer's save hook wrote for the "
                f"object at {path!r}, but the loaded model has "
                f"{'no object there' if obj is None else 'no ' + _HOOKS[kind] + ' method on it'}"
                ". Nothing was loaded.")
        content: dict = {}
        for key, name in record["entries"]:
            if name not in arrays:
                fail(f"names {name!r} for the object at {path!r}, which its archive does not "
                     "hold")
            if key in content:
                fail(f"holds {key!r} twice for the object at {path!r}")
            if name in used:  # a member named many times would be copied many times
                fail(f"names the archive member {name!r} more than once")
            used.add(name)
            content[key] = arrays[name]
        if kind == "assets":
            content = _asset_files(content, path, fail)
        hooks.append(Hook(path, kind, obj, content))
    return hooks


def _read_archive(data: bytes, fail) -> dict[str, np.ndarray]:
    """The arrays of the ``.npz`` part, read in memory. Members must be stored as `collect`
    stores them (uncompressed, so nothing expands beyond the bytes already read) and be
    numeric or string arrays whose header matches their size."""
    arrays: dict[str, np.ndarray] = {}
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            total = sum(info.file_size for info in archive.infolist())
            if total > len(data):  # members overlapping in the archive: a "zip bomb"
                fail(f"archive declares {total} bytes of members in {len(data)} bytes")
            for info in archive.infolist():
                name = info.filename
                if info.compress_type != zipfile.ZIP_STORED or info.file_size > len(data):
                    fail(f"archive member {name!r} is compressed or larger than the archive")
                if not name.endswith(".npy") or name[:-4] in arrays:
                    fail(f"archive member {name!r} is not a .npy file or is repeated")
                # Charged to the load's budget before it is read (uncompressed: its size).
                load_budget.charge((info.file_size,), np.uint8,
                                   f"layer-state archive member {name!r}", transient=True)
                arrays[name[:-4]] = _npy(archive.read(info), name, fail)
    except h5format.InvalidCheckpointError:
        raise
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, OSError, EOFError,
            NotImplementedError, SyntaxError, RecursionError) as e:
        fail(f"has an archive that cannot be read ({type(e).__name__}: {e})")
    return arrays


def _npy(raw: bytes, name: str, fail) -> np.ndarray:
    stream = io.BytesIO(raw)
    version = np.lib.format.read_magic(stream)
    if version not in ((1, 0), (2, 0)):
        fail(f"archive member {name!r} has .npy format version {version}")
    header = (np.lib.format.read_array_header_1_0 if version == (1, 0)
              else np.lib.format.read_array_header_2_0)
    shape, fortran_order, dtype = header(stream)
    count = 1
    for n in shape:
        count *= n
    if dtype.kind not in _STORE_KINDS or any(n < 0 for n in shape) or \
            count * dtype.itemsize != len(raw) - stream.tell():
        fail(f"archive member {name!r} declares dtype {dtype} and shape {shape} for "
             f"{len(raw) - stream.tell()} bytes of data")
    array = np.frombuffer(raw, dtype, count, offset=stream.tell())
    return array.reshape(shape, order="F" if fortran_order else "C").copy()


def _asset_files(content: dict, path: str, fail) -> dict[str, bytes]:
    """``{name: bytes}`` for the assets of the object at `path`, every name checked."""
    files: dict[str, bytes] = {}
    for name, array in content.items():
        problem = asset_name_problem(name)
        if problem is not None:
            fail(f"names an asset {name[:200]!r} of the object at {path!r} that could write "
                 f"outside its directory: {problem}")
        if array.dtype != np.uint8 or array.ndim != 1:
            fail(f"holds the asset {name!r} of the object at {path!r} as a {array.dtype} "
                 f"array of shape {array.shape} (expected bytes)")
        files[name] = array.tobytes()
    directories = {"/".join(name.split("/")[:end]) for name in files
                   for end in range(1, name.count("/") + 1)}
    clash = sorted(directories & set(files))
    if clash:
        fail(f"names {clash[0]!r} of the object at {path!r} both as an asset file and as a "
             "directory of another")
    return files


def _write_assets(directory: str, files: dict[str, bytes]) -> None:
    """Writes checked asset names into the fresh `directory`; never through a link and
    never over an existing file (a second guard behind `asset_name_problem`)."""
    root = os.path.realpath(directory)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | \
        getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    for name, data in files.items():
        target = os.path.normpath(os.path.join(root, *name.split("/")))
        if os.path.commonpath([root, target]) != root or target == root:
            raise errors.InvalidArgumentError(
                f"load_assets: the asset {name!r} resolves outside {root!r}.")
        os.makedirs(os.path.dirname(target), exist_ok=True)
        handle = os.open(target, flags, 0o600)
        with os.fdopen(handle, "wb") as file:
            file.write(data)


def apply(hooks: list[Hook], filepath: str) -> None:
    """Calls the hooks `read` returned: ``load_own_variables(store)`` with a fresh dict,
    ``load_assets(directory)`` with a fresh temporary directory holding exactly the saved
    files (removed afterwards).

    Raises:
        InvalidCheckpointError: naming the file and the object, if a hook raises (the
            hook's error is its cause). The caller (`restore.restore`'s ``then``) gives the
            variables their previous values back; state a hook keeps outside variables is
            the hook's own.
    """
    for hook in hooks:
        name = _HOOKS[hook.kind]
        method = getattr(hook.obj, name)
        try:
            if hook.kind == "variables":
                method(dict(hook.content))
                continue
            with tempfile.TemporaryDirectory() as directory:
                _write_assets(directory, hook.content)
                method(directory)
        except Exception as e:
            raise h5format.InvalidCheckpointError(
                f"Cannot load {filepath!r}: {name} of the object at {hook.path!r} raised "
                f"{type(e).__name__}: {str(e).rstrip('.')}. Nothing was restored: the model's "
                "variables keep their values from before the load.") from e
