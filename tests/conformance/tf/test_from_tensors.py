"""`from_tensors` against TensorFlow 2.21's tf.data: the cases of
`tensorflow/python/data/kernel_tests/from_tensors_test.py` for eagerflow's API, with values,
cardinalities, element specs and exception classes recorded from TensorFlow.
"""

from ._tfdata import Dataset, check

INT32, FLOAT32 = "int32", "float32"


def test_one_element():
    check(Dataset.from_tensors([1, 2, 3]), [[1, 2, 3]], 1, ((3,), INT32))
    check(Dataset.from_tensors((1, [2.0, 3.0])), [[1, [2.0, 3.0]]], 1,
          [((), INT32), ((2,), FLOAT32)])
