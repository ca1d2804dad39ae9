"""FusedLayerNorm (and FusedLayerNormGrad, reached by the second-order check) against the
per-row formula, on both kernel sets."""

import numpy as np
import pytest

import eagerflow as ef
from eagerflow.ops import layer_norm
from eagerflow.ops.kernels import kernel_sets
from tests.ops.opcase import OpCase, check_forward, check_forward_mode, check_gradient, parametrize


def np_layer_norm(x, gamma, beta, epsilon=1e-3):
    mean = x.mean(-1, keepdims=True)
    variance = x.var(-1, keepdims=True)
    return (x - mean) / np.sqrt(variance + epsilon) * gamma + beta


CASES = [
    OpCase("layer_norm_2d", lambda x, g, b: layer_norm.layer_norm(x, g, b, 1e-3),
           np_layer_norm, shapes=[(3, 5), (5,), (5,)]),
    OpCase("layer_norm_3d", lambda x, g, b: layer_norm.layer_norm(x, g, b, 1e-3),
           np_layer_norm, shapes=[(2, 3, 4), (4,), (4,)]),
]


@parametrize(CASES)
def test_forward(case):
    check_forward(case)


@parametrize(CASES)
def test_gradient(case):
    check_gradient(case)


@parametrize(CASES)
def test_jvp(case):
    check_forward_mode(case)


@parametrize(CASES)
def test_forward_and_gradient_on_the_numpy_kernels(case, numpy_kernels):
    check_forward(case)
    check_gradient(case)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_numba_kernels_match_the_numpy_ones(dtype):
    pytest.importorskip("numba")
    rng = np.random.default_rng(0)
    x = rng.normal(3.0, 2.0, size=(4, 6, 16)).astype(dtype)
    gamma, beta = rng.normal(size=(2, 16)).astype(dtype)
    dy = rng.normal(size=x.shape).astype(dtype)
    tol = {"rtol": 1e-5, "atol": 1e-5} if dtype == np.float32 else {"rtol": 1e-12,
                                                                       "atol": 1e-12}
    for name, args in (("FusedLayerNorm", (x, gamma, beta)), ("FusedLayerNormGrad",
                                                               (x, gamma, dy))):
        want = kernel_sets.numpy_forward(name)(*args, epsilon=1e-3)
        got = kernel_sets.kernel_forward(name)(*args, epsilon=1e-3)
        for g, w in zip(got if isinstance(got, tuple) else (got,),
                        want if isinstance(want, tuple) else (want,), strict=True):
            assert g.dtype == dtype and g.shape == w.shape
            np.testing.assert_allclose(g, w, **tol)


@pytest.mark.parametrize("threads", [2, 3, 50])
def test_numba_kernels_split_over_any_number_of_threads_agree(threads, monkeypatch):
    """Rows split over numba's threads (`jit.run_parts`): the forward and ``dx`` are one
    thread's values bit for bit; ``dgamma`` and ``dbeta`` add the threads' sums (float64)."""
    pytest.importorskip("numba")
    from eagerflow.ops.kernels import jit, kernel_sets as sets

    rng = np.random.default_rng(1)
    x = rng.normal(3.0, 2.0, size=(4, 6, 16)).astype(np.float32)
    gamma, beta = rng.normal(size=(2, 16)).astype(np.float32)
    dy = rng.normal(size=x.shape).astype(np.float32)

    def run():
        return (sets.kernel_forward("FusedLayerNorm")(x, gamma, beta, epsilon=1e-3),
                *sets.kernel_forward("FusedLayerNormGrad")(x, gamma, dy, epsilon=1e-3))

    monkeypatch.setattr(jit, "threads", lambda: 1)
    want = run()
    monkeypatch.setattr(jit, "threads", lambda: threads)
    got = run()
    for g, w in zip(got[:2], want[:2], strict=True):
        np.testing.assert_array_equal(g, w)
    for g, w in zip(got[2:], want[2:], strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-6)


def test_bad_inputs_name_the_op():
    with pytest.raises(ef.errors.InvalidArgumentError, match=r"FusedLayerNorm: gamma"):
        layer_norm.layer_norm(ef.zeros([2, 3]), ef.ones([4]), ef.zeros([3]))
    with pytest.raises(ef.errors.InvalidArgumentError, match=r"floating-point tensor"):
        layer_norm.layer_norm(ef.constant([[1, 2]]), ef.ones([2]), ef.zeros([2]))


def test_layer_takes_the_fused_op_only_for_the_last_axis():
    x = np.random.default_rng(1).normal(size=(2, 3, 4)).astype(np.float32)
    for axis in (-1, 1, [1, 2]):
        layer = ef.layers.LayerNormalization(axis=axis)
        with ef.GradientTape() as tape:
            tape.watch(x := ef.constant(x))
            y = layer(x)
        axes = tuple(np.atleast_1d(axis))
        mean = x.numpy().mean(axes, keepdims=True)
        want = (x.numpy() - mean) / np.sqrt(x.numpy().var(axes, keepdims=True) + 1e-3)
        np.testing.assert_allclose(y.numpy(), want, rtol=1e-5, atol=1e-5)
        ops = {record[0].name for record in tape._records if record}
        assert ("FusedLayerNorm" in ops) == (axis == -1)
