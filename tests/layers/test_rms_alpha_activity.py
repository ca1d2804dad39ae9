"""RMSNormalization, AlphaDropout and ActivityRegularization: the layer contract, Keras
3.15.1's values and configs, and errors."""

import numpy as np
import pytest

import eagerflow as ef
from tests.layers.layer_contract import run_layer_test

L = ef.layers


@pytest.mark.parametrize("kwargs, shape", [({}, (2, 5)), ({"axis": [1, 2]}, (2, 3, 4)),
                                           ({"axis": 1, "epsilon": 1e-3}, (2, 3, 4))])
def test_rms_normalization_contract_and_formula(kwargs, shape):
    x = np.random.default_rng(0).normal(size=shape)
    layer = run_layer_test(L.RMSNormalization, kwargs, input_data=x.astype(np.float32),
                           expected_output_shape=shape, expected_num_trainable_weights=1)
    axes = tuple(np.atleast_1d(kwargs.get("axis", -1)) % len(shape))
    scale = np.random.default_rng(1).uniform(0.5, 2, [shape[a] for a in axes])
    layer.set_weights([scale])
    broadcast = scale.reshape([shape[i] if i in axes else 1 for i in range(len(shape))])
    expected = x / np.sqrt((x ** 2).mean(axes, keepdims=True) + kwargs.get("epsilon", 1e-6))
    np.testing.assert_allclose(layer(x).numpy(), expected * broadcast, rtol=1e-5)


def test_rms_normalization_matches_keras():
    layer = L.RMSNormalization()
    np.testing.assert_allclose(layer(np.array([[3.0, 4.0]], np.float32)).numpy(),
                               [[0.8485281, 1.1313708]], rtol=1e-6)
    assert [w.name.split("/")[-1].split(":")[0] for w in layer.weights] == ["scale"]
    assert layer.get_config()["axis"] == -1 and layer.get_config()["epsilon"] == 1e-6
    with pytest.raises(ValueError, match="Invalid axis 3"):
        L.RMSNormalization(axis=3)(np.ones((2, 3), np.float32))


def test_alpha_dropout_keeps_mean_and_variance_of_selu_activations():
    x = np.random.default_rng(0).normal(size=(200, 500)).astype(np.float32)
    layer = L.AlphaDropout(0.2, seed=3)
    y = layer(x, training=True).numpy()
    assert abs(y.mean()) < 0.02 and abs(y.var() - 1.0) < 0.03
    saturated = -1.6732632423543772 * 1.0507009873554805
    rate = 0.2
    a = ((1 - rate) * (1 + rate * saturated ** 2)) ** -0.5
    dropped = np.isclose(y, a * saturated + (-a * saturated * rate), atol=1e-6)
    assert 0.18 < dropped.mean() < 0.22  # the dropped share is the rate
    np.testing.assert_allclose(y[~dropped], a * x[~dropped] - a * saturated * rate, rtol=1e-5)
    np.testing.assert_array_equal(layer(x).numpy(), x)  # inference: the identity


def test_alpha_dropout_noise_shape_config_and_errors():
    layer = L.AlphaDropout(0.5, noise_shape=(None, 1), seed=0)
    y = layer(np.ones((6, 4), np.float32), training=True).numpy()
    assert np.all(y.min(1) == y.max(1))  # one draw per row
    config = L.AlphaDropout(0.2, seed=1).get_config()
    assert (config["rate"], config["seed"], config["noise_shape"]) == (0.2, 1, None)
    for rate in (-0.1, 1.0):
        with pytest.raises(ValueError, match="rate"):
            L.AlphaDropout(rate)


def test_activity_regularization_adds_the_penalty_per_sample():
    layer = L.ActivityRegularization(l1=0.5, l2=0.25)
    x = np.array([[1.0, -3.0], [1.0, 1.0]], np.float32)
    np.testing.assert_array_equal(layer(x).numpy(), x)
    penalty = (0.5 * np.abs(x).sum() + 0.25 * (x ** 2).sum()) / 2  # Keras: over the batch
    assert [float(v) for v in layer.losses] == pytest.approx([penalty])
    config = layer.get_config()
    assert (config["l1"], config["l2"]) == (0.5, 0.25) and "activity_regularizer" not in config
    assert L.ActivityRegularization.from_config(config).get_config() == config
    model = ef.Sequential([ef.Input((2,)), ef.layers.Dense(2), L.ActivityRegularization(l2=1.0)])
    model.compile("sgd", "mse")
    logs = model.evaluate(x, x, verbose=0, return_dict=True)
    assert logs["loss"] > float(ef.losses.mean_squared_error(x, model(x)).numpy().mean())
    with pytest.raises(ValueError, match="l1"):
        L.ActivityRegularization(l1=-1.0)
