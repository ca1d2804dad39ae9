"""Gradients of layers traced with an unknown batch size equal the eager ones.

`ef.function(..., input_signature=[TensorSpec((None, ...))])` traces once for every batch
size; gradient rules that read a static size of their input (the batch-norm moments, an
average pooling, a padding) used to fail on that None, and so did the RNNs' zero initial
states and the transposed convolutions' output shape.
"""

import numpy as np
import pytest

import eagerflow as ef

RNG = np.random.default_rng(0)


@pytest.mark.parametrize("make, features, training", [
    (lambda: ef.layers.BatchNormalization(dtype="float64"), (3,), True),
    (lambda: ef.layers.AveragePooling1D(2, dtype="float64"), (4, 3), None),
    (lambda: ef.layers.AveragePooling2D(2, padding="same", dtype="float64"), (3, 3, 2), None),
    (lambda: ef.layers.ZeroPadding1D((1, 2), dtype="float64"), (4, 3), None),
    (lambda: ef.layers.LSTM(2, dtype="float64"), (4, 3), None),
    (lambda: ef.layers.Conv3D(2, 2, strides=(2, 1, 1), dtype="float64"), (3, 3, 2, 1), None),
    (lambda: ef.layers.Conv1DTranspose(2, 3, strides=2, dtype="float64"), (4, 3), None),
    (lambda: ef.layers.Conv2DTranspose(2, 2, padding="same", data_format="channels_first",
                                       dtype="float64"), (2, 3, 3), None),
    (lambda: ef.layers.Bidirectional(ef.layers.GRU(2, return_sequences=True, dtype="float64"),
                                     dtype="float64"), (4, 3), None),
])
def test_gradients_with_an_unknown_batch_match_eager(make, features, training):
    layer = make()
    kwargs = {} if training is None else {"training": training}

    def gradients(x):
        with ef.GradientTape() as tape:
            tape.watch(x)
            loss = ef.reduce_sum(ef.square(ef.tanh(layer(x, **kwargs))))
        return tape.gradient(loss, [x, *layer.trainable_weights])

    layer(ef.constant(RNG.standard_normal((2, *features))), **kwargs)
    traced = ef.function(gradients, input_signature=[
        ef.TensorSpec((None, *features), "float64")])
    for batch in (2, 5):
        x = ef.constant(RNG.standard_normal((batch, *features)))
        for eager, graph in zip(gradients(x), traced(x), strict=True):
            np.testing.assert_allclose(graph, eager, rtol=1e-10, atol=1e-12)



def test_grouped_query_attention_and_activity_loss_with_an_unknown_batch():
    # GroupQueryAttention's gradient went through a gather whose gradient refused the
    # unknown batch; an activity regularizer divided by float(None).
    attention = ef.layers.GroupQueryAttention(2, 4, 1, activity_regularizer="l2",
                                              dtype="float64")

    def step(x):
        with ef.GradientTape() as tape:
            tape.watch(x)
            out = attention(x, x)
            loss = ef.reduce_sum(ef.square(out)) + attention.losses[-1]
        return [loss, *tape.gradient(loss, [x, *attention.trainable_weights])]

    x = ef.constant(RNG.standard_normal((3, 4, 2)))
    step(x)
    traced = ef.function(step, input_signature=[ef.TensorSpec((None, 4, 2), "float64")])
    for eager, graph in zip(step(x), traced(x), strict=True):
        np.testing.assert_allclose(graph, eager, rtol=1e-10, atol=1e-12)
