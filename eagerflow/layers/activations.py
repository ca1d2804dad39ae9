"""Activation functions by name (`ef.activations`), for ``Dense(activation="relu")``.

Each activation is an eagerflow function of one tensor; `get` resolves a name or passes a
callable through, and an unknown name raises an error that lists every known one.

Examples:
    >>> import eagerflow as ef
    >>> ef.activations.get("relu")(ef.constant([-1.0, 2.0]))
    ef.Tensor([0. 2.], shape=(2,), dtype=float32)
    >>> ef.activations.serialize(ef.activations.get("tanh"))
    'tanh'
"""

from __future__ import annotations

from typing import Any

from eagerflow import absent as _absent
from eagerflow.core import logits, tensor
from eagerflow.ops import activations as nn_activations
from eagerflow.ops import creation
from eagerflow.ops import math as math_ops
from eagerflow.ops import nn as core_nn
from eagerflow.ops import special
from eagerflow.ops import unary as unary_ops
from eagerflow.ops.typing import Tensor, TensorLike
from eagerflow.saving import registry

__all__ = ["deserialize", "elu", "exponential", "gelu", "get", "hard_sigmoid", "leaky_relu",
           "linear", "log_sigmoid", "log_softmax", "mish", "relu", "relu6", "selu", "serialize",
           "sigmoid", "silu", "softmax", "softplus", "softsign", "swish", "tanh"]


def linear(x: TensorLike) -> Any:
    """The identity: returns `x` unchanged (the default of Dense and Conv layers).

    Examples:
        >>> import eagerflow as ef
        >>> ef.activations.linear(ef.constant([-1.0]))
        ef.Tensor([-1.], shape=(1,), dtype=float32)
    """
    return x


def relu(x: TensorLike) -> Tensor:
    """``max(x, 0)``.

    Examples:
        >>> import eagerflow as ef
        >>> ef.activations.relu(ef.constant([-1.0, 1.0]))
        ef.Tensor([0. 1.], shape=(2,), dtype=float32)
    """
    return core_nn.relu(x)


def sigmoid(x: TensorLike) -> Tensor:
    """``1 / (1 + exp(-x))``.

    Examples:
        >>> import eagerflow as ef
        >>> ef.activations.sigmoid(ef.constant([0.0]))
        ef.Tensor([0.5], shape=(1,), dtype=float32)

    As in Keras, the result remembers `x` as its logits (`eagerflow.core.logits`): every
    cross-entropy of it is computed from `x`, so saturated outputs keep their true loss
    and gradient.
    """
    if not isinstance(x, tensor.Tensor):
        x = creation.convert_to_tensor(x)
    output = unary_ops.sigmoid(x)
    logits.remember(output, x, logits.ACTIVATION)
    return output


def tanh(x: TensorLike) -> Tensor:
    """Hyperbolic tangent.

    Examples:
        >>> import eagerflow as ef
        >>> ef.activations.tanh(ef.constant([0.0]))
        ef.Tensor([0.], shape=(1,), dtype=float32)
    """
    return unary_ops.tanh(x)


def softmax(x: TensorLike, axis: int = -1) -> Tensor:
    """Softmax along `axis` (the last by default).

    Examples:
        >>> import eagerflow as ef
        >>> ef.activations.softmax(ef.constant([[0.0, 0.0]]))
        ef.Tensor([[0.5 0.5]], shape=(1, 2), dtype=float32)

    As in Keras, the result remembers `x` as its logits (`eagerflow.core.logits`): every
    cross-entropy of it is computed from `x` (along the loss's own axis), so saturated
    outputs keep their true loss and gradient.
    """
    if not isinstance(x, tensor.Tensor):
        x = creation.convert_to_tensor(x)
    output = core_nn.softmax(x, axis)
    logits.remember(output, x, logits.ACTIVATION)
    return output


def log_softmax(x: TensorLike, axis: int = -1) -> Tensor:
    """Log of the softmax along `axis`.

    Examples:
        >>> import eagerflow as ef
        >>> ef.activations.log_softmax(ef.constant([0.0, 0.0]))
        ef.Tensor([-0.6931 -0.6931], shape=(2,), dtype=float32)
    """
    return core_nn.log_softmax(x, axis)


def exponential(x: TensorLike) -> Tensor:
    """``exp(x)``.

    Examples:
        >>> import eagerflow as ef
        >>> ef.activations.exponential(ef.constant([0.0]))
        ef.Tensor([1.], shape=(1,), dtype=float32)
    """
    return unary_ops.exp(x)


def softsign(x: TensorLike) -> Tensor:
    """``x / (1 + |x|)``.

    Examples:
        >>> import eagerflow as ef
        >>> ef.activations.softsign(ef.constant([1.0]))
        ef.Tensor([0.5], shape=(1,), dtype=float32)
    """
    return nn_activations.softsign(x)


def softplus(x: TensorLike) -> Tensor:
    """``log(1 + exp(x))``, computed without overflow.

    Examples:
        >>> import eagerflow as ef
        >>> ef.activations.softplus(ef.constant([0.0]))
        ef.Tensor([0.6931], shape=(1,), dtype=float32)
    """
    return special.softplus(x)


def elu(x: TensorLike) -> Tensor:
    """``x`` for positive inputs, ``exp(x) - 1`` otherwise.

    Examples:
        >>> import eagerflow as ef
        >>> ef.activations.elu(ef.constant([0.0, 1.0]))
        ef.Tensor([0. 1.], shape=(2,), dtype=float32)
    """
    return nn_activations.elu(x)


def selu(x: TensorLike) -> Tensor:
    """Scaled ELU (self-normalizing networks; use with `lecun_normal`).

    Examples:
        >>> import eagerflow as ef
        >>> ef.activations.selu(ef.constant([0.0]))
        ef.Tensor([0.], shape=(1,), dtype=float32)
    """
    return nn_activations.selu(x)


def gelu(x: TensorLike, approximate: bool = False) -> Tensor:
    """Gaussian error linear unit ``x * Phi(x)``.

    Examples:
        >>> import eagerflow as ef
        >>> ef.activations.gelu(ef.constant([0.0]))
        ef.Tensor([0.], shape=(1,), dtype=float32)
    """
    return nn_activations.gelu(x, approximate=approximate)


def silu(x: TensorLike) -> Tensor:
    """``x * sigmoid(x)`` (also called swish).

    Examples:
        >>> import eagerflow as ef
        >>> ef.activations.silu(ef.constant([0.0]))
        ef.Tensor([0.], shape=(1,), dtype=float32)
    """
    return nn_activations.silu(x)


swish = silu
"""Another name for `silu`, ``x * sigmoid(x)``; the same function."""


def leaky_relu(x: TensorLike, negative_slope: float = 0.2) -> Tensor:
    """``x`` for positive inputs, ``negative_slope * x`` otherwise.

    Examples:
        >>> import eagerflow as ef
        >>> ef.activations.leaky_relu(ef.constant([-1.0, 1.0]))
        ef.Tensor([-0.2  1. ], shape=(2,), dtype=float32)
    """
    return nn_activations.leaky_relu(x, alpha=negative_slope)


def relu6(x: TensorLike) -> Tensor:
    """``min(max(x, 0), 6)``.

    Examples:
        >>> import eagerflow as ef
        >>> ef.activations.relu6(ef.constant([9.0]))
        ef.Tensor([6.], shape=(1,), dtype=float32)
    """
    return nn_activations.relu6(x)


def hard_sigmoid(x: TensorLike) -> Tensor:
    """Piecewise-linear sigmoid: ``relu6(x + 3) / 6``.

    Examples:
        >>> import eagerflow as ef
        >>> ef.activations.hard_sigmoid(ef.constant([0.0, 9.0]))
        ef.Tensor([0.5 1. ], shape=(2,), dtype=float32)
    """
    return math_ops.divide(nn_activations.relu6(math_ops.add(x, 3.0)), 6.0)


def log_sigmoid(x: TensorLike) -> Tensor:
    """``log(sigmoid(x))``, stable for large negative inputs.

    Examples:
        >>> import eagerflow as ef
        >>> ef.activations.log_sigmoid(ef.constant([0.0]))
        ef.Tensor([-0.6931], shape=(1,), dtype=float32)
    """
    return special.log_sigmoid(x)


def mish(x: TensorLike) -> Tensor:
    """``x * tanh(softplus(x))``.

    Examples:
        >>> import eagerflow as ef
        >>> ef.activations.mish(ef.constant([0.0]))
        ef.Tensor([0.], shape=(1,), dtype=float32)
    """
    return math_ops.multiply(x, unary_ops.tanh(special.softplus(x)))


for _function in (linear, relu, sigmoid, tanh, softmax, log_softmax, exponential, softsign,
                  softplus, elu, selu, gelu, leaky_relu, relu6, hard_sigmoid, log_sigmoid, mish):
    registry.register("activation", _function)
registry.register("activation", silu, "swish")


def get(identifier: Any) -> Any:
    """Returns the activation function for a name or callable (None means `linear`).

    Args:
        identifier: a name such as ``"relu"`` (any case), a callable, a layer config (an
            activation layer), or None.

    Raises:
        InvalidArgumentError (a ValueError): for an unknown name (the message lists the
            known names) or anything else.

    Examples:
        >>> import eagerflow as ef
        >>> ef.activations.get(None) is ef.activations.linear
        True
        >>> ef.activations.get("relu7")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
          ...
        eagerflow.core.errors.InvalidArgumentError: Unknown activation 'relu7'. Known activations: ..., relu, relu6, ...
    """  # noqa: E501
    if identifier is None:
        return linear
    if isinstance(identifier, dict):  # an activation layer's config
        return registry.deserialize(identifier, kind="layer")
    return registry.get("activation", identifier)


def serialize(activation: Any) -> Any:
    """The registered name of an activation; a layer's config; other callables as is.

    Examples:
        >>> import eagerflow as ef
        >>> ef.activations.serialize(ef.activations.relu)
        'relu'
    """
    return registry.serialize(activation, "activation")


def deserialize(name: str) -> Any:
    """Inverse of `serialize`.

    Examples:
        >>> import eagerflow as ef
        >>> ef.activations.deserialize("sigmoid") is ef.activations.sigmoid
        True
    """
    return get(name)


__getattr__ = _absent.namespace_getattr(__name__, "keras.activations")
