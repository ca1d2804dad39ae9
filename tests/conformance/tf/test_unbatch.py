"""`unbatch` against TensorFlow 2.21's tf.data: the cases of
`tensorflow/python/data/kernel_tests/unbatch_test.py` for eagerflow's API, with values,
cardinalities, element specs and exception classes recorded from TensorFlow.
"""

import numpy as np
import pytest

import eagerflow as ef

from ._tfdata import Dataset, check

INT64 = "int64"


def test_unbatch():
    check(Dataset.range(6).batch(4).unbatch(), [0, 1, 2, 3, 4, 5], -2, ((), INT64))
    assert int(Dataset.from_tensor_slices(np.zeros((3, 2, 2))).unbatch().cardinality()) == 6


def test_refused_when_built():
    with pytest.raises(ValueError):
        Dataset.range(3).unbatch()
    with pytest.raises(ValueError):
        Dataset.zip((Dataset.range(3), Dataset.range(3).batch(1))).unbatch()
    with pytest.raises(ValueError):
        Dataset.from_tensors((ef.zeros([2]), ef.zeros([3]))).unbatch()
