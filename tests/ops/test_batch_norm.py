"""FusedBatchNorm (and FusedBatchNormGrad, reached by the second-order check) against the
per-channel formula and the composite path (`moments` + `batch_normalization`), on both
kernel sets; the numba kernels against the NumPy ones."""

import warnings

import numpy as np
import pytest

import eagerflow as ef
from eagerflow.ops import batch_norm
from eagerflow.ops import normalization as norm_ops
from eagerflow.ops.kernels import kernel_sets
from tests.ops.opcase import OpCase, check_forward, check_forward_mode, check_gradient, parametrize


def np_batch_norm(x, gamma, beta, axis, epsilon=1e-3):
    axis %= x.ndim
    axes = tuple(i for i in range(x.ndim) if i != axis)
    shape = [x.shape[axis] if i == axis else 1 for i in range(x.ndim)]
    mean, variance = x.mean(axes), x.var(axes)
    y = ((x - mean.reshape(shape)) / np.sqrt(variance.reshape(shape) + epsilon)
         * gamma.reshape(shape) + beta.reshape(shape))
    return y, mean, variance


def _case(name, shapes, axis):
    return OpCase(name, lambda x, g, b: batch_norm.batch_norm(x, g, b, 1e-3, axis),
                  lambda x, g, b: np_batch_norm(x, g, b, axis), shapes=shapes)


CASES = [
    _case("batch_norm_2d", [(6, 3), (3,), (3,)], -1),
    _case("batch_norm_nhwc", [(3, 2, 2, 4), (4,), (4,)], 3),
    _case("batch_norm_axis1", [(3, 4, 2, 3), (4,), (4,)], 1),
    _case("batch_norm_axis0", [(3, 5), (3,), (3,)], 0),
]


@parametrize(CASES)
def test_forward(case):
    check_forward(case)


@parametrize(CASES)
def test_gradient(case):
    check_gradient(case)  # of y, mean and variance: dmean and dvar reach the backward op


@parametrize(CASES)
def test_jvp(case):
    check_forward_mode(case)


@parametrize(CASES)
def test_forward_and_gradient_on_the_numpy_kernels(case, numpy_kernels):
    check_forward(case)
    check_gradient(case)


def _composite(x, gamma, beta, axis, epsilon=1e-3):
    """The path `BatchNormalization` took before the fused op (and still takes with a mask)."""
    axes = [i for i in range(x.ndim) if i != axis]
    shape = [x.shape[axis] if i == axis else 1 for i in range(x.ndim)]
    mean, variance = norm_ops.moments(x, axes)
    y = norm_ops.batch_normalization(x, ef.reshape(mean, shape), ef.reshape(variance, shape),
                                     ef.reshape(beta, shape), ef.reshape(gamma, shape), epsilon)
    return y, mean, variance


@pytest.mark.parametrize("kernels", ["numpy", "numba"])
# (small inputs; rows regrouped by 128 pixels; by one pixel: an odd count; channels first)
@pytest.mark.parametrize("shape, axis", [((16, 5, 5, 8), 3), ((3, 2500), 1),
                                         ((64, 8, 8, 16), 3), ((4097, 16), 1),
                                         ((4, 6, 5, 7), 1)])
def test_values_and_gradients_match_the_composite_path(kernels, shape, axis, request):
    request.getfixturevalue(f"{kernels}_kernels")
    rng = np.random.default_rng(0)
    x = ef.constant(rng.normal(1.5, 3.0, size=shape).astype(np.float32))
    gamma = ef.constant(rng.normal(size=shape[axis]).astype(np.float32))
    beta = ef.constant(rng.normal(size=shape[axis]).astype(np.float32))
    dy = ef.constant(rng.normal(size=shape).astype(np.float32))
    results = []
    for fn in (batch_norm.batch_norm, _composite):
        with ef.GradientTape() as tape:
            tape.watch([x, gamma, beta])
            y, mean, variance = fn(x, gamma, beta, epsilon=1e-3, axis=axis)
        results.append([y, mean, variance, *tape.gradient(y, [x, gamma, beta],
                                                          output_gradients=dy)])
    for got, want in zip(*results, strict=True):
        assert got.dtype == np.float32 and got.shape == want.shape
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=2e-5, atol=2e-5)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape, axis", [((8, 5, 5, 6), 3), ((64, 8, 8, 16), 3),
                                         ((4, 6, 3, 5), 1), ((7, 3), 0), ((7, 3), 1),
                                         ((5,), 0)])
def test_numba_kernels_match_the_numpy_ones(dtype, shape, axis):
    pytest.importorskip("numba")
    rng = np.random.default_rng(0)
    channels = shape[axis]
    x = rng.normal(3.0, 2.0, size=shape).astype(dtype)
    gamma, beta, dmean, dvar = rng.normal(size=(4, channels)).astype(dtype)
    dy = rng.normal(size=shape).astype(dtype)
    tol = {"rtol": 1e-5, "atol": 1e-5} if dtype == np.float32 else {"rtol": 1e-12,
                                                                       "atol": 1e-12}
    want = kernel_sets.numpy_forward("FusedBatchNorm")(x, gamma, beta, 1e-3, axis)
    got = kernel_sets.kernel_forward("FusedBatchNorm")(x, gamma, beta, 1e-3, axis)
    mean, variance = want[1], want[2]
    args = (x, gamma, mean, variance, dy, dmean, dvar)
    want += kernel_sets.numpy_forward("FusedBatchNormGrad")(*args, 1e-3, axis)
    got += kernel_sets.kernel_forward("FusedBatchNormGrad")(*args, 1e-3, axis)
    for g, w in zip(got, want, strict=True):
        assert g.dtype == dtype and g.shape == w.shape
        np.testing.assert_allclose(g, w, **tol)


@pytest.mark.parametrize("kernels", ["numpy", "numba"])
def test_statistics_of_large_values_are_as_accurate_as_the_composite_ones(kernels, request):
    # A mean 10^4 times the spread: the numba kernel's one-pass (shifted) variance, summed
    # in float64, is close to float64's; the NumPy kernel's float32 sums are no worse than
    # the composite path's.
    request.getfixturevalue(f"{kernels}_kernels")
    x = np.random.default_rng(1).normal(1000.0, 0.1, size=(64, 4, 4, 3)).astype(np.float32)
    exact = np_batch_norm(x.astype(np.float64), np.ones(3), np.zeros(3), 3, 0.0)
    ones, zeros = ef.ones([3]), ef.zeros([3])
    fused = batch_norm.batch_norm(x, epsilon=0.0)
    composite = _composite(ef.constant(x), ones, zeros, axis=3, epsilon=0.0)
    for got, reference, want in zip(fused, composite, exact, strict=True):
        error = np.abs(got.numpy() - want).max()
        if kernels == "numba":
            assert error <= 1e-5 * np.abs(want).max()
        else:
            assert error <= 1.5 * np.abs(reference.numpy() - want).max() + 1e-6


@pytest.mark.parametrize("kernels", ["numpy", "numba"])
def test_an_empty_batch_gives_nan_statistics_as_moments_does(kernels, request):
    request.getfixturevalue(f"{kernels}_kernels")
    x = ef.zeros([0, 3])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # (NumPy's "Mean of empty slice")
        y, mean, variance = batch_norm.batch_norm(x)
        assert np.isnan(ef.nn.moments(x, [0])[0].numpy()).all()
    assert y.shape == (0, 3)
    assert np.isnan(mean.numpy()).all() and np.isnan(variance.numpy()).all()


def test_gamma_and_beta_default_to_no_scale_and_no_shift():
    x = np.random.default_rng(2).normal(size=(5, 3))
    y, _, _ = batch_norm.batch_norm(x, [2.0, 2.0, 2.0], None, epsilon=0.0)
    np.testing.assert_allclose(y.numpy(), 2 * np_batch_norm(x, np.ones(3), np.zeros(3), 1,
                                                            0.0)[0], rtol=1e-12)


@pytest.mark.parametrize("call, match", [
    (lambda: batch_norm.batch_norm(ef.constant([[1, 2]])),
     r"FusedBatchNorm needs a float32 or float64 tensor of rank >= 1, got dtype int32"),
    (lambda: batch_norm.batch_norm(ef.zeros([2, 3], ef.float16)), r"got dtype float16"),
    (lambda: batch_norm.batch_norm(ef.constant(1.0)), r"and shape \(\)"),
    (lambda: batch_norm.batch_norm(ef.zeros([2, 3]), axis=2),
     r"FusedBatchNorm: axis must be an int in \[-2, 2\) for x of shape \(2, 3\); got 2"),
    (lambda: batch_norm.batch_norm(ef.zeros([2, 3]), axis=True), r"got True"),
    (lambda: batch_norm.batch_norm(ef.zeros([2, 3]), ef.ones([4])),
     r"FusedBatchNorm: gamma must be a float32 vector of shape \(3,\) \(axis 1 of x "
     r"\(2, 3\)\); got float32 \(4,\)"),
    (lambda: batch_norm.batch_norm(ef.zeros([2, 3]), None, ef.zeros([3], ef.float64)),
     r"beta must be a float32 vector .* got float64 \(3,\)"),
])
def test_bad_inputs_name_the_op_and_the_values(call, match):
    with pytest.raises(ef.errors.InvalidArgumentError, match=match):
        call()


def test_an_unknown_channel_size_is_refused_while_tracing():
    @ef.function(input_signature=[ef.TensorSpec([2, None])])
    def f(x):
        return batch_norm.batch_norm(x)[0]

    with pytest.raises(ef.errors.InvalidArgumentError,
                       match=r"the channel axis 1 of x \(2, None\) must have a known size"):
        f.get_concrete_function()


def test_traced_gradients_with_an_unknown_batch_match_eager_ones():
    rng = np.random.default_rng(3)
    x = ef.constant(rng.normal(size=(6, 4)))
    gamma = ef.constant(rng.normal(size=4))

    def grads(x):
        with ef.GradientTape() as outer:
            outer.watch(x)
            with ef.GradientTape() as inner:
                inner.watch(x)
                y, mean, variance = batch_norm.batch_norm(x, gamma)
                loss = ef.reduce_sum(y * y * y) + ef.reduce_sum(mean * variance)
            dx = inner.gradient(loss, x)
            square = ef.reduce_sum(dx * dx)
        return dx, outer.gradient(square, x)

    traced = ef.function(grads, input_signature=[ef.TensorSpec([None, 4], ef.float64)])
    for got, want in zip(traced(x), grads(x), strict=True):
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-10, atol=1e-12)
