"""`zip` against TensorFlow 2.21's tf.data: the cases of
`tensorflow/python/data/kernel_tests/zip_test.py` for eagerflow's API, with values,
cardinalities, element specs and exception classes recorded from TensorFlow.
"""

import pytest


from ._tfdata import Dataset, check

INT64 = "int64"


def test_zip():
    check(Dataset.zip((Dataset.range(3), Dataset.range(10, 12))), [[0, 10], [1, 11]], 2,
          [((), INT64), ((), INT64)])
    check(Dataset.zip({"a": Dataset.range(2), "b": Dataset.range(3)}),
          [{"a": 0, "b": 0}, {"a": 1, "b": 1}], 2, {"a": ((), INT64), "b": ((), INT64)})
    check(Dataset.zip(Dataset.range(2), Dataset.range(3)), [[0, 0], [1, 1]], 2,
          [((), INT64), ((), INT64)])
    infinite = Dataset.zip((Dataset.range(2).repeat(), Dataset.range(3).repeat()))
    assert int(infinite.cardinality()) == -1


def test_non_dataset_is_a_type_error():
    with pytest.raises(TypeError):
        Dataset.zip((Dataset.range(2), 1))
