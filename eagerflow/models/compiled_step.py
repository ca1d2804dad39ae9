"""The train function `fit` runs for each batch: the model's `train_step`, or, with
``run_eagerly=False``, the default train step with its differentiable part traced by
`ef.function`.

Example:
    >>> import eagerflow as ef
    >>> from eagerflow.models import compiled_step
    >>> model = ef.Sequential([ef.layers.Dense(1)])
    >>> model.compile(loss="mse", run_eagerly=True)
    >>> compiled_step.train_function(model) == model.train_step
    True
"""

from __future__ import annotations

__all__ = ["train_function"]


def train_function(model):
    """The per-batch training callable for `model` (see the module docstring)."""
    return model.train_step
