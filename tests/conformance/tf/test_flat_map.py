"""`flat_map` against TensorFlow 2.21's tf.data: the cases of
`tensorflow/python/data/kernel_tests/flat_map_test.py` for eagerflow's API, with values,
cardinalities, element specs and exception classes recorded from TensorFlow.
"""

from ._tfdata import Dataset, check

INT64 = "int64"


def test_flat_map():
    check(Dataset.range(3).flat_map(lambda x: Dataset.range(x)), [0, 0, 1], -2, ((), INT64))
