import numpy as np
import pytest

import eagerflow as ef
from tests.optim import reference
from tests.optim.helpers import check_against_reference


@pytest.mark.parametrize("shape", [(3, 4), (5,), ()])
def test_matches_keras_rule_in_float64(shape):
    check_against_reference(ef.optim.Lion, reference.lion,
                            {"learning_rate": 0.03125, "beta_1": 0.5, "beta_2": 0.875},
                            shape=shape)


@pytest.mark.parametrize("kwargs", [{}, {"learning_rate": 0.01, "beta_1": 0.95}])
def test_matches_keras_rule_in_float32(kwargs):
    check_against_reference(ef.optim.Lion, reference.lion, kwargs, dtype=np.float32)


def test_every_element_moves_by_the_learning_rate():
    w = ef.Variable(np.zeros(3))
    opt = ef.optim.Lion(learning_rate=0.125)
    opt.apply_gradients([(ef.constant(np.array([1e-3, -50.0, 2.0])), w)])
    opt.apply_gradients([(ef.constant(np.array([1e-3, -50.0, -1e-3])), w)])
    # Third element: sign(0.9 * 0.02 - 0.1 * 1e-3) > 0, so the momentum wins over g.
    np.testing.assert_array_equal(w.numpy(), [-0.25, 0.25, -0.25])


@pytest.mark.parametrize("beta_1", [0.0, 1.5])
def test_beta_1_outside_zero_one_is_an_error(beta_1):
    with pytest.raises(ValueError, match=rf"Lion: `beta_1` must be in .*Received: "
                                         rf"beta_1={beta_1}"):
        ef.optim.Lion(beta_1=beta_1)
