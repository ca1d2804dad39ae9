"""UnitNormalization and the 1-D global poolings (with masks), as in Keras 3."""

import numpy as np
import pytest

import eagerflow as ef
from eagerflow.testing import check_gradients

X = np.random.default_rng(0).standard_normal((2, 5, 3))


@pytest.mark.parametrize("make, reference", [
    (lambda **k: ef.layers.UnitNormalization(**k),
     lambda x: x / np.sqrt((x * x).sum(-1, keepdims=True))),
    (lambda **k: ef.layers.GlobalAveragePooling1D(**k), lambda x: x.mean(1)),
    (lambda **k: ef.layers.GlobalMaxPooling1D(**k), lambda x: x.max(1)),
    (lambda **k: ef.layers.GlobalAveragePooling1D(keepdims=True, **k),
     lambda x: x.mean(1, keepdims=True)),
])
def test_values_shapes_configs_and_gradients(make, reference):
    layer = make()
    np.testing.assert_allclose(layer(ef.constant(X.astype("float32"))), reference(X),
                               rtol=1e-5, atol=1e-6)
    assert layer.compute_output_shape((None, 5, 3)) == (None, *reference(X).shape[1:])
    assert type(layer).from_config(layer.get_config()).get_config() == layer.get_config()
    check_gradients(make(dtype="float64"), X, order=1)


def test_masked_average_ignores_padding_in_a_model():
    inputs = ef.layers.Input((4,), dtype="int32")
    embedded = ef.layers.Embedding(10, 3, mask_zero=True)(inputs)
    pooled = ef.layers.GlobalAveragePooling1D()(embedded)
    model = ef.Model(inputs, pooled)
    ids = np.array([[1, 2, 0, 0]])
    table = model.layers[1].embeddings.numpy()
    np.testing.assert_allclose(model(ids), table[[1, 2]].mean(0, keepdims=True), rtol=1e-6)
