"""`interleave` against TensorFlow 2.21's tf.data: the cases of
`tensorflow/python/data/kernel_tests/interleave_test.py` for eagerflow's API, with values,
cardinalities, element specs and exception classes recorded from TensorFlow.
"""

from ._tfdata import Dataset, check, py

INT64 = "int64"


def test_interleave():
    ds = Dataset.range(1, 4).interleave(lambda x: Dataset.from_tensors(x).repeat(x),
                                        cycle_length=2, block_length=1)
    check(ds, [1, 2, 2, 3, 3, 3], -2, ((), INT64))
    default = Dataset.range(1, 4).interleave(lambda x: Dataset.from_tensors(x).repeat(2))
    assert [py(e) for e in default] == [1, 2, 1, 2, 3, 3]


def test_cardinality_is_unknown():
    # Even when every input element makes a one-element dataset.
    ds = Dataset.range(3).interleave(lambda x: Dataset.from_tensors(x))
    assert int(ds.cardinality()) == -2
