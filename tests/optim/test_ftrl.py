import numpy as np
import pytest

import eagerflow as ef
from tests.optim import reference
from tests.optim.helpers import check_against_reference

CONFIGS = [
    {"learning_rate": 0.125},
    {"learning_rate": 0.125, "learning_rate_power": -0.75, "initial_accumulator_value": 0.5,
     "l1_regularization_strength": 0.05, "l2_regularization_strength": 0.1,
     "l2_shrinkage_regularization_strength": 0.02, "beta": 0.3},
    {"learning_rate": 0.5, "learning_rate_power": 0.0, "initial_accumulator_value": 0.0},
]


@pytest.mark.parametrize("kwargs", CONFIGS)
def test_matches_keras_rule_in_float64(kwargs):
    check_against_reference(ef.optim.Ftrl, reference.ftrl, kwargs)


@pytest.mark.parametrize("kwargs", [{}, {"learning_rate": 0.1, "l1_regularization_strength": 0.5}])
def test_matches_keras_rule_in_float32(kwargs):
    check_against_reference(ef.optim.Ftrl, reference.ftrl, kwargs, dtype=np.float32)


def test_l1_gives_exact_zeros():
    w = ef.Variable(np.full(4, 0.5))
    opt = ef.optim.Ftrl(learning_rate=0.1, l1_regularization_strength=20.0)
    opt.apply_gradients([(ef.constant(np.array([0.1, -0.2, 1.0, -2.0])), w)])
    np.testing.assert_array_equal(w.numpy(), 0.0)


@pytest.mark.parametrize("name", ["initial_accumulator_value", "l1_regularization_strength",
                                  "l2_regularization_strength",
                                  "l2_shrinkage_regularization_strength", "beta"])
def test_negative_arguments_are_errors(name):
    with pytest.raises(ValueError, match=rf"Ftrl: `{name}` must be >= 0.0. Received: "
                                         rf"{name}=-0.5"):
        ef.optim.Ftrl(**{name: -0.5})


def test_positive_learning_rate_power_is_an_error():
    with pytest.raises(ValueError, match=r"Ftrl: `learning_rate_power` must be <= 0.0. "
                                         r"Received: learning_rate_power=0.5"):
        ef.optim.Ftrl(learning_rate_power=0.5)
