"""Shared helpers for the optimizer tests."""

from __future__ import annotations

import numpy as np

import eagerflow as ef


def data(shape=(3, 4), steps=6, seed=0):
    """Initial weights and a sequence of gradients (float32)."""
    rng = np.random.default_rng(seed)
    weights = rng.standard_normal(shape).astype(np.float32)
    grads = [rng.standard_normal(shape).astype(np.float32) for _ in range(steps)]
    return weights, grads


def run_optimizer(optimizer, weights, grads):
    """Applies `grads` one step at a time to a Variable starting at `weights`."""
    variable = ef.Variable(weights.copy())
    for g in grads:
        optimizer.apply_gradients(zip([ef.constant(g)], [variable], strict=True))
    return variable.numpy(), variable


def assert_float32_close(actual, expected):
    """Equal up to float32 rounding accumulated over a few steps."""
    np.testing.assert_allclose(actual, expected, rtol=1e-5, atol=1e-6)
