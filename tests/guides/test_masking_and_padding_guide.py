"""Keras guide "Understanding masking & padding" (Keras 3), ported section by section:
`keras.`/`keras.ops.` turned into `ef.` (`ops.sum` is `ef.reduce_sum`, `ops.take` is
`ef.gather`, `ops.relu` is `ef.nn.relu`)."""

import numpy as np

import eagerflow as ef
from eagerflow import layers

raw_inputs = [
    [711, 632, 71],
    [73, 8, 3215, 55, 927],
    [83, 91, 1, 645, 1253, 927],
]


def test_padding_sequence_data():
    padded_inputs = ef.utils.pad_sequences(raw_inputs, padding="post")
    np.testing.assert_array_equal(padded_inputs, [
        [711, 632, 71, 0, 0, 0],
        [73, 8, 3215, 55, 927, 0],
        [83, 91, 1, 645, 1253, 927],
    ])


def _masked_embedding():
    padded_inputs = ef.utils.pad_sequences(raw_inputs, padding="post")
    masking_layer = layers.Masking()
    unmasked_embedding = ef.cast(
        ef.tile(ef.expand_dims(padded_inputs, axis=-1), [1, 1, 10]), dtype="float32")
    return masking_layer(unmasked_embedding)


EXPECTED_MASK = [[True, True, True, False, False, False],
                 [True, True, True, True, True, False],
                 [True, True, True, True, True, True]]


def test_mask_generating_layers_embedding_and_masking():
    padded_inputs = ef.utils.pad_sequences(raw_inputs, padding="post")
    embedding = layers.Embedding(input_dim=5000, output_dim=16, mask_zero=True)
    masked_output = embedding(padded_inputs)
    np.testing.assert_array_equal(masked_output._keras_mask.numpy(), EXPECTED_MASK)
    masked_embedding = _masked_embedding()
    np.testing.assert_array_equal(masked_embedding._keras_mask.numpy(), EXPECTED_MASK)


def test_mask_propagation_in_the_functional_and_sequential_apis():
    padded_inputs = ef.utils.pad_sequences(raw_inputs, padding="post")
    model = ef.Sequential([
        layers.Embedding(input_dim=5000, output_dim=16, mask_zero=True),
        layers.LSTM(32),
    ])
    out = model(padded_inputs)
    # The LSTM skips the padding: a sequence's output equals that of the sequence alone.
    alone = model(np.array([raw_inputs[0]]))
    np.testing.assert_allclose(out.numpy()[0], alone.numpy()[0], rtol=1e-5, atol=1e-6)

    inputs = ef.Input(shape=(None,), dtype="int32")
    x = layers.Embedding(input_dim=5000, output_dim=16, mask_zero=True)(inputs)
    outputs = layers.LSTM(32)(x)
    model = ef.Model(inputs, outputs)
    out = model(padded_inputs)
    alone = model(np.array([raw_inputs[1]]))
    np.testing.assert_allclose(out.numpy()[1], alone.numpy()[0], rtol=1e-5, atol=1e-6)


def test_passing_mask_tensors_directly_to_layers():
    class MyLayer(layers.Layer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.embedding = layers.Embedding(input_dim=5000, output_dim=16, mask_zero=True)
            self.lstm = layers.LSTM(32)

        def call(self, inputs):
            x = self.embedding(inputs)
            mask = self.embedding.compute_mask(inputs)
            output = self.lstm(x, mask=mask)
            return output

    layer = MyLayer()
    x = np.random.random((32, 10)) * 100
    x = x.astype("int32")
    assert layer(x).shape == (32, 32)


def test_supporting_masking_in_your_custom_layers():
    class TemporalSplit(ef.layers.Layer):
        """Split the input tensor into 2 tensors along the time dimension."""

        def call(self, inputs):
            return ef.split(inputs, 2, axis=1)

        def compute_mask(self, inputs, mask=None):
            if mask is None:
                return None
            return ef.split(mask, 2, axis=1)

    first_half, second_half = TemporalSplit()(_masked_embedding())
    np.testing.assert_array_equal(first_half._keras_mask.numpy(),
                                  np.array(EXPECTED_MASK)[:, :3])
    np.testing.assert_array_equal(second_half._keras_mask.numpy(),
                                  np.array(EXPECTED_MASK)[:, 3:])

    class CustomEmbedding(ef.layers.Layer):
        def __init__(self, input_dim, output_dim, mask_zero=False, **kwargs):
            super().__init__(**kwargs)
            self.input_dim = input_dim
            self.output_dim = output_dim
            self.mask_zero = mask_zero

        def build(self, input_shape):
            self.embeddings = self.add_weight(
                shape=(self.input_dim, self.output_dim),
                initializer="random_normal",
                dtype="float32",
            )

        def call(self, inputs):
            inputs = ef.cast(inputs, "int32")
            return ef.gather(self.embeddings, inputs)

        def compute_mask(self, inputs, mask=None):
            if not self.mask_zero:
                return None
            return ef.not_equal(inputs, 0)

    layer = CustomEmbedding(10, 32, mask_zero=True)
    x = np.random.random((3, 10)) * 9
    x = x.astype("int32")
    y = layer(x)
    mask = layer.compute_mask(x)
    assert y.shape == (3, 10, 32)
    np.testing.assert_array_equal(mask.numpy(), x != 0)
    np.testing.assert_array_equal(y._keras_mask.numpy(), x != 0)


def test_opting_in_to_mask_propagation_on_compatible_layers():
    class MyActivation(ef.layers.Layer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.supports_masking = True

        def call(self, inputs):
            return ef.nn.relu(inputs)

    inputs = ef.Input(shape=(None,), dtype="int32")
    x = layers.Embedding(input_dim=5000, output_dim=16, mask_zero=True)(inputs)
    x = MyActivation()(x)
    print("Mask found:", x._keras_mask)
    assert x._keras_mask.shape == (None, None) and x._keras_mask.dtype == ef.bool
    outputs = layers.LSTM(32)(x)
    model = ef.Model(inputs, outputs)
    y = model(np.random.randint(0, 5000, size=(32, 100)))
    assert y.shape == (32, 32)


def test_writing_layers_that_need_mask_information():
    class TemporalSoftmax(ef.layers.Layer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.supports_masking = True

        def call(self, inputs, mask=None):
            assert mask is not None
            broadcast_float_mask = ef.expand_dims(ef.cast(mask, "float32"), -1)
            inputs_exp = ef.exp(inputs) * broadcast_float_mask
            inputs_sum = ef.reduce_sum(inputs_exp * broadcast_float_mask, axis=-1,
                                       keepdims=True)
            return inputs_exp / inputs_sum

    inputs = ef.Input(shape=(None,), dtype="int32")
    x = layers.Embedding(input_dim=10, output_dim=32, mask_zero=True)(inputs)
    x = layers.Dense(1)(x)
    outputs = TemporalSoftmax()(x)
    model = ef.Model(inputs, outputs)
    ids = np.random.default_rng(0).integers(0, 10, size=(32, 100))
    y = model(ids).numpy()
    assert y.shape == (32, 100, 1)
    # As in Keras 3 (checked): the guide's softmax runs over the last axis, of size 1, so
    # real steps get 1 and masked steps 0 / 0.
    np.testing.assert_array_equal(y[..., 0][ids != 0], 1.0)
    assert np.isnan(y[..., 0][ids == 0]).all()
