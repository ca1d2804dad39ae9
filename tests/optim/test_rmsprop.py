import pytest

import eagerflow as ef
from tests.optim import reference
from tests.optim.helpers import assert_float32_close, data, run_optimizer

CONFIGS = [
    {"learning_rate": 0.01},
    {"learning_rate": 0.01, "rho": 0.8, "epsilon": 1e-4},
    {"learning_rate": 0.01, "momentum": 0.9},
    {"learning_rate": 0.01, "centered": True},
    {"learning_rate": 0.01, "momentum": 0.5, "centered": True},
]


@pytest.mark.parametrize("kwargs", CONFIGS)
def test_matches_keras_rule_over_several_steps(kwargs):
    weights, grads = data(steps=8)
    actual, _ = run_optimizer(ef.optim.RMSprop(**kwargs), weights, grads)
    kwargs = dict(kwargs)
    expected, _ = reference.run(reference.rmsprop, weights, grads,
                                lr=kwargs.pop("learning_rate"), **kwargs)
    assert_float32_close(actual, expected)


@pytest.mark.parametrize("kwargs", CONFIGS)
def test_slots_hold_keras_state(kwargs):
    weights, grads = data(steps=5)
    opt = ef.optim.RMSprop(**kwargs)
    _, variable = run_optimizer(opt, weights, grads)
    kwargs = dict(kwargs)
    _, state = reference.run(reference.rmsprop, weights, grads,
                             lr=kwargs.pop("learning_rate"), **kwargs)
    assert sorted(opt.get_slot_names()) == sorted(state)
    for name in opt.get_slot_names():
        assert_float32_close(opt.get_slot(variable, name).numpy(), state[name])


def test_tf2_slot_names_are_aliases():
    opt = ef.optim.RMSprop(centered=True)
    w = ef.Variable([1.0])
    opt.build([w])
    assert opt.get_slot(w, "rms") is opt.get_slot(w, "velocity")
    assert opt.get_slot(w, "mg") is opt.get_slot(w, "average_gradient")


def test_giving_momentum_later_is_an_error():
    opt = ef.optim.RMSprop()
    opt.momentum = 0.5
    with pytest.raises(ef.errors.InvalidArgumentError, match="created with momentum=0"):
        opt.apply_gradients([(ef.constant(1.0), ef.Variable(1.0))])


@pytest.mark.parametrize("name", ["rho", "momentum", "epsilon"])
def test_negative_hyperparameters_are_errors(name):
    with pytest.raises(ValueError, match=f"`{name}` must be >= 0"):
        ef.optim.RMSprop(**{name: -0.5})
