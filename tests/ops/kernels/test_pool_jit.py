"""The compiled pooling kernels (eagerflow/ops/kernels/pool_jit.py): the same bits as the NumPy
forwards of MaxPool, MaxPoolGrad, MaxPoolGradGrad, AvgPool and AvgPoolGrad (ties, NaN,
padding, overlapping windows), and the pools' gradients under the numba set."""

import numpy as np
import pytest

pytest.importorskip("numba")

import eagerflow as ef  # noqa: E402 - after the skip: these tests need numba
from eagerflow.ops import pooling  # noqa: E402, F401 - registers the pooling ops
from eagerflow.ops.kernels import kernel_sets, pool_jit, saved  # noqa: E402

# (input shape, ksize, strides, pads)
CASES = {
    "tiled": ((2, 6, 8, 3), (2, 2), (2, 2), ((0, 0), (0, 0))),
    "overlapping": ((1, 7, 6, 4), (3, 3), (1, 1), ((0, 0), (0, 0))),
    "same-padded": ((2, 7, 5, 2), (3, 2), (2, 2), ((1, 1), (0, 1))),
    "strided-odd": ((3, 9, 7, 5), (2, 3), (3, 1), ((0, 1), (1, 1))),
}


def _arrays(case, dtype):
    shape, ksize, strides, pads = CASES[case]
    rng = np.random.default_rng(len(case))
    x = rng.integers(-3, 4, size=shape).astype(dtype)  # small integers: many ties
    out = tuple((size + before + after - k) // s + 1 for size, k, s, (before, after)
                in zip(shape[1:3], ksize, strides, pads))
    dy = rng.normal(size=(shape[0],) + out + (shape[3],)).astype(dtype)
    return x, dy, {"ksize": ksize, "strides": strides, "pads": pads}


def _same(op_name, kernel, *args, **attrs):
    want = kernel_sets.numpy_forward(op_name)(*args, **attrs)
    got = kernel(*args, **attrs)
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
    return got


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", sorted(CASES))
def test_same_values_as_the_numpy_forwards(case, dtype):
    x, dy, attrs = _arrays(case, dtype)
    x.reshape(-1)[::7] = np.nan if case == "overlapping" else x.reshape(-1)[::7]
    y = _same("MaxPool", pool_jit.max_pool, x, **attrs)
    _same("MaxPoolGrad", pool_jit.max_pool_backprop, x, y, dy, **attrs)
    ddx = np.random.default_rng(1).normal(size=x.shape).astype(dtype)
    _same("MaxPoolGradGrad", pool_jit.max_pool_backprop_grad, x, y, ddx, **attrs)
    x = np.nan_to_num(x) + np.random.default_rng(2).normal(size=x.shape).astype(dtype)
    _same("AvgPool", pool_jit.avg_pool, x, **attrs)
    _same("AvgPoolGrad", pool_jit.avg_pool_backprop, dy, input_shape=(None,) + x.shape[1:],
          **attrs)


def test_other_dtypes_run_the_numpy_forward():
    x, _, attrs = _arrays("tiled", np.float32)
    _same("MaxPool", pool_jit.max_pool, x.astype(np.int32), **attrs)


def test_gradients_of_the_pools(numba_kernels):
    x = np.random.default_rng(0).normal(size=(2, 5, 6, 3))
    ef.testing.check_gradients(lambda x: ef.nn.max_pool2d(x, 2, 2, "SAME"), x)
    ef.testing.check_gradients(lambda x: ef.nn.max_pool2d(x, 3, 1, "VALID"), x)
    ef.testing.check_gradients(lambda x: ef.nn.avg_pool2d(x, [3, 2], [2, 1], "SAME"), x)
    ef.testing.check_gradients(
        lambda x: ef.nn.max_pool3d(x, 2, 1, "VALID"), np.random.default_rng(1).normal(
            size=(1, 3, 4, 3, 2)), order=1)


@pytest.mark.usefixtures("empty_saved_cache")
def test_the_gradient_takes_the_winners_the_forward_kept(numba_kernels, monkeypatch):
    x = ef.constant(np.random.default_rng(3).integers(-2, 3, size=(2, 6, 6, 3)).astype("f4"))
    searches = []
    original = pool_jit._pool_max
    monkeypatch.setattr(pool_jit, "_pool_max", lambda *a: searches.append(1) or original(*a))
    with ef.GradientTape() as tape:
        tape.watch(x)
        y = ef.nn.max_pool2d(x, 3, 2, "SAME")
    dx = tape.gradient(y, x).numpy()
    assert len(searches) == 1 and not saved._entries  # found once, taken by the gradient
    kernel_sets.set_active("numpy")
    with ef.GradientTape() as tape:
        tape.watch(x)
        y = ef.nn.max_pool2d(x, 3, 2, "SAME")
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), dx)
