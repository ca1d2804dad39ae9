"""Reader of the IDX format of the MNIST and Fashion-MNIST distribution files.

An IDX file is two zero bytes, a type code (0x08 for uint8, ...), the number of
dimensions, each dimension as a big-endian uint32, then the values in big-endian C
order. The files usually come gzip-compressed (``.gz``), which is detected from the
content. Reading checks that the header and the data size agree exactly.

Examples:
    >>> import numpy as np, os, tempfile
    >>> from eagerflow.datasets import idx
    >>> path = os.path.join(tempfile.mkdtemp(), "labels-idx1-ubyte")
    >>> idx.write(path, np.array([3, 1, 4], np.uint8))
    >>> idx.read(path).tolist()
    [3, 1, 4]
"""

from __future__ import annotations

import gzip
import os
import struct
import tempfile
import zlib

import numpy as np

from eagerflow.core import errors

_TYPES = {0x08: ">u1", 0x09: ">i1", 0x0B: ">i2", 0x0C: ">i4", 0x0D: ">f4", 0x0E: ">f8"}
_CODES = {np.dtype(v).newbyteorder("=").str: k for k, v in _TYPES.items()}
_GZIP_MAGIC = b"\x1f\x8b"

# The four files of MNIST and Fashion-MNIST, by role.
FILES = {
    "x_train": "train-images-idx3-ubyte",
    "y_train": "train-labels-idx1-ubyte",
    "x_test": "t10k-images-idx3-ubyte",
    "y_test": "t10k-labels-idx1-ubyte",
}


def _bad(path, message):
    return errors.InvalidArgumentError(f"{path} is not a valid IDX file: {message}")


def read(path: str) -> np.ndarray:
    """Reads an IDX file (plain or gzip-compressed) into a native-endian array.

    Raises:
        InvalidArgumentError: if the header is malformed or disagrees with the data size.
    """
    with open(path, "rb") as file:
        raw = file.read()
    if raw[:2] == _GZIP_MAGIC:
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError, zlib.error) as e:
            raise _bad(path, f"broken gzip data ({e})") from None
    if len(raw) < 4 or raw[0] != 0 or raw[1] != 0:
        raise _bad(path, "the magic number must start with two zero bytes")
    type_code, ndim = raw[2], raw[3]
    if type_code not in _TYPES:
        raise _bad(path, f"unknown type code 0x{type_code:02X}")
    header = 4 + 4 * ndim
    if len(raw) < header:
        raise _bad(path, f"the header declares {ndim} dimensions but the file ends first")
    shape = struct.unpack(f">{ndim}I", raw[4:header])
    dtype = np.dtype(_TYPES[type_code])
    expected = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    if len(raw) - header != expected:
        raise _bad(path, f"shape {shape} needs {expected} data bytes, found {len(raw) - header}")
    values = np.frombuffer(raw, dtype, offset=header).reshape(shape)
    return values.astype(dtype.newbyteorder("="))


def write(path: str, array: np.ndarray, compress: bool = False) -> None:
    """Writes `array` as an IDX file (gzip-compressed if `compress`), atomically."""
    array = np.asarray(array)
    code = _CODES.get(array.dtype.newbyteorder("=").str)
    if code is None:
        raise errors.InvalidArgumentError(f"IDX cannot store dtype {array.dtype.name}")
    header = bytes([0, 0, code, array.ndim]) + struct.pack(f">{array.ndim}I", *array.shape)
    data = header + array.astype(_TYPES[code]).tobytes()
    if compress:
        data = gzip.compress(data)
    directory = os.path.dirname(os.path.abspath(path))
    handle, temporary = tempfile.mkstemp(dir=directory, suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


def find(directory: str) -> dict | None:
    """The paths of the four files in `directory` (``.gz`` or not), or None if any lacks."""
    found = {}
    for role, name in FILES.items():
        for candidate in (name + ".gz", name):
            path = os.path.join(directory, candidate)
            if os.path.isfile(path):
                found[role] = path
                break
        else:
            return None
    return found


def load_split(paths: dict, image_shape: tuple) -> tuple:
    """Reads the four files into ``(x_train, y_train), (x_test, y_test)``, checked.

    Raises:
        InvalidArgumentError: for images that are not uint8 of `image_shape`, labels
            that are not uint8 vectors, or counts that differ.
    """
    arrays = {role: read(path) for role, path in paths.items()}
    check_split(arrays, image_shape, paths)
    return (arrays["x_train"], arrays["y_train"]), (arrays["x_test"], arrays["y_test"])


def check_split(arrays: dict, image_shape: tuple, sources) -> None:
    """Validates images/labels arrays (shared by the IDX and the .npz readers)."""
    for part in ("train", "test"):
        x, y = arrays[f"x_{part}"], arrays[f"y_{part}"]
        where = sources[f"x_{part}"] if isinstance(sources, dict) else sources
        if x.dtype != np.uint8 or x.shape[1:] != image_shape or x.ndim != 1 + len(image_shape):
            raise errors.InvalidArgumentError(
                f"{where}: x_{part} must be uint8 images of shape (n, "
                f"{', '.join(map(str, image_shape))}), got {x.dtype.name} {x.shape}"
            )
        where = sources[f"y_{part}"] if isinstance(sources, dict) else sources
        if y.dtype != np.uint8 or y.ndim != 1 or len(y) != len(x):
            raise errors.InvalidArgumentError(
                f"{where}: y_{part} must be {len(x)} uint8 labels (one per image), got "
                f"{y.dtype.name} {y.shape}"
            )
        if y.size and y.max() > 9:
            raise errors.InvalidArgumentError(
                f"{where}: y_{part} must hold labels 0-9, found {int(y.max())}"
            )
