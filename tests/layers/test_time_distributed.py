"""TimeDistributed: one layer applied at every step, same weights."""

import numpy as np
import pytest

import eagerflow as ef
from eagerflow.testing import check_gradients

X = np.random.default_rng(0).standard_normal((2, 4, 3))


def test_applies_the_same_layer_at_every_step():
    dense = ef.layers.Dense(5)
    layer = ef.layers.TimeDistributed(dense)
    out = layer(ef.constant(X.astype("float32")))
    kernel, bias = dense.kernel.numpy(), dense.bias.numpy()
    np.testing.assert_allclose(out, X @ kernel + bias, rtol=1e-5, atol=1e-6)
    assert len(layer.trainable_variables) == 2
    assert layer.compute_output_shape((None, 4, 3)) == (None, 4, 5)
    clone = ef.layers.TimeDistributed.from_config(layer.get_config())
    assert clone.layer.units == 5
    layer64 = ef.layers.TimeDistributed(ef.layers.Dense(2, dtype="float64"), dtype="float64")
    check_gradients(layer64, X)


def test_in_a_model_with_dropout_in_training_and_errors():
    inputs = ef.layers.Input((4, 3))
    outputs = ef.layers.TimeDistributed(ef.layers.Dropout(0.5))(inputs)
    model = ef.Model(inputs, outputs)
    np.testing.assert_array_equal(model(np.ones((2, 4, 3), "float32")), np.ones((2, 4, 3)))
    assert (model(np.ones((2, 4, 3), "float32"), training=True).numpy() == 0).any()
    with pytest.raises(ValueError, match="rank >= 3"):
        ef.layers.TimeDistributed(ef.layers.Dense(1))(ef.ones([2, 3]))
    with pytest.raises(ValueError, match="wraps a Layer"):
        ef.layers.TimeDistributed("dense")
