"""Models trained with a hand-written GradientTape + SGD loop lower their loss."""

import numpy as np

import eagerflow as ef


def sgd_steps(model, x, y, steps, learning_rate):
    losses = []
    for _ in range(steps):
        with ef.GradientTape() as tape:
            logits = model(x, training=True)
            loss = ef.reduce_mean(
                ef.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
            loss = loss + sum(model.losses) if model.losses else loss
        grads = tape.gradient(loss, model.trainable_variables)
        for variable, grad in zip(model.trainable_variables, grads, strict=True):
            variable.assign_sub(grad * learning_rate)
        losses.append(float(loss))
    return losses


def test_small_cnn_learns():
    ef.random.set_seed(0)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((32, 10, 10, 1)).astype("float32")
    y = (x[:, :5].mean((1, 2, 3)) > x[:, 5:].mean((1, 2, 3))).astype("int32")
    model = ef.Sequential([
        ef.layers.Input(shape=(10, 10, 1)),
        ef.layers.Conv2D(8, 3, activation="relu"),
        ef.layers.MaxPooling2D(),
        ef.layers.BatchNormalization(),
        ef.layers.Conv2D(8, 3, activation="relu", padding="same"),
        ef.layers.GlobalAveragePooling2D(),
        ef.layers.Dropout(0.1),
        ef.layers.Dense(2),
    ])
    losses = sgd_steps(model, x, y, steps=40, learning_rate=0.2)
    assert losses[-1] < 0.6 * losses[0], losses


def test_lstm_classifier_learns_with_masked_padding():
    ef.random.set_seed(1)
    rng = np.random.default_rng(1)
    lengths = rng.integers(2, 7, 48)
    ids = np.zeros((48, 6), "int32")
    for row, length in enumerate(lengths):
        ids[row, :length] = rng.integers(1, 9, length)
    y = (ids == 1).any(1).astype("int32")
    tokens = ef.layers.Input(shape=(None,), dtype="int32")
    hidden = ef.layers.Embedding(9, 8, mask_zero=True)(tokens)
    hidden = ef.layers.Bidirectional(ef.layers.LSTM(8))(hidden)
    model = ef.models.Model(tokens, ef.layers.Dense(2)(hidden))
    losses = sgd_steps(model, ids, y, steps=40, learning_rate=1.0)
    assert losses[-1] < 0.3 * losses[0], losses
    accuracy = np.mean(np.argmax(model(ids).numpy(), -1) == y)
    assert accuracy > 0.9


def test_stacked_recurrent_model_trains_subclassed():
    ef.random.set_seed(2)
    rng = np.random.default_rng(2)
    x = rng.standard_normal((16, 5, 3)).astype("float32")
    y = (x[:, :, 0].sum(1) > 0).astype("int32")

    class Stacked(ef.Model):
        def __init__(self):
            super().__init__()
            self.first = ef.layers.GRU(8, return_sequences=True)
            self.second = ef.layers.SimpleRNN(8)
            self.norm = ef.layers.LayerNormalization()
            self.head = ef.layers.Dense(2)

        def call(self, inputs, training=None):
            return self.head(self.norm(self.second(self.first(inputs))))

    losses = sgd_steps(Stacked(), x, y, steps=30, learning_rate=0.3)
    assert losses[-1] < 0.6 * losses[0], losses
