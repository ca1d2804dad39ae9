"""`Dataset.cache`: replay the elements of the first complete iteration.

In memory (``cache()``) the elements are kept in a list. On disk (``cache(filename)``)
the first iteration streams them, a chunk at a time, into a temporary file in the
target directory; when the iteration completes the file is flushed, fsynced and renamed
to `filename` (an iteration that stops early deletes it). Any later iteration, also in
another process, streams the file instead of running the input pipeline. Reading never
unpickles.

The file is a sequence of NumPy ``.npy`` records:

* a header: a string holding JSON ``{"format": "eagerflow-dataset-cache-2",
  "structure": ...}`` (tuples, namedtuples and dicts; leaves are numbered in
  `nest.flatten` order);
* per chunk of up to 1024 elements, an int64 record ``[count, kind of leaf 0, ...]``
  followed, per leaf, by one record of the stacked values (kind 0: all shapes equal) or
  three records (kind 1: the values flattened end to end, each rank, the shapes end
  to end), or for strings four (kind 2: their bytes end to end as uint8, the length of
  each string, then ranks and shapes as kind 1);
* an end record ``[-1]``, so a truncated file is detected.

Examples:
    >>> import eagerflow as ef, os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "squares.cache")
    >>> ds = ef.data.Dataset.range(4).map(lambda x: x * x).cache(path)
    >>> [int(v) for v in ds]
    [0, 1, 4, 9]
    >>> os.path.exists(path), [int(v) for v in ds]
    (True, [0, 1, 4, 9])
"""

from __future__ import annotations

import collections
import json
import os
import tempfile
import threading
from contextlib import closing
from typing import Any

import numpy as np

from eagerflow.core import dtypes, errors, nest
from eagerflow.data import dataset, iterator, structure
from eagerflow.saving import fileio

_FORMAT = "eagerflow-dataset-cache-2"
_CHUNK = 1024


class CacheDataset(dataset.Dataset):
    """`Dataset.cache`, in memory or in a file."""

    def __init__(self, input_dataset, filename):
        self._inputs = (input_dataset,)
        self._filename = os.fspath(filename) if filename else ""
        self._memory = None
        self._lock = threading.Lock()
        self._wrote = ""

    def _elements(self):
        path = self._filename
        if path and os.path.exists(path):
            yield from self._read_checked(path)
            return
        if not path and self._memory is not None:
            yield from self._memory
            return
        directory = os.path.dirname(os.path.abspath(path)) if path else ""
        if path and not os.path.isdir(directory):
            raise errors.NotFoundError(
                f"cache: cannot write {path!r}: directory {directory!r} does not exist"
            )
        recorded: Any = [] if not path else None
        writer = _Writer(path) if path else None
        try:
            with closing(self._inputs[0]._elements()) as elements:
                for element in elements:
                    if writer is None:
                        recorded.append(element)
                    else:
                        writer.add(element)
                    yield element
            with self._lock:
                if writer is None:
                    self._memory = recorded
                else:
                    writer.commit()
                    self._wrote = path  # its elements came from this pipeline
        except GeneratorExit:
            if not iterator.is_probing():
                errors.warn_once(
                    f"cache-partial-{id(self)}",
                    "cache: the iterator stopped before the end of the dataset, so the "
                    "partially cached elements were discarded. To cache a prefix, put "
                    "take() before cache(): `ds.take(k).cache()`, not `ds.cache().take(k)`.",
                )
            raise
        finally:
            if writer is not None:
                writer.discard()  # after commit() there is nothing left to discard

    def _read_checked(self, path):
        source = self._inputs[0]
        if path == self._wrote:
            yield from read_cache(path)
            return
        spec = source.element_spec if source._has_static_spec() else _probed_spec(source)
        check = spec is not None
        for element in read_cache(path):
            if check:
                check = False
                stored = _layout(element)
                wanted = _layout(structure.map_leaves(lambda s: np.empty(0, s.dtype), spec))
                if stored != wanted:
                    raise errors.InvalidArgumentError(
                        f"cache: the file {path!r} holds elements "
                        f"{structure.describe(element)}, but this dataset's elements are "
                        f"{source.element_spec}. Delete the file or use another filename."
                    )
            yield element

    def _compute_spec(self):
        return self._inputs[0].element_spec

    def _cardinality(self) -> int:
        return self._inputs[0]._cardinality()


def _layout(element):
    """Structure and leaf dtypes, independent of dict key order and namedtuple classes
    (the file stores dicts sorted and namedtuples by name)."""
    if isinstance(element, dict):
        return ("dict", tuple(sorted(((repr(k), _layout(v)) for k, v in element.items()))))
    if isinstance(element, tuple):
        return (type(element).__name__, getattr(element, "_fields", None),
                tuple(_layout(item) for item in element))
    return structure.signature(element)


def _probed_spec(source):
    """The spec of a user function's output (its first element), or None if it fails.

    An existing cache file is replayed without running the input pipeline, so one that
    cannot run any more (its files deleted, say) is not checked.
    """
    try:
        return source.element_spec
    except (errors.OpError, OSError):
        return None


def _encode_structure(template):
    if isinstance(template, np.ndarray):
        return None
    if isinstance(template, dict):
        for key in template:
            if not isinstance(key, (str, int, float, bool)):
                raise errors.InvalidArgumentError(
                    f"cache(filename) supports dict keys of type str/int/float/bool, got "
                    f"{key!r}"
                )
        return ["dict", [[k, _encode_structure(template[k])] for k in nest.sorted_keys(template)]]
    items = [_encode_structure(item) for item in template]
    if type(template) is tuple:
        return ["tuple", items]
    return ["namedtuple", type(template).__name__, list(template._fields), items]


def _decode_structure(code):
    """A template with the stored structure (leaves are placeholders)."""
    if code is None:
        return np.empty(0)
    kind = code[0]
    if kind == "dict":
        return {key: _decode_structure(item) for key, item in code[1]}
    if kind == "tuple":
        return tuple(_decode_structure(item) for item in code[1])
    if kind == "namedtuple":
        cls = collections.namedtuple(code[1], code[2])  # type: ignore[misc]  # (a saved name)
        return cls(*[_decode_structure(item) for item in code[3]])
    raise ValueError(f"unknown structure kind {kind!r}")


def _record(file, array) -> None:
    np.lib.format.write_array(file, np.asarray(array), allow_pickle=False)


class _Writer:
    """Streams elements into a temporary file; `commit` renames it into place."""

    def __init__(self, path: str):
        self._path = path
        directory = os.path.dirname(os.path.abspath(path))
        handle, self._temporary = tempfile.mkstemp(
            dir=directory, prefix=os.path.basename(path) + ".", suffix=".tmp")
        self._file = os.fdopen(handle, "wb")
        self._chunk: list[Any] = []
        self._flatten: Any = None

    def add(self, element) -> None:
        if self._flatten is None:
            self._flatten = structure.flattener(element)
            header = {"format": _FORMAT, "structure": _encode_structure(element)}
            _record(self._file, np.array(json.dumps(header)))
        self._chunk.append(element)
        if len(self._chunk) == _CHUNK:
            self._write_chunk()

    def _write_chunk(self) -> None:
        columns = list(zip(*map(self._flatten, self._chunk), strict=True))
        kinds = []
        for k, column in enumerate(columns):
            if column[0].dtype.kind == "O":  # strings: object arrays of bytes
                if not all(type(item) is bytes for a in column for item in a.flat):
                    raise errors.InvalidArgumentError(
                        f"cache(filename) cannot store component {k} of dtype object: only "
                        "strings (bytes) and numbers")
                kinds.append(2)
            else:
                kinds.append(0 if all(a.shape == column[0].shape for a in column) else 1)
        _record(self._file, np.array([len(self._chunk), *kinds], np.int64))
        for kind, column in zip(kinds, columns, strict=True):
            if kind == 0:
                _record(self._file, np.stack(column))
            elif kind == 2:
                strings = [item for a in column for item in a.reshape(-1).tolist()]
                _record(self._file, np.frombuffer(b"".join(strings), np.uint8))
                _record(self._file, np.array([len(item) for item in strings], np.int64))
                _record(self._file, np.array([a.ndim for a in column], np.int64))
                _record(self._file, np.array([d for a in column for d in a.shape], np.int64))
            else:
                _record(self._file, np.concatenate([a.reshape(-1) for a in column]))
                _record(self._file, np.array([a.ndim for a in column], np.int64))
                _record(self._file, np.array([d for a in column for d in a.shape], np.int64))
        self._chunk = []

    def commit(self) -> None:
        if self._flatten is None:  # no element: a header without structure
            _record(self._file, np.array(json.dumps({"format": _FORMAT, "structure": None})))
        elif self._chunk:
            self._write_chunk()
        _record(self._file, np.array([-1], np.int64))
        self._file.flush()
        os.fsync(self._file.fileno())
        self._file.close()
        os.replace(self._temporary, self._path)

    def discard(self) -> None:
        self._file.close()
        if os.path.exists(self._temporary):
            os.unlink(self._temporary)


def write_cache(path: str, elements) -> None:
    """Writes `elements` (structures of ndarrays) to `path` atomically."""
    writer = _Writer(path)
    try:
        for element in elements:
            writer.add(element)
        writer.commit()
    finally:
        writer.discard()


def _read(file, path):
    try:
        return np.lib.format.read_array(file, allow_pickle=False)
    except (OSError, ValueError, EOFError) as e:
        raise errors.InvalidArgumentError(
            f"cache: {path!r} is not a readable eagerflow cache file ({e}). Delete it to "
            "rebuild the cache."
        ) from None


def _frozen(array):
    array.flags.writeable = False
    return array


def _chunk_columns(file, path, kinds, count):
    columns = []
    for kind in kinds:
        if kind == 0:
            stacked = _read(file, path)
            if stacked.dtype.kind in "SU":  # written before strings were bytes objects
                stacked = dtypes.to_array(stacked)
            stacked = _frozen(stacked)
            columns.append([stacked[i, ...] for i in range(count)])
            continue
        if kind == 2:
            blob, lengths = _read(file, path).tobytes(), _read(file, path)
            ends = np.cumsum(lengths).tolist()
            data = np.empty(len(ends), object)
            data[:] = [blob[end - size:end] for end, size in zip(ends, lengths.tolist(),
                                                                   strict=True)]
            data = _frozen(data)
        else:
            data = _read(file, path)
            data = _frozen(dtypes.to_array(data) if data.dtype.kind in "SU" else data)
        ranks, dims = _read(file, path), _read(file, path)
        column, offset, dim_offset = [], 0, 0
        for rank in ranks.tolist():
            shape = tuple(dims[dim_offset:dim_offset + rank].tolist())
            size = int(np.prod(shape, dtype=np.int64))
            column.append(data[offset:offset + size].reshape(shape))
            offset, dim_offset = offset + size, dim_offset + rank
        columns.append(column)
    return columns


def read_cache(path: str):
    """Streams the elements written by `write_cache` / `cache(filename)` (no unpickling).

    Raises:
        InvalidArgumentError: for a file that is not a complete eagerflow cache.
    """
    with open(path, "rb") as file:
        try:
            header = fileio.loads_json(str(_read(file, path)), "the header")
            if not isinstance(header, dict) or header.get("format") != _FORMAT:
                raise ValueError("not an eagerflow dataset cache")
            template = _decode_structure(header["structure"])
        except (ValueError, KeyError, TypeError, IndexError) as e:
            if isinstance(e, errors.InvalidArgumentError):
                raise
            raise errors.InvalidArgumentError(
                f"cache: {path!r} is not a readable eagerflow cache file ({e}). Delete it "
                "to rebuild the cache."
            ) from None
        pack = structure.packer(template)
        leaves = len(nest.flatten(template))
        while True:
            meta = _read(file, path)
            if meta.dtype != np.int64 or meta.ndim != 1 or not len(meta):
                raise errors.InvalidArgumentError(f"cache: {path!r} is corrupt (bad chunk)")
            if meta[0] == -1:
                return
            count, kinds = int(meta[0]), meta[1:].tolist()
            if len(kinds) != leaves:
                raise errors.InvalidArgumentError(f"cache: {path!r} is corrupt (bad chunk)")
            columns = _chunk_columns(file, path, kinds, count)
            for i in range(count):
                yield pack([column[i] for column in columns])
