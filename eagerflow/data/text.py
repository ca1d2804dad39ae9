"""`TextLineDataset`: the lines of text files, as scalar `ef.string` tensors.

Examples:
    >>> import eagerflow as ef, os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "poem.txt")
    >>> with open(path, "w") as f:
    ...     _ = f.write("roses\\nviolets\\n")
    >>> list(ef.data.TextLineDataset(path).as_numpy_iterator())
    [b'roses', b'violets']
"""

from __future__ import annotations

import gzip
import io
import os
import zlib
from typing import Any

import numpy as np

from eagerflow.core import dtypes, errors
from eagerflow.core import tensor as tensor_lib
from eagerflow.core.spec import TensorSpec
from eagerflow.data import dataset, interleaving, sources

_COMPRESSIONS = ("", "GZIP", "ZLIB")


def _filenames(filenames) -> list:
    if isinstance(filenames, tensor_lib.Tensor):
        filenames = filenames.numpy()
    if isinstance(filenames, (str, bytes, os.PathLike)):
        filenames = [filenames]
    names = []
    for name in np.asarray(filenames, dtype=object).reshape(-1).tolist():
        if isinstance(name, bytes):
            name = name.decode()
        if not isinstance(name, (str, os.PathLike)):
            raise TypeError(
                f"TextLineDataset expects file names (str or a list of str). Received: {name!r}"
            )
        names.append(os.fspath(name))
    if not names:
        raise errors.InvalidArgumentError("TextLineDataset needs at least one file name")
    return names


def _open(path: str, compression: str):
    try:
        if compression == "GZIP":
            return gzip.open(path, "rb")
        if compression == "ZLIB":
            with open(path, "rb") as file:
                return io.BytesIO(zlib.decompress(file.read()))
        return open(path, "rb")
    except FileNotFoundError:
        raise errors.NotFoundError(f"TextLineDataset: {path}: No such file or directory") from None
    except zlib.error as e:
        raise errors.InvalidArgumentError(
            f"TextLineDataset: {path} is not ZLIB-compressed data ({e})"
        ) from None


class TextLineDataset(dataset.Dataset):
    """One element per line of one or more text files, without the line ending.

    Lines are scalar string tensors (`ef.string`), as in tf.data: `as_numpy_iterator`
    gives them as `bytes` (decode with ``.decode()``), and so does ``line.numpy()``.
    ``\\n`` and ``\\r\\n`` endings are removed.

    Args:
        filenames: a file name or a list of them.
        compression_type: ``None``/``""``, ``"GZIP"`` or ``"ZLIB"``.
        buffer_size: accepted for tf.data compatibility (files are read buffered).
        num_parallel_reads: None reads the files one after the other; an int N reads N
            files at once in background threads, interleaving their lines (one line
            from each in turn), as tf.data does.

    Raises:
        NotFoundError: (while iterating) for a file that does not exist.
        InvalidArgumentError: for an unknown `compression_type`.

    Examples:
        >>> import eagerflow as ef, os, tempfile
        >>> path = os.path.join(tempfile.mkdtemp(), "data.csv")
        >>> with open(path, "w") as f:
        ...     _ = f.write("x,y\\n1,2\\n3,4\\n")
        >>> ds = ef.data.TextLineDataset(path).skip(1)
        >>> [line.decode() for line in ds.as_numpy_iterator()]
        ['1,2', '3,4']
    """

    def __init__(self, filenames: Any, compression_type: Any = None, buffer_size: Any = None,
                 num_parallel_reads: Any = None, name: str | None = None) -> None:
        self._files = _filenames(filenames)
        compression = (compression_type or "").upper()
        if compression not in _COMPRESSIONS:
            raise errors.InvalidArgumentError(
                f"TextLineDataset: `compression_type` must be one of None, 'GZIP', 'ZLIB'. "
                f"Received: {compression_type!r}"
            )
        self._compression = compression
        self._reader = None
        if num_parallel_reads is not None and len(self._files) > 1:
            names = sources.TensorSliceDataset(np.array(self._files))
            self._reader = interleaving.InterleaveDataset(
                names,
                lambda name: TextLineDataset(os.fsdecode(name.numpy()), compression),
                num_parallel_reads, 1, num_parallel_reads,
            )

    def _elements(self):
        if self._reader is not None:
            yield from self._reader._elements()
            return
        for path in self._files:
            with _open(path, self._compression) as file:
                for line in file:
                    if line.endswith(b"\n"):
                        line = line[:-2] if line.endswith(b"\r\n") else line[:-1]
                    element = np.empty((), object)  # a string: bytes in an object array
                    element[()] = line
                    yield element

    def _compute_spec(self):
        return TensorSpec((), dtypes.string)

    def _cardinality(self) -> int:
        return dataset.UNKNOWN_CARDINALITY
