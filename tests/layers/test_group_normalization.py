"""GroupNormalization against a NumPy transcription of Keras 3's formula."""

import numpy as np
import pytest

import eagerflow as ef
from eagerflow.testing import check_gradients

X = np.random.default_rng(0).standard_normal((2, 3, 3, 4)) * 3 + 1


def _reference(x, groups, eps=1e-3):
    n, *spatial, c = x.shape
    g = x.reshape(n, *spatial, groups, c // groups)
    axes = tuple(range(1, len(spatial) + 1)) + (len(spatial) + 2,)
    mean = g.mean(axes, keepdims=True)
    var = g.var(axes, keepdims=True)
    return ((g - mean) / np.sqrt(var + eps)).reshape(x.shape)


@pytest.mark.parametrize("groups", [1, 2, 4])
def test_values_configs_and_gradients(groups):
    layer = ef.layers.GroupNormalization(groups=groups)
    np.testing.assert_allclose(layer(ef.constant(X.astype("float32"))), _reference(X, groups),
                               rtol=1e-4, atol=1e-5)
    assert layer.gamma.shape == (4,) and layer.beta.shape == (4,)
    clone = ef.layers.GroupNormalization.from_config(layer.get_config())
    assert clone.get_config() == layer.get_config()
    small = X[:1, :2, :2]
    check_gradients(ef.layers.GroupNormalization(groups=groups, dtype="float64"), small)


def test_channels_first_and_bad_groups():
    layer = ef.layers.GroupNormalization(groups=2, axis=1)
    moved = np.moveaxis(X, -1, 1)
    np.testing.assert_allclose(layer(ef.constant(moved.astype("float32"))),
                               np.moveaxis(_reference(X, 2), -1, 1), rtol=1e-4, atol=1e-5)
    with pytest.raises(ValueError, match="must divide the 4 channels"):
        ef.layers.GroupNormalization(groups=3)(ef.constant(X.astype("float32")))
