"""`ef.data`: the input pipeline under tf.data's names (see `eagerflow.datasets`).

The same objects as `eagerflow.datasets` exports, without its data-set loaders.

Example:
    >>> import eagerflow as ef
    >>> ds = ef.data.Dataset.range(8).shuffle(8, seed=0).batch(4).prefetch(ef.data.AUTOTUNE)
    >>> [b.shape for b in ds]
    [(4,), (4,)]
"""

from eagerflow.datasets import (
    AUTOTUNE,
    INFINITE_CARDINALITY,
    UNKNOWN_CARDINALITY,
    Dataset,
    Iterator,
    TextLineDataset,
)

__all__ = ["AUTOTUNE", "INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY", "Dataset", "Iterator",
           "TextLineDataset"]
