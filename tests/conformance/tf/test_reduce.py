"""`reduce` against TensorFlow 2.21's tf.data: the cases of
`tensorflow/python/data/kernel_tests/reduce_test.py` for eagerflow's API, with values,
cardinalities, element specs and exception classes recorded from TensorFlow.
"""

import pytest

import eagerflow as ef
from eagerflow.core import errors

from ._tfdata import Dataset, py


def test_reduce():
    assert py(Dataset.range(5).reduce(ef.constant(0, ef.int64), lambda s, x: s + x)) == 10
    state = (ef.constant(0, ef.int64), ef.constant(1, ef.int64))
    assert py(Dataset.range(4).reduce(state, lambda s, x: (s[0] + x, s[1] * (x + 1)))) == [6, 24]


def test_changed_dtype_is_a_type_error():
    # A Python 0 is an int32 state that int64 elements would turn into int64.
    with pytest.raises(TypeError):
        Dataset.range(5).reduce(0, lambda s, x: s + x)
    with pytest.raises(TypeError):
        Dataset.range(4).reduce(ef.constant(0.0), lambda s, x: s + ef.cast(x, ef.float64))


def test_changed_structure_is_an_invalid_argument_error():
    state = (ef.constant(0, ef.int64), ef.constant(1, ef.int64))
    with pytest.raises(errors.InvalidArgumentError):
        Dataset.range(4).reduce(state, lambda s, x: s[0] + x)
