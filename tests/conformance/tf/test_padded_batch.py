"""`padded_batch` against TensorFlow 2.21's tf.data: the cases of
`tensorflow/python/data/kernel_tests/padded_batch_test.py` for eagerflow's API, with values,
cardinalities, element specs and exception classes recorded from TensorFlow.
"""

import numpy as np
import pytest

import eagerflow as ef
from eagerflow.core import errors

from ._tfdata import Dataset, check

INT64, FLOAT32 = "int64", "float32"


def _ragged(n):
    return Dataset.range(n).map(lambda x: ef.fill([x], x))


def test_padded_batch():
    check(_ragged(4).padded_batch(2), [[[0], [1]], [[2, 2, 0], [3, 3, 3]]], 2,
          ((None, None), INT64))
    check(_ragged(3).padded_batch(2, padded_shapes=[4],
                                  padding_values=ef.constant(-1, ef.int64)),
          [[[-1, -1, -1, -1], [1, -1, -1, -1]], [[2, 2, -1, -1]]], 2, ((None, 4), INT64))
    check(_ragged(3).padded_batch(2, drop_remainder=True), [[[0], [1]]], 1,
          ((2, None), INT64))


def test_padded_shape_smaller_than_an_element():
    # TensorFlow raises DataLossError, eagerflow InvalidArgumentError (it has no
    # DataLossError: nothing was lost, the argument was wrong). Both while iterating.
    with pytest.raises(errors.OpError):
        list(_ragged(4).padded_batch(2, padded_shapes=[2]))


def test_zero_batch_size():
    with pytest.raises(errors.InvalidArgumentError):
        Dataset.range(3).padded_batch(0)


def _static():
    return Dataset.from_tensor_slices(np.zeros((4, 3), np.float32))


@pytest.mark.parametrize("padded_shapes", [[4, 4], [2], [-2]], ids=["rank", "smaller", "neg"])
def test_incompatible_padded_shapes_refused_when_built(padded_shapes):
    with pytest.raises(ValueError):
        _static().padded_batch(2, padded_shapes=padded_shapes)
    with pytest.raises(ValueError):
        Dataset.range(3).padded_batch(2, padded_shapes=[2])  # scalar elements


def test_padding_values_checked_when_built():
    with pytest.raises(TypeError, match="dtype int32"):
        _static().padded_batch(2, padded_shapes=[4], padding_values=ef.constant(1, ef.int32))
    with pytest.raises(ValueError, match="scalars"):
        _static().padded_batch(2, padded_shapes=[4], padding_values=ef.constant([1.0, 2.0]))
    check(_static().padded_batch(4, padded_shapes=[None]), [[[0.0] * 3] * 4], 1,
          ((None, None), FLOAT32))
