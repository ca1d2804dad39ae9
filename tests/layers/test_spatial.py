"""ZeroPadding1D/2D, Cropping1D/2D, UpSampling1D/2D against NumPy."""

import numpy as np
import pytest

import eagerflow as ef
from eagerflow.testing import check_gradients

X1 = np.random.default_rng(0).standard_normal((2, 5, 3))
X2 = np.random.default_rng(1).standard_normal((2, 4, 5, 3))


@pytest.mark.parametrize("make, x, reference", [
    (lambda **k: ef.layers.ZeroPadding1D((1, 2), **k), X1,
     lambda x: np.pad(x, ((0, 0), (1, 2), (0, 0)))),
    (lambda **k: ef.layers.ZeroPadding2D(((1, 0), (2, 1)), **k), X2,
     lambda x: np.pad(x, ((0, 0), (1, 0), (2, 1), (0, 0)))),
    (lambda **k: ef.layers.ZeroPadding2D(1, data_format="channels_first", **k), X2,
     lambda x: np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))),
    (lambda **k: ef.layers.Cropping1D((1, 2), **k), X1, lambda x: x[:, 1:3]),
    (lambda **k: ef.layers.Cropping2D(((1, 1), (0, 2)), **k), X2, lambda x: x[:, 1:3, :3]),
    (lambda **k: ef.layers.UpSampling1D(3, **k), X1, lambda x: np.repeat(x, 3, axis=1)),
    (lambda **k: ef.layers.UpSampling2D((2, 1), **k), X2, lambda x: np.repeat(x, 2, axis=1)),
])
def test_values_shapes_configs_and_gradients(make, x, reference):
    layer = make()
    np.testing.assert_allclose(layer(ef.constant(x.astype("float32"))), reference(x),
                               rtol=1e-6)
    assert layer.compute_output_shape((None, *x.shape[1:]))[1:] == reference(x).shape[1:]
    assert type(layer).from_config(layer.get_config()).get_config() == layer.get_config()
    check_gradients(make(dtype="float64"), x, order=1)


def test_in_a_functional_model_and_bad_arguments():
    inputs = ef.layers.Input((4, 4, 1))
    outputs = ef.layers.Cropping2D(1)(ef.layers.UpSampling2D()(inputs))
    assert ef.Model(inputs, outputs).output_shape == (None, 6, 6, 1)
    with pytest.raises(ValueError, match="non-negative ints"):
        ef.layers.ZeroPadding1D(-1)
    with pytest.raises(ValueError, match="leaves nothing"):
        ef.layers.Cropping1D((3, 3))(ef.ones([1, 5, 1]))
    with pytest.raises(ValueError, match="positive int"):
        ef.layers.UpSampling1D(0)
