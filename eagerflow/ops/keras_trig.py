"""Keras 3's trigonometric and hyperbolic functions (`keras.ops.sin`, `arcsin`, `sinh`,
...), part of `ef.ops.numpy`: each is the TensorFlow-named op of `ops/unary.py` (or
`atan2` of `ops/math.py`) with Keras's dtype rule, integers computed as floats.

Examples:
    >>> import eagerflow as ef
    >>> round(float(ef.ops.arctan2(1.0, 1.0)), 4)
    0.7854
"""

from __future__ import annotations

from eagerflow.ops import keras_core as _core
from eagerflow.ops import math as _math
from eagerflow.ops import unary as _unary
from eagerflow.ops.typing import Tensor, TensorLike

_f = _core.as_float


def sin(x: TensorLike) -> Tensor:
    """Sine (`keras.ops.sin`)."""
    return _unary.sin(_f(x))


def cos(x: TensorLike) -> Tensor:
    """Cosine (`keras.ops.cos`)."""
    return _unary.cos(_f(x))


def tan(x: TensorLike) -> Tensor:
    """Tangent (`keras.ops.tan`)."""
    return _unary.tan(_f(x))


def tanh(x: TensorLike) -> Tensor:
    """Hyperbolic tangent (`keras.ops.tanh`)."""
    return _unary.tanh(_f(x))


def sinh(x: TensorLike) -> Tensor:
    """Hyperbolic sine (`keras.ops.sinh`)."""
    return _unary.sinh(_f(x))


def cosh(x: TensorLike) -> Tensor:
    """Hyperbolic cosine (`keras.ops.cosh`)."""
    return _unary.cosh(_f(x))


def arcsinh(x: TensorLike) -> Tensor:
    """Inverse hyperbolic sine (`keras.ops.arcsinh`)."""
    return _unary.asinh(_f(x))


def arccosh(x: TensorLike) -> Tensor:
    """Inverse hyperbolic cosine (`keras.ops.arccosh`)."""
    return _unary.acosh(_f(x))


def arctanh(x: TensorLike) -> Tensor:
    """Inverse hyperbolic tangent (`keras.ops.arctanh`)."""
    return _unary.atanh(_f(x))


def arcsin(x: TensorLike) -> Tensor:
    """Inverse sine, in radians (`keras.ops.arcsin`)."""
    return _unary.asin(_f(x))


def arccos(x: TensorLike) -> Tensor:
    """Inverse cosine, in radians (`keras.ops.arccos`)."""
    return _unary.acos(_f(x))


def arctan(x: TensorLike) -> Tensor:
    """Inverse tangent, in radians (`keras.ops.arctan`)."""
    return _unary.atan(_f(x))


def arctan2(x1: TensorLike, x2: TensorLike) -> Tensor:
    """The angle of the point ``(x2, x1)``, in ``[-pi, pi]`` radians (`keras.ops.arctan2`)."""
    dtype = _core.result_type(x1, x2, 1.0)
    return _math.atan2(_core.as_tensor(x1, dtype), _core.as_tensor(x2, dtype))
