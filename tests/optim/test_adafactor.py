import numpy as np
import pytest

import eagerflow as ef
from tests.optim import reference
from tests.optim.helpers import check_against_reference

CONFIGS = [
    {"learning_rate": 0.25},
    {"learning_rate": 0.5, "beta_2_decay": -0.5, "epsilon_2": 0.25, "clip_threshold": 0.5},
]


@pytest.mark.parametrize("shape", [(3, 4), (2, 3, 4), (5,), ()])
@pytest.mark.parametrize("kwargs", CONFIGS)
def test_matches_keras_rule_in_float64(shape, kwargs):
    check_against_reference(ef.optim.Adafactor, reference.adafactor, kwargs, shape=shape)


@pytest.mark.parametrize("kwargs", [{}, {"learning_rate": 0.3, "relative_step": False}])
def test_matches_keras_rule_in_float32(kwargs):
    check_against_reference(ef.optim.Adafactor, reference.adafactor, kwargs,
                            dtype=np.float32, shape=(2, 3, 4))


def test_matrices_keep_factored_statistics_vectors_a_full_one():
    matrix, vector = ef.Variable(np.ones((2, 3, 4), np.float32)), ef.Variable([1.0, 2.0])
    opt = ef.optim.Adafactor()
    opt.build([matrix, vector])
    assert opt.get_slot(matrix, "velocity_row").shape == (2, 3)
    assert opt.get_slot(matrix, "velocity_col").shape == (2, 4)
    assert opt.get_slot(vector, "velocity").shape == (2,)
    with pytest.raises(ef.errors.NotFoundError, match="no slot 'velocity_row'"):
        opt.get_slot(vector, "velocity_row")


@pytest.mark.parametrize("kwargs, message", [
    ({"epsilon_1": -1.0}, r"Adafactor: `epsilon_1` must be >= 0.0. Received: epsilon_1=-1.0"),
    ({"epsilon_2": -0.5}, r"Adafactor: `epsilon_2` must be >= 0.0. Received: epsilon_2=-0.5"),
    ({"beta_2_decay": 0.8},
     r"Adafactor: `beta_2_decay` must be <= 0.0. Received: beta_2_decay=0.8"),
    ({"clip_threshold": 0.0},
     r"Adafactor: `clip_threshold` must be > 0. Received: clip_threshold=0.0"),
    ({"clip_threshold": "1"}, r"Adafactor: `clip_threshold` must be a float"),
])
def test_bad_arguments_are_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        ef.optim.Adafactor(**kwargs)
