"""Activations by name, serialization, errors."""

import numpy as np
import pytest

import eagerflow as ef


def test_activations():
    x = np.array([-2.0, 0.0, 1.5], "float32")
    expected = {
        "linear": x, "relu": np.maximum(x, 0), "sigmoid": 1 / (1 + np.exp(-x)),
        "tanh": np.tanh(x), "exponential": np.exp(x), "softsign": x / (1 + np.abs(x)),
        "softplus": np.log1p(np.exp(x)), "elu": np.where(x > 0, x, np.exp(x) - 1),
        "relu6": np.clip(x, 0, 6), "leaky_relu": np.where(x > 0, x, 0.2 * x),
        "hard_sigmoid": np.clip(x + 3, 0, 6) / 6, "silu": x / (1 + np.exp(-x)),
        "swish": x / (1 + np.exp(-x)), "log_sigmoid": -np.log1p(np.exp(-x)),
        "mish": x * np.tanh(np.log1p(np.exp(x))),
        "softmax": np.exp(x) / np.exp(x).sum(),
        "log_softmax": x - np.log(np.exp(x).sum()),
    }
    for name, value in expected.items():
        np.testing.assert_allclose(ef.activations.get(name)(ef.constant(x)).numpy(), value,
                                   rtol=1e-5,
                                   atol=1e-6, err_msg=name)
        assert ef.activations.get(ef.activations.serialize(ef.activations.get(name))) is (
            ef.activations.get(name))
    assert ef.activations.get("SELU") is ef.activations.selu
    assert float(ef.activations.gelu(ef.constant([1.0]))[0]) == pytest.approx(0.8413447)


def test_activation_errors_and_custom():
    with pytest.raises(ValueError, match="Unknown activation 'nope'. Known activations: elu"):
        ef.activations.get("nope")
    with pytest.raises(ValueError, match="Could not interpret activation identifier"):
        ef.activations.get(3)
    leaky = ef.layers.Activation("relu")
    assert ef.activations.serialize(leaky)["class_name"] == "Activation"
    assert isinstance(ef.activations.get(ef.activations.serialize(leaky)), ef.layers.Activation)

    def custom(t):
        return t

    assert ef.activations.serialize(custom) is custom
