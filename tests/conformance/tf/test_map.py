"""`map` against TensorFlow 2.21's tf.data: the cases of
`tensorflow/python/data/kernel_tests/map_test.py` for eagerflow's API, with values,
cardinalities, element specs and exception classes recorded from TensorFlow.
"""

import pytest

import eagerflow as ef

from ._tfdata import Dataset, check

INT64, INT32, FLOAT32 = "int64", "int32", "float32"


def test_map():
    check(Dataset.range(4).map(lambda x: x * 2), [0, 2, 4, 6], 4, ((), INT64))
    check(Dataset.range(3).map(lambda x: (x, ef.cast(x, ef.float32) * 0.5)),
          [[0, 0.0], [1, 0.5], [2, 1.0]], 3, [((), INT64), ((), FLOAT32)])
    check(Dataset.from_tensor_slices(([1, 2], [3, 4])).map(lambda a, b: a + b), [4, 6], 2,
          ((), INT32))
    check(Dataset.range(2).map(lambda x: {"x": x, "y": x + 1}),
          [{"x": 0, "y": 1}, {"x": 1, "y": 2}], 2, {"x": ((), INT64), "y": ((), INT64)})


def test_cardinality_of_an_infinite_input():
    assert int(Dataset.range(3).repeat().map(lambda x: x).cardinality()) == -1


def test_wrong_arity_is_a_type_error():
    # TensorFlow raises when map() traces the function; eagerflow on the first element.
    with pytest.raises(TypeError):
        list(Dataset.range(3).map(lambda a, b: a))
