"""A custom training loop on MNIST-format data: GradientTape, an optimizer, metrics, a
Dataset pipeline and a checkpoint manager, with no `fit`.

Reads MNIST from ``--data`` (a ``mnist.npz`` or a directory of the four IDX files), or
from eagerflow's cache (downloading it when possible). ``--quick`` writes a small
synthetic data set in the real IDX format to a temporary directory instead and trains on
it for a few steps (used by the tests; no download).

Run: ``python examples/custom_training_loop_mnist.py [--data PATH] [--epochs N] [--quick]``
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile

import numpy as np

import eagerflow as ef
from eagerflow.datasets import idx


def write_synthetic_mnist(directory: str, train: int = 512, test: int = 128) -> str:
    """Writes MNIST-format IDX files whose images draw their label as a bright bar."""
    rng = np.random.default_rng(0)

    def split(count):
        labels = rng.integers(0, 10, count).astype(np.uint8)
        images = rng.integers(0, 40, (count, 28, 28)).astype(np.uint8)
        for image, label in zip(images, labels, strict=True):
            image[2 + 2 * label:4 + 2 * label, 4:24] = 255
        return images, labels

    (x_train, y_train), (x_test, y_test) = split(train), split(test)
    for name, array in (("train-images-idx3-ubyte", x_train), ("train-labels-idx1-ubyte", y_train),
                        ("t10k-images-idx3-ubyte", x_test), ("t10k-labels-idx1-ubyte", y_test)):
        idx.write(os.path.join(directory, name + ".gz"), array, compress=True)
    return directory


def build_model():
    return ef.Sequential([
        ef.layers.Flatten(input_shape=(28, 28), name="flatten"),
        ef.layers.Dense(128, activation="relu", name="hidden"),
        ef.layers.Dense(10, name="logits"),
    ])


def train(data_path=None, epochs=2, batch_size=64, max_steps=None, checkpoint_dir=None,
          verbose=True):
    """Trains with a hand-written loop; returns the test accuracy."""
    ef.random.set_seed(0)
    (x_train, y_train), (x_test, y_test) = ef.datasets.mnist.load_data(data_path)
    x_train, x_test = x_train.astype(np.float32) / 255.0, x_test.astype(np.float32) / 255.0
    train_data = ef.data.Dataset.from_tensor_slices((x_train, y_train.astype(np.int64))) \
        .shuffle(len(x_train)).batch(batch_size)
    test_data = ef.data.Dataset.from_tensor_slices((x_test, y_test.astype(np.int64))) \
        .batch(256)

    model = build_model()
    optimizer = ef.optim.Adam(1e-3)
    loss_fn = ef.losses.SparseCategoricalCrossentropy(from_logits=True)
    if checkpoint_dir is None:  # a temporary directory, removed when training ends
        with tempfile.TemporaryDirectory(prefix="mnist-loop-") as scratch:
            return _train_loop(model, optimizer, loss_fn, train_data, test_data, epochs,
                               max_steps, scratch, verbose)
    return _train_loop(model, optimizer, loss_fn, train_data, test_data, epochs, max_steps,
                       checkpoint_dir, verbose)


def _train_loop(model, optimizer, loss_fn, train_data, test_data, epochs, max_steps,
                checkpoint_dir, verbose):
    train_loss = ef.metrics.Mean(name="loss")
    train_accuracy = ef.metrics.SparseCategoricalAccuracy(name="accuracy")
    test_accuracy = ef.metrics.SparseCategoricalAccuracy(name="test_accuracy")
    manager = ef.CheckpointManager(ef.Checkpoint(model=model, optimizer=optimizer),
                                   checkpoint_dir, max_to_keep=2)

    step = 0
    for epoch in range(epochs):
        for metric in (train_loss, train_accuracy, test_accuracy):
            metric.reset_state()  # metrics accumulate until reset: once per epoch
        for images, labels in train_data:
            with ef.GradientTape() as tape:
                logits = model(images, training=True)
                loss = loss_fn(labels, logits)
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables, strict=True))
            train_loss.update_state(loss)
            train_accuracy.update_state(labels, logits)
            step += 1
            if max_steps is not None and step >= max_steps:
                break
        for images, labels in test_data:
            test_accuracy.update_state(labels, model(images, training=False))
        path = manager.save()
        if verbose:
            print(f"epoch {epoch + 1}: loss {float(train_loss.result()):.4f}, "
                  f"accuracy {float(train_accuracy.result()):.4f}, "
                  f"test accuracy {float(test_accuracy.result()):.4f}  (saved {path})")
        if max_steps is not None and step >= max_steps:
            break
    return float(test_accuracy.result())


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=None, help="mnist.npz or a directory of IDX files")
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--checkpoint-dir", default=None,
                        help="where to keep the checkpoints (default: a temporary directory, "
                             "removed at the end)")
    parser.add_argument("--quick", action="store_true",
                        help="train a few steps on a small synthetic MNIST-format data set")
    args = parser.parse_args(argv)
    if args.quick:
        with tempfile.TemporaryDirectory() as directory:
            accuracy = train(write_synthetic_mnist(directory), epochs=2, max_steps=16,
                             checkpoint_dir=os.path.join(directory, "ckpt"))
    else:
        accuracy = train(args.data, epochs=args.epochs, checkpoint_dir=args.checkpoint_dir)
    print(f"test accuracy: {accuracy:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
