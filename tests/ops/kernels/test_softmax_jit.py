"""The numba softmax kernels (eagerflow/ops/kernels/softmax_jit.py) against the NumPy ones:
Softmax, SoftmaxGrad, LogSoftmaxGrad (FusedAttention's are in tests/ops/test_attention_ops.py).
Skipped without numba; the NumPy kernels run in tests/ops/test_nn_ops.py."""

import numpy as np
import pytest

import eagerflow as ef
from eagerflow.ops.kernels import kernel_sets
from eagerflow.ops.kernels import softmax as softmax_kernels

pytest.importorskip("numba")

# (shape, axis): the last axis takes the compiled rows, any other the NumPy forward
LAYOUTS = [((6, 10), 1), ((2, 3, 64), 2), ((6, 10), 0), ((1, 1), 1)]


def _tolerance(dtype):
    # reassociated sums: a few ulps of the row sums
    return {"rtol": 2e-6, "atol": 1e-7} if dtype == np.float32 else {"rtol": 1e-14,
                                                                      "atol": 1e-15}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(("shape", "axis"), LAYOUTS)
def test_kernels_match_the_numpy_ones(dtype, shape, axis):
    rng = np.random.default_rng(0)
    x = (rng.normal(size=shape) * 5).astype(dtype)
    dy = rng.normal(size=shape).astype(dtype)
    y = kernel_sets.numpy_forward("Softmax")(x, axis=axis)
    got = kernel_sets.kernel_forward("Softmax")(x, axis=axis)
    np.testing.assert_allclose(got, y, **_tolerance(dtype))
    assert got.dtype == dtype
    for name, first in (("SoftmaxGrad", y), ("LogSoftmaxGrad", np.log(y))):
        want = kernel_sets.numpy_forward(name)(first, dy, axis=axis)
        got = kernel_sets.kernel_forward(name)(first, dy, axis=axis)
        assert got.dtype == dtype and got.shape == shape
        np.testing.assert_allclose(got, want, **_tolerance(dtype))


def test_kernels_leave_their_inputs_alone_and_handle_strided_arrays():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(8, 12))[:, ::2]  # not contiguous: the NumPy forward runs
    y = kernel_sets.kernel_forward("Softmax")(x, axis=1)
    np.testing.assert_allclose(y, kernel_sets.numpy_forward("Softmax")(x, axis=1), rtol=1e-15)
    dy = rng.normal(size=(8, 6))
    before = dy.copy()
    kernel_sets.kernel_forward("SoftmaxGrad")(np.ascontiguousarray(y), dy, axis=1)
    np.testing.assert_array_equal(dy, before)


def test_the_numpy_and_numba_row_kernels_agree_with_a_second_gradient():
    from eagerflow.ops.kernels import softmax_jit

    rng = np.random.default_rng(2)
    y = softmax_kernels.softmax_rows(rng.normal(size=(4, 3, 7)))
    dy, extra = rng.normal(size=(2, 4, 3, 7))
    want = softmax_kernels.softmax_grad_rows(y, dy.copy(), extra)
    np.testing.assert_allclose(softmax_jit.softmax_grad_rows(y, dy.copy(), extra), want,
                               rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(softmax_jit.softmax_grad_rows(y, dy.copy()),
                               softmax_kernels.softmax_grad_rows(y, dy.copy()), rtol=1e-13,
                               atol=1e-15)


def test_softmax_on_the_numba_set_matches_the_numpy_set(numba_kernels):
    x = ef.constant(np.random.default_rng(3).normal(size=(4, 9)))
    with ef.GradientTape() as tape:
        tape.watch(x)
        loss = ef.reduce_sum(ef.nn.softmax(x) ** 2) + ef.reduce_sum(ef.nn.log_softmax(x)[:, 0])
    grad = tape.gradient(loss, x)
    kernel_sets.set_active("numpy")
    with ef.GradientTape() as tape:
        tape.watch(x)
        want_loss = (ef.reduce_sum(ef.nn.softmax(x) ** 2)
                     + ef.reduce_sum(ef.nn.log_softmax(x)[:, 0]))
    np.testing.assert_allclose(loss.numpy(), want_loss.numpy(), rtol=1e-14)
    np.testing.assert_allclose(grad.numpy(), tape.gradient(want_loss, x).numpy(), rtol=1e-13,
                               atol=1e-15)


def test_float16_takes_the_numpy_rows(numba_kernels):
    # numba has no float16 arithmetic: those arrays keep the NumPy kernels
    x = np.random.default_rng(4).normal(size=(2, 4, 6)).astype(np.float16)
    np.testing.assert_array_equal(ef.nn.softmax(x).numpy(),
                                  kernel_sets.numpy_forward("Softmax")(x, axis=2))
    layer = ef.layers.MultiHeadAttention(num_heads=2, key_dim=3, dtype="float16")
    with ef.GradientTape() as tape:
        out = layer(x, x)
        loss = ef.reduce_sum(out)
    grads = tape.gradient(loss, layer.trainable_weights)
    assert out.dtype == np.float16 and all(g.dtype == np.float16 for g in grads)
    assert np.isfinite(out.numpy()).all()


def _ulps(a, b):
    return np.abs(a.view(np.int32).astype(np.int64) - b.view(np.int32).astype(np.int64))


def test_exp_shifted_float32_is_within_one_ulp_of_exp():
    """5 million values: evenly over [-110, 0] (the subnormal results and the underflow
    below -103.97 included) and exponentially distributed near 0, as shifted scores are."""
    rng = np.random.default_rng(0)
    x = np.concatenate([np.linspace(-110, 0, 2_000_001, dtype=np.float32),
                        -rng.exponential(5.0, 3_000_000).astype(np.float32)])
    from eagerflow.ops.kernels import softmax_jit

    got = x.reshape(1, -1).copy()
    softmax_jit.exp_shifted_rows(got)
    want = np.exp(x.astype(np.float64)).astype(np.float32)  # correctly rounded but for ties
    assert _ulps(got[0], want).max() <= 1


def test_exp_shifted_float32_special_values():
    x = np.array([[0.0, -0.0, np.nan, -np.inf, -1e-30, -1e-7, -103.9, -104.0, -1e30]],
                 np.float32)
    from eagerflow.ops.kernels import softmax_jit

    got = x.copy()
    softmax_jit.exp_shifted_rows(got)
    np.testing.assert_array_equal(
        got[0], np.float32([1.0, 1.0, np.nan, 0.0, 1.0, 0.99999988, 1.4e-45, 0.0, 0.0]))
