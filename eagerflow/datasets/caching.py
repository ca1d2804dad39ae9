"""`Dataset.cache`: replay the elements of the first complete iteration.

In memory (``cache()``) the elements are kept in a list. On disk (``cache(filename)``)
they are written, when the first iteration completes, to `filename` in NumPy's `.npz`
format, atomically (a temporary file in the same directory, fsync, rename); any later
iteration, also in another process, reads that file instead of running the input
pipeline. Reading never unpickles. Layout of the file:

* ``__format__``: ``"eagerflow-dataset-cache-1"``; ``__count__``: the element count;
* ``__structure__``: JSON describing the element structure (tuples, namedtuples,
  dicts), whose leaves are numbered in `nest.flatten` order;
* for leaf k, ``c{k}`` holds the stacked values when all have one shape; otherwise
  ``c{k}_data`` holds the flattened values end to end, ``c{k}_ranks`` each rank and
  ``c{k}_dims`` the shapes end to end.

Example:
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

import numpy as np

from eagerflow.core import errors, nest
from eagerflow.datasets import dataset, iterator, structure

__all__ = ["CacheDataset", "read_cache", "write_cache"]

_FORMAT = "eagerflow-dataset-cache-1"


class CacheDataset(dataset.Dataset):
    """`Dataset.cache`, in memory or in a file."""

    def __init__(self, input_dataset, filename):
        self._inputs = (input_dataset,)
        self._filename = os.fspath(filename) if filename else ""
        self._memory = None
        self._lock = threading.Lock()

    def _elements(self):
        path = self._filename
        if path and os.path.exists(path):
            yield from self._read_checked(path)
            return
        if not path and self._memory is not None:
            yield from self._memory
            return
        if path and not os.path.isdir(os.path.dirname(os.path.abspath(path))):
            raise errors.NotFoundError(
                f"cache: cannot write {path!r}: directory "
                f"{os.path.dirname(os.path.abspath(path))!r} does not exist"
            )
        recorded = []
        try:
            with closing(self._inputs[0]._elements()) as elements:
                for element in elements:
                    recorded.append(element)
                    yield element
        except GeneratorExit:
            if not iterator.is_probing():
                errors.warn_once(
                    f"cache-partial-{id(self)}",
                    "cache: the iterator stopped before the end of the dataset, so the "
                    "partially cached elements were discarded. To cache a prefix, put "
                    "take() before cache(): `ds.take(k).cache()`, not `ds.cache().take(k)`.",
                )
            raise
        with self._lock:
            if path:
                write_cache(path, recorded)
            else:
                self._memory = recorded

    def _read_checked(self, path):
        elements = read_cache(path)
        source = self._inputs[0]
        if elements and source._has_static_spec():
            stored = structure.signature(elements[0])
            wanted = structure.signature(
                structure.map_leaves(lambda s: np.empty(0, s.dtype), source.element_spec)
            )
            if stored != wanted:
                raise errors.InvalidArgumentError(
                    f"cache: the file {path!r} holds elements "
                    f"{structure.describe(elements[0])}, but this dataset's elements are "
                    f"{source.element_spec}. Delete the file or use another filename."
                )
        return elements

    def _compute_spec(self):
        return self._inputs[0].element_spec

    def _cardinality(self) -> int:
        return self._inputs[0]._cardinality()


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
        return ["dict", [[k, _encode_structure(template[k])] for k in nest._keys(template)]]
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
        cls = collections.namedtuple(code[1], code[2])
        return cls(*[_decode_structure(item) for item in code[3]])
    raise ValueError(f"unknown structure kind {kind!r}")


def write_cache(path: str, elements: list) -> None:
    """Writes `elements` (structures of ndarrays) to `path` atomically."""
    arrays = {"__format__": np.array(_FORMAT), "__count__": np.array(len(elements), np.int64)}
    if elements:
        arrays["__structure__"] = np.array(json.dumps(_encode_structure(elements[0])))
        flatten = structure.flattener(elements[0])
        for k, column in enumerate(zip(*map(flatten, elements), strict=True)):
            if column[0].dtype.kind == "O":
                raise errors.InvalidArgumentError(
                    f"cache(filename) cannot store component {k} of dtype object"
                )
            if all(a.shape == column[0].shape for a in column):
                arrays[f"c{k}"] = np.stack(column)
            else:
                arrays[f"c{k}_data"] = np.concatenate([a.reshape(-1) for a in column])
                arrays[f"c{k}_ranks"] = np.array([a.ndim for a in column], np.int64)
                arrays[f"c{k}_dims"] = np.array([d for a in column for d in a.shape], np.int64)
    directory = os.path.dirname(os.path.abspath(path))
    handle, temporary = tempfile.mkstemp(dir=directory, prefix=os.path.basename(path) + ".",
                                         suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as file:
            np.savez(file, **arrays)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


def _column(stored, k: int, count: int) -> list:
    if f"c{k}" in stored.files:
        values = stored[f"c{k}"]
        return [values[i, ...] for i in range(count)]
    data, ranks, dims = (stored[f"c{k}_{part}"] for part in ("data", "ranks", "dims"))
    column, offset, dim_offset = [], 0, 0
    for rank in ranks.tolist():
        shape = tuple(dims[dim_offset:dim_offset + rank].tolist())
        size = int(np.prod(shape, dtype=np.int64))
        column.append(data[offset:offset + size].reshape(shape))
        offset, dim_offset = offset + size, dim_offset + rank
    return column


def read_cache(path: str) -> list:
    """Reads the elements written by `write_cache` (never unpickles)."""
    try:
        with np.load(path, allow_pickle=False) as stored:
            if "__format__" not in stored.files or str(stored["__format__"]) != _FORMAT:
                raise ValueError("not an eagerflow dataset cache")
            count = int(stored["__count__"])
            if count == 0:
                return []
            template = _decode_structure(json.loads(str(stored["__structure__"])))
            leaves = len(nest.flatten(template))
            columns = [_column(stored, k, count) for k in range(leaves)]
    except (OSError, ValueError, KeyError, TypeError, IndexError) as e:
        raise errors.InvalidArgumentError(
            f"cache: {path!r} is not a readable eagerflow cache file ({e}). Delete it to "
            "rebuild the cache."
        ) from None
    for column in columns:
        for array in column:
            array.flags.writeable = False
    pack = structure.packer(template)
    return [pack([column[i] for column in columns]) for i in range(count)]
