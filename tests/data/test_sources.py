"""Sources: from_tensor_slices, from_tensors, from_generator, range, zip."""

import collections

import numpy as np
import pytest

import eagerflow as ef
from eagerflow.core import errors

from .helpers import values

Dataset = ef.data.Dataset
Point = collections.namedtuple("Point", ["x", "y"])


def test_from_tensor_slices_structures():
    assert values(Dataset.from_tensor_slices([1, 2, 3])) == [1, 2, 3]
    assert values(Dataset.from_tensor_slices([[1, 2], [3, 4]])) == [[1, 2], [3, 4]]
    assert values(Dataset.from_tensor_slices(([1, 2], [3.0, 4.0]))) == [(1, 3.0), (2, 4.0)]
    assert values(Dataset.from_tensor_slices({"a": [1, 2], "b": ([5, 6], [7, 8])})) == [
        {"a": 1, "b": (5, 7)}, {"a": 2, "b": (6, 8)}]
    first = next(iter(Dataset.from_tensor_slices(Point([1, 2], [3, 4]))))
    assert isinstance(first, Point) and int(first.y) == 3
    assert values(Dataset.from_tensor_slices(ef.constant([[1.0], [2.0]]))) == [[1.0], [2.0]]


def test_from_tensor_slices_dtypes_follow_eagerflow_rules():
    spec = Dataset.from_tensor_slices(([1.0], [1], np.array([1], np.int64))).element_spec
    assert [s.dtype for s in spec] == [ef.float32, ef.int32, ef.int64]


def test_from_tensor_slices_copies_the_data():
    x = np.arange(4)
    ds = Dataset.from_tensor_slices(x)
    x[0] = 100
    assert values(ds) == [0, 1, 2, 3]


def test_from_tensor_slices_rejects_mismatched_first_dimensions():
    with pytest.raises(errors.InvalidArgumentError,
                       match=r"same size in their first dimension, but \[0\] has 3, \[1\] has 2"):
        Dataset.from_tensor_slices((np.zeros(3), np.zeros(2)))
    with pytest.raises(errors.InvalidArgumentError, match=r"\['b'\] has 1"):
        Dataset.from_tensor_slices({"a": np.zeros(3), "b": np.zeros(1)})


def test_from_tensor_slices_rejects_scalars_and_empty_structures():
    with pytest.raises(errors.InvalidArgumentError, match=r"component \[1\] is a scalar"):
        Dataset.from_tensor_slices(([1, 2], 3))
    with pytest.raises(errors.InvalidArgumentError, match="needs at least one tensor"):
        Dataset.from_tensor_slices(())


def test_from_tensor_slices_element_spec():
    ds = Dataset.from_tensor_slices((np.zeros((5, 3), np.float32), np.zeros(5, np.int64)))
    assert ds.element_spec == (ef.TensorSpec((3,), ef.float32), ef.TensorSpec((), ef.int64))


def test_from_tensors_is_one_element():
    ds = Dataset.from_tensors(([1, 2], 3.0))
    assert values(ds) == [([1, 2], 3.0)]
    assert int(ds.cardinality()) == 1
    assert ds.element_spec == (ef.TensorSpec((2,), ef.int32), ef.TensorSpec((), ef.float32))


def test_from_generator_converts_python_values_to_the_signature():
    def gen():
        yield 1, [1.0, 2.0]
        yield 2, [3.0]

    signature = (ef.TensorSpec((), ef.int64), ef.TensorSpec((None,), ef.float32))
    ds = Dataset.from_generator(gen, output_signature=signature)
    assert values(ds) == [(1, [1.0, 2.0]), (2, [3.0])]
    assert values(ds) == [(1, [1.0, 2.0]), (2, [3.0])]  # the generator is called again
    assert ds.element_spec == signature
    first = next(iter(ds))
    assert first[0].dtype == ef.int64 and first[1].dtype == ef.float32
    assert int(ds.cardinality()) == ef.data.UNKNOWN_CARDINALITY


def test_from_generator_args_dicts_and_safe_casts():
    def gen(n, offset):
        for i in range(n):
            yield {"i": np.int32(i + offset), "s": "row"}

    signature = {"i": ef.TensorSpec((), ef.int64), "s": ef.TensorSpec((), np.dtype("S"))}
    ds = Dataset.from_generator(gen, args=(2, 10), output_signature=signature)
    assert values(ds) == [{"i": 10, "s": b"row"}, {"i": 11, "s": b"row"}]  # str is UTF-8


def test_from_generator_copies_reused_buffers():
    def gen():
        buffer = np.zeros(2)
        for i in range(3):
            buffer[:] = i
            yield buffer

    ds = Dataset.from_generator(gen, output_signature=ef.TensorSpec((2,), ef.float64))
    assert next(iter(ds.batch(3))).numpy().tolist() == [[0, 0], [1, 1], [2, 2]]


def test_from_generator_closes_the_generator_when_stopped_early():
    closed = []

    def gen():
        try:
            yield from range(10)
        finally:
            closed.append(True)

    for _ in Dataset.from_generator(gen, output_signature=ef.TensorSpec((), ef.int32)):
        break
    assert closed == [True]


@pytest.mark.parametrize("element, signature, message", [
    ((1,), (ef.TensorSpec((), ef.int32),) * 2,
     r"element 1 does not match output_signature: expected a tuple of 2, got a tuple of len"),
    (5, {"a": ef.TensorSpec((), ef.int32)},
     r"element 1 does not match output_signature: expected a dict with keys \['a'\], got 5"),
    (np.zeros((2, 5)), ef.TensorSpec((None, 4), ef.float64),
     r"element 1 does not match output_signature: got shape \(2, 5\), expected \(None, 4\)"),
    (np.zeros(3), ef.TensorSpec((3,), ef.float32),
     r"element 1 does not match output_signature: got dtype float64, expected float32"),
    ((1, 1.5), (ef.TensorSpec((), ef.int32), ef.TensorSpec((), ef.int32)),
     r"component \[1\] of element 1 does not match output_signature: .*not integral"),
    ("text", ef.TensorSpec((), ef.float32),
     r"element 1 does not match output_signature: Cannot convert .text. to dtype float32: "
     "it holds strings"),
])
def test_from_generator_reports_the_mismatching_element(element, signature, message):
    def gen():
        yield _valid(signature)
        yield element

    ds = Dataset.from_generator(gen, output_signature=signature)
    with pytest.raises(errors.InvalidArgumentError, match=message):
        list(ds)


def _valid(signature):
    if isinstance(signature, ef.TensorSpec):
        shape = tuple(1 if d is None else d for d in signature.shape)
        return np.zeros(shape, signature.dtype)
    if isinstance(signature, dict):
        return {k: _valid(s) for k, s in signature.items()}
    return tuple(_valid(s) for s in signature)


def test_from_generator_argument_errors():
    with pytest.raises(TypeError, match="needs `output_signature`"):
        Dataset.from_generator(lambda: iter([]))
    with pytest.raises(TypeError, match="must be a callable"):
        Dataset.from_generator([1, 2], output_signature=ef.TensorSpec(()))
    with pytest.raises(TypeError, match="structure \\(tuple, dict\\) of ef.TensorSpec"):
        Dataset.from_generator(lambda: iter([]), output_signature=(ef.int32,))
    with pytest.raises(TypeError, match="not both"):
        Dataset.from_generator(lambda: iter([]), output_types=ef.int32,
                               output_signature=ef.TensorSpec((), ef.int32))
    with pytest.raises(TypeError, match="`output_shapes` needs `output_types`"):
        Dataset.from_generator(lambda: iter([]), output_shapes=[])
    with pytest.raises(TypeError, match="must have the structure of `output_types`"):
        Dataset.from_generator(lambda: iter([]), output_types=(ef.int32,), output_shapes=[])
    with pytest.raises(TypeError, match="must have the structure of `output_types`"):
        Dataset.from_generator(lambda: iter([]), output_types={"a": ef.int32},
                               output_shapes={"b": []})
    with pytest.raises(TypeError, match="must be a shape"):
        Dataset.from_generator(lambda: iter([]), output_types=ef.int32, output_shapes="x")


def test_range_like_python():
    assert values(Dataset.range(5)) == [0, 1, 2, 3, 4]
    assert values(Dataset.range(2, 5)) == [2, 3, 4]
    assert values(Dataset.range(5, 0, -2)) == [5, 3, 1]
    assert values(Dataset.range(3, dtype=ef.int32)) == [0, 1, 2]
    assert next(iter(Dataset.range(3, dtype=ef.int32))).dtype == ef.int32
    # tf.data's keyword is `output_type` (a TypeError before)
    assert next(iter(Dataset.range(1, 3, output_type=ef.float32))).dtype == ef.float32
    assert values(Dataset.range(1, 3, output_type=ef.float32)) == [1.0, 2.0]
    with pytest.raises(TypeError, match="`output_type` .* or `dtype`, not both"):
        Dataset.range(3, output_type=ef.int32, dtype=ef.int32)
    assert len(Dataset.range(0, 10**12, 10**6)) == 10**6
    big = Dataset.range(2500)
    assert values(big)[-3:] == [2497, 2498, 2499]  # across the 1024-value blocks
    assert values(Dataset.range(0)) == []


def test_range_argument_errors():
    with pytest.raises(errors.InvalidArgumentError, match="takes 1 to 3 arguments"):
        Dataset.range()
    with pytest.raises(errors.InvalidArgumentError, match="`step` must not be zero"):
        Dataset.range(0, 5, 0)
    with pytest.raises(TypeError, match="`range argument` must be an int"):
        Dataset.range(2.5)


def test_zip_structures_and_length():
    a, b = Dataset.range(3), Dataset.range(10, 15)
    assert values(Dataset.zip(a, b)) == [(0, 10), (1, 11), (2, 12)]
    assert values(Dataset.zip((a, b))) == [(0, 10), (1, 11), (2, 12)]
    assert values(Dataset.zip({"p": a, "q": (b, a)}))[1] == {"p": 1, "q": (11, 1)}
    assert values(Dataset.zip([a, b]))[0] == (0, 10)
    assert values(Dataset.zip(a)) == [0, 1, 2]
    assert int(Dataset.zip(a, b).cardinality()) == 3
    assert int(Dataset.zip(a.repeat(), b).cardinality()) == 5
    assert int(Dataset.zip(a.repeat(), b.repeat()).cardinality()) == -1
    assert int(Dataset.zip(a.filter(lambda x: True), b).cardinality()) == -2
    assert Dataset.zip(a, b).element_spec == (ef.TensorSpec((), ef.int64),) * 2


def test_zip_rejects_non_datasets():
    with pytest.raises(TypeError, match="Dataset.zip expects datasets.*Received: int"):
        Dataset.zip(Dataset.range(3), 4)
