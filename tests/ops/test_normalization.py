"""moments, batch_normalization, l2_normalize."""

import numpy as np
import pytest

import eagerflow as ef
from tests.ops.opcase import OpCase, check_forward, check_forward_mode, check_gradient, parametrize


def np_batch_norm(x, mean, variance, offset, scale, eps=1e-3):
    return scale * (x - mean) / np.sqrt(variance + eps) + offset


CASES = [
    OpCase("moments_axis0", lambda x: ef.nn.moments(x, [0]),
           lambda x: (x.mean(0), x.var(0)), shapes=[(5, 3)]),
    OpCase("moments_nhwc_keepdims", lambda x: ef.nn.moments(x, [0, 1, 2], keepdims=True),
           lambda x: (x.mean((0, 1, 2), keepdims=True), x.var((0, 1, 2), keepdims=True)),
           shapes=[(2, 3, 3, 4)]),
    OpCase("batch_normalization",
           lambda x, m, v, o, s: ef.nn.batch_normalization(x, m, v, o, s, 1e-3),
           np_batch_norm, shapes=[(4, 3), (3,), (3,), (3,), (3,)], domain=(0.5, 2.0)),
    OpCase("batch_normalization_no_affine",
           lambda x, m, v: ef.nn.batch_normalization(x, m, v, None, None, 1e-3),
           lambda x, m, v: np_batch_norm(x, m, v, 0.0, 1.0), shapes=[(4, 3), (3,), (3,)],
           domain=(0.5, 2.0)),
    OpCase("l2_normalize", lambda x: ef.nn.l2_normalize(x, axis=1),
           lambda x: x / np.linalg.norm(x, axis=1, keepdims=True), shapes=[(3, 4)]),
    OpCase("l2_normalize_all", ef.nn.l2_normalize, lambda x: x / np.linalg.norm(x),
           shapes=[(3, 4)]),
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


def test_moments_then_batch_normalization_standardises():
    x = np.random.default_rng(0).normal(3.0, 2.0, size=(64, 5, 5, 8)).astype(np.float32)
    mean, variance = ef.nn.moments(x, axes=[0, 1, 2])
    assert mean.shape == (8,) and variance.shape == (8,)
    y = ef.nn.batch_normalization(x, mean, variance, None, None, 1e-5).numpy()
    np.testing.assert_allclose(y.mean(axis=(0, 1, 2)), 0.0, atol=1e-4)
    np.testing.assert_allclose(y.std(axis=(0, 1, 2)), 1.0, atol=1e-3)


def test_moments_of_float16_are_computed_in_float32():
    x = np.full((1000,), 300.0, np.float16) + np.arange(2, dtype=np.float16).repeat(500)
    mean, variance = ef.nn.moments(x, [0])
    assert mean.dtype == np.float16 and variance.dtype == np.float16
    assert float(mean) == pytest.approx(300.5) and float(variance) == pytest.approx(0.25)


def test_l2_normalize_keeps_zero_vectors_and_accepts_dim():
    y = ef.nn.l2_normalize([[0.0, 0.0], [3.0, 4.0]], dim=1)
    np.testing.assert_allclose(y.numpy(), [[0.0, 0.0], [0.6, 0.8]])


@pytest.mark.parametrize("call, match", [
    (lambda: ef.nn.moments([1, 2], [0]), "Moments needs a floating-point tensor, got dtype int32"),
    (lambda: ef.nn.moments([1.0, 2.0], [1]), "Invalid reduction dimension 1"),
    (lambda: ef.nn.l2_normalize([1.0], axis=0, dim=0), "Cannot specify both 'axis' and 'dim'"),
    (lambda: ef.nn.batch_normalization([1], 0.0, 1.0, None, None, 1e-3),
     "BatchNormalization needs a floating-point tensor"),
])
def test_errors(call, match):
    with pytest.raises(ef.errors.InvalidArgumentError, match=match):
        call()
