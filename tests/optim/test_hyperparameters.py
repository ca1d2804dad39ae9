"""Hyperparameter Variables and the learning rate."""

import pytest

import eagerflow as ef


def test_learning_rate_is_a_variable_from_construction():
    opt = ef.optim.Adam(learning_rate=0.01)
    assert isinstance(opt.learning_rate, ef.Variable)
    assert not opt.learning_rate.trainable
    assert float(opt.learning_rate) == pytest.approx(0.01)


def test_assigning_the_learning_rate_takes_effect_next_step():
    w = ef.Variable(0.0)
    opt = ef.optim.SGD(1.0)
    lr_variable = opt.learning_rate
    opt.apply_gradients([(ef.constant(1.0), w)])
    opt.learning_rate = 0.5
    assert opt.learning_rate is lr_variable  # assigned in place, checkpoints still see it
    opt.apply_gradients([(ef.constant(1.0), w)])
    opt.learning_rate.assign(0.25)
    opt.apply_gradients([(ef.constant(1.0), w)])
    assert float(w) == -1.75
    assert opt.current_learning_rate == 0.25


def test_learning_rate_can_be_a_shared_variable():
    rate = ef.Variable(1.0, trainable=False)
    w = ef.Variable(0.0)
    opt = ef.optim.SGD(rate)
    rate.assign(2.0)
    opt.apply_gradients([(ef.constant(1.0), w)])
    assert float(w) == -2.0 and opt.learning_rate is rate
    assert opt._trackable_children()["learning_rate"] is rate


def test_learning_rate_schedule_is_called_with_iterations():
    schedule = ef.optim.schedules.PiecewiseConstantDecay([1], [1.0, 0.1])
    w = ef.Variable(0.0)
    opt = ef.optim.SGD(schedule)
    seen = []
    for _ in range(3):
        seen.append(float(opt.learning_rate))
        opt.apply_gradients([(ef.constant(1.0), w)])
    assert seen == pytest.approx([1.0, 1.0, 0.1])
    assert float(w) == pytest.approx(-2.1)
    assert "learning_rate" not in opt._trackable_children()


def test_learning_rate_can_switch_between_schedule_callable_and_float():
    opt = ef.optim.SGD(ef.optim.schedules.ExponentialDecay(1.0, 1, 0.5))
    opt.learning_rate = lambda: 0.3
    assert float(opt.learning_rate) == pytest.approx(0.3)
    opt.learning_rate = 0.2
    assert isinstance(opt.learning_rate, ef.Variable)
    assert float(opt._trackable_children()["learning_rate"]) == pytest.approx(0.2)


@pytest.mark.parametrize("bad", ["fast", None, True, [0.1]])
def test_bad_learning_rate_is_an_error(bad):
    with pytest.raises(ValueError, match="`learning_rate` must be a float"):
        ef.optim.SGD(learning_rate=bad)


def test_hyperparameter_assignment_must_be_a_number():
    opt = ef.optim.Adam()
    with pytest.raises(ValueError, match="`beta_1` must be a float"):
        opt.beta_1 = "high"


def test_hyperparameter_can_be_replaced_by_a_variable():
    beta = ef.Variable(0.5, trainable=False)
    opt = ef.optim.Adam()
    opt.beta_1 = beta
    assert opt.beta_1 is beta and opt._trackable_children()["beta_1"] is beta
