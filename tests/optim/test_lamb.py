import numpy as np
import pytest

import eagerflow as ef
from tests.optim import reference
from tests.optim.helpers import check_against_reference


@pytest.mark.parametrize("shape", [(3, 4), (5,), ()])
def test_matches_keras_rule_in_float64(shape):
    check_against_reference(ef.optim.Lamb, reference.lamb,
                            {"learning_rate": 0.03125, "beta_1": 0.5, "beta_2": 0.875},
                            shape=shape)


@pytest.mark.parametrize("kwargs", [{}, {"learning_rate": 0.01, "epsilon": 1e-3}])
def test_matches_keras_rule_in_float32(kwargs):
    check_against_reference(ef.optim.Lamb, reference.lamb, kwargs, dtype=np.float32)


def test_values_from_keras():
    w = ef.Variable([3.0, 4.0])
    ef.optim.Lamb(learning_rate=0.1).apply_gradients([(ef.constant([1.0, 1.0]), w)])
    np.testing.assert_allclose(w.numpy(), [2.6464467, 3.6464467], rtol=1e-6)


def test_zero_weights_take_a_plain_adam_step():
    w = ef.Variable(np.zeros(2))
    ef.optim.Lamb(learning_rate=0.5).apply_gradients([(ef.constant(np.array([2.0, -1.0])), w)])
    np.testing.assert_allclose(w.numpy(), [-0.5, 0.5], rtol=1e-6)  # trust ratio 1


def test_traced_equals_eager_and_names():
    x = np.random.default_rng(0).normal(size=(8, 3)).astype(np.float32)

    def run(traced):
        ef.random.set_seed(0)
        model = ef.Sequential([ef.Input((3,)), ef.layers.Dense(2)])
        model.compile(ef.optim.Lamb(0.01), "mse", run_eagerly=not traced)
        model.fit(x, x[:, :2], epochs=2, batch_size=4, verbose=0, shuffle=False)
        return model.get_weights()

    for a, b in zip(run(True), run(False), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-6)
    assert isinstance(ef.optim.get("lamb"), ef.optim.Lamb)
    with pytest.raises(ValueError, match="beta_2"):
        ef.optim.Lamb(beta_2=2.0)
