"""Fashion-MNIST: 60,000 training and 10,000 test images of clothing, 28x28 uint8.

Labels: 0 T-shirt/top, 1 Trouser, 2 Pullover, 3 Dress, 4 Coat, 5 Sandal, 6 Shirt,
7 Sneaker, 8 Bag, 9 Ankle boot. `load_data` reads the four standard IDX files
(``train-images-idx3-ubyte.gz`` ...) from `path`, or from
``<data dir>/fashion-mnist/`` (``<data dir>`` is ``$EAGERFLOW_DATA_DIR`` or
``~/.eagerflow/datasets``), downloading them there when absent and verifying the MD5
checksums Zalando Research publishes.

Examples:
    >>> import numpy as np, tempfile
    >>> from eagerflow.datasets import fashion_mnist, idx
    >>> folder = tempfile.mkdtemp()
    >>> for role, name in idx.FILES.items():
    ...     shape = (3, 28, 28) if role.startswith("x") else (3,)
    ...     idx.write(f"{folder}/{name}.gz", np.ones(shape, np.uint8), compress=True)
    >>> (x_train, y_train), _ = fashion_mnist.load_data(folder)
    >>> x_train.shape, y_train.tolist()
    ((3, 28, 28), [1, 1, 1])
"""

from __future__ import annotations

import os

from eagerflow.core import errors
from eagerflow.datasets import downloads, idx

__all__ = ["load_data"]

_MIRRORS = (
    "http://fashion-mnist.s3-website.eu-central-1.amazonaws.com/",
    "https://storage.googleapis.com/tensorflow/tf-keras-datasets/",
)
_MD5 = {
    "x_train": "8d4fb7e6c68d591d4c3dfef9ec88bf0d",
    "y_train": "25c81989df183df01b3e8a0aad5dffbe",
    "x_test": "bef4ecab320f06d8554ea6380940ec79",
    "y_test": "bb300cfdad3c16e7a12a480ee83cd310",
}
FILES = {
    role: downloads.RemoteFile(
        f"{name}.gz", tuple(f"{mirror}{name}.gz" for mirror in _MIRRORS), f"md5:{_MD5[role]}"
    )
    for role, name in idx.FILES.items()
}
"""The four gzipped IDX files by role (``x_train``, ...): name, mirrors and checksum."""


def load_data(path=None) -> tuple:
    """Loads Fashion-MNIST as NumPy arrays.

    Args:
        path: a directory holding the four IDX files (``.gz`` or uncompressed). None:
            ``<data dir>/fashion-mnist``, downloading the files there when absent.

    Returns:
        ``(x_train, y_train), (x_test, y_test)``: uint8 images (n, 28, 28) and uint8
        labels (n,) with values 0-9.

    Raises:
        NotFoundError: when the files are absent and cannot be downloaded; the message
            says which file to put where.
        InvalidArgumentError: for a malformed file or a download with a wrong checksum.

    Examples:
        >>> from eagerflow.datasets import fashion_mnist
        >>> sorted(fashion_mnist.FILES)
        ['x_test', 'x_train', 'y_test', 'y_train']
    """
    directory = os.fspath(path) if path is not None else os.path.join(
        downloads.data_dir(), "fashion-mnist")
    found = idx.find(directory)
    if found is not None:
        return idx.load_split(found, (28, 28))
    if path is not None:
        raise errors.NotFoundError(
            f"fashion_mnist.load_data: {directory} must be a directory holding the IDX files "
            f"{', '.join(f.name for f in FILES.values())}"
        )
    paths = downloads.fetch(list(FILES.values()), directory, "Fashion-MNIST")
    return idx.load_split(dict(zip(FILES, paths, strict=True)), (28, 28))
