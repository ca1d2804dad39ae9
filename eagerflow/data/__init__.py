"""`ef.data`: the input pipeline under tf.data's names.

`Dataset` and its transformations; the built-in data sets live in `ef.datasets`.

Examples:
    >>> import eagerflow as ef
    >>> ds = ef.data.Dataset.range(8).shuffle(8, seed=0).batch(4).prefetch(ef.data.AUTOTUNE)
    >>> [b.shape for b in ds]
    [(4,), (4,)]
"""

from eagerflow import absent as _absent
from eagerflow.data import experimental
from eagerflow.data.dataset import AUTOTUNE, INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, Dataset
from eagerflow.data.iterator import Iterator
from eagerflow.data.text import TextLineDataset

__all__ = ["AUTOTUNE", "INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY", "Dataset", "Iterator",
           "TextLineDataset", "experimental"]


__getattr__ = _absent.namespace_getattr(__name__, "tf.data")
