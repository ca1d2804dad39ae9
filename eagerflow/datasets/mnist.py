"""MNIST handwritten digits: 60,000 training and 10,000 test images, 28x28 uint8.

`load_data` reads, in this order: `path` when given (Keras's ``mnist.npz`` file, or a
directory holding it or the four IDX files); else ``<data dir>/mnist.npz``; else the
IDX files in ``<data dir>/mnist/``; else it downloads ``mnist.npz`` from Keras's
canonical address, verifying its SHA-256. ``<data dir>`` is ``$EAGERFLOW_DATA_DIR`` or
``~/.eagerflow/datasets``. Files are parsed strictly (no pickle): a malformed file is
an error, never a wrong array.

Examples:
    >>> import numpy as np, os, tempfile
    >>> from eagerflow.datasets import mnist
    >>> path = os.path.join(tempfile.mkdtemp(), "mnist.npz")
    >>> images, labels = np.zeros((2, 28, 28), np.uint8), np.array([7, 2], np.uint8)
    >>> np.savez(path, x_train=images, y_train=labels, x_test=images, y_test=labels)
    >>> (x_train, y_train), (x_test, y_test) = mnist.load_data(path)
    >>> x_train.shape, y_test.tolist()
    ((2, 28, 28), [7, 2])
"""

from __future__ import annotations

import os
import zipfile

import numpy as np

from eagerflow.core import errors
from eagerflow.datasets import downloads, idx

__all__ = ["load_data"]

NPZ = downloads.RemoteFile(
    "mnist.npz",
    ("https://storage.googleapis.com/tensorflow/tf-keras-datasets/mnist.npz",),
    "sha256:731c5ac602752760c8e48fbffcf8c3b850d9dc2a2aedcf2cc48468fc17b673d1",
)
"""Keras's ``mnist.npz``: its file name, download address and checksum."""
_IMAGE_SHAPE = (28, 28)


def read_npz(path: str) -> tuple:
    """Reads a Keras-style ``mnist.npz`` (``x_train, y_train, x_test, y_test``), checked.

    Raises:
        InvalidArgumentError: if the file is not such an archive of uint8 arrays.
    """
    try:
        with np.load(path, allow_pickle=False) as stored:
            missing = {"x_train", "y_train", "x_test", "y_test"} - set(stored.files)
            if missing:
                raise errors.InvalidArgumentError(
                    f"{path}: an MNIST .npz needs arrays x_train, y_train, x_test, y_test; "
                    f"missing {sorted(missing)}"
                )
            arrays = {key: stored[key] for key in ("x_train", "y_train", "x_test", "y_test")}
    except (OSError, ValueError, zipfile.BadZipFile) as e:
        if isinstance(e, errors.InvalidArgumentError):
            raise
        raise errors.InvalidArgumentError(f"{path} is not a readable .npz file ({e})") from None
    idx.check_split(arrays, _IMAGE_SHAPE, path)
    return (arrays["x_train"], arrays["y_train"]), (arrays["x_test"], arrays["y_test"])


def load_data(path=None) -> tuple:
    """Loads MNIST as NumPy arrays.

    Args:
        path: an ``mnist.npz`` file, or a directory holding it or the four IDX files
            (``train-images-idx3-ubyte.gz`` ...). None: the cache directory, downloading
            ``mnist.npz`` there when absent.

    Returns:
        ``(x_train, y_train), (x_test, y_test)``: uint8 images (n, 28, 28) with values
        0-255, and uint8 labels (n,) with values 0-9.

    Raises:
        NotFoundError: when the files are absent and cannot be downloaded; the message
            says which file to put where.
        InvalidArgumentError: for a malformed file or a download with a wrong checksum.

    Examples:
        >>> from eagerflow.datasets import mnist
        >>> callable(mnist.load_data)
        True
    """
    if path is not None:
        path = os.fspath(path)
        if os.path.isfile(path):
            return read_npz(path)
        if os.path.isdir(path):
            found = _local(path)
            if found is not None:
                return found
        raise errors.NotFoundError(
            f"mnist.load_data: {path} is neither an mnist.npz file nor a directory holding "
            f"mnist.npz or the IDX files {', '.join(n + '.gz' for n in idx.FILES.values())}"
        )
    directory = downloads.data_dir()
    found = _local(directory) or _local_idx(os.path.join(directory, "mnist"))
    if found is not None:
        return found
    alternatives = (
        "or put the four IDX files "
        + ", ".join(n + ".gz" for n in idx.FILES.values())
        + f" in {os.path.join(directory, 'mnist')}"
    )
    [npz] = downloads.fetch([NPZ], directory, "MNIST", alternatives)
    return read_npz(npz)


def _local(directory: str):
    npz = os.path.join(directory, "mnist.npz")
    if os.path.isfile(npz):
        return read_npz(npz)
    return _local_idx(directory)


def _local_idx(directory: str):
    found = idx.find(directory)
    return None if found is None else idx.load_split(found, _IMAGE_SHAPE)
