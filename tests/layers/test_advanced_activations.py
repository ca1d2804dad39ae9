"""ReLU, LeakyReLU, PReLU, ELU, Softmax: Keras 3's formulas, configs, gradients, masks."""

import numpy as np
import pytest

import eagerflow as ef
from eagerflow.testing import check_gradients

X = np.array([[-3.0, -0.7, 0.3, 1.5, 8.0], [-1.2, 0.9, 2.2, -0.4, 6.5]])


def _relu_reference(x, max_value=None, negative_slope=0.0, threshold=0.0):
    out = np.where(x >= threshold, x, negative_slope * (x - threshold))
    return out if max_value is None else np.minimum(out, max_value)


@pytest.mark.parametrize("layer, reference", [
    (lambda: ef.layers.ReLU(), lambda x: np.maximum(x, 0)),
    (lambda: ef.layers.ReLU(max_value=6.0, negative_slope=0.1, threshold=1.0),
     lambda x: _relu_reference(x, 6.0, 0.1, 1.0)),
    (lambda: ef.layers.LeakyReLU(), lambda x: np.where(x >= 0, x, 0.3 * x)),
    (lambda: ef.layers.LeakyReLU(negative_slope=0.05), lambda x: np.where(x >= 0, x, 0.05 * x)),
    (lambda: ef.layers.ELU(alpha=1.5), lambda x: np.where(x > 0, x, 1.5 * np.expm1(x))),
    (lambda: ef.layers.Softmax(),
     lambda x: np.exp(x - x.max(-1, keepdims=True)) / np.exp(
         x - x.max(-1, keepdims=True)).sum(-1, keepdims=True)),
])
def test_values_configs_shapes_and_gradients(layer, reference):
    made = layer()
    np.testing.assert_allclose(made(ef.constant(X.astype("float32"))), reference(X),
                               rtol=1e-5, atol=1e-6)
    clone = type(made).from_config(made.get_config())
    assert clone.get_config() == made.get_config()
    assert made.compute_output_shape((None, 5)) == (None, 5)
    config = {**made.get_config(), "dtype": "float64"}
    config.pop("name")
    layer64 = type(made).from_config(config)
    smooth = isinstance(made, (ef.layers.Softmax, ef.layers.ELU))
    check_gradients(layer64, X, order=2 if smooth else 1)


def test_prelu_learns_shared_slopes():
    layer = ef.layers.PReLU(alpha_initializer=ef.initializers.Constant(0.25),
                            shared_axes=[1])
    images = np.linspace(-2, 2, 2 * 3 * 4).reshape(2, 3, 4)
    out = layer(ef.constant(images.astype("float32")))
    assert layer.alpha.shape == (1, 4)
    np.testing.assert_allclose(out, np.where(images > 0, images, 0.25 * images), rtol=1e-6)
    clone = ef.layers.PReLU.from_config(layer.get_config())
    assert clone.get_config()["shared_axes"] == [1]
    layer64 = ef.layers.PReLU(alpha_initializer=ef.initializers.Constant(0.25), dtype="float64")
    check_gradients(layer64, X, order=1)
    with ef.GradientTape() as tape:
        y = ef.reduce_sum(layer64(ef.constant(X)))
    np.testing.assert_allclose(tape.gradient(y, layer64.alpha), np.minimum(X, 0).sum(0))


def test_softmax_mask_and_bad_arguments():
    scores = ef.constant([[1.0, 2.0, 30.0]])
    out = ef.layers.Softmax()(scores, mask=ef.constant([[True, True, False]]))
    np.testing.assert_allclose(out, [[np.exp(-1) / (1 + np.exp(-1)), 1 / (1 + np.exp(-1)), 0]],
                               rtol=1e-6, atol=1e-7)
    with pytest.raises(ValueError, match="negative_slope` must be >= 0"):
        ef.layers.LeakyReLU(negative_slope=-1.0)
    with pytest.raises(ValueError, match="max_value` must be >= 0"):
        ef.layers.ReLU(max_value=-1.0)
    assert ef.layers.LeakyReLU(alpha=0.1).negative_slope == 0.1  # the Keras 2 name


def test_activation_layers_in_a_gan_style_model():
    model = ef.Sequential([ef.layers.Input((4,)), ef.layers.Dense(8), ef.layers.LeakyReLU(0.2),
                           ef.layers.Dense(3), ef.layers.Softmax()])
    model.compile("adam", "categorical_crossentropy")
    history = model.fit(np.ones((16, 4), "float32"), np.eye(3)[np.arange(16) % 3], epochs=2,
                        verbose=0)
    assert len(history.history["loss"]) == 2
    assert ef.layers.deserialize(ef.layers.serialize(ef.layers.ELU(0.5))).alpha == 0.5
