"""Regularizers: penalties, names, configs, layer losses."""

import json

import numpy as np
import pytest

import eagerflow as ef

W = np.array([[1.0, -2.0], [3.0, 0.5]], "float32")


def test_regularizer_values_and_gradients():
    assert float(ef.regularizers.L1(0.1)(W)) == pytest.approx(0.65)
    assert float(ef.regularizers.L2(0.1)(W)) == pytest.approx(1.425)
    assert float(ef.regularizers.L1L2(0.1, 0.1)(W)) == pytest.approx(2.075)
    assert float(ef.regularizers.L1L2()(W)) == 0.0
    ef.testing.check_gradients(lambda w: ef.regularizers.L1L2(0.3, 0.2)(w), W)


def test_regularizer_names_and_configs():
    for name, cls in (("l1", ef.regularizers.L1), ("l2", ef.regularizers.L2),
                      ("l1_l2", ef.regularizers.L1L2)):
        instance = ef.regularizers.get(name)
        assert isinstance(instance, cls)
        assert ef.regularizers.deserialize(ef.regularizers.serialize(instance)).get_config() == (
            instance.get_config())


def test_regularizer_errors():
    with pytest.raises(ValueError, match="non-negative number. Received: l2=-1"):
        ef.regularizers.L2(-1.0)
    with pytest.raises(ValueError, match="must be a number. Received: l1='x'"):
        ef.regularizers.L1("x")
    with pytest.raises(ValueError, match="Unknown regularizer 'l3'"):
        ef.regularizers.get("l3")
    with pytest.raises(TypeError, match="must implement __call__"):
        ef.regularizers.Regularizer()(W)


def test_weight_regularizers_join_layer_losses_differentiably():
    layer = ef.layers.Dense(2, kernel_regularizer="l2", bias_regularizer=ef.regularizers.L1(1.0),
                            bias_initializer="ones")
    layer(ef.ones([1, 2]))
    with ef.GradientTape() as tape:
        penalty = ef.reduce_sum(ef.stack(layer.losses))
    kernel_grad, bias_grad = tape.gradient(penalty, layer.weights)
    np.testing.assert_allclose(kernel_grad.numpy(), 0.02 * layer.kernel.numpy(), rtol=1e-5)
    np.testing.assert_allclose(bias_grad.numpy(), [1.0, 1.0])


def test_activity_regularizer_survives_a_config_round_trip_on_every_layer():
    # Only the layers that listed it themselves (Dense, Conv) kept it; the base config now
    # records it, as Keras's does.
    x = ef.constant(np.ones((2, 3), "float32"))
    for layer in (ef.layers.LayerNormalization(activity_regularizer="l2"),
                  ef.layers.Activation("tanh", activity_regularizer=ef.regularizers.L1(0.5))):
        config = json.loads(json.dumps(layer.get_config()))
        clone = type(layer).from_config(config)
        assert clone.activity_regularizer.get_config() == layer.activity_regularizer.get_config()
        clone(x)
        assert len(clone.losses) == 1
    assert "activity_regularizer" not in ef.layers.LayerNormalization().get_config()
