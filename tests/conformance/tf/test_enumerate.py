"""`enumerate` against TensorFlow 2.21's tf.data: the cases of
`tensorflow/python/data/kernel_tests/enumerate_test.py` for eagerflow's API, with values,
cardinalities, element specs and exception classes recorded from TensorFlow.
"""

from ._tfdata import Dataset, check

INT64, INT32 = "int64", "int32"


def test_enumerate():
    check(Dataset.from_tensor_slices([5, 6]).enumerate(start=3), [[3, 5], [4, 6]], 2,
          [((), INT64), ((), INT32)])
