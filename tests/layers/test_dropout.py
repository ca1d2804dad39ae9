"""Dropout: identity at inference, scaled masks in training, reproducible with seeds."""

import numpy as np
import pytest

import eagerflow as ef
from tests.layers.layer_contract import run_layer_test


def test_dropout_contract_inference_is_identity():
    x = np.random.default_rng(0).standard_normal((4, 5)).astype("float32")
    run_layer_test(ef.layers.Dropout, {"rate": 0.5}, input_data=x, expected_output_shape=(4, 5),
                   weights=[], expected_output=x)


def test_dropout_in_training_scales_kept_values():
    values = ef.layers.Dropout(0.25)(ef.ones([4000]), training=True).numpy()
    assert set(np.unique(values).tolist()) <= {0.0, float(np.float32(1.0 / 0.75))}
    assert 0.2 < np.mean(values == 0) < 0.3


def test_dropout_gradient_uses_the_same_mask():
    layer = ef.layers.Dropout(0.5, seed=3)
    x = ef.constant(np.arange(1.0, 9.0, dtype="float32"))
    with ef.GradientTape() as tape:
        tape.watch(x)
        y = layer(x, training=True)
        total = ef.reduce_sum(y)
    grad = tape.gradient(total, x).numpy()
    np.testing.assert_allclose(grad, (y.numpy() != 0) * 2.0)


def test_dropout_noise_shape_drops_whole_features():
    out = ef.layers.Dropout(0.5, noise_shape=(None, 1, 4))(ef.ones([3, 6, 4]),
                                                           training=True).numpy()
    assert (out == out[:, :1, :]).all()


def test_dropout_is_reproducible_with_the_global_seed():
    ef.random.set_seed(11)
    a = ef.layers.Dropout(0.5)(ef.ones([50]), training=True).numpy()
    ef.random.set_seed(11)
    b = ef.layers.Dropout(0.5)(ef.ones([50]), training=True).numpy()
    np.testing.assert_array_equal(a, b)


def test_dropout_rate_validation():
    with pytest.raises(ValueError, match=r"Expected a float value in \[0, 1\). Received: rate=1"):
        ef.layers.Dropout(1)
    with pytest.raises(ValueError, match="rate='a'"):
        ef.layers.Dropout("a")
