"""`from_tensor_slices` against TensorFlow 2.21's tf.data: the cases of
`tensorflow/python/data/kernel_tests/from_tensor_slices_test.py` for eagerflow's API, with values,
cardinalities, element specs and exception classes recorded from TensorFlow.
"""

import numpy as np
import pytest


from ._tfdata import Dataset, check

INT32, FLOAT32 = "int32", "float32"


def test_slices():
    check(Dataset.from_tensor_slices([[1, 2], [3, 4], [5, 6]]), [[1, 2], [3, 4], [5, 6]], 3,
          ((2,), INT32))
    check(Dataset.from_tensor_slices(([1, 2], [3.0, 4.0])), [[1, 3.0], [2, 4.0]], 2,
          [((), INT32), ((), FLOAT32)])
    check(Dataset.from_tensor_slices({"a": [1, 2], "b": [[1.0], [2.0]]}),
          [{"a": 1, "b": [1.0]}, {"a": 2, "b": [2.0]}], 2,
          {"a": ((), INT32), "b": ((1,), FLOAT32)})
    check(Dataset.from_tensor_slices(np.zeros((0, 2), np.float32)), [], 0, ((2,), FLOAT32))


def test_errors_are_value_errors():
    with pytest.raises(ValueError):
        Dataset.from_tensor_slices(([1, 2], [3.0, 4.0, 5.0]))  # unequal first dimensions
    with pytest.raises(ValueError, match="rank >= 1"):
        Dataset.from_tensor_slices(1)
    with pytest.raises(ValueError):
        Dataset.from_tensor_slices([[1], [1, 2]])  # not rectangular
