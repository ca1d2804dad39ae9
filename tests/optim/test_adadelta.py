import numpy as np
import pytest

import eagerflow as ef
from tests.optim import reference
from tests.optim.helpers import check_against_reference


@pytest.mark.parametrize("shape", [(3, 4), (5,), ()])
def test_matches_keras_rule_in_float64(shape):
    check_against_reference(ef.optim.Adadelta, reference.adadelta,
                            {"learning_rate": 1.0, "rho": 0.875, "epsilon": 1e-4}, shape=shape)


@pytest.mark.parametrize("kwargs", [{}, {"learning_rate": 0.5, "rho": 0.9, "epsilon": 1e-6}])
def test_matches_keras_rule_in_float32(kwargs):
    check_against_reference(ef.optim.Adadelta, reference.adadelta, kwargs, dtype=np.float32)


def test_first_step_size_is_set_by_epsilon():
    # With no history, delta = -sqrt(eps) * g / sqrt((1 - rho) g^2 + eps) ~ -sqrt(eps/(1-rho)).
    w = ef.Variable(np.zeros(1))
    ef.optim.Adadelta(learning_rate=1.0, rho=0.75, epsilon=1e-6).apply_gradients(
        [(ef.constant(np.array([100.0])), w)])
    assert float(w[0]) == pytest.approx(-np.sqrt(1e-6 / 0.25), rel=1e-6)


def test_rho_above_one_is_an_error():
    with pytest.raises(ValueError, match=r"Adadelta: `rho` must be in \[0.0, 1.0\]. "
                                         r"Received: rho=1.2"):
        ef.optim.Adadelta(rho=1.2)
