"""Every optimizer's state survives a checkpoint: slots, shared state and hyperparameters,
restored at once into a built optimizer or later (deferred) into a fresh one, after which
training continues exactly as it would have without the save."""

import numpy as np
import pytest

import eagerflow as ef
from tests.optim import helpers

OPTIMIZERS = [
    lambda: ef.optim.Nadam(0.01),
    lambda: ef.optim.Adamax(0.01),
    lambda: ef.optim.Adadelta(1.0),
    lambda: ef.optim.Lion(0.01),
    lambda: ef.optim.Adafactor(0.1),
    lambda: ef.optim.Ftrl(0.1, initial_accumulator_value=0.5),
    lambda: ef.optim.Lamb(0.01),
]
IDS = ["nadam", "adamax", "adadelta", "lion", "adafactor", "ftrl", "lamb"]


def _variables():
    return [ef.Variable(np.zeros((3, 4), np.float32), name="kernel"),
            ef.Variable(np.zeros(4, np.float32), name="bias")]


def _train(optimizer, variables, grads):
    for step in grads:
        optimizer.apply_gradients(zip([ef.constant(g) for g in step], variables, strict=True))


def _grads(steps, seed):
    rng = np.random.default_rng(seed)
    return [[rng.standard_normal(s).astype(np.float32) for s in ((3, 4), (4,))]
            for _ in range(steps)]


def _state(optimizer, variables):
    values = [v.numpy() for v in optimizer.variables] + [v.numpy() for v in variables]
    return [np.asarray(v) for v in values]


def _saved(tmp_path, make):
    weights, _ = helpers.data((3, 4), steps=0)
    source_vars = _variables()
    source_vars[0].assign(weights)
    source = make()
    _train(source, source_vars, _grads(3, seed=1))
    path = ef.Checkpoint(w=source_vars, optimizer=source).write(tmp_path / "opt.h5")
    return path, source, source_vars


@pytest.mark.parametrize("make", OPTIMIZERS, ids=IDS)
def test_restore_into_a_built_optimizer(tmp_path, make):
    path, source, source_vars = _saved(tmp_path, make)
    variables, optimizer = _variables(), make()
    optimizer.build(variables)
    ef.Checkpoint(w=variables, optimizer=optimizer).read(path).assert_consumed()
    assert int(optimizer.iterations) == 3
    for actual, expected in zip(_state(optimizer, variables), _state(source, source_vars),
                                strict=True):
        np.testing.assert_array_equal(actual, expected)


@pytest.mark.parametrize("make", OPTIMIZERS, ids=IDS)
def test_deferred_restore_then_training_continues_identically(tmp_path, make):
    path, source, source_vars = _saved(tmp_path, make)
    variables, optimizer = _variables(), make()  # no slots yet: restored when created
    status = ef.Checkpoint(w=variables, optimizer=optimizer).read(path)
    assert status.pending, "slots should wait for their creation"
    more = _grads(2, seed=2)
    _train(optimizer, variables, more)
    _train(source, source_vars, more)
    status.assert_consumed()
    for actual, expected in zip(_state(optimizer, variables), _state(source, source_vars),
                                strict=True):
        np.testing.assert_array_equal(actual, expected)
