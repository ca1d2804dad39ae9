"""ef.nn's compositions: N-D pooling names, block moves, losses, moments from statistics
and crelu, against NumPy, with gradients to order 2."""

import numpy as np
import pytest

import eagerflow as ef
from tests.ops.opcase import OpCase, check_forward, check_forward_mode, check_gradient, parametrize


def _np_space_to_depth(x, b):
    n, h, w, c = x.shape
    y = x.reshape(n, h // b, b, w // b, b, c).transpose(0, 1, 3, 2, 4, 5)
    return y.reshape(n, h // b, w // b, b * b * c)


def _np_weighted_ce(z, x, q=2.5):
    sig = 1 / (1 + np.exp(-x))
    return -(q * z * np.log(sig) + (1 - z) * np.log(1 - sig))


CASES = [
    OpCase("max_pool_2d", lambda x: ef.nn.max_pool(x, 2, 2, "VALID"),
           lambda x: x.reshape(1, 2, 2, 2, 2, 1).max(axis=(2, 4)), shapes=[(1, 4, 4, 1)]),
    OpCase("avg_pool_1d", lambda x: ef.nn.avg_pool(x, 2, 2, "VALID"),
           lambda x: x.reshape(2, 2, 2, 3).mean(axis=2), shapes=[(2, 4, 3)]),
    OpCase("space_to_depth", lambda x: ef.nn.space_to_depth(x, 2),
           lambda x: _np_space_to_depth(x, 2), shapes=[(1, 4, 2, 3)]),
    OpCase("depth_to_space_roundtrip",
           lambda x: ef.nn.depth_to_space(ef.nn.space_to_depth(x, 2, "NCHW"), 2, "NCHW"),
           lambda x: x, shapes=[(1, 3, 4, 2)]),
    OpCase("crelu", ef.nn.crelu, lambda x: np.concatenate([np.maximum(x, 0),
                                                           np.maximum(-x, 0)], -1),
           shapes=[(2, 3)], order=1),
    OpCase("weighted_cross_entropy", lambda z, x: ef.nn.weighted_cross_entropy_with_logits(
        z, x, 2.5), _np_weighted_ce, shapes=[(4,), (4,)], domain=(0.1, 0.9)),
    OpCase("log_poisson_full", lambda z, c: ef.nn.log_poisson_loss(z * 3.0, c, True),
           lambda z, c: np.exp(c) - 3 * z * c + np.where(
               3 * z > 1, 3 * z * np.log(3 * z) - 3 * z + 0.5 * np.log(2 * np.pi * 3 * z), 0),
           shapes=[(5,), (5,)], domain=(0.1, 1.0)),
    OpCase("moments_from_statistics", lambda x: ef.nn.normalize_moments(
        *ef.nn.sufficient_statistics(x, [0], shift=0.5)),
        lambda x: (x.mean(0), x.var(0)), shapes=[(5, 2)]),
    OpCase("weighted_moments", lambda x, w: ef.nn.weighted_moments(x, [0], w[:, None]),
           lambda x, w: (np.average(x, 0, w), np.average((x - np.average(x, 0, w)) ** 2, 0,
                                                          w)),
           shapes=[(4, 2), (4,)], domain=(0.5, 2.0)),
    OpCase("compute_average_loss", lambda x, w: ef.nn.compute_average_loss(x, w),
           lambda x, w: np.sum(x * w) / 3, shapes=[(3,), (3,)]),
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


def test_compute_average_loss_with_no_batch_is_zero():
    assert float(ef.nn.compute_average_loss([1.0, 2.0], global_batch_size=0)) == 0.0


@pytest.mark.parametrize("call, match", [
    (lambda: ef.nn.max_pool(ef.zeros((4, 4)), 2, 2, "VALID"), "3-D, 4-D or 5-D input"),
    (lambda: ef.nn.space_to_depth(ef.zeros((1, 3, 4, 1)), 2), "divisible by block_size"),
    (lambda: ef.nn.space_to_depth(ef.zeros((3, 4, 1)), 2), "expects a 4-D input"),
    (lambda: ef.nn.depth_to_space(ef.zeros((1, 1, 1, 3)), 2), "depth 3 must be divisible"),
    (lambda: ef.nn.depth_to_space(ef.zeros((1, 1, 1, 4)), 1), "at least 2"),
    (lambda: ef.nn.depth_to_space(ef.zeros((1, 1, 1, 4)), 2, "NWHC"), "data_format must"),
    (lambda: ef.nn.weighted_cross_entropy_with_logits([1.0], [1.0, 2.0], 1.0), "same shape"),
    (lambda: ef.nn.log_poisson_loss([1.0], [1.0, 2.0]), "same shape"),
])
def test_bad_input_names_the_problem(call, match):
    with pytest.raises(ef.errors.InvalidArgumentError, match=match):
        call()


def test_negative_global_batch_size_is_refused():
    with pytest.raises(ValueError, match="`global_batch_size` must be non-negative"):
        ef.nn.compute_average_loss([1.0], global_batch_size=-1)
