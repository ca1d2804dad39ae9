"""Input pipelines (`Dataset`, like `tf.data`) and built-in data sets (`ef.datasets`).

Example:
    >>> import eagerflow as ef
    >>> (x_train, y_train), (x_test, y_test) = ef.datasets.digits.load_data()
    >>> ds = ef.datasets.Dataset.from_tensor_slices((x_train, y_train)).batch(32)
    >>> x, y = next(iter(ds))
    >>> x.shape, y.shape
    ((32, 8, 8), (32,))
"""

from eagerflow.datasets import cifar10, digits, fashion_mnist, mnist
from eagerflow.datasets.dataset import (
    AUTOTUNE,
    INFINITE_CARDINALITY,
    UNKNOWN_CARDINALITY,
    Dataset,
)
from eagerflow.datasets.iterator import Iterator
from eagerflow.datasets.text import TextLineDataset

__all__ = [
    "AUTOTUNE",
    "INFINITE_CARDINALITY",
    "UNKNOWN_CARDINALITY",
    "Dataset",
    "Iterator",
    "TextLineDataset",
    "cifar10",
    "digits",
    "fashion_mnist",
    "mnist",
]
