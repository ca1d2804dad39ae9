"""`ef.data.experimental`: the names `tf.data.experimental` holds that eagerflow has.

Examples:
    >>> import eagerflow as ef
    >>> ds = ef.data.Dataset.range(3).repeat()
    >>> int(ef.data.experimental.cardinality(ds)) == ef.data.experimental.INFINITE_CARDINALITY
    True
"""

from eagerflow import absent as _absent
from eagerflow.data.dataset import AUTOTUNE, INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, cardinality

__all__ = ["AUTOTUNE", "INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY", "cardinality"]


__getattr__ = _absent.namespace_getattr(__name__, "tf.data.experimental")
