"""The main demo: a small CNN learns the built-in 8x8 handwritten digits.

Trains with `model.fit` (progress bar, validation), prints the test accuracy, saves a
checkpoint, restores it into a freshly built model and shows that the restored model's
accuracy is identical. Runs in well under a minute on a laptop CPU.

Run: ``python -m eagerflow.examples.digits`` (``--help`` for options).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

import numpy as np

import eagerflow as ef


def load_data():
    """The digits as float32 images in [0, 1] of shape (n, 8, 8, 1), and integer labels."""
    (x_train, y_train), (x_test, y_test) = ef.datasets.digits.load_data()
    x_train = (x_train.astype(np.float32) / 16.0)[..., None]
    x_test = (x_test.astype(np.float32) / 16.0)[..., None]
    return (x_train, y_train.astype(np.int64)), (x_test, y_test.astype(np.int64))


def build_model():
    """Conv(16) - pool - Conv(32) - pool - Dense(64) - Dense(10 logits)."""
    return ef.Sequential([
        ef.layers.Conv2D(16, 3, padding="same", activation="relu", input_shape=(8, 8, 1),
                         name="conv1"),
        ef.layers.MaxPooling2D(2, name="pool1"),
        ef.layers.Conv2D(32, 3, padding="same", activation="relu", name="conv2"),
        ef.layers.MaxPooling2D(2, name="pool2"),
        ef.layers.Flatten(name="flatten"),
        ef.layers.Dense(64, activation="relu", name="hidden"),
        ef.layers.Dense(10, name="logits"),
    ], name="digits_cnn")


def compile_model(model):
    model.compile(optimizer=ef.optim.Adam(learning_rate=1e-3),
                  loss=ef.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])
    return model


def run(epochs=15, batch_size=32, seed=42, output_dir=None, verbose=1):
    """Trains, evaluates, checkpoints and restores; returns a dict of the results."""
    ef.random.set_seed(seed)
    (x_train, y_train), (x_test, y_test) = load_data()
    model = compile_model(build_model())
    if verbose:
        model.summary()
        print(f"Training on {len(x_train)} digits, validating on 10% of them, "
              f"testing on {len(x_test)}.")
    start = time.perf_counter()
    history = model.fit(x_train, y_train, epochs=epochs, batch_size=batch_size,
                        validation_split=0.1, verbose=verbose)
    seconds = time.perf_counter() - start
    loss, accuracy = model.evaluate(x_test, y_test, verbose=0)

    # Without --output-dir the checkpoint goes to a temporary directory that is removed
    # again at the end: the demo leaves nothing behind.
    with tempfile.TemporaryDirectory(prefix="eagerflow-digits-") as scratch:
        checkpoint = ef.Checkpoint(model=model, optimizer=model.optimizer)
        path = checkpoint.save(os.path.join(output_dir or scratch, "ckpt"))
        # A fresh model, not even built yet: the restore is deferred until its variables
        # exist.
        restored = compile_model(build_model())
        ef.Checkpoint(model=restored).restore(path)
        restored_loss, restored_accuracy = restored.evaluate(x_test, y_test, verbose=0)
    if output_dir is None:
        path = None
    if verbose:
        print(f"Trained {epochs} epochs in {seconds:.1f} s")
        print(f"Test accuracy: {accuracy:.4f}  (test loss {loss:.4f})")
        print(f"Saved checkpoint: {path}" if path else
              "Saved a checkpoint to a temporary directory (--output-dir keeps it)")
        print(f"Restored into a fresh model, test accuracy: {restored_accuracy:.4f}  "
              f"(test loss {restored_loss:.4f})"
              + ("  -> identical" if restored_accuracy == accuracy else "  -> DIFFERENT"))
    return {"history": history.history, "accuracy": accuracy, "loss": loss,
            "restored_accuracy": restored_accuracy, "restored_loss": restored_loss,
            "checkpoint": path, "seconds": seconds}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=15)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--output-dir", default=None,
                        help="where to keep the checkpoint (default: a temporary directory, "
                             "removed at the end)")
    parser.add_argument("--verbose", type=int, default=1, choices=(0, 1, 2),
                        help="1: progress bars, 2: one line per epoch, 0: results only")
    args = parser.parse_args(argv)
    results = run(args.epochs, args.batch_size, args.seed, args.output_dir,
                  verbose=args.verbose or 0)
    if not args.verbose:
        print(f"test accuracy {results['accuracy']:.4f}, restored "
              f"{results['restored_accuracy']:.4f}")
    identical = (results["restored_accuracy"] == results["accuracy"]
                 and results["restored_loss"] == results["loss"])
    return 0 if identical else 1


if __name__ == "__main__":
    sys.exit(main())
