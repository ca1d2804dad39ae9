"""The UCI optical-recognition handwritten digits: 1,797 images, 8x8, shipped inside eagerflow.

Source: E. Alpaydin and C. Kaynak, "Optical Recognition of Handwritten Digits", UCI
Machine Learning Repository, 1998, https://doi.org/10.24432/C50P49, licensed CC BY 4.0.
Each image counts the "on" pixels of a 32x32 bitmap in each 4x4 block, so pixel values
are 0-16. These 1,797 images are the copy bundled with scikit-learn
(``sklearn.datasets.load_digits``, the UCI test part ``optdigits.tes``).

How ``eagerflow/datasets/data/digits.npz`` was made (once, with scikit-learn 1.9.1):
``images = load_digits().images.astype(uint8)`` and ``labels = load_digits().target``
as uint8; then ``train_test_split(images, labels, test_size=360, stratify=labels,
random_state=0)``, a stratified split fixed by its seed: 1,437 training and 360 test
images (35-37 of each digit in the test part); saved with ``numpy.savez_compressed``
under the keys ``x_train, y_train, x_test, y_test``. scikit-learn is not needed to load it.

Examples:
    >>> import eagerflow as ef
    >>> (x_train, y_train), (x_test, y_test) = ef.datasets.digits.load_data()
    >>> x_train.shape, x_test.shape, x_train.dtype.name, int(x_train.max())
    ((1437, 8, 8), (360, 8, 8), 'uint8', 16)
"""

from __future__ import annotations

import os

import numpy as np

__all__ = ["load_data"]

_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "digits.npz")


def load_data() -> tuple:
    """Loads the 8x8 digits as NumPy arrays (a fresh copy on every call).

    Returns:
        ``(x_train, y_train), (x_test, y_test)``: uint8 images (n, 8, 8) with values
        0-16 and uint8 labels (n,) with values 0-9; 1,437 training and 360 test images.

    Examples:
        >>> from eagerflow.datasets import digits
        >>> (_, y_train), _ = digits.load_data()
        >>> sorted(set(y_train.tolist())) == list(range(10))
        True
    """
    with np.load(_PATH, allow_pickle=False) as stored:
        return (stored["x_train"], stored["y_train"]), (stored["x_test"], stored["y_test"])
