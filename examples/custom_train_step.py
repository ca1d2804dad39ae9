"""A subclassed model with its own `train_step`: a small GAN that learns a distribution.

`fit` still drives everything: batches, epochs, callbacks and the progress bar. The
model keeps its own loss trackers as attributes, so `fit` resets them every epoch and the
logs show epoch means.

Run: ``python examples/custom_train_step.py [--epochs N] [--quick]``
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

import eagerflow as ef

NOISE = 4


class GAN(ef.Model):
    """A generator turns noise into samples; a discriminator tells them from real ones."""

    def __init__(self):
        super().__init__()
        self.generator = ef.Sequential([
            ef.layers.Dense(16, activation="relu", input_shape=(NOISE,), name="g_hidden"),
            ef.layers.Dense(1, name="g_out")], name="generator")
        self.discriminator = ef.Sequential([
            ef.layers.Dense(16, activation="relu", input_shape=(1,), name="d_hidden"),
            ef.layers.Dense(1, name="d_out")], name="discriminator")
        self.d_loss_tracker = ef.metrics.Mean(name="d_loss")
        self.g_loss_tracker = ef.metrics.Mean(name="g_loss")

    def call(self, noise, training=None):
        return self.generator(noise, training=training)

    def compile(self, d_optimizer, g_optimizer):
        super().compile()  # no compiled loss: train_step computes its own
        self.d_optimizer, self.g_optimizer = d_optimizer, g_optimizer
        self.bce = ef.losses.BinaryCrossentropy(from_logits=True)

    def train_step(self, real):
        batch = real.shape[0]
        noise = ef.random.normal([batch, NOISE])
        with ef.GradientTape() as tape:
            fake = self.generator(noise, training=True)
            d_loss = (self.bce(ef.ones([batch, 1]), self.discriminator(real, training=True))
                      + self.bce(ef.zeros([batch, 1]),
                                 self.discriminator(fake, training=True)))
        variables = self.discriminator.trainable_variables
        self.d_optimizer.apply_gradients(zip(tape.gradient(d_loss, variables), variables,
                                             strict=True))
        with ef.GradientTape() as tape:
            fake = self.generator(ef.random.normal([batch, NOISE]), training=True)
            g_loss = self.bce(ef.ones([batch, 1]), self.discriminator(fake, training=True))
        variables = self.generator.trainable_variables
        self.g_optimizer.apply_gradients(zip(tape.gradient(g_loss, variables), variables,
                                             strict=True))
        self.d_loss_tracker.update_state(d_loss)
        self.g_loss_tracker.update_state(g_loss)
        return {"d_loss": self.d_loss_tracker.result(), "g_loss": self.g_loss_tracker.result()}


def train(epochs=30, samples=2048, verbose=1):
    """Trains on samples of N(3, 0.5); returns (mean, std) of generated samples."""
    ef.random.set_seed(0)
    real = np.random.default_rng(0).normal(3.0, 0.5, size=(samples, 1)).astype(np.float32)
    dataset = ef.data.Dataset.from_tensor_slices(real).shuffle(samples).batch(64)
    gan = GAN()
    gan.compile(d_optimizer=ef.optim.Adam(2e-3), g_optimizer=ef.optim.Adam(2e-3))
    gan.fit(dataset, epochs=epochs, verbose=verbose)
    generated = gan.predict(np.random.default_rng(1).normal(size=(1000, NOISE)), verbose=0)
    return float(generated.mean()), float(generated.std())


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--quick", action="store_true", help="two short epochs")
    args = parser.parse_args(argv)
    if args.quick:
        mean, std = train(epochs=2, samples=256, verbose=2)
    else:
        mean, std = train(epochs=args.epochs)
    print(f"generated samples: mean {mean:.2f} (target 3.00), std {std:.2f} (target 0.50)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
