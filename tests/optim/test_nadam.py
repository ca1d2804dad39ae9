import numpy as np
import pytest

import eagerflow as ef
from tests.optim import reference
from tests.optim.helpers import check_against_reference


@pytest.mark.parametrize("shape", [(3, 4), (5,), ()])
def test_matches_keras_rule_in_float64(shape):
    opt, _ = check_against_reference(
        ef.optim.Nadam, reference.nadam,
        {"learning_rate": 0.0625, "beta_1": 0.875, "beta_2": 0.96875, "epsilon": 1e-3},
        shape=shape)
    assert opt.u_product.dtype == np.float64


@pytest.mark.parametrize("kwargs", [{}, {"learning_rate": 0.05, "beta_1": 0.8}])
def test_matches_keras_rule_in_float32(kwargs):
    check_against_reference(ef.optim.Nadam, reference.nadam, kwargs, dtype=np.float32)


def test_u_product_is_shared_by_all_variables_and_advances_once_per_step():
    a, b = ef.Variable([1.0]), ef.Variable([[2.0]])
    opt = ef.optim.Nadam(beta_1=0.5)
    for _ in range(2):
        opt.apply_gradients([(ef.constant([1.0]), a), (ef.constant([[1.0]]), b)])
    mu = [0.5 * (1 - 0.5 * 0.96 ** t) for t in (1, 2)]
    assert float(opt.u_product) == pytest.approx(mu[0] * mu[1], rel=1e-6)
    opt.reset_state()
    assert float(opt.u_product) == 1.0


@pytest.mark.parametrize("name", ["beta_1", "beta_2"])
def test_betas_outside_the_unit_interval_are_errors(name):
    with pytest.raises(ValueError, match=rf"Nadam: `{name}` must be in \[0.0, 1.0\]. "
                                         rf"Received: {name}=1.5"):
        ef.optim.Nadam(**{name: 1.5})


def test_negative_epsilon_is_an_error():
    with pytest.raises(ValueError, match="Nadam: `epsilon` must be >= 0.0. Received: "
                                         "epsilon=-1e-07"):
        ef.optim.Nadam(epsilon=-1e-7)
