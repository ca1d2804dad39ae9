"""RepeatVector, Permute, Identity, GaussianNoise, GaussianDropout (Keras 3 behaviour)."""

import numpy as np
import pytest

import eagerflow as ef
from eagerflow.testing import check_gradients

X = np.random.default_rng(0).standard_normal((2, 3, 4))


@pytest.mark.parametrize("make, reference", [
    (lambda **k: ef.layers.RepeatVector(3, **k), lambda x: np.repeat(x[:, None, :], 3, 1)),
    (lambda **k: ef.layers.Permute((2, 1), **k), lambda x: x.transpose(0, 2, 1)),
    (lambda **k: ef.layers.Identity(**k), lambda x: x),
])
def test_shape_layers(make, reference):
    x = X[:, 0, :] if isinstance(make(), ef.layers.RepeatVector) else X
    layer = make()
    out = layer(ef.constant(x.astype("float32")))
    np.testing.assert_allclose(out, reference(x), rtol=1e-6)
    assert layer.compute_output_shape((None, *x.shape[1:])) == (None, *reference(x).shape[1:])
    assert type(layer).from_config(layer.get_config()).get_config() == layer.get_config()
    check_gradients(make(dtype="float64"), x)


def test_bad_shape_arguments():
    with pytest.raises(ValueError, match="permutation of the axes 1..2"):
        ef.layers.Permute((0, 1))
    with pytest.raises(ValueError, match="`n` must be a positive int"):
        ef.layers.RepeatVector(0)


@pytest.mark.parametrize("make, mean, std", [
    (lambda: ef.layers.GaussianNoise(0.5, seed=3), 1.0, 0.5),
    (lambda: ef.layers.GaussianDropout(0.2, seed=3), 1.0, (0.2 / 0.8) ** 0.5),
])
def test_noise_layers_only_in_training_with_the_documented_spread(make, mean, std):
    layer = make()
    ones = ef.ones([20000])
    np.testing.assert_array_equal(layer(ones), np.ones(20000))  # inference: identity
    noisy = layer(ones, training=True).numpy()
    assert abs(noisy.mean() - mean) < 0.02 and abs(noisy.std() - std) < 0.02
    ef.random.set_seed(4)
    first = make()(ones, training=True).numpy()
    ef.random.set_seed(4)
    np.testing.assert_array_equal(make()(ones, training=True), first)  # seeded: reproducible
    assert type(layer).from_config(layer.get_config()).get_config() == layer.get_config()
    with pytest.raises(ValueError, match="Invalid value received"):
        type(layer)(-1.0)
