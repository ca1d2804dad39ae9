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


def test_passes_a_sequence_mask_on_to_the_next_layer():
    # Masking -> TimeDistributed(Dense) -> GRU: the GRU must skip the padded steps, as if
    # given the mask itself (TimeDistributed used to drop it, so padding was read).
    x = X.copy()
    x[0, 3] = 0.0
    x[1, 1:] = 0.0
    mask = np.any(x != 0.0, axis=-1)
    inner = ef.layers.TimeDistributed(ef.layers.Dense(3, activation="tanh", dtype="float64"),
                                      dtype="float64")
    gru = ef.layers.GRU(2, dtype="float64")
    hidden = inner(ef.layers.Masking(dtype="float64")(ef.constant(x)))
    np.testing.assert_array_equal(hidden._keras_mask, mask)
    np.testing.assert_allclose(gru(hidden), gru(inner(ef.constant(x)), mask=mask), atol=1e-12)
