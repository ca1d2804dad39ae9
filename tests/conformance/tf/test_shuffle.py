"""`shuffle` against TensorFlow 2.21's tf.data: the cases of
`tensorflow/python/data/kernel_tests/shuffle_test.py` for eagerflow's API, with values,
cardinalities, element specs and exception classes recorded from TensorFlow.
"""

import pytest

from eagerflow.core import errors

from ._tfdata import Dataset, py


def test_shuffle():
    ds = Dataset.range(7).shuffle(3)
    assert int(ds.cardinality()) == 7
    assert sorted(py(e) for e in ds) == list(range(7))
    assert [py(e) for e in Dataset.range(3).shuffle(10, seed=1)] == [
        py(e) for e in Dataset.range(3).shuffle(10, seed=1)]


@pytest.mark.parametrize("size", [0, -3])
def test_bad_buffer_size(size):
    with pytest.raises(errors.InvalidArgumentError):
        Dataset.range(3).shuffle(size)
