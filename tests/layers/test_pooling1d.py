"""MaxPooling1D and AveragePooling1D against NumPy windows."""

import numpy as np
import pytest

import eagerflow as ef
from eagerflow.testing import check_gradients

X = np.random.default_rng(0).standard_normal((2, 7, 3))


def _windows(x, size, stride):
    starts = range(0, x.shape[1] - size + 1, stride)
    return np.stack([x[:, s:s + size] for s in starts], axis=1)


@pytest.mark.parametrize("make, reduce, size, stride", [
    (lambda **k: ef.layers.MaxPooling1D(2, **k), np.max, 2, 2),
    (lambda **k: ef.layers.MaxPooling1D(3, strides=1, **k), np.max, 3, 1),
    (lambda **k: ef.layers.AveragePooling1D(2, **k), np.mean, 2, 2),
    (lambda **k: ef.layers.AveragePooling1D(3, strides=2, **k), np.mean, 3, 2),
])
def test_values_configs_and_gradients(make, reduce, size, stride):
    layer = make()
    expected = reduce(_windows(X, size, stride), axis=2)
    np.testing.assert_allclose(layer(ef.constant(X.astype("float32"))), expected, rtol=1e-5,
                               atol=1e-6)
    assert type(layer).from_config(layer.get_config()).get_config() == layer.get_config()
    check_gradients(make(dtype="float64"), X, order=1)


def test_same_padding_and_channels_first():
    x = ef.constant(X.astype("float32"))
    assert ef.layers.MaxPooling1D(2, padding="same")(x).shape == (2, 4, 3)
    first = ef.layers.AveragePooling1D(2, data_format="channels_first")
    np.testing.assert_allclose(first(ef.constant(np.transpose(X, (0, 2, 1)).astype("float32"))),
                               np.transpose(_windows(X, 2, 2).mean(2), (0, 2, 1)), rtol=1e-5)
