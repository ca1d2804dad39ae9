"""Gather/scatter, masks, one-hot and padding (eagerflow/ops/indexing.py)."""

import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import eagerflow as ef
from eagerflow.core.dispatch import execute
from eagerflow.ops import indexing
from tests.ops.opcase import (
    OpCase,
    check_forward,
    check_forward_mode,
    check_gradient,
    gradient,
    parametrize,
    squared,
)

_E = ef.errors.InvalidArgumentError


def _np_gather_batched(params, indices):
    return np.stack([np.take(p, i, axis=0) for p, i in zip(params, indices, strict=True)])


def _np_gather_nd(params, indices):
    indices = np.asarray(indices)
    return params[tuple(np.moveaxis(indices, -1, 0))]


def _np_scatter_nd(indices, updates, shape):
    result = np.zeros(shape, updates.dtype)
    np.add.at(result, tuple(np.moveaxis(np.asarray(indices), -1, 0)), updates)
    return result


_PAD = [[1, 2], [0, 1]]
_MASK = np.array([True, False, True])

CASES = [
    # gather: its gradient GatherGrad is reached at order 2
    OpCase("gather-vector", lambda p: ef.gather(p, [3, 0, 3]), lambda p: np.take(p, [3, 0, 3]),
           shapes=[(5,)]),
    OpCase("gather-rows", lambda p: ef.gather(p, [2, 0]), lambda p: np.take(p, [2, 0], 0),
           shapes=[(3, 4)]),
    OpCase("gather-axis1-matrix-indices", lambda p: ef.gather(p, [[0, 3], [3, 3]], axis=1),
           lambda p: np.take(p, [[0, 3], [3, 3]], 1), shapes=[(3, 4)]),
    OpCase("gather-axis-1", lambda p: ef.gather(p, [1, 1], axis=-1),
           lambda p: np.take(p, [1, 1], -1), shapes=[(2, 3, 4)]),
    OpCase("gather-scalar-index", lambda p: ef.gather(p, 1, axis=1),
           lambda p: np.take(p, 1, 1), shapes=[(2, 3, 4)]),
    OpCase("gather-batch_dims", lambda p: ef.gather(p, [[0, 2], [1, 1]], batch_dims=1),
           lambda p: _np_gather_batched(p, [[0, 2], [1, 1]]), shapes=[(2, 3, 4)]),
    OpCase("gather-negative-batch_dims", lambda p: ef.gather(p, [[2], [0]], batch_dims=-1),
           lambda p: _np_gather_batched(p, [[2], [0]]), shapes=[(2, 3)]),
    # gather_nd / scatter_nd (each other's gradients)
    OpCase("gather_nd-elements", lambda p: ef.gather_nd(p, [[1, 0], [0, 3], [1, 0]]),
           lambda p: _np_gather_nd(p, [[1, 0], [0, 3], [1, 0]]), shapes=[(2, 4)]),
    OpCase("gather_nd-slices", lambda p: ef.gather_nd(p, [[1], [0]]),
           lambda p: _np_gather_nd(p, [[1], [0]]), shapes=[(2, 3, 4)]),
    OpCase("gather_nd-single", lambda p: ef.gather_nd(p, [1, 2]),
           lambda p: _np_gather_nd(p, [1, 2]), shapes=[(2, 3, 4)]),
    OpCase("scatter_nd-elements", lambda u: ef.scatter_nd([[1], [3], [1]], u, [4]),
           lambda u: _np_scatter_nd([[1], [3], [1]], u, (4,)), shapes=[(3,)]),
    OpCase("scatter_nd-rows", lambda u: ef.scatter_nd([[2], [0]], u, [3, 4]),
           lambda u: _np_scatter_nd([[2], [0]], u, (3, 4)), shapes=[(2, 4)]),
    OpCase("scatter_nd-2d-index",
           lambda u: ef.scatter_nd([[0, 1], [1, 1]], u, ef.constant([2, 2])),
           lambda u: _np_scatter_nd([[0, 1], [1, 1]], u, (2, 2)), shapes=[(2,)]),
    # boolean_mask (a gather of the flattened masked dimensions)
    OpCase("boolean_mask-rows", lambda x: ef.boolean_mask(x, _MASK),
           lambda x: x[_MASK], shapes=[(3, 2)]),
    OpCase("boolean_mask-axis1", lambda x: ef.boolean_mask(x, _MASK, axis=1),
           lambda x: x[:, _MASK], shapes=[(2, 3)]),
    OpCase("boolean_mask-2d-mask", lambda x: ef.boolean_mask(x, [[True, False], [True, True]]),
           lambda x: x[np.array([[True, False], [True, True]])], shapes=[(2, 2, 3)]),
    # pad; MirrorPad's gradient MirrorPadGrad is reached at order 2
    OpCase("pad-constant", lambda x: ef.pad(x, _PAD), lambda x: np.pad(x, _PAD),
           shapes=[(2, 3)]),
    OpCase("pad-constant-value", lambda x: ef.pad(x, [[2, 1]], constant_values=1.5),
           lambda x: np.pad(x, [[2, 1]], constant_values=1.5), shapes=[(3,)]),
    OpCase("pad-reflect", lambda x: ef.pad(x, [[1, 1], [2, 2]], mode="REFLECT"),
           lambda x: np.pad(x, [[1, 1], [2, 2]], mode="reflect"), shapes=[(3, 4)]),
    OpCase("pad-symmetric", lambda x: ef.pad(x, [[1, 2], [0, 3], [2, 0]], mode="symmetric"),
           lambda x: np.pad(x, [[1, 2], [0, 3], [2, 0]], mode="symmetric"),
           shapes=[(2, 3, 2)]),
    OpCase("pad-reflect-vector", lambda x: ef.pad(x, [[3, 0]], mode="reflect"),
           lambda x: np.pad(x, [[3, 0]], mode="reflect"), shapes=[(4,)]),
]


# All of these are linear: squared, order 2 runs the gradients of their gradient rules.
CASES += [squared(case) for case in CASES]


@parametrize(CASES)
def test_forward(case):
    check_forward(case)


@parametrize(CASES)
def test_gradient(case):
    check_gradient(case)


@parametrize(CASES)
def test_jvp(case):
    check_forward_mode(case)


def test_gather_gradient_accumulates_repeated_indices():
    np.testing.assert_array_equal(gradient(lambda p: ef.gather(p, [1, 1, 0, 1]), np.zeros(3)),
                                  [1.0, 3.0, 0.0])


def test_scatter_nd_sums_duplicates():
    result = ef.scatter_nd([[1], [3], [1]], [1.0, 2.0, 3.0], [4])
    assert result.numpy().tolist() == [0.0, 4.0, 0.0, 2.0]


def test_gather_has_no_gradient_for_indices():
    params, indices = ef.constant([1.0, 2.0]), ef.constant([1])
    with ef.GradientTape() as tape:
        tape.watch(params)
        y = ef.gather(params, indices)
    assert tape.gradient(y, [params, indices])[1] is None


def test_gather_of_empty_indices():
    assert ef.gather(ef.zeros([3, 2]), ef.constant([], dtype=ef.int32)).shape == (0, 2)


def test_one_hot():
    np.testing.assert_array_equal(ef.one_hot([0, 2], 3).numpy(), [[1, 0, 0], [0, 0, 1]])
    assert ef.one_hot([0, 2], 3).dtype == ef.float32
    # out-of-range indices give a row of off_value, like TensorFlow
    np.testing.assert_array_equal(ef.one_hot([3, -1], 3).numpy(), np.zeros((2, 3)))
    hot = ef.one_hot([0, 1], 3, on_value=5, off_value=-1)
    assert hot.dtype == ef.int32
    assert hot.numpy().tolist() == [[5, -1, -1], [-1, 5, -1]]
    assert ef.one_hot([0, 1], 3, on_value=2.0, off_value=0.5).dtype == ef.float32
    assert ef.one_hot([1], 2, dtype=ef.int64).dtype == ef.int64
    by_column = ef.one_hot([[0, 1]], 3, axis=0)
    assert by_column.shape == (3, 1, 2)
    np.testing.assert_array_equal(by_column.numpy()[:, 0, :], [[1, 0], [0, 1], [0, 0]])
    assert ef.one_hot([[0, 1]], 3, axis=1).shape == (1, 3, 2)
    assert ef.one_hot([0, 1], 0).shape == (2, 0)


def test_sequence_mask():
    np.testing.assert_array_equal(ef.sequence_mask([1, 3], 4).numpy(),
                                  [[True, False, False, False], [True, True, True, False]])
    assert ef.sequence_mask([1, 3]).shape == (2, 3)  # maxlen defaults to max(lengths)
    mask = ef.sequence_mask([[1, 2]], 3, dtype=ef.float32)
    assert mask.dtype == ef.float32 and mask.shape == (1, 2, 3)
    assert ef.sequence_mask(ef.constant([], dtype=ef.int32)).shape == (0, 0)


def test_boolean_mask_of_nothing():
    assert ef.boolean_mask(ef.zeros([3, 2]), [False, False, False]).shape == (0, 2)


def test_pad_modes_and_integer_tensors():
    assert ef.pad([1, 2, 3], [[2, 0]], mode="REFLECT").numpy().tolist() == [3, 2, 1, 2, 3]
    assert ef.pad([1, 2, 3], [[2, 0]], mode="SYMMETRIC").numpy().tolist() == [2, 1, 1, 2, 3]
    assert ef.pad([[1]], ef.constant([[1, 0], [0, 1]])).numpy().tolist() == [[0, 0], [1, 0]]


def test_mirror_pad_gradient_folds_back():
    grad = gradient(lambda x: ef.pad(x, [[2, 1]], mode="REFLECT"), [1.0, 2.0, 3.0])
    # padded = [x2, x1, x0, x1, x2, x1]
    np.testing.assert_array_equal(grad, [1.0, 3.0, 2.0])


def test_scatter_along_last_axis():
    result = indexing.scatter_along_last_axis([[10.0, 20.0]], [[2, 0]], 3)
    assert result.numpy().tolist() == [[20.0, 0.0, 10.0]]


# -- hypothesis: gather against np.take ---------------------------------------------------
@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_gather_matches_np_take(data):
    params = data.draw(hnp.arrays(np.float32, hnp.array_shapes(min_dims=1, max_dims=3,
                                                               min_side=1, max_side=4),
                                  elements=st.floats(-10, 10, width=32)))
    axis = data.draw(st.integers(-params.ndim, params.ndim - 1))
    indices = data.draw(hnp.arrays(np.int32, hnp.array_shapes(min_dims=0, max_dims=2,
                                                              max_side=3),
                                   elements=st.integers(0, params.shape[axis] - 1)))
    got = ef.gather(params, indices, axis=axis)
    np.testing.assert_array_equal(got.numpy(), np.take(params, indices, axis=axis))


@settings(max_examples=20, deadline=None)
@given(data=st.data())
def test_out_of_range_gather_indices_always_raise(data):
    size = data.draw(st.integers(1, 5))
    bad = data.draw(st.integers(-20, -1) | st.integers(size, 40))
    indices = data.draw(st.lists(st.integers(0, size - 1), max_size=3))
    position = data.draw(st.integers(0, len(indices)))
    indices.insert(position, bad)
    with pytest.raises(_E, match=rf"indices\[{position}\] = {bad} is not in \[0, {size}\) "
                                 rf"\[Op:Gather\]"):
        ef.gather(ef.zeros([size, 2]), indices)


# -- bad input ----------------------------------------------------------------------------
def test_gather_seed_example():
    with pytest.raises(_E, match=r"^indices\[0\] = 3081 is not in \[0, 128\) \[Op:Gather\]$"):
        ef.gather(ef.zeros([128, 4]), [3081])


def test_gather_negative_and_nested_indices():
    with pytest.raises(_E, match=r"indices\[0\] = -1 is not in \[0, 128\) \[Op:Gather\]"):
        ef.gather(ef.zeros([128, 4]), [-1])
    with pytest.raises(_E, match=r"indices\[1, 1\] = 200 is not in \[0, 128\) \[Op:Gather\]"):
        ef.gather(ef.zeros([128, 4]), [[0, 1], [2, 200]])
    with pytest.raises(_E, match=r"indices\[0\] = 4 is not in \[0, 4\) \[Op:Gather\]"):
        ef.gather(ef.zeros([128, 4]), [4], axis=1)
    with pytest.raises(_E, match=r"indices\[0, 1\] = 3 is not in \[0, 3\) \[Op:Gather\]"):
        ef.gather(ef.zeros([2, 3, 4]), [[0, 3], [1, 1]], batch_dims=1)


def test_gather_bad_arguments():
    with pytest.raises(_E, match=r"indices must be an integer tensor, got dtype float32 "
                                 r"\[Op:Gather\]"):
        ef.gather(ef.zeros([3]), [1.0])
    with pytest.raises(_E, match=r"Expected axis in the range \[-2, 2\), but got 2 "
                                 r"\[Op:Gather\]"):
        ef.gather(ef.zeros([3, 2]), [1], axis=2)
    with pytest.raises(_E, match=r"batch_dims=1 needs axis == batch_dims and matching leading "
                                 r"dimensions; got axis=2, params \(2, 3, 4\), indices \(2, 2\) "
                                 r"\[Op:Gather\]"):
        ef.gather(ef.zeros([2, 3, 4]), [[0, 1], [1, 1]], axis=2, batch_dims=1)
    with pytest.raises(_E, match=r"got axis=1, params \(2, 3, 4\), indices \(3, 2\)"):
        ef.gather(ef.zeros([2, 3, 4]), [[0, 1], [1, 1], [0, 0]], batch_dims=1)


def test_gather_forward_checks_indices_dtype():
    # The wrapper converts and checks; the op itself checks too (e.g. when traced).
    with pytest.raises(_E, match=r"indices must be integers, got dtype float64 \[Op:Gather\]"):
        execute(indexing._gather, (ef.zeros([3]), ef.constant([1.0], ef.float64)),
                {"axis": 0, "batch_dims": 0})


def test_gather_nd_bad_indices():
    params = ef.zeros([2, 3, 4])
    with pytest.raises(_E, match=r"indices\[1\] = \[2, 0\] does not index into param shape "
                                 r"\[2, 3, 4\] \[Op:GatherNd\]"):
        ef.gather_nd(params, [[0, 1], [2, 0]])
    with pytest.raises(_E, match=r"indices\[0, 1\] = \[-1, 0\] does not index into param shape"):
        ef.gather_nd(params, [[[0, 0], [-1, 0]]])
    with pytest.raises(_E, match=r"indices = \[1, 5\] does not index into param shape "
                                 r"\[2, 3, 4\]"):
        ef.gather_nd(params, [1, 5])
    with pytest.raises(_E, match=r"indices.shape\[-1\] = 4 must be <= the rank of the indexed "
                                 r"tensor \(3, shape \(2, 3, 4\)\) \[Op:GatherNd\]"):
        ef.gather_nd(params, [[0, 1, 2, 3]])
    with pytest.raises(_E, match=r"indices must have rank >= 1 \[Op:GatherNd\]"):
        ef.gather_nd(params, 1)
    with pytest.raises(_E, match=r"indices must be an integer tensor, got dtype float32 "
                                 r"\[Op:GatherNd\]"):
        ef.gather_nd(params, [[0, 1.0]])
    with pytest.raises(ef.errors.UnimplementedError,
                       match=r"gather_nd with batch_dims != 0 \[Op:GatherNd\]"):
        ef.gather_nd(params, [[0, 1]], batch_dims=1)


def test_scatter_nd_bad_input():
    with pytest.raises(_E, match=r"indices\[0\] = \[5\] does not index into shape \[4\] "
                                 r"\[Op:ScatterNd\]"):
        ef.scatter_nd([[5]], [1.0], [4])
    with pytest.raises(_E, match=r"indices\[1\] = \[-1\] does not index into shape \[4\]"):
        ef.scatter_nd([[0], [-1]], [1.0, 2.0], [4])
    with pytest.raises(_E, match=r"updates must have shape indices.shape\[:-1\] \+ "
                                 r"shape\[indices.shape\[-1\]:\] = \(1,\), got \(2,\) "
                                 r"\[Op:ScatterNd\]"):
        ef.scatter_nd([[1]], [1.0, 2.0], [4])
    with pytest.raises(_E, match=r"indices must have rank >= 1 \[Op:ScatterNd\]"):
        ef.scatter_nd(0, 1.0, [3])
    with pytest.raises(_E, match=r"indices.shape\[-1\] = 2 must be <= the rank of the indexed "
                                 r"tensor \(1, shape \(3,\)\) \[Op:ScatterNd\]"):
        ef.scatter_nd([[0, 1]], [1.0], [3])
    with pytest.raises(_E, match=r"indices must be an integer tensor, got dtype float32 "
                                 r"\[Op:ScatterNd\]"):
        ef.scatter_nd([[0.0]], [1.0], [3])


def test_boolean_mask_bad_input():
    with pytest.raises(_E, match=r"Shapes \(3, 2\) \(tensor\) and \(2,\) \(mask\) are "
                                 r"incompatible: the mask must match dimensions 0\.\.0 of the "
                                 r"tensor \[Op:BooleanMask\]"):
        ef.boolean_mask(ef.zeros([3, 2]), [True, False])
    with pytest.raises(_E, match=r"mask must be a bool tensor, got dtype int32 "
                                 r"\[Op:BooleanMask\]"):
        ef.boolean_mask(ef.zeros([3, 2]), [1, 0, 1])
    with pytest.raises(_E, match=r"mask cannot be scalar \[Op:BooleanMask\]"):
        ef.boolean_mask(ef.zeros([3]), True)
    with pytest.raises(_E, match=r"axis 5 is out of bounds for a tensor of rank 2: expected "
                                 r"\[-2, 2\) \[Op:BooleanMask\]"):
        ef.boolean_mask(ef.zeros([2, 3]), [True, False, True], axis=5)


def test_one_hot_bad_input():
    with pytest.raises(_E, match=r"axis must be in \[-1, 1\], got 3 \[Op:OneHot\]"):
        ef.one_hot([0, 1], 3, axis=3)
    with pytest.raises(_E, match=r"axis must be in \[-1, 1\], got -2 \[Op:OneHot\]"):
        ef.one_hot([0, 1], 3, axis=-2)
    with pytest.raises(_E, match=r"indices must be an integer tensor, got dtype float32 "
                                 r"\[Op:OneHot\]"):
        ef.one_hot([0.0, 1.0], 3)
    with pytest.raises(_E, match=r"depth must be non-negative, got -1 \[Op:OneHot\]"):
        ef.one_hot([0, 1], -1)


def test_sequence_mask_needs_integer_lengths():
    with pytest.raises(_E, match=r"indices must be an integer tensor, got dtype float32 "
                                 r"\[Op:SequenceMask\]"):
        ef.sequence_mask([1.0])


def test_pad_bad_input():
    with pytest.raises(_E, match=r"paddings must be non-negative integers of shape \[2, 2\] for "
                                 r"a tensor of shape \(2, 3\), got \[\[1, 1\]\] \[Op:PadV2\]"):
        ef.pad(ef.zeros([2, 3]), [[1, 1]])
    with pytest.raises(_E, match=r"got \[\[1, 1\], \[-1, 0\]\] \[Op:PadV2\]"):
        ef.pad(ef.zeros([2, 3]), [[1, 1], [-1, 0]])
    with pytest.raises(_E, match=r"got \[\[1\.5, 1\.0\]\] \[Op:PadV2\]"):
        ef.pad(ef.zeros([2]), [[1.5, 1]])
    with pytest.raises(_E, match=r"mode must be CONSTANT, REFLECT or SYMMETRIC, got 'WRAP' "
                                 r"\[Op:MirrorPad\]"):
        ef.pad(ef.zeros([2, 3]), [[1, 1], [1, 0]], mode="wrap")
    with pytest.raises(_E, match=r"paddings \(\(1, 1\), \(3, 0\)\) too large for REFLECT padding "
                                 r"of shape \(2, 3\) \[Op:MirrorPad\]"):
        ef.pad(ef.zeros([2, 3]), [[1, 1], [3, 0]], mode="REFLECT")
    with pytest.raises(_E, match=r"too large for SYMMETRIC padding of shape \(2, 3\)"):
        ef.pad(ef.zeros([2, 3]), [[3, 0], [0, 0]], mode="SYMMETRIC")
    ef.pad(ef.zeros([2, 3]), [[2, 0], [0, 0]], mode="SYMMETRIC")  # the edge may be repeated
