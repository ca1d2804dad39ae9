"""Activation layers with their own arguments: ReLU, LeakyReLU, PReLU, ELU, Softmax.

Each follows Keras 3's constructor arguments, defaults and formula.

Examples:
    >>> import eagerflow as ef
    >>> ef.layers.LeakyReLU()(ef.constant([-10.0, 5.0]))
    ef.Tensor([-3.  5.], shape=(2,), dtype=float32)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from eagerflow.core.tensor import Tensor
from eagerflow.layers import activations, constraints, initializers, regularizers
from eagerflow.layers.base import Layer
from eagerflow.ops import creation as creation_ops
from eagerflow.ops import logic as logic_ops
from eagerflow.ops import math as math_ops
from eagerflow.ops import nn_ops
from eagerflow.ops import reduce as reduce_ops
from eagerflow.ops import unary as unary_ops


def _number(value, what: str, layer: str, minimum=None, allow_none=False):
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float, np.number)):
        raise ValueError(f"{layer}: `{what}` must be a number. Received: {what}={value!r}")
    if minimum is not None and value < minimum:
        raise ValueError(f"{layer}: `{what}` must be >= {minimum}. Received: {what}={value!r}")
    return float(value)


class _Elementwise(Layer):
    """An activation layer: the output has the input's shape; masks pass through."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.supports_masking = True

    def compute_output_shape(self, input_shape: Any) -> Any:
        return tuple(input_shape)


class ReLU(_Elementwise):
    """Rectified linear unit with an optional cap, threshold and leak (Keras 3's ReLU).

    ``max_value`` where ``x >= max_value``, ``x`` where ``threshold < x < max_value``,
    ``negative_slope * (x - threshold)`` otherwise.

    Args:
        max_value: the cap (None: no cap); >= 0.
        negative_slope: the slope below the threshold; >= 0.
        threshold: where the unit switches on.

    Raises:
        ValueError: for a negative `max_value` or `negative_slope`, or a missing threshold.

    Examples:
        >>> import eagerflow as ef
        >>> ef.layers.ReLU(max_value=6.0, negative_slope=0.1, threshold=1.0)(
        ...     ef.constant([-1.0, 0.5, 3.0, 9.0]))
        ef.Tensor([-0.2  -0.05  3.    6.  ], shape=(4,), dtype=float32)
    """

    def __init__(self, max_value: Any = None, negative_slope: float = 0.0, threshold: float = 0.0,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.max_value = _number(max_value, "max_value", "ReLU", 0.0, allow_none=True)
        self.negative_slope = _number(negative_slope, "negative_slope", "ReLU", 0.0)
        if threshold is None:
            raise ValueError("ReLU: `threshold` must be a number. Received: threshold=None")
        self.threshold = _number(threshold, "threshold", "ReLU")

    def call(self, inputs: Any) -> Any:
        threshold = math_ops.cast(self.threshold, inputs.dtype)
        below = math_ops.multiply(math_ops.subtract(inputs, threshold), self.negative_slope)
        # Strictly above: x == threshold gives 0, as Keras 3's relu (`ops.greater`).
        outputs = math_ops.where(logic_ops.greater(inputs, threshold), inputs, below)
        if self.max_value is not None:
            outputs = math_ops.minimum(outputs, math_ops.cast(self.max_value, inputs.dtype))
        return outputs

    def get_config(self) -> dict:
        return {**super().get_config(), "max_value": self.max_value,
                "negative_slope": self.negative_slope, "threshold": self.threshold}


class LeakyReLU(_Elementwise):
    """``x`` for ``x >= 0``, ``negative_slope * x`` otherwise (Keras 3's default 0.3).

    Args:
        negative_slope: the slope for negative inputs; >= 0. (``alpha``, its Keras 2
            name, is accepted too.)

    Examples:
        >>> import eagerflow as ef
        >>> ef.layers.LeakyReLU(negative_slope=0.5)(ef.constant([-2.0, 2.0]))
        ef.Tensor([-1.  2.], shape=(2,), dtype=float32)
    """

    def __init__(self, negative_slope: float = 0.3, **kwargs: Any) -> None:
        if "alpha" in kwargs:
            negative_slope = kwargs.pop("alpha")
        super().__init__(**kwargs)
        self.negative_slope = _number(negative_slope, "negative_slope", "LeakyReLU", 0.0)

    def call(self, inputs: Any) -> Tensor:
        return math_ops.where(logic_ops.greater_equal(inputs, 0),
                              inputs, math_ops.multiply(inputs, self.negative_slope))

    def get_config(self) -> dict:
        return {**super().get_config(), "negative_slope": self.negative_slope}


class PReLU(_Elementwise):
    """Leaky ReLU whose slopes are learned: ``max(0, x) + alpha * min(0, x)``.

    Args:
        alpha_initializer: initializer of the slopes (default zeros).
        alpha_regularizer: optional regularizer of the slopes.
        alpha_constraint: optional constraint of the slopes.
        shared_axes: axes (counting the batch axis as 0) along which one slope is shared,
            e.g. ``[1, 2]`` for one slope per channel of images.

    Examples:
        >>> import eagerflow as ef
        >>> layer = ef.layers.PReLU(alpha_initializer=ef.initializers.Constant(0.25))
        >>> layer(ef.constant([[-4.0, 4.0]]))
        ef.Tensor([[-1.  4.]], shape=(1, 2), dtype=float32)
        >>> layer.alpha.shape
        (2,)
    """

    def __init__(self, alpha_initializer: Any = "zeros", alpha_regularizer: Any = None,
                 alpha_constraint: Any = None, shared_axes: Any = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.alpha_initializer = initializers.get(alpha_initializer)
        self.alpha_regularizer = regularizers.get(alpha_regularizer)
        self.alpha_constraint = constraints.get(alpha_constraint)
        if shared_axes is None:
            self.shared_axes = None
        else:
            axes = [shared_axes] if isinstance(shared_axes, int) else list(shared_axes)
            self.shared_axes = [int(a) for a in axes]

    def build(self, input_shape: Any) -> None:
        shape = list(input_shape[1:])
        for axis in self.shared_axes or ():
            if not 1 <= axis <= len(shape):
                raise ValueError(
                    f"PReLU '{self.name}': shared_axes {self.shared_axes} must name axes 1.."
                    f"{len(shape)} of inputs of shape {tuple(input_shape)}.")
            shape[axis - 1] = 1
        if any(d is None for d in shape):
            raise ValueError(
                f"PReLU '{self.name}': the input shape {tuple(input_shape)} has an unknown "
                "dimension outside shared_axes; share that axis (shared_axes) or give it a "
                "size.")
        self.alpha = self.add_weight("alpha", shape=tuple(shape),
                                     initializer=self.alpha_initializer,
                                     regularizer=self.alpha_regularizer,
                                     constraint=self.alpha_constraint)
        self.built = True

    def call(self, inputs: Any) -> Tensor:
        positive = nn_ops.relu(inputs)
        negative = math_ops.multiply(self.alpha, math_ops.minimum(inputs, 0))
        return math_ops.add(positive, negative)

    def get_config(self) -> dict:
        return {**super().get_config(),
                "alpha_initializer": initializers.serialize(self.alpha_initializer),
                "alpha_regularizer": regularizers.serialize(self.alpha_regularizer),
                "alpha_constraint": constraints.serialize(self.alpha_constraint),
                "shared_axes": self.shared_axes}


class ELU(_Elementwise):
    """Exponential linear unit: ``x`` for ``x > 0``, ``alpha * (exp(x) - 1)`` otherwise.

    Examples:
        >>> import eagerflow as ef
        >>> ef.layers.ELU(alpha=2.0)(ef.constant([0.0, 1.0]))
        ef.Tensor([0. 1.], shape=(2,), dtype=float32)
    """

    def __init__(self, alpha: float = 1.0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.alpha = _number(alpha, "alpha", "ELU")

    def call(self, inputs: Any) -> Tensor:
        negative = math_ops.multiply(unary_ops.expm1(math_ops.minimum(inputs, 0)), self.alpha)
        return math_ops.where(logic_ops.greater(inputs, 0), inputs, negative)

    def get_config(self) -> dict:
        return {**super().get_config(), "alpha": self.alpha}


class Softmax(_Elementwise):
    """Softmax over `axis`; masked positions (mask False) get zero probability.

    As in Keras 3, the masked positions become a large negative number (-1e9; -3e4 in
    float16) before the softmax and 0 after it, so a fully masked axis gives zeros.

    Args:
        axis: the axis (or list of axes) normalized over.

    Examples:
        >>> import eagerflow as ef
        >>> ef.layers.Softmax()(ef.constant([[1.0, 1.0, 9.0]]),
        ...                     mask=ef.constant([[True, True, False]]))
        ef.Tensor([[0.5 0.5 0. ]], shape=(1, 3), dtype=float32)
    """

    def __init__(self, axis: int | list[int] | tuple[int, ...] = -1, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.axis = [int(a) for a in axis] if isinstance(axis, (list, tuple)) else int(axis)

    def call(self, inputs: Any, mask: Any = None) -> Tensor:
        if mask is not None:  # kept where True (or > 0.5), as Keras 3
            mask = creation_ops.convert_to_tensor(mask)
            if mask.dtype != np.bool_:
                mask = logic_ops.greater(mask, math_ops.cast(0.5, mask.dtype))
            large = -3e4 if inputs.dtype == np.float16 else -1e9
            inputs = math_ops.where(mask, inputs, math_ops.cast(large, inputs.dtype))
        if isinstance(self.axis, list):
            outputs = unary_ops.exp(math_ops.subtract(
                inputs, reduce_ops.reduce_logsumexp(inputs, axis=self.axis, keepdims=True)))
        else:
            outputs = activations.softmax(inputs, axis=self.axis)  # remembers the logits
        if mask is not None:  # a fully masked axis gives zeros, not a uniform distribution
            outputs = math_ops.where(mask, outputs, math_ops.cast(0.0, outputs.dtype))
        return outputs

    def get_config(self) -> dict:
        return {**super().get_config(), "axis": self.axis}
