"""Array ops (eagerflow/ops/array_ops.py): shapes, joining, slicing, bad input."""

import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import eagerflow as ef
from tests.ops.opcase import (
    OpCase,
    check_forward,
    check_forward_mode,
    check_gradient,
    gradient,
    parametrize,
    squared,
)


def _np_split(x, sizes, axis):
    return np.split(x, np.cumsum(sizes)[:-1], axis=axis)


_X = np.arange(12.0).reshape(3, 4) - 5.5  # distinct values, some negative

CASES = [
    OpCase("identity-scalar", ef.identity, lambda x: x, shapes=[()]),
    OpCase("identity-matrix", ef.identity, lambda x: x, shapes=[(3, 4)]),
    # reshape
    OpCase("reshape-matrix", lambda x: ef.reshape(x, [4, 3]), lambda x: x.reshape(4, 3),
           shapes=[(3, 4)]),
    OpCase("reshape-flatten", lambda x: ef.reshape(x, [-1]), lambda x: x.reshape(-1),
           shapes=[(3, 4)]),
    OpCase("reshape-inferred", lambda x: ef.reshape(x, (2, -1, 2)),
           lambda x: x.reshape(2, -1, 2), shapes=[(3, 4)]),
    OpCase("reshape-scalar", lambda x: ef.reshape(x, [1, 1]), lambda x: x.reshape(1, 1),
           shapes=[()]),
    OpCase("reshape-to-scalar", lambda x: ef.reshape(x, []), lambda x: x.reshape(()),
           shapes=[(1,)]),
    # transpose
    OpCase("transpose-default", ef.transpose, np.transpose, shapes=[(3, 4)]),
    OpCase("transpose-vector", ef.transpose, np.transpose, shapes=[(5,)]),
    OpCase("transpose-perm", lambda x: ef.transpose(x, [2, 0, 1]),
           lambda x: np.transpose(x, (2, 0, 1)), shapes=[(2, 3, 4)]),
    OpCase("transpose-3d-default", ef.transpose, np.transpose, shapes=[(2, 3, 4)]),
    # expand_dims / squeeze
    OpCase("expand_dims-0", lambda x: ef.expand_dims(x, 0), lambda x: x[None], shapes=[(3,)]),
    OpCase("expand_dims-last", lambda x: ef.expand_dims(x, -1), lambda x: x[..., None],
           shapes=[(3, 4)]),
    OpCase("expand_dims-scalar", lambda x: ef.expand_dims(x, 0), lambda x: x[None],
           shapes=[()]),
    OpCase("squeeze-all", ef.squeeze, np.squeeze, shapes=[(1, 3, 1)]),
    OpCase("squeeze-axis", lambda x: ef.squeeze(x, [0]), lambda x: np.squeeze(x, 0),
           shapes=[(1, 3, 1)]),
    OpCase("squeeze-negative-axis", lambda x: ef.squeeze(x, -1), lambda x: np.squeeze(x, -1),
           shapes=[(1, 3, 1)]),
    # broadcast_to
    OpCase("broadcast_to-vector", lambda x: ef.broadcast_to(x, [2, 3]),
           lambda x: np.broadcast_to(x, (2, 3)), shapes=[(3,)]),
    OpCase("broadcast_to-column", lambda x: ef.broadcast_to(x, [3, 4]),
           lambda x: np.broadcast_to(x, (3, 4)), shapes=[(3, 1)]),
    OpCase("broadcast_to-scalar", lambda x: ef.broadcast_to(x, [2, 2]),
           lambda x: np.broadcast_to(x, (2, 2)), shapes=[()]),
    # concat / stack / unstack / split
    OpCase("concat-axis0", lambda a, b: ef.concat([a, b], axis=0),
           lambda a, b: np.concatenate([a, b], 0), shapes=[(2, 3), (4, 3)]),
    OpCase("concat-axis1", lambda a, b: ef.concat([a, b], axis=1),
           lambda a, b: np.concatenate([a, b], 1), shapes=[(2, 3), (2, 1)]),
    OpCase("concat-axis-1-three", lambda a, b, c: ef.concat([a, b, c], axis=-1),
           lambda a, b, c: np.concatenate([a, b, c], -1), shapes=[(2,), (3,), (1,)]),
    OpCase("concat-one", lambda a: ef.concat([a], axis=0), lambda a: a, shapes=[(3,)]),
    OpCase("stack-scalars", lambda a, b: ef.stack([a, b]), lambda a, b: np.stack([a, b]),
           shapes=[(), ()]),
    OpCase("stack-axis0", lambda a, b: ef.stack([a, b]), lambda a, b: np.stack([a, b]),
           shapes=[(3,), (3,)]),
    OpCase("stack-axis1", lambda a, b: ef.stack([a, b], axis=1),
           lambda a, b: np.stack([a, b], 1), shapes=[(3,), (3,)]),
    OpCase("stack-axis-1-three", lambda a, b, c: ef.stack([a, b, c], axis=-1),
           lambda a, b, c: np.stack([a, b, c], -1), shapes=[(2, 3)] * 3),
    OpCase("unstack-axis0", ef.unstack, lambda x: list(x), shapes=[(3, 4)]),
    OpCase("unstack-axis1", lambda x: ef.unstack(x, axis=1),
           lambda x: list(np.moveaxis(x, 1, 0)), shapes=[(3, 4)]),
    OpCase("unstack-vector", lambda x: ef.unstack(x, num=4), lambda x: list(x), shapes=[(4,)]),
    OpCase("split-equal", lambda x: ef.split(x, 2), lambda x: np.split(x, 2),
           shapes=[(4, 3)]),
    OpCase("split-sizes-axis1", lambda x: ef.split(x, [1, -1, 2], axis=1),
           lambda x: _np_split(x, [1, 1, 2], 1), shapes=[(3, 4)]),
    # tile
    OpCase("tile-matrix", lambda x: ef.tile(x, [2, 1]), lambda x: np.tile(x, (2, 1)),
           shapes=[(2, 3)]),
    OpCase("tile-vector", lambda x: ef.tile(x, [3]), lambda x: np.tile(x, 3), shapes=[(3,)]),
    OpCase("tile-3d", lambda x: ef.tile(x, [1, 3, 2]), lambda x: np.tile(x, (1, 3, 2)),
           shapes=[(2, 1, 2)]),
    OpCase("tile-scalar", lambda x: ef.tile(x, []), lambda x: x, shapes=[()]),
    # indexing (StridedSlice; its gradient StridedSliceGrad is reached at order 2)
    OpCase("getitem-slices", lambda x: x[1:, ::2], lambda x: x[1:, ::2], shapes=[(3, 4)]),
    OpCase("getitem-ellipsis", lambda x: x[..., 0], lambda x: x[..., 0], shapes=[(3, 4)]),
    OpCase("getitem-newaxis", lambda x: x[None, 1], lambda x: x[None, 1], shapes=[(3, 4)]),
    OpCase("getitem-negative", lambda x: x[-1], lambda x: x[-1], shapes=[(3, 4)]),
    OpCase("getitem-reverse", lambda x: x[::-1, 1:3], lambda x: x[::-1, 1:3],
           shapes=[(3, 4)]),
    OpCase("getitem-scalar-element", lambda x: x[2], lambda x: x[2], shapes=[(5,)]),
    OpCase("getitem-repeated-list", lambda x: x[[0, 2, 0]], lambda x: x[[0, 2, 0]],
           shapes=[(3, 4)]),
    OpCase("getitem-mixed-advanced", lambda x: x[:, [3, 0, 3]], lambda x: x[:, [3, 0, 3]],
           shapes=[(3, 4)]),
    OpCase("getitem-pairs", lambda x: x[[0, 1], [1, 2]], lambda x: x[[0, 1], [1, 2]],
           shapes=[(3, 4)]),
    OpCase("getitem-bool-mask", lambda x: x[x > 0], lambda x: x[x > 0], inputs=[_X]),
    OpCase("getitem-int-tensor", lambda x: x[ef.constant([2, 2])], lambda x: x[[2, 2]],
           shapes=[(3, 4)]),
    # not differentiable: forward only
    OpCase("stop_gradient", ef.stop_gradient, lambda x: x, shapes=[(3,)], order=0),
]


# Linear ops: squared, so that order 2 runs the gradients of their gradient rules.
CASES += [squared(case) for case in CASES if case.order and not case.name.startswith(
    ("identity", "expand_dims", "squeeze", "tile-scalar", "concat-one"))]


@parametrize(CASES)
def test_forward(case):
    check_forward(case)


@parametrize(CASES)
def test_gradient(case):
    check_gradient(case)


@parametrize(CASES)
def test_jvp(case):
    check_forward_mode(case)


# Multi-output ops that happen to return a single output keep tuple gradients.
ONE_OUTPUT_CASES = [
    OpCase("split-one", lambda x: ef.split(x, 1), lambda x: [x], shapes=[(3,)]),
    OpCase("unstack-one", ef.unstack, lambda x: list(x), shapes=[(1, 3)]),
]


@parametrize(ONE_OUTPUT_CASES)
def test_one_output_forward(case):
    check_forward(case)


@parametrize(ONE_OUTPUT_CASES)
def test_one_output_gradient(case):
    check_gradient(case)


def test_repeated_indices_accumulate_gradients():
    grad = gradient(lambda x: x[[0, 2, 0, 0]], [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(grad, [3.0, 0.0, 1.0])


def test_slice_gradient_is_zero_outside_the_slice():
    grad = gradient(lambda x: x[1:3] * 2.0, np.ones(4))
    np.testing.assert_array_equal(grad, [0.0, 2.0, 2.0, 0.0])


def test_stop_gradient_blocks_the_gradient():
    grad = gradient(lambda x: x * ef.stop_gradient(x), [3.0])
    np.testing.assert_array_equal(grad, [3.0])


def test_broadcast_to_gradient_sums_back_to_the_input_shape():
    grad = gradient(lambda x: ef.broadcast_to(x, [4, 3]), np.ones((1, 3)))
    assert grad.shape == (1, 3)
    np.testing.assert_array_equal(grad, [[4.0, 4.0, 4.0]])


# -- shape, size, rank; empty and tensor arguments ----------------------------------------
def test_shape_size_rank():
    x = ef.zeros([2, 3, 4])
    assert ef.shape(x).numpy().tolist() == [2, 3, 4]
    assert ef.shape(x).dtype == ef.int32
    assert ef.shape(x, out_type=ef.int64).dtype == ef.int64
    assert ef.shape(1.0).numpy().tolist() == []
    assert int(ef.size(x)) == 24 and ef.size(x).dtype == ef.int32
    assert int(ef.rank(x)) == 3 and int(ef.rank(5)) == 0


def test_unstack_of_an_empty_axis():
    assert ef.unstack(ef.zeros([0, 2])) == []


def test_split_with_tensor_arguments():
    parts = ef.split(ef.zeros([6, 2]), ef.constant(3))
    assert [p.shape for p in parts] == [(2, 2)] * 3
    parts = ef.split(ef.zeros([6, 2]), ef.constant([1, 5]))
    assert [p.shape for p in parts] == [(1, 2), (5, 2)]


# -- hypothesis: round trips --------------------------------------------------------------
_arrays = hnp.arrays(np.float32, hnp.array_shapes(min_dims=0, max_dims=4, max_side=4),
                     elements=st.floats(-10, 10, width=32))


@settings(max_examples=30, deadline=None)
@given(x=_arrays, data=st.data())
def test_reshape_round_trip(x, data):
    flat = ef.reshape(x, [-1])
    np.testing.assert_array_equal(flat.numpy(), x.reshape(-1))
    back = ef.reshape(flat, list(x.shape))
    assert back.shape == x.shape
    np.testing.assert_array_equal(back.numpy(), x)
    if x.size:
        column = ef.reshape(x, [x.size, 1] if data.draw(st.booleans()) else [-1, 1])
        assert column.shape == (x.size, 1)


@settings(max_examples=30, deadline=None)
@given(x=_arrays, data=st.data())
def test_transpose_round_trip(x, data):
    perm = data.draw(st.permutations(range(x.ndim)))
    moved = ef.transpose(x, perm)
    np.testing.assert_array_equal(moved.numpy(), np.transpose(x, perm))
    back = ef.transpose(moved, list(np.argsort(perm)))
    np.testing.assert_array_equal(back.numpy(), x)
    np.testing.assert_array_equal(ef.transpose(x).numpy(), x.T)


@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_concat_split_round_trip(data):
    ndim = data.draw(st.integers(1, 3))
    shape = data.draw(hnp.array_shapes(min_dims=ndim, max_dims=ndim, max_side=3))
    axis = data.draw(st.integers(-ndim, ndim - 1))
    sizes = data.draw(st.lists(st.integers(0, 3), min_size=1, max_size=4))
    parts = []
    for size in sizes:
        part_shape = list(shape)
        part_shape[axis] = size
        parts.append(data.draw(hnp.arrays(np.float64, part_shape,
                                          elements=st.floats(-10, 10))))
    joined = ef.concat(parts, axis=axis)
    np.testing.assert_array_equal(joined.numpy(), np.concatenate(parts, axis=axis))
    pieces = ef.split(joined, sizes, axis=axis)
    assert len(pieces) == len(parts)
    for piece, part in zip(pieces, parts, strict=True):
        np.testing.assert_array_equal(piece.numpy(), part)


@settings(max_examples=20, deadline=None)
@given(x=_arrays.filter(lambda a: a.ndim >= 1), data=st.data())
def test_stack_unstack_round_trip(x, data):
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
    pieces = ef.unstack(x, axis=axis)
    assert len(pieces) == x.shape[axis]
    if pieces:
        np.testing.assert_array_equal(ef.stack(pieces, axis=axis).numpy(), x)


# -- bad input ----------------------------------------------------------------------------
_E = ef.errors.InvalidArgumentError


def test_reshape_to_an_incompatible_shape():
    with pytest.raises(_E, match=r"Input to reshape is a tensor with 6 values \(shape \(2, 3\)\), "
                                 r"which cannot take the requested shape \[4\] \[Op:Reshape\]"):
        ef.reshape(ef.zeros([2, 3]), [4])
    with pytest.raises(_E, match=r"requested shape \[-1, -1\] \[Op:Reshape\]"):
        ef.reshape(ef.zeros([2, 3]), [-1, -1])


def test_transpose_bad_perm():
    with pytest.raises(_E, match=r"perm \[0, 0\] is not a permutation of the 2 dimensions of a "
                                 r"tensor of shape \(2, 3\) \[Op:Transpose\]"):
        ef.transpose(ef.zeros([2, 3]), [0, 0])
    with pytest.raises(_E, match=r"perm \[0, 1, 2\] is not a permutation.*\[Op:Transpose\]"):
        ef.transpose(ef.zeros([2, 3]), [0, 1, 2])


def test_transpose_conjugate_of_complex_is_unimplemented():
    with pytest.raises(ef.errors.UnimplementedError,
                       match=r"conjugate=True for complex tensors \[Op:Transpose\]"):
        ef.transpose(ef.constant([1 + 1j]), conjugate=True)
    assert ef.transpose(ef.constant([1.0]), conjugate=True).numpy().tolist() == [1.0]


def test_expand_dims_axis_out_of_range():
    with pytest.raises(_E, match=r"axis 4 is out of bounds for expand_dims of a tensor of rank "
                                 r"2: expected \[-3, 2\] \[Op:ExpandDims\]"):
        ef.expand_dims(ef.zeros([2, 3]), 4)


def test_squeeze_bad_axes():
    with pytest.raises(_E, match=r"Can not squeeze dim\[0\], expected a dimension of 1, got 2 "
                                 r"\(shape \(2, 3\)\) \[Op:Squeeze\]"):
        ef.squeeze(ef.zeros([2, 3]), 0)
    with pytest.raises(_E, match=r"axis 5 is out of bounds for a tensor of rank 2: expected "
                                 r"\[-2, 2\) \[Op:Squeeze\]"):
        ef.squeeze(ef.zeros([1, 3]), 5)


def test_broadcast_to_incompatible_shape_names_both_shapes():
    with pytest.raises(_E, match=r"Incompatible shapes: \(2, 3\) vs\. \(4, 3\) "
                                 r"\[Op:BroadcastTo\]"):
        ef.broadcast_to(ef.zeros([2, 3]), [4, 3])
    with pytest.raises(_E, match=r"Incompatible shapes: \(3, 1\) vs\. \(2,\) \[Op:BroadcastTo\]"):
        ef.broadcast_to(ef.zeros([3, 1]), [2])


def test_concat_bad_inputs():
    with pytest.raises(_E, match=r"axis 2 is out of bounds for a tensor of rank 2: expected "
                                 r"\[-2, 2\) \[Op:ConcatV2\]"):
        ef.concat([ef.zeros([2, 3]), ef.zeros([2, 3])], axis=2)
    with pytest.raises(_E, match=r"expected a non-empty list of tensors \[Op:ConcatV2\]"):
        ef.concat([], axis=0)
    with pytest.raises(_E, match=r"expected a list of tensors, got Tensor \[Op:ConcatV2\]"):
        ef.concat(ef.zeros([2]), axis=0)
    with pytest.raises(_E, match=r"dimension 0.*float32\[2, 3\], float32\[3, 3\].*"
                                 r"\[Op:ConcatV2\]"):
        ef.concat([ef.zeros([2, 3]), ef.zeros([3, 3])], axis=1)


def test_stack_bad_inputs():
    with pytest.raises(_E, match=r"same shape.*float32\[2, 3\], float32\[3, 3\].*\[Op:Pack\]"):
        ef.stack([ef.zeros([2, 3]), ef.zeros([3, 3])])
    with pytest.raises(_E, match=r"axis 3 is out of bounds for a tensor of rank 2.*\[Op:Pack\]"):
        ef.stack([ef.zeros([2])], axis=3)
    with pytest.raises(_E, match=r"expected a list of tensors, got int \[Op:Pack\]"):
        ef.stack(3)


def test_unstack_bad_inputs():
    with pytest.raises(_E, match=r"Cannot unstack a scalar tensor \[Op:Unpack\]"):
        ef.unstack(ef.constant(1.0))
    with pytest.raises(_E, match=r"num=3 does not match dimension 0 of shape \(2, 3\) "
                                 r"\[Op:Unpack\]"):
        ef.unstack(ef.zeros([2, 3]), num=3)
    with pytest.raises(_E, match=r"axis 2 is out of bounds.*\[Op:Unpack\]"):
        ef.unstack(ef.zeros([2, 3]), axis=2)


def test_split_bad_sizes():
    with pytest.raises(_E, match=r"Number of ways to split should evenly divide the split "
                                 r"dimension, but got split_dim 0 \(size = 6\) and num_split 4 "
                                 r"\[Op:SplitV\]"):
        ef.split(ef.zeros([6]), 4)
    with pytest.raises(_E, match=r"num_split 0 \[Op:SplitV\]"):
        ef.split(ef.zeros([6]), 0)
    with pytest.raises(_E, match=r"only one size may be -1, got \[-1, -1\] \[Op:SplitV\]"):
        ef.split(ef.zeros([6]), [-1, -1])
    with pytest.raises(_E, match=r"Got sizes \[1, 2\] for dimension 0 of size 6 \[Op:SplitV\]"):
        ef.split(ef.zeros([6]), [1, 2])
    with pytest.raises(_E, match=r"Got sizes \[4, -1, 4\] for dimension 0 of size 6 "
                                 r"\[Op:SplitV\]"):
        ef.split(ef.zeros([6]), [4, -1, 4])
    with pytest.raises(_E, match=r"Got sizes \[7, -2\] .*\[Op:SplitV\]"):
        ef.split(ef.zeros([6]), [7, -2])
    with pytest.raises(_E, match=r"axis 2 is out of bounds.*\[Op:SplitV\]"):
        ef.split(ef.zeros([2, 3]), 3, axis=2)


def test_tile_bad_multiples():
    with pytest.raises(_E, match=r"Expected multiples argument to be a vector of length 2 but got "
                                 r"length 1 \[Op:Tile\]"):
        ef.tile(ef.zeros([2, 3]), [2])
    with pytest.raises(_E, match=r"Expected multiples\[1\] >= 0, but got -1 \[Op:Tile\]"):
        ef.tile(ef.zeros([2, 3]), [2, -1])


def test_indexing_errors_name_the_index_and_shape():
    x = ef.zeros([3, 4])
    with pytest.raises(_E, match=r"index 5 is out of bounds for axis 0 with size 3 \(indexing a "
                                 r"tensor of shape \(3, 4\)\) \[Op:StridedSlice\]"):
        x[5]
    with pytest.raises(_E, match=r"index 7 is out of bounds for axis 1.*\[Op:StridedSlice\]"):
        x[:, 7]
    with pytest.raises(_E, match=r"index -4 is out of bounds.*\[Op:StridedSlice\]"):
        x[-4]
    with pytest.raises(_E, match=r"too many indices.*\(3, 4\).*\[Op:StridedSlice\]"):
        x[0, 0, 0]
    with pytest.raises(_E, match=r"only integers, slices.*\[Op:StridedSlice\]"):
        x[1.5]
    with pytest.raises(_E, match=r"integer \(or boolean\) type.*\[Op:StridedSlice\]"):
        x[ef.constant([1.0])]
