"""Reading `ef.saved_model` files of format version 2: the compatibility path.

eagerflow before the one HDF5 writer (format version 2 of ``eagerflow.graph.saved_model``)
wrote exports with their own checksum manifest, in this layout::

    /                  attrs: format="eagerflow.graph.saved_model", version=2,
                              manifest_sha256=<hex SHA-256 of /manifest>
    /functions/<name>/<k>   uint8 dataset: the UTF-8 JSON of one traced graph
    /arrays/<k>        constants and array attributes (numeric dtypes only)
    /variables/<k>     variable values; attrs: name, trainable
    /manifest          uint8 dataset: the checksum manifest (JSON)

The manifest records each function's group and name with the CRC-32 of each graph, and
each array's and variable's dtype (with byte order), shape and CRC-32 (and a variable's
name and trainable flag), all by position; its SHA-256 is a root attribute. Such files
still load, with the same guarantees as when they were written: `read` describes what it
read in the same form and refuses the file, naming it, unless the description equals the
manifest and the manifest its digest. Version 1 files (no checksums) are refused with a
message saying so. eagerflow writes version 3 (see `eagerflow.graph.function_file`).

Examples:
    >>> from eagerflow.graph import function_file_v2
    >>> function_file_v2.FORMAT, function_file_v2.VERSION
    ('eagerflow.graph.saved_model', 2)
"""

from __future__ import annotations

import hashlib
import json
import zlib

import h5py
import numpy as np

from eagerflow.core import errors
from eagerflow.core import variable as variable_lib
from eagerflow.saving import h5format, load_budget

FORMAT = "eagerflow.graph.saved_model"
"""The root ``format`` attribute of version 1 and 2 files."""
VERSION = 2
"""The version this module reads."""
MANIFEST = "manifest"
"""The name of the dataset that holds a version 2 file's checksum manifest."""
READ_ERRORS = (OSError, RuntimeError, KeyError, ValueError, TypeError, AttributeError,
               IndexError, UnicodeDecodeError)
"""What reading a malformed or corrupted file can raise from h5py or the decoders."""


class _Contents:
    """The checksum manifest of an export: what `save` wrote, or what `load` read."""

    def __init__(self):
        self.manifest: dict = {"format": FORMAT, "version": VERSION, "functions": {},
                               "arrays": [], "variables": []}

    def function(self, group: str, name: str, blobs: list) -> None:
        self.manifest["functions"][group] = [name, [zlib.crc32(blob) for blob in blobs]]

    def _record(self, value: np.ndarray) -> list:
        return [value.dtype.str, list(value.shape), h5format.crc32(value)]

    def array(self, value: np.ndarray) -> None:
        self.manifest["arrays"].append(self._record(value))

    def variable(self, value: np.ndarray, name: str, trainable: bool) -> None:
        self.manifest["variables"].append([*self._record(value), name, trainable])



def read(f, path):
    """Reads everything `load` uses (arrays, variables, graphs as bytes) and checks it
    against the file's checksum manifest (see the module docstring)."""
    fmt, version = _text(f.attrs.get("format")), f.attrs.get("version")
    if fmt != FORMAT or version not in (1, VERSION):
        raise errors.InvalidArgumentError(
            f"{path} is not an eagerflow saved model (format {fmt!r}, version {version!r}); "
            f"expected {FORMAT!r} version {VERSION}, or an eagerflow file of kind "
            "'saved_model' (version 3)"
        )
    if version == 1:
        raise h5format.InvalidCheckpointError(
            f"saved model {path!r} has format version 1 (eagerflow before export checksums), "
            "which is no longer loaded: nothing in it can be verified. Export the functions "
            "again with this eagerflow.")
    contents = _Contents()
    arrays = _read_numbered(f, "arrays", path)
    for value in arrays:
        contents.array(value)
    variables = []
    for k, value in enumerate(_read_numbered(f, "variables", path)):
        attrs = f["variables"][str(k)].attrs
        name, trainable = _text(attrs.get("name", f"variable_{k}")), attrs.get("trainable")
        if not isinstance(name, str) or not isinstance(trainable, (bool, np.bool_)):
            raise errors.InvalidArgumentError(
                f"{path}: variables/{k} has a malformed 'name' or 'trainable' attribute")
        contents.variable(value, name, bool(trainable))
        variables.append((value, name, bool(trainable)))
    blobs = {}
    for group in f.get("functions", {}).values():
        name = _text(group.attrs.get("name", group.name))
        if not isinstance(group, h5py.Group) or not isinstance(name, str):
            raise errors.InvalidArgumentError(f"{path}: malformed function {group.name}")
        items = []
        for k in range(len(group)):
            data = group.get(str(k))
            if not isinstance(data, h5py.Dataset) or data.dtype != np.uint8 or data.ndim != 1:
                raise errors.InvalidArgumentError(f"{path}: malformed function {group.name}")
            load_budget.charge(data.shape, np.uint8, f"function {group.name}/{k}")
            items.append(np.asarray(data[()]).tobytes())
        contents.function(group.name, name, items)
        blobs[name] = items
    _check_manifest(f, path, contents.manifest)
    # Variables are created only once everything is verified.
    made = [variable_lib.Variable(value, trainable=trainable, name=name)
            for value, name, trainable in variables]
    return arrays, made, blobs


def _text(value):
    """A string attribute as `str` (files store them as UTF-8 bytes, see
    `h5format.text_attr`); anything else unchanged, for the caller to refuse."""
    if isinstance(value, bytes):
        return value.decode("utf-8")  # (a UnicodeDecodeError is a corrupted file)
    return value


def _check_manifest(f, path, found: dict) -> None:
    lost = ("; eagerflow always writes one, so its checksums were removed or it was written "
            "by another tool. It was not loaded.")
    digest = _text(f.attrs.get(h5format.MANIFEST_DIGEST))
    if not isinstance(digest, str):
        raise h5format.InvalidCheckpointError(
            f"saved model {path!r}: the root attribute {h5format.MANIFEST_DIGEST!r} (the "
            f"checksum manifest's digest) is missing{lost}")
    stored = f.get(MANIFEST)
    if not isinstance(stored, h5py.Dataset) or stored.dtype != np.uint8 or stored.ndim != 1:
        raise h5format.InvalidCheckpointError(
            f"saved model {path!r}: the checksum manifest (dataset {MANIFEST!r}) is "
            f"missing{lost}")
    blob = np.asarray(stored[()]).tobytes()
    expected, described = h5format.encode_manifest(found)[0], hashlib.sha256(blob).hexdigest()
    if described != digest:
        raise h5format.InvalidCheckpointError(
            f"saved model {path!r}: the checksum manifest does not match its SHA-256 digest: "
            "the file is corrupted (a changed byte, a bad disk or transfer). It was not loaded.")
    if blob != expected:
        raise h5format.InvalidCheckpointError(
            f"saved model {path!r}: {_first_difference(blob, found)} does not match the "
            "checksum manifest: the file is corrupted, or mixes parts of different exports. "
            "It was not loaded.")


def _first_difference(blob: bytes, found: dict) -> str:
    """Names the first function, array or variable whose description differs."""
    try:
        recorded = json.loads(blob)
    except ValueError:
        return "its contents"
    if not isinstance(recorded, dict):
        return "its contents"
    ours, theirs = found["functions"], recorded.get("functions")
    theirs = theirs if isinstance(theirs, dict) else {}
    for group in sorted(set(ours) | set(theirs)):
        if ours.get(group) != theirs.get(group):
            return f"function group {group!r}"
    for part in ("arrays", "variables"):
        ours, theirs = found[part], recorded.get(part)
        theirs = theirs if isinstance(theirs, list) else []
        for k in range(max(len(ours), len(theirs))):
            if k >= len(ours) or k >= len(theirs) or ours[k] != theirs[k]:
                return f"{part}/{k}"
    return "its header"


def _read_numbered(f, key, path) -> list:
    group = f.get(key)
    if group is None:
        return []
    values = []
    for k in range(len(group)):
        dataset = group.get(str(k))
        if not isinstance(dataset, h5py.Dataset) or dataset.dtype.kind not in "biufc":
            raise errors.InvalidArgumentError(
                f"{path}: {key}/{k} is missing or not numeric data; the file is malformed"
            )
        load_budget.charge(dataset.shape, dataset.dtype, f"{key}/{k} of shape "
                           f"{dataset.shape} in the file")
        values.append(np.array(dataset[()], order="C"))  # (ascontiguousarray makes 0-d 1-d)
    return values


