"""TensorFlow's "safe" elementwise math (`ef.math.divide_no_nan`, `multiply_no_nan`,
`reciprocal_no_nan`, `xlogy`, `xdivy`): a product or quotient that is 0 where a zero
operand would otherwise give NaN or inf, with gradients that are 0 there as well.

Each is composed from `where` over a denominator made safe first, so neither the value
nor the gradient ever touches the 0 (TensorFlow's rules give the same numbers).

Examples:
    >>> import eagerflow as ef
    >>> ef.math.divide_no_nan([1.0, 2.0], [0.0, 4.0])
    ef.Tensor([0.  0.5], shape=(2,), dtype=float32)
    >>> ef.math.xlogy([0.0, 2.0], [0.0, 1.0])
    ef.Tensor([0. 0.], shape=(2,), dtype=float32)
"""

from __future__ import annotations

import numpy as np

from eagerflow.core import errors
from eagerflow.core.dispatch import execute, primitive
from eagerflow.ops import creation as _creation
from eagerflow.ops import logic as _logic
from eagerflow.ops import math as _math
from eagerflow.ops import unary as _unary
from eagerflow.ops.typing import Tensor, TensorLike


def _float_pair(x: TensorLike, y: TensorLike, op_name: str) -> tuple[Tensor, Tensor]:
    x, y = _math.add(x, _creation.zeros_like(y)), _math.add(y, _creation.zeros_like(x))
    if x.dtype.kind != "f":
        raise errors.InvalidArgumentError(
            f"{op_name} expects floating-point inputs; got {x.dtype.name}", op=op_name)
    return x, y


def _zero_where(zero, x, y, safe_like, fn) -> Tensor:
    """``fn(x, y)`` with 0 where `zero` holds; there `y` is first replaced by
    ``safe_like(y)`` (ones or zeros), so neither the value nor its gradient sees the NaN or
    inf the raw `fn` would make."""
    safe = _math.where(zero, safe_like(y), y)
    return _math.where(zero, _creation.zeros_like(x), fn(x, safe))


def divide_no_nan(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """`x / y`, but 0 wherever `y` is 0 (even where `x` is 0, inf or NaN).

    Args:
        x: a floating-point tensor.
        y: a tensor of the same dtype, broadcastable with `x`.

    Returns:
        The broadcast quotient.

    Raises:
        InvalidArgumentError: for integer inputs or incompatible shapes.

    Examples:
        >>> import eagerflow as ef
        >>> ef.math.divide_no_nan(3.0, 0.0)
        ef.Tensor(0.0, shape=(), dtype=float32)
    """
    x, y = _float_pair(x, y, "DivNoNan")
    return _zero_where(_logic.equal(y, 0.0), x, y, _creation.ones_like, _math.divide)


def multiply_no_nan(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """`x * y`, but 0 wherever `y` is 0 (even where `x` is inf or NaN).

    Args:
        x: a floating-point tensor.
        y: a tensor of the same dtype, broadcastable with `x`.

    Returns:
        The broadcast product.

    Raises:
        InvalidArgumentError: for integer inputs or incompatible shapes.

    Examples:
        >>> import eagerflow as ef
        >>> ef.math.multiply_no_nan(float("inf"), 0.0)
        ef.Tensor(0.0, shape=(), dtype=float32)
    """
    x, y = _float_pair(x, y, "MulNoNan")
    return execute(_mul_no_nan, (x, y))


@primitive("MulNoNan", fresh=True)
def _mul_no_nan(x, y):
    return np.where(y == 0, np.zeros_like(x), x * y)


@_mul_no_nan.gradient
def _mul_no_nan_grad(dy, out, x, y):
    # TensorFlow's rule: dx = mul_no_nan(dy, y), dy = mul_no_nan(x, dy) (so at y == 0 the
    # gradient for y is x wherever dy is non-zero).
    return execute(_mul_no_nan, (dy, y)), execute(_mul_no_nan, (x, dy))


@_mul_no_nan.jvp
def _mul_no_nan_jvp(tangents, out, x, y):
    tx, ty = tangents
    parts = []
    if tx is not None:
        parts.append(execute(_mul_no_nan, (tx, y)))
    if ty is not None:
        parts.append(execute(_mul_no_nan, (x, ty)))
    return parts[0] if len(parts) == 1 else _math.add(parts[0], parts[1])


def reciprocal_no_nan(x: TensorLike, name: str | None = None) -> Tensor:
    """`1 / x`, but 0 where `x` is 0.

    Args:
        x: a floating-point tensor.

    Returns:
        The reciprocal, elementwise.

    Raises:
        InvalidArgumentError: for an integer input.

    Examples:
        >>> import eagerflow as ef
        >>> ef.math.reciprocal_no_nan([0.0, 4.0])
        ef.Tensor([0.   0.25], shape=(2,), dtype=float32)
    """
    x = _creation.convert_to_tensor(x)
    return divide_no_nan(_creation.ones_like(x), x)


def xlogy(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """`x * log(y)`, but 0 wherever `x` is 0 (even where `y` is 0 or NaN).

    Args:
        x: a floating-point tensor.
        y: a tensor of the same dtype, broadcastable with `x`.

    Returns:
        The broadcast result.

    Raises:
        InvalidArgumentError: for integer inputs or incompatible shapes.

    Examples:
        >>> import eagerflow as ef
        >>> ef.math.xlogy([0.0, 1.0], [0.0, 2.0]).numpy().round(4).tolist()
        [0.0, 0.6931]
    """
    x, y = _float_pair(x, y, "Xlogy")
    return _zero_where(_logic.equal(x, 0.0), x, y, _creation.ones_like,
                       lambda a, b: _math.multiply(a, _unary.log(b)))


def xlog1py(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """`x * log1p(y)`, but 0 wherever `x` is 0.

    Args:
        x: a floating-point tensor.
        y: a tensor of the same dtype, broadcastable with `x`.

    Returns:
        The broadcast result.

    Raises:
        InvalidArgumentError: for integer inputs or incompatible shapes.

    Examples:
        >>> import eagerflow as ef
        >>> ef.math.xlog1py([0.0, 1.0], [-1.0, 1.0]).numpy().round(4).tolist()
        [0.0, 0.6931]
    """
    x, y = _float_pair(x, y, "Xlog1py")
    return _zero_where(_logic.equal(x, 0.0), x, y, _creation.zeros_like,
                       lambda a, b: _math.multiply(a, _unary.log1p(b)))


def xdivy(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """`x / y`, but 0 wherever `x` is 0 (even where `y` is 0 or NaN).

    Args:
        x: a floating-point tensor.
        y: a tensor of the same dtype, broadcastable with `x`.

    Returns:
        The broadcast quotient.

    Raises:
        InvalidArgumentError: for integer inputs or incompatible shapes.

    Examples:
        >>> import eagerflow as ef
        >>> ef.math.xdivy([0.0, 1.0], [0.0, 4.0])
        ef.Tensor([0.   0.25], shape=(2,), dtype=float32)
    """
    x, y = _float_pair(x, y, "Xdivy")
    return _zero_where(_logic.equal(x, 0.0), x, y, _creation.ones_like, _math.divide)
