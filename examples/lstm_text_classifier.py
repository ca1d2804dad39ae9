"""An LSTM text classifier: word ids -> Embedding(mask_zero) -> LSTM -> positive/negative.

The corpus is generated: short "reviews" made of neutral filler words plus a few
sentiment words, padded with 0 to a common length. `mask_zero=True` makes the LSTM skip
the padding, so a review means the same whatever its length.

Run: ``python examples/lstm_text_classifier.py [--epochs N] [--quick]``
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

import eagerflow as ef

POSITIVE = ["great", "love", "excellent", "wonderful", "enjoyed"]
NEGATIVE = ["awful", "boring", "hate", "terrible", "waste"]
FILLER = ["the", "movie", "plot", "actors", "was", "a", "and", "it", "story", "film",
          "really", "quite", "scenes", "music", "ending", "i"]
VOCABULARY = ["<pad>"] + POSITIVE + NEGATIVE + FILLER
WORD_ID = {word: index for index, word in enumerate(VOCABULARY)}


def make_reviews(count, max_length=20, seed=0):
    """Padded word-id sequences (count, max_length) and 0/1 labels."""
    rng = np.random.default_rng(seed)
    ids = np.zeros((count, max_length), np.int64)
    labels = rng.integers(0, 2, count)
    for row, label in enumerate(labels):
        length = int(rng.integers(5, max_length + 1))
        words = list(rng.choice(FILLER, length - 2))
        words += list(rng.choice(POSITIVE if label else NEGATIVE, 2))
        rng.shuffle(words)
        ids[row, :length] = [WORD_ID[w] for w in words]
    return ids, labels.astype(np.float32)[:, None]


def build_model(units=16):
    return ef.Sequential([
        ef.layers.Embedding(len(VOCABULARY), 16, mask_zero=True, name="embedding"),
        ef.layers.LSTM(units, name="lstm"),
        ef.layers.Dense(1, name="logit"),
    ])


def train(epochs=8, train_count=1024, verbose=1):
    """Trains and returns the test accuracy."""
    ef.random.set_seed(0)
    x_train, y_train = make_reviews(train_count, seed=0)
    x_test, y_test = make_reviews(256, seed=1)
    model = build_model()
    model.compile(optimizer=ef.optim.Adam(1e-2),
                  loss=ef.losses.BinaryCrossentropy(from_logits=True), metrics=["accuracy"])
    model.fit(x_train, y_train, batch_size=32, epochs=epochs, validation_split=0.1,
              verbose=verbose)
    _, accuracy = model.evaluate(x_test, y_test, verbose=0)
    review = "i really enjoyed the story and the music was wonderful"
    ids = np.array([[WORD_ID[w] for w in review.split()]])
    probability = float(ef.sigmoid(model.predict(ids, verbose=0))[0, 0])
    if verbose:
        print(f"'{review}' -> positive with probability {probability:.3f}")
    return accuracy


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--quick", action="store_true", help="one epoch on 128 reviews")
    args = parser.parse_args(argv)
    accuracy = train(epochs=1, train_count=128, verbose=2) if args.quick else \
        train(epochs=args.epochs)
    print(f"test accuracy: {accuracy:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
