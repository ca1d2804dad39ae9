"""`from_generator` against TensorFlow 2.21's tf.data: the cases of
`tensorflow/python/data/kernel_tests/from_generator_test.py` for eagerflow's API, with values,
cardinalities, element specs and exception classes recorded from TensorFlow.
"""

import pytest

import eagerflow as ef
from eagerflow.core import errors

from ._tfdata import Dataset, check, py

INT64, INT32, FLOAT32 = "int64", "int32", "float32"


def test_output_signature():
    ds = Dataset.from_generator(
        lambda: iter([(1, [1.0, 2.0]), (2, [3.0, 4.0])]),
        output_signature=(ef.TensorSpec((), ef.int32), ef.TensorSpec((2,), ef.float32)))
    check(ds, [[1, [1.0, 2.0]], [2, [3.0, 4.0]]], -2, [((), INT32), ((2,), FLOAT32)])


def test_output_types_and_shapes():
    check(Dataset.from_generator(lambda: iter([1, 2, 3]), output_types=ef.int64),
          [1, 2, 3], -2, (None, INT64))
    check(Dataset.from_generator(lambda: iter([[1, 2], [3, 4]]), output_types=ef.float32,
                                 output_shapes=[2]),
          [[1.0, 2.0], [3.0, 4.0]], -2, ((2,), FLOAT32))
    check(Dataset.from_generator(lambda: iter([(1, 2.0), (2, 3.0)]),
                                 output_types=(ef.int32, ef.float32), output_shapes=((), ())),
          [[1, 2.0], [2, 3.0]], -2, [((), INT32), ((), FLOAT32)])
    check(Dataset.from_generator(lambda: iter([{"a": 1}]), output_types={"a": ef.int32}),
          [{"a": 1}], -2, {"a": (None, INT32)})
    ds = Dataset.from_generator(lambda n: iter(range(n)), output_types=ef.int64, args=(3,))
    assert [py(e) for e in ds] == [0, 1, 2]


def test_signature_errors_are_type_errors():
    with pytest.raises(TypeError):
        Dataset.from_generator(lambda: iter([1]))
    with pytest.raises(TypeError):
        Dataset.from_generator(lambda: iter([1]), output_types=ef.int32,
                               output_signature=ef.TensorSpec((), ef.int32))
    with pytest.raises(TypeError):
        Dataset.from_generator(lambda: iter([1]), output_shapes=[])
    with pytest.raises(TypeError):
        Dataset.from_generator([1, 2], output_types=ef.int32)


@pytest.mark.parametrize("make", [
    lambda: Dataset.from_generator(lambda: iter([[1, 2, 3]]), output_types=ef.int32,
                                   output_shapes=[2]),
    lambda: Dataset.from_generator(lambda: iter([1.5]), output_types=ef.int32),
    lambda: Dataset.from_generator(lambda: iter([[1, 2, 3]]),
                                   output_signature=ef.TensorSpec([2], ef.int32)),
], ids=["shape", "dtype", "signature-shape"])
def test_yielded_mismatch_is_an_invalid_argument_error(make):
    with pytest.raises(errors.InvalidArgumentError):
        list(make())
