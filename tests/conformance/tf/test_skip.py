"""`skip` against TensorFlow 2.21's tf.data: the cases of
`tensorflow/python/data/kernel_tests/skip_test.py` for eagerflow's API, with values,
cardinalities, element specs and exception classes recorded from TensorFlow.
"""

import pytest


from ._tfdata import Dataset, check

INT64 = "int64"


@pytest.mark.parametrize("count, values", [(2, [2, 3, 4]), (10, []), (-1, [])])
def test_skip(count, values):
    check(Dataset.range(5).skip(count), values, len(values), ((), INT64))


def test_skip_of_infinite():
    assert int(Dataset.range(5).repeat().skip(4).cardinality()) == -1
