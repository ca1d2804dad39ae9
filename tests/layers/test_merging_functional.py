"""Subtract, Average, Maximum, Minimum and the lower-case functional merge forms."""

import numpy as np
import pytest

import eagerflow as ef
from eagerflow.testing import check_gradients


@pytest.mark.parametrize("name, reference", [
    ("Subtract", lambda a, b: a - b), ("Average", lambda a, b: (a + b) / 2),
    ("Maximum", np.maximum), ("Minimum", np.minimum),
    ("Add", np.add), ("Multiply", np.multiply),
])
def test_merge_layers_match_numpy_and_their_functional_forms(name, reference):
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((3, 4)), rng.standard_normal((3, 4))
    layer = getattr(ef.layers, name)()
    expected = reference(a, b)
    np.testing.assert_allclose(layer([ef.constant(a), ef.constant(b)]), expected, rtol=1e-5,
                               atol=1e-6)
    function = getattr(ef.layers, name.lower())
    np.testing.assert_allclose(function([ef.constant(a), ef.constant(b)]), expected,
                               rtol=1e-5, atol=1e-6)
    clone = type(layer).from_config(layer.get_config())
    assert clone.get_config() == layer.get_config()
    layer64 = getattr(ef.layers, name)(dtype="float64")
    check_gradients(lambda x, y: layer64([x, y]), a, b)  # float64, central differences


def test_subtract_needs_exactly_two_inputs():
    with pytest.raises(ValueError, match="exactly 2 inputs"):
        ef.layers.Subtract()([ef.ones([1, 2])] * 3)


def test_functional_merges_in_a_functional_model():
    x, y = ef.layers.Input((2,)), ef.layers.Input((2,))
    out = ef.layers.concatenate([ef.layers.average([x, y]), ef.layers.maximum([x, y])])
    model = ef.Model([x, y], out)
    result = model([ef.constant([[1.0, 4.0]]), ef.constant([[3.0, 0.0]])])
    np.testing.assert_array_equal(result, [[2.0, 2.0, 3.0, 4.0]])
    assert model.output_shape == (None, 4)
