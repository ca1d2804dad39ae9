"""`shard` against TensorFlow 2.21's tf.data: the cases of
`tensorflow/python/data/kernel_tests/shard_test.py` for eagerflow's API, with values,
cardinalities, element specs and exception classes recorded from TensorFlow.
"""

import pytest

from eagerflow.core import errors

from ._tfdata import Dataset, check

INT64 = "int64"


def test_shard():
    check(Dataset.range(10).shard(3, 1), [1, 4, 7], 3, ((), INT64))
    assert [int(Dataset.range(10).shard(3, i).cardinality()) for i in range(3)] == [4, 3, 3]


@pytest.mark.parametrize("num_shards, index", [(3, 3), (3, -1), (0, 0)])
def test_bad_arguments(num_shards, index):
    with pytest.raises(errors.InvalidArgumentError):
        Dataset.range(10).shard(num_shards, index)
