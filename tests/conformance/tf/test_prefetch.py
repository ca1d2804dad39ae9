"""`prefetch` against TensorFlow 2.21's tf.data: the cases of
`tensorflow/python/data/kernel_tests/prefetch_test.py` for eagerflow's API, with values,
cardinalities, element specs and exception classes recorded from TensorFlow.
"""

import pytest

from eagerflow.core import errors

from ._tfdata import Dataset, check

INT64 = "int64"


def test_prefetch():
    check(Dataset.range(3).prefetch(1), [0, 1, 2], 3, ((), INT64))
    with pytest.raises(errors.InvalidArgumentError):
        Dataset.range(3).prefetch(-5)
