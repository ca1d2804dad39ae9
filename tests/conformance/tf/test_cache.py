"""`cache` against TensorFlow 2.21's tf.data: the cases of
`tensorflow/python/data/kernel_tests/cache_test.py` for eagerflow's API, with values,
cardinalities, element specs and exception classes recorded from TensorFlow.
"""

from ._tfdata import Dataset, check

INT64 = "int64"


def test_cache():
    check(Dataset.range(3).cache(), [0, 1, 2], 3, ((), INT64))
