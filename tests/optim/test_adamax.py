import numpy as np
import pytest

import eagerflow as ef
from tests.optim import reference
from tests.optim.helpers import check_against_reference


@pytest.mark.parametrize("shape", [(3, 4), (5,), ()])
def test_matches_keras_rule_in_float64(shape):
    check_against_reference(ef.optim.Adamax, reference.adamax,
                            {"learning_rate": 0.0625, "beta_1": 0.75, "beta_2": 0.875,
                             "epsilon": 1e-4}, shape=shape)


@pytest.mark.parametrize("kwargs", [{}, {"learning_rate": 0.05, "beta_1": 0.8, "beta_2": 0.9}])
def test_matches_keras_rule_in_float32(kwargs):
    check_against_reference(ef.optim.Adamax, reference.adamax, kwargs, dtype=np.float32)


def test_norm_slot_is_a_decayed_running_maximum():
    w = ef.Variable([0.0, 0.0])
    opt = ef.optim.Adamax(beta_2=0.5)
    for g in ([4.0, -1.0], [1.0, -3.0]):
        opt.apply_gradients([(ef.constant(g), w)])
    np.testing.assert_allclose(opt.get_slot(w, "norm").numpy(), [2.0, 3.0])


@pytest.mark.parametrize("name", ["beta_1", "beta_2"])
def test_betas_outside_the_unit_interval_are_errors(name):
    with pytest.raises(ValueError, match=rf"Adamax: `{name}` must be in \[0.0, 1.0\]. "
                                         rf"Received: {name}=-0.1"):
        ef.optim.Adamax(**{name: -0.1})
