"""`repeat` against TensorFlow 2.21's tf.data: the cases of
`tensorflow/python/data/kernel_tests/repeat_test.py` for eagerflow's API, with values,
cardinalities, element specs and exception classes recorded from TensorFlow.
"""

from ._tfdata import Dataset, check

INT64 = "int64"


def test_repeat():
    check(Dataset.range(3).repeat(2), [0, 1, 2, 0, 1, 2], 6, ((), INT64))
    check(Dataset.range(3).repeat(0), [], 0, ((), INT64))
    assert int(Dataset.range(3).repeat().cardinality()) == -1
    assert int(Dataset.range(0).repeat().cardinality()) == 0
