import numpy as np
import pytest

import eagerflow as ef
from tests.optim import reference
from tests.optim.helpers import assert_float32_close, data, run_optimizer


@pytest.mark.parametrize("kwargs", [
    {"learning_rate": 0.1},
    {"learning_rate": 0.5, "initial_accumulator_value": 0.0, "epsilon": 1e-3},
    {"learning_rate": 0.05, "initial_accumulator_value": 2.0},
])
def test_matches_keras_rule_over_several_steps(kwargs):
    weights, grads = data(steps=8)
    actual, _ = run_optimizer(ef.optim.Adagrad(**kwargs), weights, grads)
    kwargs = dict(kwargs)
    expected, _ = reference.run(reference.adagrad, weights, grads,
                                lr=kwargs.pop("learning_rate"), **kwargs)
    assert_float32_close(actual, expected)


def test_accumulator_starts_at_initial_value_and_resets_to_it():
    opt = ef.optim.Adagrad(initial_accumulator_value=0.25)
    w = ef.Variable(np.zeros((2, 2), np.float32))
    opt.apply_gradients([(ef.constant(np.ones((2, 2), np.float32)), w)])
    np.testing.assert_allclose(opt.get_slot(w, "accumulator").numpy(), 1.25)
    opt.reset_state()
    np.testing.assert_allclose(opt.get_slot(w, "accumulator").numpy(), 0.25)


@pytest.mark.parametrize("name", ["initial_accumulator_value", "epsilon"])
def test_negative_values_are_errors(name):
    with pytest.raises(ValueError, match=f"`{name}` must be >= 0"):
        ef.optim.Adagrad(**{name: -1.0})
