"""The scatter-add of a gather's gradient (eagerflow/ops/kernels/scatter.py) against a
direct ``np.add.at`` on the params' layout, and its numba kernel (scatter_jit.py) against
the NumPy one, bit for bit (skipped without numba)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import eagerflow as ef
from eagerflow.ops.kernels import kernel_sets, scatter


def _reference(dy, indices, shape, axis):
    """np.add.at on the params' own layout (what GatherGrad computed before the rows)."""
    result = np.zeros((shape[axis],) + shape[:axis] + shape[axis + 1:], dy.dtype)
    moved = np.moveaxis(dy, list(range(axis, axis + indices.ndim)), list(range(indices.ndim)))
    np.add.at(result, indices, moved)
    return np.moveaxis(result, 0, axis)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2), st.integers(0, 2), st.integers(1, 5), st.integers(0, 6),
       st.integers(0, 2**31 - 1))
def test_rows_equal_add_at_on_the_params_layout(axis, index_rank, n, count, seed):
    rng = np.random.default_rng(seed)
    shape = tuple(int(s) for s in rng.integers(1, 4, 3))
    shape = shape[:axis] + (n,) + shape[axis + 1:]
    indices = rng.integers(0, n, (count,) + (2,) * index_rank)
    dy = rng.normal(size=shape[:axis] + indices.shape + shape[axis + 1:]).astype(np.float32)
    got = scatter.gather_grad(dy, indices, shape, axis, 0)
    np.testing.assert_array_equal(got, _reference(dy, indices, shape, axis))


def test_batched_rows_go_to_their_own_batch():
    params = ef.constant(np.arange(24, dtype=np.float32).reshape(2, 4, 3))
    indices = ef.constant([[0, 0, 3], [1, 2, 1]])
    with ef.GradientTape() as tape:
        tape.watch(params)
        y = ef.gather(params, indices, axis=1, batch_dims=1)
    grad = tape.gradient(y, params).numpy()
    want = np.zeros((2, 4, 3), np.float32)
    want[0, 0], want[0, 3], want[1, 1], want[1, 2] = 2, 1, 2, 1
    np.testing.assert_array_equal(grad, want)


@pytest.mark.parametrize("bad", [-1, 5])
def test_an_index_outside_the_rows_is_an_error_not_a_write(bad):
    with pytest.raises(ef.errors.InvalidArgumentError,
                       match=rf"indices\[1\] = {bad} is not in \[0, 5\).*GatherGrad"):
        scatter.gather_grad(np.ones((2, 3), np.float32), np.array([0, bad]), (5, 3), 0, 0)


class TestNumbaKernel:
    @pytest.fixture(autouse=True)
    def _numba(self):
        pytest.importorskip("numba")

    @pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16, np.int32])
    @pytest.mark.parametrize(("shape", "axis", "batch_dims", "index_shape"), [
        ((1000, 16), 0, 0, (64, 25)),        # an embedding: many repeats
        ((3, 7, 5), 1, 0, (4, 6)),           # a middle axis
        ((2, 6, 4), 1, 1, (2, 9)),           # batched
        ((4, 0), 0, 0, (3,)),                # empty rows
        ((4, 2), 0, 0, (0,)),                # no index
    ])
    def test_bit_identical_to_the_numpy_kernel(self, dtype, shape, axis, batch_dims,
                                               index_shape):
        rng = np.random.default_rng(1)
        indices = rng.integers(0, shape[axis], index_shape)
        dy_shape = shape[:axis] + index_shape[batch_dims:] + shape[axis + 1:]
        dy = (rng.normal(size=dy_shape) * 10).astype(dtype)
        want = kernel_sets.numpy_forward("GatherGrad")(dy, indices, shape, axis, batch_dims)
        got = kernel_sets.kernel_forward("GatherGrad")(dy, indices, shape, axis, batch_dims)
        assert got.dtype == want.dtype and got.shape == want.shape == shape
        np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))

    def test_checks_indices_before_the_loop_writes(self):
        kernel = kernel_sets.kernel_forward("GatherGrad")
        with pytest.raises(ef.errors.InvalidArgumentError, match="not in"):
            kernel(np.ones((2, 3), np.float32), np.array([0, 10**6]), (5, 3), 0, 0)
