"""Dropout: randomly zeroes inputs during training only.

Example:
    >>> import eagerflow as ef
    >>> layer = ef.layers.Dropout(0.5, seed=0)
    >>> layer(ef.ones([4])).numpy()
    array([1., 1., 1., 1.], dtype=float32)
    >>> sorted(set(layer(ef.ones([100]), training=True).numpy().tolist()))
    [0.0, 2.0]
"""

from __future__ import annotations

from eagerflow.layers.base import Layer
from eagerflow.ops import nn as nn_ops


class Dropout(Layer):
    """Zeroes each input with probability `rate` in training, scaling the rest by
    ``1 / (1 - rate)``; the identity at inference.

    `training` comes from the call (``model(x, training=True)`` reaches every nested
    Dropout), so a Python ``if training:`` in user code is never needed.

    Args:
        rate: drop probability in ``[0, 1)``.
        noise_shape: shape of the keep/drop mask, broadcast to the input (e.g.
            ``(batch, 1, features)`` drops the same features at every time step); None
            entries take the input's size.
        seed: optional seed of the mask stream.

    Raises:
        ValueError: for a rate outside ``[0, 1)``.

    Example:
        >>> import eagerflow as ef
        >>> ef.layers.Dropout(0.2).rate
        0.2
    """

    def __init__(self, rate, noise_shape=None, seed=None, **kwargs):
        super().__init__(**kwargs)
        if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not 0 <= rate < 1:
            raise ValueError(
                "Invalid value received for argument `rate` of Dropout. Expected a float "
                f"value in [0, 1). Received: rate={rate!r}")
        self.rate = float(rate)
        self.noise_shape = None if noise_shape is None else tuple(noise_shape)
        self.seed = seed
        self.supports_masking = True

    def call(self, inputs, training=False):
        if training and self.rate > 0:
            return nn_ops.dropout(inputs, self.rate, noise_shape=self.noise_shape,
                                  seed=self.seed)
        return inputs

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(rate=self.rate, seed=self.seed,
                      noise_shape=None if self.noise_shape is None else list(self.noise_shape))
        return config
