"""The compiled pooling kernels (eagerflow/ops/kernels/pool_jit.py): the same bits as the NumPy
forwards of MaxPool, MaxPoolGrad, MaxPoolGradGrad, AvgPool, AvgPoolGrad, MaxPoolBiasRelu and
MaxPoolBiasReluGrad (ties, NaN, padding, overlapping windows, the 2x2 fast paths), and the
pools' gradients under the numba set."""

import numpy as np
import pytest

pytest.importorskip("numba")

import eagerflow as ef  # noqa: E402 - after the skip: these tests need numba
from eagerflow.ops import pooling  # noqa: E402 - registers the pooling ops
from eagerflow.ops.kernels import kernel_sets, pool_jit, saved  # noqa: E402

# (input shape, ksize, strides, pads)
CASES = {
    "tiled": ((2, 6, 8, 3), (2, 2), (2, 2), ((0, 0), (0, 0))),
    "tiled-remainder": ((2, 7, 9, 3), (2, 2), (2, 2), ((0, 0), (0, 0))),
    "2x2-strided": ((2, 7, 9, 3), (2, 2), (1, 3), ((0, 0), (0, 0))),
    "2x2-same": ((2, 7, 5, 2), (2, 2), (2, 2), ((0, 1), (0, 1))),
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
    x.reshape(-1)[::7] = np.nan if case in ("overlapping", "tiled") else x.reshape(-1)[::7]
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


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", sorted(CASES))
def test_fused_pool_bias_relu_gives_the_numpy_forwards_values(case, dtype):
    x, dy, attrs = _arrays(case, dtype)
    x.reshape(-1)[::7] = np.nan
    dy.reshape(-1)[::3] *= -1  # negative gradients masked to -0.0 by the relu
    bias = np.array([0.5, -1.0, 0.0, 1.5, -0.5][:x.shape[3]], dtype)
    want = kernel_sets.numpy_forward("MaxPoolBiasRelu")(x, bias, **attrs)
    got = pool_jit.max_pool_bias_relu(x, bias, **attrs)
    assert got.dtype == want.dtype and np.array_equal(np.signbit(got), np.signbit(want))
    np.testing.assert_array_equal(got, want)
    want_dx, want_db = kernel_sets.numpy_forward("MaxPoolBiasReluGrad")(x, want, dy, **attrs)
    dx, db = pool_jit.max_pool_bias_relu_backprop(x, want, dy, **attrs)
    np.testing.assert_array_equal(dx, want_dx)
    # bit for bit the unfused kernels' route: relu's mask, then MaxPoolGrad
    unfused = pool_jit.max_pool_backprop(x, want, np.multiply(dy, want > 0), **attrs)
    assert np.array_equal(np.signbit(dx), np.signbit(unfused))
    assert db.dtype == want_db.dtype  # summed in float64 here, pairwise in NumPy
    np.testing.assert_allclose(db, want_db, rtol=1e-6 if dtype == np.float32 else 1e-13,
                               atol=1e-6 if dtype == np.float32 else 1e-13)


@pytest.mark.usefixtures("empty_saved_cache")
@pytest.mark.parametrize("case", ["tiled", "overlapping"])
def test_fused_pool_keeps_the_winners_for_the_gradient_only_when_asked(case):
    x, dy, attrs = _arrays(case, np.float32)
    bias = np.zeros(x.shape[3], np.float32)
    y = pool_jit.max_pool_bias_relu(x, bias, **attrs)
    assert not saved._entries  # no tape, no plan asking: nothing kept
    y = pool_jit.max_pool_bias_relu(x, bias, save_for_gradient=True, **attrs)
    kept = saved.take(y, ("max-pool-winners", attrs["ksize"], attrs["strides"], attrs["pads"]))
    want = saved.take(kernel_sets.numpy_forward("MaxPool")(x, save_for_gradient=True, **attrs),
                      ("max-pool-winners", attrs["ksize"], attrs["strides"], attrs["pads"]))
    np.testing.assert_array_equal(kept, want)  # the numpy set's winners, either set's gradient


def test_fused_pool_of_other_dtypes_runs_the_numpy_forward():
    x, dy, attrs = _arrays("tiled", np.float16)
    bias = np.ones(x.shape[3], np.float16)
    y = _same("MaxPoolBiasRelu", pool_jit.max_pool_bias_relu, x, bias, **attrs)
    for got, want in zip(pool_jit.max_pool_bias_relu_backprop(x, y, dy, **attrs),
                         kernel_sets.numpy_forward("MaxPoolBiasReluGrad")(x, y, dy, **attrs),
                         strict=True):
        np.testing.assert_array_equal(got, want)


def test_gradients_of_the_fused_pool(numba_kernels):
    rng = np.random.default_rng(4)
    x, b = rng.normal(size=(2, 6, 5, 3)), rng.normal(size=3) * 0.3
    for ksize, strides, padding in ((2, 2, "VALID"), (3, 2, "SAME"), (2, 1, "VALID")):
        ef.testing.check_gradients(
            lambda x, b: pooling.max_pool2d_bias_relu(x, b, ksize, strides, padding), x, b,
            order=2)
