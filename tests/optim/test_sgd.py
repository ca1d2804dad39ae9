import numpy as np
import pytest

import eagerflow as ef
from tests.optim import reference
from tests.optim.helpers import assert_float32_close, data, run_optimizer


@pytest.mark.parametrize("kwargs", [
    {"learning_rate": 0.1},
    {"learning_rate": 0.05, "momentum": 0.9},
    {"learning_rate": 0.05, "momentum": 0.9, "nesterov": True},
    {"learning_rate": 0.2, "momentum": 0.5},
])
def test_matches_keras_rule_over_several_steps(kwargs):
    weights, grads = data()
    actual, _ = run_optimizer(ef.optim.SGD(**kwargs), weights, grads)
    expected, _ = reference.run(reference.sgd, weights, grads,
                                lr=kwargs["learning_rate"],
                                momentum=kwargs.get("momentum", 0.0),
                                nesterov=kwargs.get("nesterov", False))
    assert_float32_close(actual, expected)


def test_momentum_slot_holds_keras_velocity():
    weights, grads = data(steps=4)
    opt = ef.optim.SGD(0.1, momentum=0.9)
    _, variable = run_optimizer(opt, weights, grads)
    _, state = reference.run(reference.sgd, weights, grads, lr=0.1, momentum=0.9)
    assert opt.get_slot_names() == ["momentum"]
    assert_float32_close(opt.get_slot(variable, "momentum").numpy(), state["momentum"])


def test_without_momentum_there_are_no_slots():
    opt = ef.optim.SGD(0.1)
    w = ef.Variable([1.0])
    opt.build([w])
    assert opt.get_slot_names() == []
    assert opt.slot_variables() == []


def test_gradient_descent_is_sgd():
    assert ef.optim.GradientDescent is ef.optim.SGD


def test_float64_variables_update_in_float64():
    w = ef.Variable(np.array([1.0, 2.0]))
    ef.optim.SGD(0.1).apply_gradients([(ef.constant(np.array([1e-9, 1.0])), w)])
    assert w.dtype == np.float64
    lr = float(np.float32(0.1))  # the learning rate Variable is float32, as in Keras
    np.testing.assert_allclose(w.numpy(), [1.0 - 1e-9 * lr, 2.0 - lr], rtol=1e-15)
    assert w.numpy()[0] != 1.0  # a float32 update would have lost the 1e-10 step


@pytest.mark.parametrize("momentum", [-0.1, 1.5])
def test_momentum_out_of_range_is_an_error(momentum):
    with pytest.raises(ValueError, match=r"momentum.*Received: momentum="):
        ef.optim.SGD(momentum=momentum)


def test_giving_momentum_later_is_an_error():
    opt = ef.optim.SGD(0.1)
    opt.momentum = 0.9
    with pytest.raises(ef.errors.InvalidArgumentError, match="created with momentum=0"):
        opt.apply_gradients([(ef.constant(1.0), ef.Variable(1.0))])


def test_momentum_is_a_variable_and_changing_it_takes_effect_next_step():
    opt = ef.optim.SGD(1.0, momentum=0.5)
    w = ef.Variable(0.0)
    opt.apply_gradients([(ef.constant(1.0), w)])  # m = -1, w = -1
    opt.momentum = 0.0
    opt.apply_gradients([(ef.constant(1.0), w)])  # m = 0 * m - 1 = -1, w = -2
    assert isinstance(opt.momentum, ef.Variable)
    assert float(w) == -2.0
