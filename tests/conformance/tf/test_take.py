"""`take` against TensorFlow 2.21's tf.data: the cases of
`tensorflow/python/data/kernel_tests/take_test.py` for eagerflow's API, with values,
cardinalities, element specs and exception classes recorded from TensorFlow.
"""

import pytest


from ._tfdata import Dataset, check

INT64 = "int64"


@pytest.mark.parametrize("count, values", [(2, [0, 1]), (10, [0, 1, 2, 3, 4]),
                                           (-1, [0, 1, 2, 3, 4])])
def test_take(count, values):
    check(Dataset.range(5).take(count), values, len(values), ((), INT64))


def test_take_of_infinite_and_bad_count():
    assert int(Dataset.range(5).repeat().take(4).cardinality()) == 4
    with pytest.raises(TypeError):
        Dataset.range(3).take(1.5)
