"""`batch` against TensorFlow 2.21's tf.data: the cases of
`tensorflow/python/data/kernel_tests/batch_test.py` for eagerflow's API, with values,
cardinalities, element specs and exception classes recorded from TensorFlow.
"""

import pytest

import eagerflow as ef
from eagerflow.core import errors

from ._tfdata import Dataset, check

INT64 = "int64"


def test_batch():
    check(Dataset.range(7).batch(3), [[0, 1, 2], [3, 4, 5], [6]], 3, ((None,), INT64))
    check(Dataset.range(7).batch(3, drop_remainder=True), [[0, 1, 2], [3, 4, 5]], 2,
          ((3,), INT64))
    assert int(Dataset.range(3).repeat().batch(2).cardinality()) == -1


@pytest.mark.parametrize("size", [0, -2])
def test_non_positive_batch_size(size):
    with pytest.raises(errors.InvalidArgumentError):
        Dataset.range(7).batch(size)


@pytest.mark.parametrize("size", ["a", 2.5])
def test_non_integer_batch_size_is_a_type_error(size):
    with pytest.raises(TypeError):
        Dataset.range(7).batch(size)


def test_elements_of_different_shapes():
    ds = Dataset.from_generator(lambda: iter([[1], [1, 2]]),
                                output_signature=ef.TensorSpec([None], ef.int32))
    with pytest.raises(errors.InvalidArgumentError):
        list(ds.batch(2))
