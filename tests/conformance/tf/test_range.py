"""`range` against TensorFlow 2.21's tf.data: the cases of
`tensorflow/python/data/kernel_tests/range_test.py` for eagerflow's API, with values,
cardinalities, element specs and exception classes recorded from TensorFlow.
"""

import pytest

import eagerflow as ef
from eagerflow.core import errors

from ._tfdata import Dataset, check, spec

INT64, INT32 = "int64", "int32"


@pytest.mark.parametrize("args, values", [((5,), [0, 1, 2, 3, 4]), ((2, 10, 3), [2, 5, 8]),
                                          ((10, 2, -3), [10, 7, 4])])
def test_range(args, values):
    check(Dataset.range(*args), values, len(values), ((), INT64))


def test_output_type():
    assert spec(Dataset.range(3, output_type=ef.int32)) == ((), INT32)


def test_errors():
    with pytest.raises(errors.InvalidArgumentError, match="step"):
        Dataset.range(1, 5, 0)
    with pytest.raises(TypeError):
        Dataset.range(2.5)
