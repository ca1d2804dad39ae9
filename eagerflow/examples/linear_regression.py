"""Linear regression with GradientTape and Variables: the eager API's first example.

Fits ``y = 3 x + 2`` (plus noise) by gradient descent on two variables.

Run: ``python -m eagerflow.examples.linear_regression``
"""

from __future__ import annotations

import eagerflow as ef


def train(steps: int = 200, learning_rate: float = 0.01, num_examples: int = 1000,
          verbose: bool = True):
    """Fits W and B; returns ``(W, B, final_loss)`` as Python floats."""
    ef.random.set_seed(0)
    inputs = ef.random.normal([num_examples])
    noise = ef.random.normal([num_examples])
    outputs = inputs * 3 + 2 + noise

    def loss(weight, bias):
        error = inputs * weight + bias - outputs
        return ef.reduce_mean(ef.square(error))

    weight, bias = ef.Variable(5.0), ef.Variable(10.0)
    if verbose:
        print(f"Initial loss: {loss(weight, bias):.3f}")
    for step in range(steps):
        with ef.GradientTape() as tape:
            loss_value = loss(weight, bias)
        d_weight, d_bias = tape.gradient(loss_value, [weight, bias])
        weight.assign_sub(d_weight * learning_rate)
        bias.assign_sub(d_bias * learning_rate)
        if verbose and step % 20 == 0:
            print(f"Loss at step {step:03d}: {loss(weight, bias):.3f}")
    final = float(loss(weight, bias))
    if verbose:
        print(f"Final loss: {final:.3f}")
        print(f"W = {weight.numpy():.3f}, B = {bias.numpy():.3f}")
    return float(weight.numpy()), float(bias.numpy()), final


if __name__ == "__main__":
    train()
