"""Max/average pooling and global pooling."""

import numpy as np
import pytest

import eagerflow as ef
from tests.layers.layer_contract import run_layer_test

X = np.random.default_rng(0).standard_normal((2, 4, 6, 3)).astype("float32")


def _windows(x, size):
    b, h, w, c = x.shape
    return x[:, :h // size * size, :w // size * size].reshape(b, h // size, size, w // size,
                                                               size, c)


def test_max_pooling():
    run_layer_test(ef.layers.MaxPooling2D, {}, input_data=X, expected_output_shape=(2, 2, 3, 3),
                   weights=[], expected_output=_windows(X, 2).max((2, 4)))


def test_average_pooling():
    run_layer_test(ef.layers.AveragePooling2D, {"pool_size": 2}, input_data=X,
                   expected_output_shape=(2, 2, 3, 3), weights=[],
                   expected_output=_windows(X, 2).mean((2, 4)))


def test_pooling_same_padding_strides_and_channels_first():
    assert ef.layers.MaxPooling2D(3, strides=2, padding="same")(X).shape == (2, 2, 3, 3)
    first = ef.layers.AveragePooling2D(data_format="channels_first")(X.transpose(0, 3, 1, 2))
    np.testing.assert_allclose(first.numpy(), _windows(X, 2).mean((2, 4)).transpose(0, 3, 1, 2),
                               rtol=1e-6)


def test_global_pooling():
    run_layer_test(ef.layers.GlobalAveragePooling2D, {}, input_data=X,
                   expected_output_shape=(2, 3), weights=[], expected_output=X.mean((1, 2)))
    run_layer_test(ef.layers.GlobalMaxPooling2D, {"keepdims": True}, input_data=X,
                   expected_output_shape=(2, 1, 1, 3), weights=[],
                   expected_output=X.max((1, 2), keepdims=True))


def test_pooling_errors():
    with pytest.raises(ValueError, match="pool_size=0"):
        ef.layers.MaxPooling2D(0)
    with pytest.raises(ValueError, match="padding='causal'"):
        ef.layers.MaxPooling2D(padding="causal")
    with pytest.raises(ValueError, match="expected ndim=4, found ndim=3"):
        ef.layers.GlobalMaxPooling2D()(X[0])
