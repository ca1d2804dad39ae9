"""CIFAR-10: 50,000 training and 10,000 test colour images (32x32x3 uint8), 10 classes.

Labels: 0 airplane, 1 automobile, 2 bird, 3 cat, 4 deer, 5 dog, 6 frog, 7 horse,
8 ship, 9 truck. eagerflow reads the *binary version* (never the pickled Python one):
``cifar-10-binary.tar.gz`` or its extracted folder ``cifar-10-batches-bin/``. Each file
``data_batch_1.bin`` ... ``data_batch_5.bin``, ``test_batch.bin`` is a run of 3073-byte
records: one label byte, then 1024 red, 1024 green and 1024 blue bytes (row-major).
Members are read straight from the archive; nothing is extracted.

Examples:
    >>> import numpy as np, os, tempfile
    >>> from eagerflow.datasets import cifar10
    >>> folder = os.path.join(tempfile.mkdtemp(), "cifar-10-batches-bin")
    >>> os.mkdir(folder)
    >>> record = np.concatenate([[3], np.full(3072, 9)]).astype(np.uint8).tobytes()
    >>> for name in cifar10.MEMBERS:
    ...     with open(os.path.join(folder, name), "wb") as f:
    ...         _ = f.write(record * 2)
    >>> (x_train, y_train), (x_test, y_test) = cifar10.load_data(folder)
    >>> x_train.shape, y_train.shape, int(y_test[0, 0])
    ((10, 32, 32, 3), (10, 1), 3)
"""

from __future__ import annotations

import os

import numpy as np

from eagerflow.core import errors
from eagerflow.datasets import downloads

__all__ = ["load_data"]

ARCHIVE = downloads.RemoteFile(
    "cifar-10-binary.tar.gz",
    ("https://www.cs.toronto.edu/~kriz/cifar-10-binary.tar.gz",),
    "md5:c32a1d4ab5d03f1284b67883e8d87530",
)
"""The CIFAR-10 binary archive: its file name, download address and checksum."""
FOLDER = "cifar-10-batches-bin"
"""The folder the archive unpacks to."""
MEMBERS = [f"data_batch_{i}.bin" for i in range(1, 6)] + ["test_batch.bin"]
"""The batch files read from that folder: five of training data, one of test data."""
_RECORD = 1 + 32 * 32 * 3


def _records(raw: bytes, where: str) -> tuple:
    if not raw or len(raw) % _RECORD:
        raise errors.InvalidArgumentError(
            f"{where}: a CIFAR-10 binary batch is a whole number of {_RECORD}-byte records, "
            f"but it has {len(raw)} bytes"
        )
    records = np.frombuffer(raw, np.uint8).reshape(-1, _RECORD)
    labels = records[:, :1].copy()
    if labels.max() > 9:
        raise errors.InvalidArgumentError(
            f"{where}: labels must be 0-9, found {int(labels.max())}"
        )
    # Stored channel-first (3, 32, 32); Keras and eagerflow use channels-last images.
    images = np.ascontiguousarray(records[:, 1:].reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1))
    return images, labels


def _split(batches: list) -> tuple:
    x_train = np.concatenate([b[0] for b in batches[:5]])
    y_train = np.concatenate([b[1] for b in batches[:5]])
    return (x_train, y_train), batches[5]


def read_folder(folder: str) -> tuple:
    """Reads the six batch files of an extracted ``cifar-10-batches-bin`` folder."""
    batches = []
    for name in MEMBERS:
        path = os.path.join(folder, name)
        if not os.path.isfile(path):
            raise errors.NotFoundError(f"cifar10.load_data: {path} is missing")
        with open(path, "rb") as file:
            batches.append(_records(file.read(), path))
    return _split(batches)


def read_archive(path: str) -> tuple:
    """Reads the six batch files from ``cifar-10-binary.tar.gz`` without extracting it."""
    import tarfile  # only needed for the archive

    batches = []
    try:
        with tarfile.open(path, "r:gz") as archive:
            for name in MEMBERS:
                member = f"{FOLDER}/{name}"
                try:
                    info = archive.getmember(member)
                except KeyError:
                    raise errors.InvalidArgumentError(
                        f"{path} has no member {member}: not the CIFAR-10 binary archive"
                    ) from None
                if not info.isfile():
                    raise errors.InvalidArgumentError(f"{path}: {member} is not a file")
                with archive.extractfile(info) as file:  # type: ignore[union-attr]  # a file
                    batches.append(_records(file.read(), f"{path}:{member}"))
    except (tarfile.TarError, OSError, EOFError) as e:
        raise errors.InvalidArgumentError(f"{path} is not a readable .tar.gz ({e})") from None
    return _split(batches)


def _local(directory: str):
    if any(os.path.isfile(os.path.join(directory, name)) for name in MEMBERS):
        return read_folder(directory)  # names the missing members, if any
    if os.path.isdir(os.path.join(directory, FOLDER)):
        return read_folder(os.path.join(directory, FOLDER))
    if os.path.isfile(os.path.join(directory, ARCHIVE.name)):
        return read_archive(os.path.join(directory, ARCHIVE.name))
    return None


def load_data(path=None) -> tuple:
    """Loads CIFAR-10 as NumPy arrays.

    Args:
        path: ``cifar-10-binary.tar.gz``, the extracted ``cifar-10-batches-bin`` folder,
            or a directory holding either. None: the cache directory
            (``$EAGERFLOW_DATA_DIR`` or ``~/.eagerflow/datasets``), downloading the
            archive there (with its published MD5 checked) when absent.

    Returns:
        ``(x_train, y_train), (x_test, y_test)``: uint8 images (n, 32, 32, 3) and uint8
        labels of shape (n, 1), as Keras returns them.

    Raises:
        NotFoundError: when the files are absent and cannot be downloaded; the message
            says which file to put where.
        InvalidArgumentError: for a malformed file or a download with a wrong checksum.

    Examples:
        >>> from eagerflow.datasets import cifar10
        >>> cifar10.ARCHIVE.name
        'cifar-10-binary.tar.gz'
    """
    if path is not None:
        path = os.fspath(path)
        if os.path.isfile(path):
            return read_archive(path)
        found = _local(path) if os.path.isdir(path) else None
        if found is None:
            raise errors.NotFoundError(
                f"cifar10.load_data: {path} is neither {ARCHIVE.name}, nor a {FOLDER} folder, "
                "nor a directory holding one of them"
            )
        return found
    directory = downloads.data_dir()
    found = _local(directory)
    if found is not None:
        return found
    alternatives = f"or extract it there, so that {os.path.join(directory, FOLDER)} exists"
    [archive] = downloads.fetch([ARCHIVE], directory, "CIFAR-10 (binary version)", alternatives)
    return read_archive(archive)
