"""TimeDistributed: applies a layer to every time step of a sequence.

Examples:
    >>> import eagerflow as ef
    >>> ef.layers.TimeDistributed(ef.layers.Dense(4))(ef.ones([2, 5, 3])).shape
    (2, 5, 4)
"""

from __future__ import annotations

from typing import Any

from eagerflow.core.tensor import Tensor
from eagerflow.layers.base import Layer
from eagerflow.ops import array_ops
from eagerflow.saving import registry


class TimeDistributed(Layer):
    """Applies `layer` to each slice ``inputs[:, t]`` with the same weights (one call on the
    batch and time axes folded together), as Keras's TimeDistributed.

    Args:
        layer: the layer applied at every step.

    Raises:
        ValueError: if `layer` is not a Layer, or the inputs have rank < 3 or an unknown
            number of steps.

    Examples:
        >>> import eagerflow as ef
        >>> layer = ef.layers.TimeDistributed(ef.layers.Dense(2, kernel_initializer="ones"))
        >>> layer(ef.ones([1, 3, 2])).numpy()[0]
        array([[2., 2.],
               [2., 2.],
               [2., 2.]], dtype=float32)
    """

    # A sequence mask (batch, steps) passes through unchanged, as in Keras: the wrapped
    # layer maps each step on its own, so the padded steps stay padded.
    supports_masking = True

    def __init__(self, layer: Any, **kwargs: Any) -> None:
        if isinstance(layer, dict):  # from a config
            layer = registry.deserialize(layer, kind="layer")
        if not isinstance(layer, Layer):
            raise ValueError(
                f"TimeDistributed wraps a Layer. Received: layer={layer!r} of type "
                f"{type(layer).__name__}")
        super().__init__(**kwargs)
        self.layer = layer

    def _check(self, shape):
        if len(shape) < 3:
            raise ValueError(
                f"TimeDistributed '{self.name}' expects inputs of rank >= 3 (batch, steps, "
                f"...). Received shape {tuple(shape)}.")
        if shape[1] is None:
            raise ValueError(
                f"TimeDistributed '{self.name}' needs a known number of steps; received "
                f"shape {tuple(shape)}.")

    def call(self, inputs: Any) -> Tensor:
        shape = tuple(inputs.shape)
        self._check(shape)
        steps = shape[1]
        folded = array_ops.reshape(inputs, (-1, *shape[2:]))
        outputs = self.layer(folded)  # `training` reaches it from this call's context
        return array_ops.reshape(outputs, (-1, steps, *tuple(outputs.shape)[1:]))

    def compute_output_shape(self, input_shape: Any) -> Any:
        self._check(tuple(input_shape))
        inner = self.layer.compute_output_shape((None, *tuple(input_shape)[2:]))
        return (input_shape[0], input_shape[1], *tuple(inner)[1:])

    def get_config(self) -> dict:
        return {**super().get_config(), "layer": registry.serialize(self.layer, "layer")}
