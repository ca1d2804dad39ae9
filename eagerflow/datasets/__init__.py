"""Built-in data sets (`ef.datasets`), as `keras.datasets`; the pipeline is `ef.data`.

`Dataset` and `AUTOTUNE` are re-exported here too, as the public API names them.

Examples:
    >>> import eagerflow as ef
    >>> (x_train, y_train), (x_test, y_test) = ef.datasets.digits.load_data()
    >>> ds = ef.datasets.Dataset.from_tensor_slices((x_train, y_train)).batch(32)
    >>> x, y = next(iter(ds))
    >>> x.shape, y.shape
    ((32, 8, 8), (32,))
"""

from eagerflow import absent as _absent
from eagerflow.data.dataset import AUTOTUNE, INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, Dataset
from eagerflow.data.iterator import Iterator
from eagerflow.data.text import TextLineDataset
from eagerflow.datasets import cifar10, digits, fashion_mnist, mnist

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


__getattr__ = _absent.namespace_getattr(__name__, "keras.datasets")
