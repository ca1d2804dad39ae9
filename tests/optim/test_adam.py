import numpy as np
import pytest

import eagerflow as ef
from eagerflow.optim import moments
from tests.optim import reference
from tests.optim.helpers import assert_float32_close, data, run_optimizer


@pytest.mark.parametrize("kwargs", [
    {"learning_rate": 0.01},
    {"learning_rate": 0.1, "beta_1": 0.8, "beta_2": 0.99, "epsilon": 1e-3},
    {"learning_rate": 0.01, "amsgrad": True},
])
def test_matches_keras_rule_over_several_steps(kwargs):
    weights, grads = data(steps=8)
    actual, _ = run_optimizer(ef.optim.Adam(**kwargs), weights, grads)
    kwargs = dict(kwargs)
    expected, _ = reference.run(reference.adam, weights, grads, lr=kwargs.pop("learning_rate"),
                                **kwargs)
    assert_float32_close(actual, expected)


def test_slots_hold_keras_moments():
    weights, grads = data(steps=5)
    opt = ef.optim.Adam(0.01, amsgrad=True)
    _, variable = run_optimizer(opt, weights, grads)
    _, state = reference.run(reference.adam, weights, grads, lr=0.01, amsgrad=True)
    assert opt.get_slot_names() == ["momentum", "velocity", "velocity_hat"]
    for name in opt.get_slot_names():
        assert_float32_close(opt.get_slot(variable, name).numpy(), state[name])


def test_tf2_slot_names_are_aliases():
    opt = ef.optim.Adam(amsgrad=True)
    w = ef.Variable([1.0])
    opt.build([w])
    assert opt.get_slot(w, "m") is opt.get_slot(w, "momentum")
    assert opt.get_slot(w, "v") is opt.get_slot(w, "velocity")
    assert opt.get_slot(w, "vhat") is opt.get_slot(w, "velocity_hat")


def test_first_step_moves_by_learning_rate():
    # With bias correction, the first step is lr * g / (|g| + eps * ...) ~ lr * sign(g).
    w = ef.Variable([0.0, 0.0])
    ef.optim.Adam(0.1).apply_gradients([(ef.constant([3.0, -0.5]), w)])
    np.testing.assert_allclose(w.numpy(), [-0.1, 0.1], rtol=1e-5)


def test_beta_assignment_takes_effect_on_next_step():
    weights, grads = data(steps=2)
    opt = ef.optim.Adam(0.01)
    variable = ef.Variable(weights.copy())
    opt.apply_gradients([(ef.constant(grads[0]), variable)])
    opt.beta_1 = 0.5
    opt.apply_gradients([(ef.constant(grads[1]), variable)])
    # Reference: step 1 with beta_1 = 0.9, step 2 with beta_1 = 0.5 (float32 like ours).
    state: dict = {}
    w = reference.adam(weights.copy(), grads[0], state, 0, lr=0.01, beta_1=0.9)
    w = reference.adam(w, grads[1], state, 1, lr=0.01, beta_1=float(np.float32(0.5)))
    assert_float32_close(variable.numpy(), w)


@pytest.mark.parametrize("name", ["beta_1", "beta_2", "epsilon"])
def test_negative_hyperparameters_are_errors(name):
    expected = "must be >= 0" if name == "epsilon" else r"must be in \[0.0, 1.0\]"
    with pytest.raises(ValueError, match=f"`{name}` {expected}"):
        ef.optim.Adam(**{name: -1.0})


@pytest.mark.parametrize("cls", [ef.optim.Adam, ef.optim.AdamW, ef.optim.Adamax,
                                 ef.optim.Nadam, ef.optim.Lamb])
@pytest.mark.parametrize("name", ["beta_1", "beta_2"])
def test_a_beta_above_one_is_an_error(cls, name):
    # Keras 3.15 accepts Adam(beta_1=5) and diverges; the moment optimizers share one
    # check (MomentOptimizer), which names the class, the argument and the range.
    with pytest.raises(ValueError, match=rf"{cls.__name__}: `{name}` must be in \[0.0, 1.0\]. "
                                         rf"Received: {name}=5"):
        cls(**{name: 5})


def test_adam_is_a_moment_optimizer():
    assert issubclass(ef.optim.Adam, moments.MomentOptimizer)
    assert issubclass(ef.optim.AdamW, moments.MomentOptimizer)
