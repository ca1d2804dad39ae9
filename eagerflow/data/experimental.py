"""`ef.data.experimental`: the names `tf.data.experimental` holds that eagerflow has.

Examples:
    >>> import eagerflow as ef
    >>> ds = ef.data.Dataset.range(3).repeat()
    >>> int(ef.data.experimental.cardinality(ds)) == ef.data.experimental.INFINITE_CARDINALITY
    True
"""

from eagerflow.data.dataset import AUTOTUNE, INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, cardinality

__all__ = ["AUTOTUNE", "INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY", "cardinality"]
