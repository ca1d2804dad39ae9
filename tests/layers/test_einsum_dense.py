"""EinsumDense: Keras 3.15.1's weight and output shapes for each equation form, values
against np.einsum, the layer contract, config and errors."""

import numpy as np
import pytest

import eagerflow as ef
from tests.layers.layer_contract import run_layer_test

# (equation, output_shape, bias_axes, input shape, output shape, kernel, bias): Keras 3.15.1
CASES = [
    ("ab,bc->ac", 6, "c", (2, 5), (2, 6), (5, 6), (6,)),
    ("abc,cd->abd", (None, 6), "d", (2, 3, 5), (2, 3, 6), (5, 6), (6,)),
    ("abc,cde->abde", (None, 2, 4), "de", (2, 3, 5), (2, 3, 2, 4), (5, 2, 4), (2, 4)),
    ("abc,cde->abde", (None, 2, 4), "e", (2, 3, 5), (2, 3, 2, 4), (5, 2, 4), (4,)),
    ("...b,bc->...c", 6, None, (2, 3, 4, 5), (2, 3, 4, 6), (5, 6), None),
    ("...ab,bc->...ac", (3, 6), "c", (2, 4, 3, 5), (2, 4, 3, 6), (5, 6), (6,)),
    ("ab...,bc->ac...", (6, 4), "c", (2, 5, 4), (2, 6, 4), (5, 6), (6, 1)),
    ("abcd,cde->abe", (None, 6), "e", (2, 3, 4, 5), (2, 3, 6), (4, 5, 6), (6,)),
]


@pytest.mark.parametrize("equation, output_shape, bias_axes, in_shape, out_shape, kernel, bias",
                         CASES, ids=[f"{c[0]}-{c[2]}" for c in CASES])
def test_shapes_values_and_contract(equation, output_shape, bias_axes, in_shape, out_shape,
                                    kernel, bias):
    kwargs = {"equation": equation, "output_shape": output_shape, "bias_axes": bias_axes}
    layer = run_layer_test(ef.layers.EinsumDense, kwargs, input_shape=in_shape,
                           expected_output_shape=out_shape,
                           expected_num_trainable_weights=1 if bias is None else 2)
    assert layer.kernel.shape == kernel
    assert (layer.bias is None) if bias is None else layer.bias.shape == bias
    rng = np.random.default_rng(0)
    x = rng.normal(size=in_shape)
    weights = [rng.normal(size=w.shape) for w in layer.weights]
    layer.set_weights(weights)
    expected = np.einsum(equation, x, weights[0]) + (weights[1] if bias is not None else 0)
    np.testing.assert_allclose(layer(x).numpy(), expected, rtol=1e-5, atol=1e-5)


def test_config_activation_and_functional_shape():
    layer = ef.layers.EinsumDense("abc,cde->abde", (None, 2, 4), activation="relu",
                                  bias_axes="de")
    config = layer.get_config()
    assert config["equation"] == "abc,cde->abde" and config["output_shape"] == [None, 2, 4]
    assert config["bias_axes"] == "de" and config["activation"] == "relu"
    clone = ef.layers.EinsumDense.from_config(config)
    inputs = ef.Input((3, 5))
    outputs = clone(inputs)
    assert tuple(outputs.shape) == (None, 3, 2, 4)
    model = ef.Model(inputs, outputs)
    assert (model(np.ones((1, 3, 5), np.float32)).numpy() >= 0).all()


@pytest.mark.parametrize("kwargs, in_shape, match", [
    ({"equation": "a...b,bc->a...c", "output_shape": 4}, (2, 3, 5), "invalid equation"),
    ({"equation": "ab,cd->ac", "output_shape": 4}, (2, 3), "kernel axis 'd'"),
    ({"equation": "ab,bc->acd", "output_shape": (4, 2)}, (2, 3), "output axis 'd'"),
    ({"equation": "abc,cd->abd", "output_shape": (6, 4)}, (2, 5, 3), "shared axis 'b'"),
    ({"equation": "abc,cd->abd", "output_shape": (None, None)}, (2, 5, 3),
     "kernel axis 'd' is unknown"),
    ({"equation": "abc,cd->abd", "output_shape": 4}, (2, 5, 3), "must give 2 sizes"),
    ({"equation": "ab,bc->ac", "output_shape": 4}, (2, 5, 3), "rank 2"),
    ({"equation": "ab,bc->ac", "output_shape": 4, "bias_axes": "x"}, (2, 3), "bias axes"),
])
def test_errors(kwargs, in_shape, match):
    with pytest.raises(ValueError, match=match):
        ef.layers.EinsumDense(**kwargs)(np.ones(in_shape, np.float32))


@pytest.mark.parametrize("equation, output_shape, in_shape, folded", [
    ("abc,cd->abd", (None, 6), (2, 3, 5), True),
    ("abc,cde->abde", (None, 2, 4), (2, 3, 5), True),
    ("abcd,cde->abe", (None, 6), (2, 3, 4, 5), True),
    ("...ab,bc->...ac", (3, 6), (2, 4, 3, 5), True),
    ("abc,dc->abd", (None, 6), (2, 3, 5), False),      # the kernel's summed axis is last
    ("ab...,bc->ac...", (6, 4), (2, 5, 4), False),     # trailing elided axes
    ("abc,cd->bad", (None, 6), (2, 3, 5), False),      # the output reorders the input's
])
def test_matmul_form_matches_the_einsum(equation, output_shape, in_shape, folded):
    # Equations whose product folds into one (rows, k) @ (k, n) run as a matmul; the others
    # keep the einsum. Values and gradients are the einsum's either way.
    layer = ef.layers.EinsumDense(equation, output_shape, bias_axes=None, dtype="float64")
    x = ef.constant(np.random.default_rng(1).normal(size=in_shape))
    layer(x)
    with ef.GradientTape(persistent=True) as tape:
        tape.watch(x)
        got = layer(x)
        want = ef.einsum(equation, x, layer.kernel)
        got_loss, want_loss = ef.reduce_sum(got * got), ef.reduce_sum(want * want)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12, atol=1e-12)
    for source in (x, layer.kernel):
        np.testing.assert_allclose(tape.gradient(got_loss, source).numpy(),
                                   tape.gradient(want_loss, source).numpy(), rtol=1e-12,
                                   atol=1e-12)
    graph = ef.function(layer).get_concrete_function(x).graph
    assert ("Einsum" not in {op.type for op in graph.operations}) == folded
