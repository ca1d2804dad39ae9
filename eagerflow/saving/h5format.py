"""The checkpoint file format: plain HDF5, one dataset per variable at its object path.

Layout (format version 2)::

    /                         attrs: format="eagerflow-checkpoint", format_version="2",
                                     eagerflow_version=<eagerflow.__version__>,
                                     kind="checkpoint" | "weights" | "model" |
                                          "saved_model",
                                     manifest_sha256=<hex SHA-256 of the manifest>
    /model/dense1/kernel      dataset, the variable's dtype and shape, contiguous,
                              uncompressed; attrs: dtype="float32", shape="[3, 4]"
    /optimizer/slots/model/dense1/kernel/m    an optimizer slot (see `graph`)
    /save_counter             int64 scalar (files written by `Checkpoint.save`)
    /.eagerflow/<name>        uint8 datasets: UTF-8 metadata (``model_config`` holds the
                              JSON architecture of files written by `save_model`)
    /.eagerflow/manifest      uint8 dataset: the checksum manifest (JSON)

**Everything a load reads is checksummed, and each checksum is bound to its key.** The
manifest lists the root attributes and, for every dataset, its key, its dtype (with byte
order), its shape and the CRC-32 (and CRC-32C with the ``fast`` extra) of its bytes, and,
for every metadata blob (model config, compile config, layer state), its name, size and
CRCs. The root attribute ``manifest_sha256`` is the SHA-256 of the manifest's bytes. A
reader verifies the digest, then that the file holds exactly the datasets and blobs the
manifest lists with exactly its dtypes and shapes, and each CRC when the bytes are read.
So a flipped bit anywhere a load looks, a renamed dataset, one copied (with its CRC) from
another file, or a file stripped of its checksums is refused, naming the file. Checksums
detect corruption and mixing, not forgery: someone who rewrites the manifest and its
digest can make any file (see the Security model guide).

Version 1 files (tensor checksums only, as per-dataset attributes) are refused with a
message saying so: their configs and metadata cannot be verified.

Every attribute is a string. The reader trusts nothing in the file: it reads only string
attributes and numeric datasets (bool, int, uint, float, complex), never pickles or
evaluates anything, and rejects object/string/compound datasets, external or virtual
storage, compressed or incompletely written data, and shapes larger than the file.

Examples:
    >>> import os, tempfile, numpy as np
    >>> from eagerflow.saving import h5format
    >>> path = os.path.join(tempfile.mkdtemp(), "demo.h5")
    >>> _ = h5format.write(path, {"model/w": np.ones((2, 3), np.float32)}, kind="weights")
    >>> with h5format.Reader(path) as reader:
    ...     print(reader.kind, reader.entries["model/w"])
    weights Entry(shape=(2, 3), dtype=dtype('float32'))
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import math
import os
import shutil
import stat
import zlib
from collections.abc import Iterator
from concurrent import futures
from typing import NamedTuple, NoReturn

import h5py
import numpy as np

from eagerflow.core import dtypes, errors
from eagerflow.saving import fileio, h5safe, load_budget

FORMAT = "eagerflow-checkpoint"
FORMAT_VERSION = 2
META = ".eagerflow"
MANIFEST = "manifest"  # the checksum manifest's metadata name (reserved)
MANIFEST_DIGEST = "manifest_sha256"  # the root attribute holding the manifest's SHA-256
STRINGS = "text_entries"  # metadata: {key: shape} of the entries that hold packed text
KINDS = ("checkpoint", "weights", "model", "saved_model")
_NUMERIC_KINDS = frozenset("biufc")  # bool, int, uint, float, complex
# Reads go in pieces this large, each checksummed while it is still in the CPU cache.
_PIECE = 1 << 20


class InvalidCheckpointError(errors.InvalidArgumentError):
    """The file is not a readable eagerflow checkpoint (corrupt, truncated, hostile, or from
    an unknown format version). The message names the file.

    Examples:
        >>> import os, tempfile
        >>> import eagerflow as ef
        >>> path = os.path.join(tempfile.mkdtemp(), "junk.h5")
        >>> _ = open(path, "wb").write(b"junk")
        >>> try:
        ...     ef.saving.list_variables(path)
        ... except ef.saving.InvalidCheckpointError as e:
        ...     print(str(e).rsplit("/", 1)[1])
        junk.h5' is not an HDF5 file (4 bytes, no HDF5 signature).
    """


class Entry(NamedTuple):
    """Shape and dtype of one saved variable.

    Examples:
        >>> import numpy as np
        >>> from eagerflow.saving.h5format import Entry
        >>> Entry((3, 4), np.dtype("float32")).shape
        (3, 4)
    """

    shape: tuple
    dtype: np.dtype | dtypes.StringDType  # ef.string for text entries


def _eagerflow_version() -> str:
    import eagerflow

    return eagerflow.__version__


_SIGNATURE = b"\x89HDF\r\n\x1a\n"


def _signature_offset(f, size: int) -> int | None:
    # The signature sits at offset 0, or 512, 1024, 2048, ... after a user block. Read
    # here rather than with h5py.is_hdf5, which opens the file (and may try to lock it).
    offset = 0
    while offset + len(_SIGNATURE) <= size:
        f.seek(offset)
        if f.read(len(_SIGNATURE)) == _SIGNATURE:
            return offset
        offset = 512 if offset == 0 else offset * 2
    return None


# Where the superblock's base and end-of-file addresses sit, by superblock version: versions
# 0 and 1 keep the size of an address at byte 13 and the base address at byte 24 (28 in
# version 1), then the free-space and end-of-file addresses; versions 2 and 3 keep the size
# at byte 9 and the base, extension and end-of-file addresses from byte 12.
_SUPERBLOCK = {0: (13, 24, 2), 1: (13, 28, 2), 2: (9, 12, 2), 3: (9, 12, 2)}


def superblock_problem(path: str) -> str | None:
    """What is wrong with an HDF5 file's superblock before HDF5 reads it, or None: no
    signature, an unknown superblock version, or an end-of-file address that does not
    match the file's size. Files are written whole and replaced atomically, so their end of
    file is their size; a mismatch means a truncated, extended or corrupted file, which
    HDF5 could otherwise walk for a long time.

    Examples:
        >>> import os, tempfile, numpy as np
        >>> from eagerflow.saving import h5format
        >>> path = h5format.write(os.path.join(tempfile.mkdtemp(), "w.h5"),
        ...                       {"w": np.ones(2, np.float32)}, kind="weights")
        >>> h5format.superblock_problem(path) is None
        True
        >>> with open(path, "ab") as f:
        ...     _ = f.write(b"appended")
        >>> h5format.superblock_problem(path)[:60]
        'is truncated or corrupted: its HDF5 superblock says the file'
    """
    # Opened without blocking and checked on the open file: a FIFO or a device named like
    # a checkpoint is refused, never read (that would block or never end).
    descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    with os.fdopen(descriptor, "rb") as f:
        status = os.fstat(f.fileno())
        if not stat.S_ISREG(status.st_mode):
            return "is not a regular file (a FIFO, device or directory)"
        size = status.st_size
        start = _signature_offset(f, size)
        if start is None:
            return f"is not an HDF5 file ({size} bytes, no HDF5 signature)"
        f.seek(start)
        head = f.read(64)
    layout = _SUPERBLOCK.get(head[8]) if len(head) > 8 else None
    if layout is None:
        version = head[8] if len(head) > 8 else None
        return f"is corrupted: its HDF5 superblock has unknown version {version}"
    width_at, base_at, eof_index = layout
    width = head[width_at] if len(head) > width_at else 0
    end = base_at + (eof_index + 1) * width
    if width not in (2, 4, 8) or len(head) < end:
        return f"is corrupted: its HDF5 superblock declares addresses of {width} bytes"
    base = int.from_bytes(head[base_at:base_at + width], "little")
    eof = int.from_bytes(head[end - width:end], "little")
    if base != start or eof != size:
        return (f"is truncated or corrupted: its HDF5 superblock says the file ends at byte "
                f"{eof} (base address {base}), but it has {size} bytes")
    return None


# Files are written in HDF5 1.10's format (superblock version 3, version 2 object headers):
# in it every piece of HDF5's own metadata carries a checksum that HDF5 verifies before it
# parses it, so a corrupted object header or index is refused instead of being walked. In
# the older default format one flipped bit of an attribute header crashed h5py, and
# checksummed files refuse ~94% of random flips in a many-variable checkpoint instead of
# ~46% (the rest changed nothing a load reads; see tests/security/test_bit_flips.py). Any
# HDF5 since 1.10 (2017) reads them.
LIBVER = ("v110", "v110")


def _create(path: str):
    # Writing only: every read goes through `h5safe.open_file`. No HDF5 file locking: files
    # are replaced atomically, never written in place, so locks add no safety, and they
    # fail on NFS and Lustre ("unable to lock file"). Old HDF5 libraries lack the option.
    try:
        return h5py.File(path, "w", locking=False, libver=LIBVER)
    except (TypeError, ValueError) as e:
        if "locking" not in str(e):
            raise
        return h5py.File(path, "w", libver=LIBVER)


def _load_crc32c():
    try:
        import crc32c
    except ImportError:
        return None
    return crc32c


# The optional extra ``eagerflow[fast]``: hardware CRC-32C (SSE4.2 / ARMv8 CRC instructions,
# ~20 GB/s here against zlib's ~2.5 GB/s). Without it every read verifies the zlib CRC-32
# that every file also carries: the same guarantee, the documented slower path.
_crc32c = _load_crc32c()


def _bytes_of(array: np.ndarray) -> memoryview:
    return memoryview(array.reshape(-1)).cast("B")  # type: ignore[arg-type]  # (a buffer)


def crc32(array: np.ndarray) -> int:
    """The CRC-32 of a C-contiguous array's bytes (zlib's; it releases the GIL).

    Examples:
        >>> import numpy as np
        >>> from eagerflow.saving import h5format
        >>> h5format.crc32(np.zeros(4, np.uint8))
        558161692
    """
    return zlib.crc32(_bytes_of(array)) if array.size else 0


def crc32c(array: np.ndarray) -> int:
    """The CRC-32C (Castagnoli, TensorFlow's checkpoint checksum) of a C-contiguous array's
    bytes, computed by the ``crc32c`` package (``pip install eagerflow[fast]``).

    Raises:
        ModuleNotFoundError: when the package is not installed (`has_crc32c` says so).

    Examples:
        >>> import numpy as np
        >>> from eagerflow.saving import h5format
        >>> h5format.crc32c(np.zeros(4, np.uint8)) if h5format.has_crc32c() else 1214729159
        1214729159
    """
    if _crc32c is None:
        raise ModuleNotFoundError(
            "h5format.crc32c: the 'crc32c' package is not installed; install it with "
            "`pip install 'eagerflow[fast]'` (or `pip install crc32c`).")
    return _crc32c.crc32c(_bytes_of(array)) if array.size else 0


def has_crc32c() -> bool:
    """Whether reads verify the fast hardware CRC-32C (the ``crc32c`` package is installed)
    rather than zlib's CRC-32.

    Examples:
        >>> from eagerflow.saving import h5format
        >>> h5format.has_crc32c() in (True, False)
        True
    """
    return _crc32c is not None


def _checksums_of(array: np.ndarray) -> dict:
    """The checksum attributes of a C-contiguous array. zlib's CRC-32 always, so that any
    install can verify the file; the CRC-32C too when the fast extra is installed, so that
    reads on installs with it are nearly free."""
    sums = {"crc32": np.uint32(crc32(array))}
    if _crc32c is not None:
        sums["crc32c"] = np.uint32(crc32c(array))
    return sums


def text_attr(value: str) -> np.bytes_:
    """A string attribute value stored inline, as fixed-length UTF-8 bytes: h5py stores a
    Python `str` as a variable-length string in HDF5's global heap, the one piece of HDF5
    metadata without a checksum (a flipped bit there made HDF5 loop for minutes). Plain
    h5py reads these as bytes (``.decode()`` them); `Reader` decodes them.

    Examples:
        >>> from eagerflow.saving import h5format
        >>> h5format.text_attr("float32")
        np.bytes_(b'float32')
    """
    return np.bytes_(value.encode("utf-8"))


def _write_dataset(h5file, key: str, array: np.ndarray) -> None:
    # Contiguous and uncompressed: h5py writes straight from the array's buffer, so a save
    # costs about what numpy.save costs (see benchmarks/bench_checkpoint.py).
    dataset = h5file.create_dataset(key, data=array)
    dataset.attrs["dtype"] = text_attr(array.dtype.name)
    dataset.attrs["shape"] = text_attr(json.dumps(list(array.shape)))


def encode_manifest(manifest: dict) -> tuple[bytes, str]:
    """The canonical bytes of a checksum manifest (sorted keys, no spaces) and their
    SHA-256 in hex: what a file stores, and the digest that binds it.

    Examples:
        >>> from eagerflow.saving import h5format
        >>> blob, digest = h5format.encode_manifest({"b": 1, "a": [2]})
        >>> blob, len(digest)
        (b'{"a":[2],"b":1}', 64)
    """
    blob = json.dumps(manifest, sort_keys=True, separators=(",", ":")).encode("utf-8")
    return blob, hashlib.sha256(blob).hexdigest()


def _sums_record(sums: dict, **fields) -> dict:
    return {**fields, **{name: int(value) for name, value in sums.items()}}


def write(path, arrays: dict, kind: str, metadata: dict | None = None) -> str:
    """Writes `arrays` (``{object path: ndarray}``) to `path`, atomically and durably.

    Every tensor and metadata blob is checksummed (CRC-32, and CRC-32C when the ``crc32c``
    package is installed) in the file's manifest, which a SHA-256 root attribute binds
    (see the module docstring).

    Args:
        path: the file to write; parent directories are created.
        arrays: ``{path: ndarray}``; paths are ``/``-separated escaped components.
        kind: ``"checkpoint"``, ``"weights"``, ``"model"`` or ``"saved_model"`` (an
            `ef.saved_model` export).
        metadata: optional ``{name: bytes}`` stored under ``/.eagerflow/`` (the name
            ``"manifest"`` is reserved).

    Raises:
        InvalidArgumentError: if a metadata blob is named ``"manifest"``.

    Returns:
        The path written, as a string.

    Examples:
        >>> import os, tempfile, numpy as np
        >>> from eagerflow.saving import h5format
        >>> path = os.path.join(tempfile.mkdtemp(), "w.h5")
        >>> h5format.write(path, {"w": np.zeros(2, np.float32)}, kind="weights") == path
        True
    """
    def write_h5(tmp):
        try:
            write_file(tmp)
        except (RuntimeError, OSError) as e:  # h5py reports a full disk as RuntimeError
            raise _write_error(path, e) from e

    def write_file(tmp):
        contiguous = {key: array if array.flags.c_contiguous else array.copy(order="C")
                      for key, array in packed.items()}  # (ascontiguousarray makes 0-d 1-d)
        header = {"format": FORMAT, "format_version": str(FORMAT_VERSION),
                  "eagerflow_version": _eagerflow_version(), "kind": kind}
        # The checksums are computed on a worker thread (zlib and crc32c release the GIL)
        # while HDF5 writes the arrays on this one.
        with _create(tmp) as h5file, futures.ThreadPoolExecutor(max_workers=1) as pool:
            sums = {key: pool.submit(_checksums_of, array) for key, array in contiguous.items()}
            for name, value in header.items():
                h5file.attrs[name] = text_attr(value)
            for key, array in contiguous.items():
                _write_dataset(h5file, key, array)
            blobs = {name: np.frombuffer(blob, np.uint8) for name, blob in blob_of.items()}
            for name, data in blobs.items():
                h5file.create_dataset(f"{META}/{name}", data=data)
            manifest = {**header, "entries": {
                key: _sums_record(sums[key].result(), dtype=array.dtype.str,
                                  shape=list(array.shape))
                for key, array in contiguous.items()}, "metadata": {
                name: _sums_record(_checksums_of(data), size=len(data))
                for name, data in blobs.items()}}
            text, digest = encode_manifest(manifest)
            h5file.create_dataset(f"{META}/{MANIFEST}", data=np.frombuffer(text, np.uint8))
            h5file.attrs[MANIFEST_DIGEST] = text_attr(digest)

    blob_of = dict(metadata or {})
    if MANIFEST in blob_of or STRINGS in blob_of:
        raise errors.InvalidArgumentError(
            f"h5format.write({os.fspath(path)!r}): the metadata names {MANIFEST!r} and "
            f"{STRINGS!r} are reserved for the checksum manifest and the text entries.")
    texts = {key: list(array.shape) for key, array in arrays.items() if array.dtype.kind == "O"}
    packed = {key: pack_strings(array, key) if key in texts else array
              for key, array in arrays.items()}
    if texts:
        blob_of[STRINGS] = json.dumps(texts, sort_keys=True).encode("utf-8")
    return fileio.atomic_write(path, write_h5)


def pack_strings(array: np.ndarray, key: str = "the array") -> np.ndarray:
    """A text array (`ef.string`: `bytes` elements) as one uint8 array: the byte length of
    each element (little-endian int64), then their bytes, in C order. Files store text this
    way, as numbers the one safe reader already checks (no variable-length HDF5 strings).

    Raises:
        InvalidArgumentError: if an element is not `bytes`.

    Examples:
        >>> import numpy as np
        >>> from eagerflow.saving import h5format
        >>> packed = h5format.pack_strings(np.array([b"ab", b""], dtype=object))
        >>> packed.dtype, len(packed), bytes(packed[16:])
        (dtype('uint8'), 18, b'ab')
    """
    items = array.reshape(-1).tolist()
    if not all(type(item) is bytes for item in items):
        bad = next(item for item in items if type(item) is not bytes)
        raise errors.InvalidArgumentError(
            f"{key}: text to save must hold bytes (ef.string); found {type(bad).__name__} "
            f"{bad!r:.60}")
    lengths = np.array([len(item) for item in items], "<i8")
    return np.concatenate([lengths.view(np.uint8), np.frombuffer(b"".join(items), np.uint8)])


def unpack_strings(packed: np.ndarray, shape: tuple, where: str) -> np.ndarray:
    """The inverse of `pack_strings`, for bytes from a file: every length is checked
    against what is there before anything is sliced.

    Raises:
        ValueError: naming `where` when the lengths do not add up to the bytes stored.

    Examples:
        >>> import numpy as np
        >>> from eagerflow.saving import h5format
        >>> h5format.unpack_strings(h5format.pack_strings(np.array([b"ab", b""], object)),
        ...                         (2,), "x")
        array([b'ab', b''], dtype=object)
    """
    count = math.prod(shape)  # Python ints: a forged shape cannot wrap around
    if packed.ndim != 1 or packed.size < 8 * count:
        raise ValueError(f"{where}: {packed.size} bytes cannot hold the lengths of {count} "
                         "strings")
    lengths = packed[:8 * count].view("<i8").astype(np.int64)
    data = packed[8 * count:]
    if (lengths < 0).any() or int(lengths.sum()) != data.size:
        raise ValueError(f"{where}: the string lengths do not add up to the {data.size} "
                         "bytes stored")
    ends = np.cumsum(lengths)
    blob = data.tobytes()
    out = np.empty(count, dtype=object)
    out[:] = [blob[end - length:end] for end, length in zip(ends.tolist(), lengths.tolist())]
    return out.reshape(shape)


def _write_error(path, error) -> OSError:
    """The error of a failed save: an `OSError` naming the file, with a hint when the disk
    (or the process's file-size limit) is the likely cause."""
    path = os.fspath(path)
    code = getattr(error, "errno", None)
    hint = ""
    try:
        free = shutil.disk_usage(os.path.dirname(os.path.abspath(path))).free
    except OSError:
        free = None
    if code in (errno.ENOSPC, errno.EFBIG, errno.EDQUOT) or _file_size_limited() or (
            free is not None and free < 64 << 20):
        hint = " The disk is full (or a file-size or quota limit was reached)."
        code = code or errno.ENOSPC
    return OSError(code or errno.EIO, f"Cannot save checkpoint {path!r}: {error}.{hint} The "
                   "previous file at that path, if any, is unchanged.", path)


def _file_size_limited() -> bool:
    try:
        import resource
    except ImportError:  # not on Windows
        return False
    soft, _ = resource.getrlimit(resource.RLIMIT_FSIZE)
    return soft != resource.RLIM_INFINITY


class Reader:
    """Opens and validates a checkpoint file; reads variables on request.

    Args:
        path: the file.
        describe: how errors name the file (``"Checkpoint file"``; an `ef.saved_model`
            load says ``"Saved model file"``).

    Attributes:
        path: the file path.
        kind: ``"checkpoint"``, ``"weights"``, ``"model"`` or ``"saved_model"``.
        eagerflow_version: the version that wrote the file.
        entries: ``{object path: Entry}`` for every saved variable.

    Raises:
        NotFoundError: if the file does not exist, also when it is deleted while being
            opened.
        InvalidCheckpointError: if it is not HDF5, is truncated or corrupt, is not an
            eagerflow checkpoint, has an unknown format version, or holds a dataset or
            attribute the format does not allow.

    Examples:
        >>> import os, tempfile, numpy as np
        >>> from eagerflow.saving import h5format
        >>> path = h5format.write(os.path.join(tempfile.mkdtemp(), "w.h5"),
        ...                       {"w": np.arange(3, dtype=np.int64)}, kind="checkpoint")
        >>> with h5format.Reader(path) as reader:
        ...     reader.read("w")
        array([0, 1, 2])
    """

    def __init__(self, path, describe: str = "Checkpoint file"):
        self.path = os.fspath(path)
        self._describe = describe
        if not os.path.lexists(self.path):
            raise errors.NotFoundError(f"{describe} {self.path!r} does not exist.")
        try:
            problem = superblock_problem(self.path)  # before HDF5 walks a damaged file
        except FileNotFoundError as e:
            raise self._vanished() from e
        if problem is not None:
            raise InvalidCheckpointError(f"{describe} {self.path!r} {problem}.")
        try:  # links, external and virtual storage, filters, dtypes, sizes: checked there
            self._file = h5safe.open_file(self.path, describe, InvalidCheckpointError)
        except FileNotFoundError as e:
            # It vanished after that check (a manager in another process rotating it out):
            # a missing file, not a corrupted one.
            raise self._vanished() from e
        self._file_size = os.fstat(self._file.id.get_vfd_handle()).st_size
        try:
            with self._corruption("its structure cannot be read"):
                self._check_header()
                self.entries, self._metadata = self._index()
                self._manifest = self._verify_manifest()
                self._texts = self._text_entries()
        except BaseException:
            self._file.close()
            raise

    def _vanished(self) -> errors.NotFoundError:
        return errors.NotFoundError(
            f"{self._describe} {self.path!r} does not exist (it was deleted while being "
            "opened).")

    # -- validation -------------------------------------------------------------------
    def _fail(self, message: str) -> NoReturn:
        raise InvalidCheckpointError(f"{self._describe} {self.path!r}: {message}")

    @contextlib.contextmanager
    def _corruption(self, what: str) -> Iterator[None]:
        """Turns what h5py raises on a corrupted file (bare KeyError, OSError, ... from
        deep inside HDF5) into an `InvalidCheckpointError` naming the file."""
        try:
            yield
        except errors.OpError:
            raise
        except (OSError, RuntimeError, KeyError, ValueError, TypeError, AttributeError,
                IndexError, UnicodeError) as e:
            self._fail(f"{what}; the file is corrupted ({type(e).__name__}: {e}).")

    def _string_attr(self, obj, name: str, where: str) -> str | None:
        try:
            value = obj.attrs.get(name)
        except (OSError, TypeError, ValueError) as e:
            self._fail(f"attribute {name!r} of {where} cannot be read ({e}).")
        if value is None:
            return None
        if isinstance(value, bytes):
            try:
                return value.decode("utf-8")
            except UnicodeDecodeError:
                self._fail(f"attribute {name!r} of {where} is not UTF-8 text.")
        if not isinstance(value, str):
            self._fail(
                f"attribute {name!r} of {where} must be a string; it holds "
                f"{type(value).__name__} data, which is never loaded."
            )
        return value

    def _check_header(self) -> None:
        fmt = self._string_attr(self._file, "format", "the root group")
        if fmt != FORMAT:
            self._fail(
                f"not an eagerflow checkpoint (root attribute 'format' is {fmt!r}, expected "
                f"{FORMAT!r})."
            )
        version = self._string_attr(self._file, "format_version", "the root group")
        if version is None or not version.isdigit():
            self._fail(f"root attribute 'format_version' is {version!r}, expected an integer.")
        if int(version) == 1:
            self._fail(
                "format version 1 (eagerflow before file-level checksums) is no longer "
                "loaded: its configs and metadata carry no checksums, so corruption there "
                "cannot be detected. Save the objects again with this eagerflow from their "
                "source, or load the file with the eagerflow that wrote it and save it again "
                "with this one.")
        if int(version) != FORMAT_VERSION:
            self._fail(
                f"format version {version} is not supported: this eagerflow reads version "
                f"{FORMAT_VERSION}. "
                + ("Upgrade eagerflow to read it." if int(version) > FORMAT_VERSION else "")
            )
        self.eagerflow_version = self._string_attr(self._file, "eagerflow_version",
                                                   "the root group") or "unknown"
        self.kind = self._string_attr(self._file, "kind", "the root group")
        if self.kind not in KINDS:
            self._fail(f"root attribute 'kind' is {self.kind!r}, expected one of {KINDS}.")

    def _check_dataset(self, key: str, dataset) -> Entry:
        where = f"dataset {key!r}"
        if dataset.shape is None:
            self._fail(f"{where} has a null dataspace (no data at all); the file was not "
                       "written by eagerflow or was altered.")
        dtype = dataset.dtype
        if dtype.kind not in _NUMERIC_KINDS or dtype.fields is not None:
            self._fail(
                f"{where} has dtype {dtype} (kind {dtype.kind!r}); only numeric datasets are "
                "loaded, never object, string or compound data."
            )
        shape = tuple(int(n) for n in dataset.shape)
        declared_dtype = self._string_attr(dataset, "dtype", where)
        declared_shape = self._string_attr(dataset, "shape", where)
        if declared_dtype != dtype.name:
            self._fail(f"{where} holds {dtype.name} data but its 'dtype' attribute says "
                       f"{declared_dtype!r}.")
        if declared_shape is None or _parse_shape(declared_shape) != shape:
            self._fail(f"{where} has shape {shape} but its 'shape' attribute says "
                       f"{str(declared_shape)[:200]!r}.")
        # Native byte order: HDF5 converts on read, so a big-endian file loads as well.
        return Entry(shape, dtype.newbyteorder("="))

    def _index(self):
        entries, metadata, found = {}, {}, []
        self._datasets = {}

        def visit(key, obj):
            if isinstance(obj, h5py.Dataset):
                found.append((key, obj))

        try:
            self._file.visititems(visit)
        except (OSError, RuntimeError, KeyError) as e:
            self._fail(f"the object tree is corrupted ({e}).")
        for key, dataset in found:
            if not isinstance(key, str):  # h5py gives names that are not UTF-8 as bytes
                self._fail(f"the object name {key!r} is not UTF-8 text; the file is "
                           "corrupted.")
            if key.split("/", 1)[0] == META:
                if dataset.shape is None or dataset.dtype != np.uint8 or dataset.ndim != 1:
                    self._fail(f"metadata dataset {key!r} must be 1-D uint8 text.")
                metadata[key.split("/", 1)[1]] = dataset
            else:
                entries[key] = self._check_dataset(key, dataset)
                self._datasets[key] = dataset
        return entries, metadata

    def _verify_manifest(self) -> dict:
        """Checks the manifest against its digest, then the file's header, datasets and
        metadata against the manifest (CRCs are checked when the bytes are read); returns
        the manifest."""
        lost = ("; files written by eagerflow always carry one, so its checksums were "
                "removed or it was written by another tool. It is not loaded.")
        digest = self._string_attr(self._file, MANIFEST_DIGEST, "the root group")
        if digest is None:
            self._fail(f"the root attribute {MANIFEST_DIGEST!r} (the checksum manifest's "
                       f"digest) is missing{lost}")
        if MANIFEST not in self._metadata:
            self._fail(f"the checksum manifest (dataset '{META}/{MANIFEST}') is missing{lost}")
        blob = self._read_blob(MANIFEST, self._metadata.pop(MANIFEST))
        if hashlib.sha256(blob).hexdigest() != digest:
            self._fail("the checksum manifest does not match its SHA-256 digest: the file is "
                       "corrupted (a changed byte, a bad disk or transfer).")
        manifest = fileio.loads_json(blob.decode("utf-8", "replace"),
                                     f"{self._describe} {self.path!r}: the checksum manifest",
                                     InvalidCheckpointError)
        if not isinstance(manifest, dict) or not isinstance(manifest.get("entries"), dict) \
                or not isinstance(manifest.get("metadata"), dict):
            self._fail("the checksum manifest is not a manifest document.")
        header = {"format": FORMAT, "format_version": str(FORMAT_VERSION),
                  "eagerflow_version": self.eagerflow_version, "kind": self.kind}
        for name, value in header.items():
            if manifest.get(name) != value:
                self._fail(f"root attribute {name!r} is {value!r}, but the checksum manifest "
                           f"records {manifest.get(name)!r}.")
        self._match("dataset", manifest["entries"], self._datasets)
        self._match("metadata", manifest["metadata"], self._metadata)
        for key, dataset in self._datasets.items():
            record = manifest["entries"][key]
            if not isinstance(record, dict) or record.get("dtype") != dataset.dtype.str \
                    or record.get("shape") != list(self.entries[key].shape):
                self._fail(f"dataset {key!r} holds {dataset.dtype.str} data of shape "
                           f"{self.entries[key].shape}, but the checksum manifest records "
                           f"{record!r}.")
        for name, dataset in self._metadata.items():
            record = manifest["metadata"][name]
            if not isinstance(record, dict) or record.get("size") != dataset.shape[0]:
                self._fail(f"metadata {name!r} holds {dataset.shape[0]} bytes, but the "
                           f"checksum manifest records {record!r}.")
        for what, records in (("dataset", manifest["entries"]),
                              ("metadata", manifest["metadata"])):
            for key, record in records.items():
                if not all(isinstance(record.get(name), int) and 0 <= record[name] < 1 << 32
                           for name in ("crc32", *(("crc32c",) if "crc32c" in record else ()))):
                    self._fail(f"the checksum manifest records no valid CRC-32 for {what} "
                               f"{key!r}.")
        return manifest

    def _match(self, what: str, recorded: dict, found: dict) -> None:
        """Fails unless the file holds exactly the `what` keys the manifest lists."""
        extra = sorted(set(found) - set(recorded))
        absent = sorted(set(recorded) - set(found))
        if extra:
            self._fail(f"{what} {extra[0]!r} is not in the checksum manifest (renamed, added "
                       "or copied from another file).")
        if absent:
            self._fail(f"the checksum manifest lists {what} {absent[0]!r}, which the file "
                       "does not hold (removed or renamed).")

    def _crc_of(self, record: dict):
        """``(incremental checksum function, stored value)``: the fastest CRC this install
        can verify for a manifest record."""
        if "crc32c" in record and _crc32c is not None:
            return _crc32c.crc32c, record["crc32c"]
        return zlib.crc32, record["crc32"]

    # -- reading ----------------------------------------------------------------------
    def read_into(self, key: str, out: np.ndarray) -> None:
        """Reads entry `key` into `out` (same shape and dtype, C-contiguous) in place.

        Examples:
            >>> import os, tempfile, numpy as np
            >>> from eagerflow.saving import h5format
            >>> path = h5format.write(os.path.join(tempfile.mkdtemp(), "w.h5"),
            ...                       {"w": np.ones(2, np.float32)}, kind="checkpoint")
            >>> out = np.zeros(2, np.float32)
            >>> with h5format.Reader(path) as reader:
            ...     reader.read_into("w", out)
            >>> out
            array([1., 1.], dtype=float32)
        """
        with self._corruption(f"dataset {key!r} cannot be located"):
            offset = self._offset_of(key, out)
        self._read_checked(key, out, self._checksum_of(key), offset)

    def _checksum_of(self, key: str):
        """``(incremental checksum function, stored value)`` of entry `key`."""
        return self._crc_of(self._manifest["entries"][key])

    def _offset_of(self, key: str, out: np.ndarray):
        """The byte offset of `key`'s data in the file when it can be read with ``os.preadv``
        (contiguous storage in `out`'s own dtype, an OS with ``preadv``); otherwise None and
        HDF5 reads it (chunked or compact storage, a byte order to convert)."""
        dataset = self._datasets[key]
        if not hasattr(os, "preadv") or dataset.dtype != out.dtype or not out.nbytes:
            return None
        offset = dataset.id.get_offset()
        if offset is not None and offset + out.nbytes > self._file_size:
            self._fail(f"dataset {key!r} lies past the end of the file (bytes {offset} to "
                       f"{offset + out.nbytes} of {self._file_size}); it is truncated.")
        return offset

    def _read_checked(self, key: str, out: np.ndarray, checksum, offset) -> None:
        """Reads `key` into `out` and verifies its checksum.

        With an `offset`, the bytes are read with ``os.preadv`` on the file HDF5 holds open
        (the bytes HDF5 itself would copy) in pieces of `_PIECE` bytes, each checksummed
        while it is still in the CPU cache; neither call holds the GIL, so `read_all` reads
        two entries on two cores at once. Otherwise HDF5 reads (and converts) the whole
        entry, and the checksum is of the bytes as stored (in the file's byte order)."""
        value = 0
        if offset is None:
            dataset = self._datasets[key]
            try:
                dataset.id.read(h5py.h5s.ALL, h5py.h5s.ALL, out)
            except (OSError, RuntimeError, ValueError, TypeError) as e:
                self._fail(f"dataset {key!r} cannot be read; the file is corrupted ({e}).")
            if out.size:
                stored = out if dataset.dtype == out.dtype else out.astype(dataset.dtype)
                value = checksum[0](_bytes_of(np.ascontiguousarray(stored)))
        else:
            fd = self._file.id.get_vfd_handle()
            view = _bytes_of(out)
            done = 0
            while done < len(view):
                try:
                    count = os.preadv(fd, [view[done:done + _PIECE]], offset + done)
                except OSError as e:  # EIO from a bad disk, a vanished network mount...
                    self._fail(f"dataset {key!r} cannot be read ({e}).")
                if count == 0:
                    self._fail(f"dataset {key!r} ends early: {done} of {len(view)} bytes "
                               "read.")
                value = checksum[0](view[done:done + count], value)
                done += count
        if value != checksum[1]:
            self._fail(f"the data of variable {key!r} does not match its checksum: the file "
                       "is corrupted (a changed byte, a bad disk or transfer).")

    def _text_entries(self) -> dict:
        """``{key: shape}`` of the entries that hold text (packed by `pack_strings`), from
        the sealed metadata blob; each is checked against its uint8 dataset, and its entry
        then shows the text's shape and `ef.string`."""
        blob = self.metadata(STRINGS)
        if blob is None:
            return {}
        try:
            texts = json.loads(blob.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError):
            self._fail(f"metadata {STRINGS!r} is not a JSON object of text entries.")
        if not isinstance(texts, dict):
            self._fail(f"metadata {STRINGS!r} is not a JSON object of text entries.")
        shapes = {}
        for key, shape in texts.items():
            raw = self.entries.get(key)
            if raw is None or raw.dtype != np.uint8 or len(raw.shape) != 1:
                self._fail(f"metadata {STRINGS!r} names {key!r}, which is not a 1-D uint8 "
                           "entry of the file.")
            if not (isinstance(shape, list) and len(shape) <= 32 and all(
                    type(d) is int and 0 <= d <= raw.shape[0] // 8 for d in shape)
                    and 8 * math.prod(shape) <= raw.shape[0]):  # Python ints: no overflow
                self._fail(f"metadata {STRINGS!r} gives {key!r} the shape {shape!r:.80}, "
                           f"which its {raw.shape[0]} bytes cannot hold.")
            shapes[key] = tuple(shape)
            self.entries[key] = Entry(tuple(shape), dtypes.string)
        return shapes

    def _read_text(self, key: str) -> np.ndarray:
        packed = np.empty(self._datasets[key].shape, np.uint8)
        load_budget.charge(packed.shape, np.uint8, f"the text of {key!r} in the file")
        load_budget.charge(self._texts[key], np.dtype(object), f"the strings of {key!r}")
        self.read_into(key, packed)
        try:
            return unpack_strings(packed, self._texts[key], f"entry {key!r}")
        except ValueError as e:
            self._fail(f"{e}; the file is corrupted.")

    def read_all(self, keys) -> dict:
        """Reads and verifies entries `keys`; returns ``{key: new array}``. Two worker threads
        read and checksum entries at once (``os.preadv``, zlib and crc32c all release the
        GIL); nothing is returned unless every entry is sound.

        Raises:
            InvalidCheckpointError: naming the first entry that cannot be read or does not
                match its checksum.

        Examples:
            >>> import os, tempfile, numpy as np
            >>> from eagerflow.saving import h5format
            >>> path = h5format.write(os.path.join(tempfile.mkdtemp(), "w.h5"),
            ...                       {"a": np.ones(2, np.float32)}, kind="checkpoint")
            >>> with h5format.Reader(path) as reader:
            ...     reader.read_all(["a"])
            {'a': array([1., 1.], dtype=float32)}
        """
        values, jobs = {}, []
        keys = list(keys)
        for key in [key for key in keys if key in self._texts]:
            values[key] = self._read_text(key)
        for key in [key for key in keys if key not in self._texts]:  # metadata first
            entry = self.entries[key]
            self._charge(key, entry)
            out = values[key] = np.empty(entry.shape, entry.dtype)
            with self._corruption(f"dataset {key!r} cannot be located"):
                jobs.append((key, out, self._checksum_of(key), self._offset_of(key, out)))
        # Two threads, each reading and checksumming whole entries: measured faster than
        # one thread, and than one thread reading while another checksums (see
        # benchmarks/bench_checkpoint.py).
        with futures.ThreadPoolExecutor(max_workers=2) as pool:
            pending = [pool.submit(self._read_checked, *job) for job in jobs]
        for task in pending:
            task.result()  # re-raises the first corrupt entry's error, in key order
        return values

    def read(self, key: str) -> np.ndarray:
        """Returns entry `key` as a new array (see the class example)."""
        if key in self._texts:
            return self._read_text(key)
        entry = self.entries[key]
        self._charge(key, entry)
        out = np.empty(entry.shape, entry.dtype)
        self.read_into(key, out)
        return out

    @staticmethod
    def _charge(key: str, entry: Entry) -> None:
        # Within the budget of the load in progress, if any (see `load_budget`).
        load_budget.charge(entry.shape, entry.dtype, f"the value of {key!r} "
                           f"(shape {entry.shape}, {entry.dtype.name}) in the file")

    def metadata(self, name: str) -> bytes | None:
        """Returns the metadata blob `name` (stored under ``/.eagerflow/``), or None.

        Examples:
            >>> import os, tempfile
            >>> from eagerflow.saving import h5format
            >>> path = h5format.write(os.path.join(tempfile.mkdtemp(), "m.h5"), {}, "model",
            ...                       metadata={"note": b"hi"})
            >>> with h5format.Reader(path) as reader:
            ...     reader.metadata("note"), reader.metadata("absent")
            (b'hi', None)
        """
        dataset = self._metadata.get(name)
        if dataset is None:
            return None
        load_budget.charge(dataset.shape, np.uint8, f"metadata {name!r} in the file")
        blob = self._read_blob(name, dataset)
        function, stored = self._crc_of(self._manifest["metadata"][name])
        if function(blob) != stored:
            self._fail(f"metadata {name!r} does not match its checksum: the file is "
                       "corrupted (a changed byte, a bad disk or transfer).")
        return blob

    def _read_blob(self, name: str, dataset) -> bytes:
        out = np.empty(dataset.shape, np.uint8)
        try:
            dataset.id.read(h5py.h5s.ALL, h5py.h5s.ALL, out)
        except (OSError, RuntimeError, ValueError, TypeError) as e:
            self._fail(f"metadata {name!r} cannot be read; the file is corrupted ({e}).")
        return out.tobytes()

    def close(self) -> None:
        """Closes the file (the reader is also a context manager)."""
        self._file.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()


def _parse_shape(text: str):
    try:
        shape = fileio.loads_json(text, "shape")
    except ValueError:
        return None
    if not isinstance(shape, list) or not all(
        isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in shape
    ):
        return None
    return tuple(shape)
