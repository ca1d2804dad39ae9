"""`filter` against TensorFlow 2.21's tf.data: the cases of
`tensorflow/python/data/kernel_tests/filter_test.py` for eagerflow's API, with values,
cardinalities, element specs and exception classes recorded from TensorFlow.
"""

import pytest

import eagerflow as ef

from ._tfdata import Dataset, check

INT64 = "int64"


def test_filter():
    check(Dataset.range(10).filter(lambda x: x % 3 == 0), [0, 3, 6, 9], -2, ((), INT64))
    assert int(Dataset.range(3).filter(lambda x: True).cardinality()) == -2


@pytest.mark.parametrize("predicate", [lambda x: x, lambda x: ef.stack([x > 0, x > 1])],
                         ids=["int64", "vector"])
def test_predicate_must_return_a_scalar_bool(predicate):
    # ValueError in both; TensorFlow raises when filter() traces the predicate, eagerflow
    # on the first element (it does not trace dataset functions).
    with pytest.raises(ValueError, match="scalar bool"):
        list(Dataset.range(3).filter(predicate))
