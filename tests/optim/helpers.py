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


def assert_float64_close(actual, expected):
    """Equal up to float64 rounding: the rule and its NumPy transcription agree exactly
    unless an operation is reordered."""
    np.testing.assert_allclose(actual, expected, rtol=1e-12, atol=1e-14)


def check_against_reference(make, rule, kwargs, shape=(3, 4), dtype=np.float64, steps=8):
    """Runs `make(**kwargs)` and the NumPy `rule` for `steps` steps from the same data in
    `dtype`, checks the weights and every slot agree, and returns the optimizer.

    Use float32-exact hyperparameters (0.875, not 0.9) with float64: hyperparameters live
    in float32 Variables, as Keras's learning rate does.
    """
    from tests.optim import reference

    weights, grads = data(shape, steps)
    weights, grads = weights.astype(dtype), [g.astype(dtype) for g in grads]
    optimizer = make(**kwargs)
    actual, variable = run_optimizer(optimizer, weights, grads)
    rule_kwargs = dict(kwargs)
    if "learning_rate" in rule_kwargs:
        rule_kwargs["lr"] = rule_kwargs.pop("learning_rate")
    expected, state = reference.run(rule, weights, grads, dtype=dtype, **rule_kwargs)
    close = assert_float64_close if dtype == np.float64 else assert_float32_close
    assert actual.dtype == dtype
    close(actual, expected)
    for name, value in state.items():
        # Slots, and optimizer-wide state exposed as an attribute (Nadam's u_product).
        slots = optimizer.get_slot_names()
        held = optimizer.get_slot(variable, name) if name in slots else getattr(optimizer, name)
        close(np.asarray(held.numpy()), value)
    return optimizer, variable
