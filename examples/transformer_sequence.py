"""A Transformer encoder block classifies the built-in digits read as sequences of rows.

Each 8x8 digit is a sequence of 8 rows of 8 pixels. A dense projection plus a learned
position embedding feeds one encoder block (multi-head self-attention, residual
connections, layer normalization, a feed-forward network); global average pooling and a
softmax layer give the class. Attention lets every row look at every other row, so the
model sees the whole shape although it reads one row at a time.

Run: ``python examples/transformer_sequence.py`` (``--quick`` for a few seconds).
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

import eagerflow as ef
from eagerflow import layers

ROWS = 8


def load_data():
    """The digits as float32 sequences ``(n, 8 rows, 8 pixels)`` in [0, 1], and labels."""
    (x_train, y_train), (x_test, y_test) = ef.datasets.digits.load_data()
    return ((x_train.astype(np.float32) / 16.0, y_train.astype(np.int64)),
            (x_test.astype(np.float32) / 16.0, y_test.astype(np.int64)))


class RowAndPositionEmbedding(layers.Layer):
    """Projects each row to `dim` features and adds a learned embedding of its position."""

    def __init__(self, maxlen, dim, **kwargs):
        super().__init__(**kwargs)
        self.maxlen, self.dim = maxlen, dim
        self.project = layers.Dense(dim)
        self.positions = layers.Embedding(maxlen, dim)

    def call(self, inputs):
        positions = self.positions(ef.range(ef.shape(inputs)[1]))
        return self.project(inputs) + positions

    def get_config(self):
        return {**super().get_config(), "maxlen": self.maxlen, "dim": self.dim}


class TransformerBlock(layers.Layer):
    """Self-attention and a feed-forward network, each with a residual connection and
    layer normalization (the encoder block of "Attention is all you need")."""

    def __init__(self, dim, num_heads, ff_dim, rate=0.1, **kwargs):
        super().__init__(**kwargs)
        self.dim, self.num_heads, self.ff_dim, self.rate = dim, num_heads, ff_dim, rate
        self.attention = layers.MultiHeadAttention(num_heads=num_heads, key_dim=dim)
        self.feed_forward = ef.Sequential([layers.Dense(ff_dim, activation="relu"),
                                           layers.Dense(dim)])
        self.norm1 = layers.LayerNormalization(epsilon=1e-6)
        self.norm2 = layers.LayerNormalization(epsilon=1e-6)
        self.dropout1 = layers.Dropout(rate)
        self.dropout2 = layers.Dropout(rate)

    def call(self, inputs, training=False):
        attended = self.dropout1(self.attention(inputs, inputs), training=training)
        hidden = self.norm1(inputs + attended)
        fed = self.dropout2(self.feed_forward(hidden), training=training)
        return self.norm2(hidden + fed)

    def get_config(self):
        return {**super().get_config(), "dim": self.dim, "num_heads": self.num_heads,
                "ff_dim": self.ff_dim, "rate": self.rate}


def build_model(dim=32, num_heads=4, ff_dim=64):
    inputs = ef.Input(shape=(ROWS, 8))
    x = RowAndPositionEmbedding(ROWS, dim)(inputs)
    x = TransformerBlock(dim, num_heads, ff_dim)(x)
    x = layers.GlobalAveragePooling1D()(x)
    outputs = layers.Dense(10)(x)
    return ef.Model(inputs, outputs)


def train(epochs=30, seed=0, verbose=0, limit=None):
    """Trains on the built-in digits; returns ``(history, test accuracy)``."""
    ef.random.set_seed(seed)
    (x_train, y_train), (x_test, y_test) = load_data()
    if limit is not None:
        x_train, y_train = x_train[:limit], y_train[:limit]
    model = build_model()
    model.compile(optimizer=ef.optimizers.Adam(2e-3),
                  loss=ef.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])
    history = model.fit(x_train, y_train, batch_size=32, epochs=epochs, verbose=verbose,
                        validation_split=0.1)
    _, accuracy = model.evaluate(x_test, y_test, verbose=0)
    return history, accuracy


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--quick", action="store_true", help="a few epochs on less data")
    args = parser.parse_args(argv)
    if args.quick:
        history, accuracy = train(epochs=3, limit=512)
    else:
        history, accuracy = train(epochs=args.epochs, verbose=2)
    losses = history.history["loss"]
    print(f"loss {losses[0]:.3f} -> {losses[-1]:.3f}; test accuracy: {accuracy:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
