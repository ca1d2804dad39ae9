"""Add, Multiply, Concatenate."""

import numpy as np
import pytest

import eagerflow as ef

RNG = np.random.default_rng(0)
A = RNG.standard_normal((2, 3)).astype("float32")
B = RNG.standard_normal((2, 3)).astype("float32")


@pytest.mark.parametrize("cls, reference", [
    (ef.layers.Add, lambda a, b: a + b),
    (ef.layers.Multiply, lambda a, b: a * b),
    (ef.layers.Concatenate, lambda a, b: np.concatenate([a, b], -1)),
])
def test_merge_layers(cls, reference):
    layer = cls()
    out = layer([ef.constant(A), ef.constant(B)])
    np.testing.assert_allclose(out.numpy(), reference(A, B), rtol=1e-6)
    assert layer.compute_output_shape([(None, 3), (None, 3)]) == (None, *reference(A, B).shape[1:])
    clone = cls.from_config(layer.get_config())
    np.testing.assert_allclose(clone([A, B]).numpy(), out.numpy())
    ef.testing.check_gradients(lambda a, b: cls(dtype="float64")([a, b]), A, B)


def test_merge_layers_in_a_functional_model_and_three_inputs():
    inputs = [ef.layers.Input(shape=(3,)) for _ in range(3)]
    model = ef.models.Model(inputs, ef.layers.Add()(inputs))
    np.testing.assert_allclose(model([A, B, A]).numpy(), A + B + A, rtol=1e-6)


def test_concatenate_axis_1_on_rank_3():
    a, b = np.ones((2, 1, 4), "float32"), np.zeros((2, 2, 4), "float32")
    assert ef.layers.Concatenate(axis=1)([a, b]).shape == (2, 3, 4)


def test_merge_errors():
    with pytest.raises(ValueError, match="should be called on a list of at least 2 inputs"):
        ef.layers.Add()(ef.constant(A))
    with pytest.raises(ValueError, match=r"incompatible shapes: \[\(2, 3\), \(2, 4\)\]"):
        ef.layers.Add()([np.ones((2, 3), "float32"), np.ones((2, 4), "float32")])
    with pytest.raises(ValueError, match="matching shapes except for the concatenation axis"):
        ef.layers.Concatenate(axis=-1)([np.ones((2, 3, 1), "float32"),
                                        np.ones((2, 4, 1), "float32")])
    with pytest.raises(ValueError, match="inputs of equal rank"):
        ef.layers.Concatenate()([np.ones((2, 3), "float32"), np.ones((2, 4, 1), "float32")])


def test_merge_masks():
    m1 = ef.constant([[True, False, True]])
    m2 = ef.constant([[True, True, False]])
    x = ef.ones([1, 3, 2])
    assert ef.layers.Add().compute_mask([x, x], [m1, m2]).numpy().tolist() == [[True, False,
                                                                                 False]]
    assert ef.layers.Add().compute_mask([x, x], [None, None]) is None
    concat = ef.layers.Concatenate().compute_mask([x, x], [m1, None])
    assert concat.numpy().tolist() == [[True, True, True]]
    concat_time = ef.layers.Concatenate(axis=1).compute_mask([x, x], [m1, m2])
    assert concat_time.numpy().tolist() == [[True, False, True, True, True, False]]
