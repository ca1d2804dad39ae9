"""Optimizers inside `ef.function`: the same formula, the same values as eagerly."""

import numpy as np
import pytest

import eagerflow as ef
from tests.optim import helpers

OPTIMIZERS = [
    lambda: ef.optim.SGD(0.1),
    lambda: ef.optim.SGD(0.1, momentum=0.9),
    lambda: ef.optim.SGD(0.1, momentum=0.9, nesterov=True),
    lambda: ef.optim.Adam(0.01),
    lambda: ef.optim.Adam(0.01, amsgrad=True, clipnorm=0.5),
    lambda: ef.optim.AdamW(0.01, weight_decay=0.1, global_clipnorm=1.0),
    lambda: ef.optim.RMSprop(0.01, momentum=0.5, centered=True, clipvalue=0.3),
    lambda: ef.optim.Adagrad(0.1),
    lambda: ef.optim.SGD(ef.optim.schedules.ExponentialDecay(0.1, 2, 0.5)),
    lambda: ef.optim.Nadam(0.01),
    lambda: ef.optim.Adamax(0.01, clipnorm=0.5),
    lambda: ef.optim.Adadelta(1.0, weight_decay=0.1),
    lambda: ef.optim.Lion(0.01),
    lambda: ef.optim.Adafactor(0.1),
    lambda: ef.optim.Ftrl(0.1, l1_regularization_strength=0.01, beta=0.1),
]


@pytest.mark.parametrize("make", OPTIMIZERS)
def test_traced_steps_equal_eager_steps(make):
    weights, grads = helpers.data()
    eager, _ = helpers.run_optimizer(make(), weights, grads)

    optimizer = make()
    variable = ef.Variable(weights.copy())

    @ef.function
    def step(g):
        optimizer.apply_gradients([(g, variable)])

    for g in grads:
        step(ef.constant(g))
    assert step.experimental_get_tracing_count() == 1
    helpers.assert_float32_close(variable.numpy(), eager)
    assert int(optimizer.iterations) == len(grads)


def test_whole_step_with_tape_in_a_function():
    w = ef.Variable([[1.0], [2.0]])
    opt = ef.optim.Adam(0.1)

    @ef.function
    def train(x, y):
        with ef.GradientTape() as tape:
            loss = ef.reduce_mean(ef.square(ef.matmul(x, w) - y))
        opt.apply(tape.gradient(loss, [w]), [w])
        return loss

    x = ef.constant([[1.0, 1.0], [2.0, 0.5]])
    y = ef.constant([[0.0], [1.0]])
    losses = [float(train(x, y)) for _ in range(30)]
    assert losses[-1] < losses[0] / 4
    assert train.experimental_get_tracing_count() == 1


def test_changing_a_hyperparameter_changes_the_traced_step():
    w = ef.Variable(1.0)
    opt = ef.optim.SGD(1.0)
    step = ef.function(lambda g: opt.apply_gradients([(g, w)]))
    step(ef.constant(0.5))
    opt.learning_rate = 0.1
    step(ef.constant(0.5))
    assert float(w) == pytest.approx(1.0 - 0.5 - 0.05)


def test_slots_created_inside_the_function_are_real_variables():
    w = ef.Variable([1.0, 2.0])
    opt = ef.optim.Adam(0.1)
    ef.function(lambda g: opt.apply_gradients([(g, w)]))(ef.constant([1.0, 1.0]))
    momentum = opt.get_slot(w, "momentum").numpy()
    np.testing.assert_allclose(momentum, [0.1, 0.1], rtol=1e-6)


def test_minimize_inside_a_function():
    w = ef.Variable(3.0)
    opt = ef.optim.SGD(0.25)
    step = ef.function(lambda: opt.minimize(lambda: w * w, var_list=[w]))
    step()
    step()
    assert float(w) == pytest.approx(0.75)
