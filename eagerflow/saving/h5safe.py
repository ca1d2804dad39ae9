"""The one way eagerflow opens an HDF5 file for reading: checked before anything is read.

HDF5 can make a file serve bytes that are not in it, or far more bytes than it holds:
external links and soft links (a path into another file, or a cycle), external storage
(a dataset's values kept in other files), virtual datasets (values mapped from other
files), filters (a few MB of gzip expanding to GBs), and datasets that declare a shape
but store nothing (reading one fills GBs with the fill value). Eagerflow writes none of
these, so `open_file` refuses every one of them, for the whole file, before the caller
reads a byte: checkpoints, weights and model files (`h5format`), exports
(`ef.saved_model`) and the inspection tools all open files here. A test checks that no
other module of the package opens an HDF5 file for reading.

What a file may hold after `open_file`: groups and datasets reached through hard links
only; datasets of numeric dtype (bool, int, uint, float, complex; never object,
variable-length, reference, string or compound data) stored in the file itself,
uncompressed, with every declared byte present (so no dataset is larger than the file).
Attributes are not checked here: attribute data always lies in the file, and each reader
validates the few attributes it reads (`h5format` reads only strings and checksums).

Examples:
    >>> import os, tempfile, h5py, numpy as np
    >>> from eagerflow.saving import h5safe
    >>> d = tempfile.mkdtemp()
    >>> with h5py.File(os.path.join(d, "other.h5"), "w") as f:
    ...     f["secret"] = np.arange(3)
    >>> with h5py.File(os.path.join(d, "bad.h5"), "w") as f:
    ...     f["w"] = h5py.ExternalLink("other.h5", "/secret")
    >>> try:
    ...     h5safe.open_file(os.path.join(d, "bad.h5"), "Checkpoint file", ValueError)
    ... except ValueError as e:
    ...     print(str(e).split(": ", 1)[1][:56])
    'w' is an external link to '/secret' in file 'other.h5';
"""

from __future__ import annotations

import math
import os
import stat
from typing import NoReturn

import h5py
from h5py import h5l, h5o

_SIGNATURE = b"\x89HDF\r\n\x1a\n"
_NUMERIC_KINDS = frozenset("biufc")  # bool, int, uint, float, complex
_LAYOUT_VIRTUAL = 3


def has_hdf5_signature(path: str, size: int) -> bool:
    """Whether the file starts with the HDF5 signature (at offset 0, or 512, 1024, 2048,
    ... after a user block). Read here rather than with ``h5py.is_hdf5``, which opens the
    file (and may try to lock it).

    Examples:
        >>> import os, tempfile
        >>> from eagerflow.saving import h5safe
        >>> path = os.path.join(tempfile.mkdtemp(), "x")
        >>> _ = open(path, "wb").write(b"junk")
        >>> h5safe.has_hdf5_signature(path, 4)
        False
    """
    with open(path, "rb") as f:
        offset = 0
        while offset + len(_SIGNATURE) <= size:
            f.seek(offset)
            if f.read(len(_SIGNATURE)) == _SIGNATURE:
                return True
            offset = 512 if offset == 0 else offset * 2
    return False


def _h5_open(path: str):
    # No HDF5 file locking: files are replaced atomically, never written in place, so locks
    # add no safety, and they fail on NFS and Lustre ("unable to lock file"), where
    # training clusters keep their checkpoints. Old HDF5 libraries lack the option.
    try:
        return h5py.File(path, "r", locking=False)
    except (TypeError, ValueError) as e:
        if "locking" not in str(e):
            raise
        return h5py.File(path, "r")


def open_file(path, describe: str, error: type[Exception]) -> h5py.File:
    """Opens the HDF5 file `path` read-only and checks all of it (see the module docstring).

    Args:
        path: the file; it must be a regular file (never a FIFO or a device, which could
            block or never end).
        describe: how errors name the file, e.g. ``"Checkpoint file"``.
        error: the exception class raised for a file that is not HDF5, is corrupted, or
            holds anything the module docstring does not allow (called with the message).

    Returns:
        The open ``h5py.File``; the caller closes it.

    Raises:
        FileNotFoundError: if `path` does not exist.
        error: as above; the message names the file and the offending object.

    Examples:
        >>> import os, tempfile, h5py
        >>> from eagerflow.saving import h5safe
        >>> path = os.path.join(tempfile.mkdtemp(), "ok.h5")
        >>> with h5py.File(path, "w") as f:
        ...     f["w"] = [1.0, 2.0]
        >>> with h5safe.open_file(path, "Weights file", ValueError) as f:
        ...     f["w"][()]
        array([1., 2.])
    """
    path = os.fspath(path)
    info = os.stat(path)  # FileNotFoundError names the path
    if not stat.S_ISREG(info.st_mode):
        raise error(f"{describe} {path!r} is not a regular file (a directory, FIFO or "
                    "device); only regular files are read.")
    if not has_hdf5_signature(path, info.st_size):
        raise error(f"{describe} {path!r} is not an HDF5 file ({info.st_size} bytes, no HDF5 "
                    "signature).")
    try:
        h5file = _h5_open(path)
    except OSError as e:
        raise error(f"{describe} {path!r} is truncated or corrupted and cannot be opened: "
                    f"{e}") from e
    try:
        _Checker(h5file, f"{describe} {path!r}", error, info.st_size).check()
    except BaseException:
        h5file.close()
        raise
    return h5file


class _Checker:
    # The low-level API throughout: the high-level walk (visititems_links, Group.get)
    # resolves every path again, and cost ~80 ms on a model of 124 variables.
    def __init__(self, h5file, where: str, error: type[Exception], file_size: int):
        self.file, self.where, self.error, self.file_size = h5file, where, error, file_size

    def fail(self, message: str) -> NoReturn:
        raise self.error(f"{self.where}: {message}")

    def check(self) -> None:
        fid = self.file.id
        # 1. Links first, before any object is opened through them: only hard links.
        links: list = []
        objects: list = []
        try:
            fid.links.visit(lambda name, info: links.append((name, info.type)), info=True)
        except (OSError, RuntimeError, KeyError, ValueError, TypeError) as e:
            self.fail(f"the link tree is corrupted ({e}).")
        for name, kind in links:
            if kind != h5l.TYPE_HARD:
                self._refuse_link(name.decode("utf-8", "replace"))
        # 2. Every object, each once, through hard links only now.
        try:
            h5o.visit(fid, lambda name, info: objects.append((name, info.type)), info=True)
        except (OSError, RuntimeError, KeyError, ValueError, TypeError) as e:
            self.fail(f"the object tree is corrupted ({e}).")
        for raw_name, kind in objects:
            name = raw_name.decode("utf-8", "replace")
            if kind == h5o.TYPE_GROUP:
                continue
            if kind != h5o.TYPE_DATASET:
                self.fail(f"{name!r} is a committed datatype or another object eagerflow "
                          "never writes; its files hold only groups and datasets.")
            try:
                dataset = h5o.open(fid, raw_name)
            except (OSError, RuntimeError, KeyError, ValueError) as e:
                self.fail(f"{name!r} cannot be opened; the file is corrupted ({e}).")
            self._check_dataset(name, dataset)

    def _refuse_link(self, name: str) -> NoReturn:
        try:
            link = self.file.get(name, getlink=True)
        except (OSError, RuntimeError, KeyError, ValueError, TypeError):
            link = None
        if isinstance(link, h5py.ExternalLink):
            self.fail(f"{name!r} is an external link to {link.path!r} in file "
                      f"{link.filename!r}; links to other files are never followed.")
        if isinstance(link, h5py.SoftLink):
            self.fail(f"{name!r} is a soft link to {link.path!r}; eagerflow writes none and "
                      "never follows one (it could leave the file or form a cycle).")
        self.fail(f"{name!r} is a user-defined or unreadable link; only hard links are "
                  "followed.")

    def _check_dataset(self, name: str, dataset) -> None:
        where = f"dataset {name!r}"
        try:
            dtype = dataset.dtype
            shape = dataset.shape  # None for a null dataspace
            plist = dataset.get_create_plist()
            virtual = plist.get_layout() == _LAYOUT_VIRTUAL
            external = plist.get_external_count()
            filters = [plist.get_filter(i)[0] for i in range(plist.get_nfilters())]
            stored = dataset.get_storage_size()
        except (OSError, RuntimeError, ValueError, TypeError) as e:
            self.fail(f"{where} cannot be inspected; the file is corrupted ({e}).")
        if virtual:
            self.fail(f"{where} is a virtual dataset: its values are mapped from outside "
                      "the file (other files or datasets), which is never read.")
        if external:
            self.fail(f"{where} keeps its data outside the file (external storage in "
                      f"{external} other file(s)), which is never read.")
        if filters:
            self.fail(f"{where} is compressed or filtered (HDF5 filter ids {filters}); "
                      "eagerflow stores data uncompressed and never decompresses a file's "
                      "data.")
        if shape is None:
            self.fail(f"{where} has a null dataspace (no data at all); the file was not "
                      "written by eagerflow or was altered.")
        if dtype.kind not in _NUMERIC_KINDS or dtype.fields is not None or (
                h5py.check_vlen_dtype(dtype) is not None):
            self.fail(f"{where} has dtype {dtype} (kind {dtype.kind!r}); only numeric "
                      "datasets are read, never object, variable-length, reference, string "
                      "or compound data.")
        nbytes = math.prod(shape) * dtype.itemsize  # (exact: Python ints)
        if nbytes > self.file_size:
            self.fail(f"{where} claims shape {tuple(shape)} of {dtype} ({nbytes} bytes), "
                      f"larger than the whole file ({self.file_size} bytes); nothing was "
                      "allocated.")
        if stored < nbytes:
            self.fail(f"{where} with shape {tuple(shape)} is incompletely written "
                      f"({stored} of {nbytes} bytes stored); it would read as fill values.")
