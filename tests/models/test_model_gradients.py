"""Gradients through whole models, checked against finite differences in float64."""

import numpy as np

import eagerflow as ef
from eagerflow.testing import check_gradients

RNG = np.random.default_rng(0)
X = RNG.standard_normal((2, 4, 3))
MASK = np.array([[1, 1, 1, 0], [1, 0, 1, 1]], bool)


def float64_sequence_model():
    # The model keeps the default float32 dtype; its Input and layers are float64.
    inputs = ef.layers.Input((4, 3), dtype="float64")
    hidden = ef.layers.SimpleRNN(3, return_sequences=True, dtype="float64")(inputs)
    hidden = ef.layers.LayerNormalization(dtype="float64")(hidden)
    return ef.Model(inputs, ef.layers.GRU(2, dtype="float64")(hidden))


def test_a_float64_graph_in_a_float32_model_is_not_rounded_to_float32():
    # The functional model used to cast its float64 input to its own float32 dtype before
    # the float64 Input: outputs lost 8 digits and the finite-difference check failed
    # (tape 0.934, numeric 0.891 for a single Dense).
    model = float64_sequence_model()
    x = ef.constant(X)
    direct = model.layers[3](model.layers[2](model.layers[1](x, mask=MASK)), mask=MASK)
    np.testing.assert_allclose(model(x, mask=MASK), direct, rtol=0, atol=1e-14)
    assert model(x).dtype == "float64"
    check_gradients(lambda t: model(t, mask=MASK), X, order=2)


def test_gradient_penalty_on_the_weights_eager_traced_and_numeric_agree():
    # A WGAN-GP penalty: the weights' gradient of ||d out / d x||^2, through masked RNNs.
    model = float64_sequence_model()
    weights = model.trainable_weights
    seed = ef.constant(RNG.standard_normal((2, 2)))

    def penalty(x):
        with ef.GradientTape() as outer:
            with ef.GradientTape() as inner:
                inner.watch(x)
                out = ef.reduce_sum(model(x, mask=MASK) * seed)
            grad = inner.gradient(out, x)
            value = ef.reduce_sum(ef.square(grad))
        return value, outer.gradient(value, weights)

    x = ef.constant(X)
    eager_value, eager_grads = penalty(x)
    traced_value, traced_grads = ef.function(penalty)(x)
    np.testing.assert_allclose(traced_value, eager_value, rtol=1e-10)
    for eager, traced in zip(eager_grads, traced_grads, strict=True):
        np.testing.assert_allclose(traced, eager, rtol=1e-8, atol=1e-12)
    # Numeric check of one weight's penalty gradient along a random direction.
    kernel = weights[0]
    start = kernel.numpy()
    direction = RNG.standard_normal(start.shape)
    eps = 1e-6
    values = []
    for sign in (1.0, -1.0):
        kernel.assign(start + sign * eps * direction)
        values.append(float(penalty(x)[0]))
    kernel.assign(start)
    numeric = (values[0] - values[1]) / (2 * eps)
    np.testing.assert_allclose(float(np.vdot(eager_grads[0], direction)), numeric, rtol=1e-5)


def test_a_sequential_of_float64_layers_keeps_float64_data():
    # Sequential cast its input to its own (float32) dtype before the float64 layers, as the
    # functional model did; Keras casts to the input's dtype (the first layer's here).
    model = ef.Sequential([ef.layers.Conv1D(2, 2, activation="tanh", dtype="float64"),
                           ef.layers.GlobalAveragePooling1D(dtype="float64")])
    x = ef.constant(X)
    np.testing.assert_allclose(model(x), model.layers[1](model.layers[0](x)), rtol=0, atol=0)
    check_gradients(model, X, order=2)
    built = ef.Sequential([ef.layers.Dense(2, dtype="float64")])
    built.build((None, 3))
    assert built.inputs[0].dtype == "float64"
