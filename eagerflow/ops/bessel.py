"""Modified Bessel functions of the first kind, orders 0 and 1: `bessel_i0`, `bessel_i1`
and their exponentially scaled forms `bessel_i0e`, `bessel_i1e` (``exp(-|x|) I(x)``)
under `ef.math`, and `keras.ops.i0`, computed in float64 and returned in the input's dtype.

The scaled forms are the primitives (TensorFlow's `BesselI0e`, `BesselI1e`): the power
series ``I_n(x) = sum_k (x/2)^(2k+n) / (k! (k+n)!)`` (positive terms, no cancellation)
up to ``|x| = 20``, and beyond it the asymptotic series ``I_n(x) ~ e^x / sqrt(2 pi x) *
sum_k (-1)^k prod_j (4n^2 - (2j-1)^2) / (k! (8x)^k)``, whose smallest term there is below
1e-17. ``I0' = I1`` and ``I1' = I0 - I1 / x`` (1/2 at 0) give gradients of any order.

Examples:
    >>> import eagerflow as ef
    >>> ef.math.bessel_i0([0.0, 1.0]).numpy().round(4).tolist()
    [1.0, 1.2661]
    >>> ef.math.bessel_i1e([0.0]).numpy().tolist()
    [0.0]
"""

from __future__ import annotations

import math

import numpy as np

from eagerflow.core import forwardprop
from eagerflow.core.dispatch import execute, primitive
from eagerflow.ops import creation as _creation
from eagerflow.ops import logic as _logic
from eagerflow.ops import math as _math
from eagerflow.ops import unary as _unary
from eagerflow.ops.special import check_float
from eagerflow.ops.typing import Tensor, TensorLike

_SERIES_LIMIT = 20.0


def scaled_bessel_array(order: int, x: np.ndarray) -> np.ndarray:
    """``exp(-|x|) I_order(x)`` for order 0 or 1 on a float64 array."""
    x = np.asarray(x, np.float64)
    magnitude = np.abs(x)
    small = np.where(magnitude <= _SERIES_LIMIT, magnitude, 0.0)
    half = small / 2.0
    term = half ** order / math.factorial(order)
    series = term.copy()
    for k in range(1, 120):
        term = term * half * half / (k * (k + order))
        series += term
    series *= np.exp(-small)
    large = np.where(magnitude > _SERIES_LIMIT, magnitude, 2.0 * _SERIES_LIMIT)
    mu = 4.0 * order * order
    term = np.ones_like(large)
    asymptotic = term.copy()
    for k in range(1, 40):
        term = term * -(mu - (2 * k - 1) ** 2) / (k * 8.0 * large)
        asymptotic += term
    asymptotic /= np.sqrt(2.0 * np.pi * large)
    result = np.where(magnitude <= _SERIES_LIMIT, series, asymptotic)
    result = np.where(np.isinf(x), 0.0, np.where(np.isnan(x), np.nan, result))
    return np.where(x < 0, -result, result) if order == 1 else result


@primitive("BesselI0e", fresh=True)
def _i0e(x):
    check_float(x, "BesselI0e")
    return scaled_bessel_array(0, x).astype(x.dtype)


_i0e.jvp(forwardprop.DIAGONAL)


@_i0e.gradient
def _i0e_grad(dy, out, x):
    # d/dx e^-|x| I0(x) = i1e(x) - sign(x) i0e(x)
    slope = _math.subtract(execute(_i1e, (x,)), _math.multiply(_unary.sign(x), out))
    return _math.multiply(dy, slope)


@primitive("BesselI1e", fresh=True)
def _i1e(x):
    check_float(x, "BesselI1e")
    return scaled_bessel_array(1, x).astype(x.dtype)


_i1e.jvp(forwardprop.DIAGONAL)


@_i1e.gradient
def _i1e_grad(dy, out, x):
    # d/dx e^-|x| I1(x) = i0e(x) - i1e(x) / x - sign(x) i1e(x), and 1/2 at x = 0
    zero = _logic.equal(x, 0.0)
    safe = _math.where(zero, _creation.ones_like(x), x)
    slope = _math.subtract(_math.subtract(execute(_i0e, (x,)), _math.divide(out, safe)),
                           _math.multiply(_unary.sign(x), out))
    return _math.multiply(dy, _math.where(zero, _creation.fill(x.shape, 0.5, x.dtype.name),
                                          slope))


def bessel_i0e(x: TensorLike, name: str | None = None) -> Tensor:
    """``exp(-|x|) I0(x)`` elementwise.

    Raises:
        InvalidArgumentError: for a non-floating-point input.

    Examples:
        >>> import eagerflow as ef
        >>> ef.math.bessel_i0e([0.0]).numpy().tolist()
        [1.0]
    """
    return execute(_i0e, (x,))


def bessel_i1e(x: TensorLike, name: str | None = None) -> Tensor:
    """``exp(-|x|) I1(x)`` elementwise.

    Raises:
        InvalidArgumentError: for a non-floating-point input.

    Examples:
        >>> import eagerflow as ef
        >>> ef.math.bessel_i1e([0.0]).numpy().tolist()
        [0.0]
    """
    return execute(_i1e, (x,))


def bessel_i0(x: TensorLike, name: str | None = None) -> Tensor:
    """The modified Bessel function ``I0(x)`` elementwise.

    Raises:
        InvalidArgumentError: for a non-floating-point input.

    Examples:
        >>> import eagerflow as ef
        >>> ef.math.bessel_i0([0.0]).numpy().tolist()
        [1.0]
    """
    x = _creation.convert_to_tensor(x)
    return _math.multiply(bessel_i0e(x), _unary.exp(_unary.abs(x)))


def bessel_i1(x: TensorLike, name: str | None = None) -> Tensor:
    """The modified Bessel function ``I1(x)`` elementwise.

    Raises:
        InvalidArgumentError: for a non-floating-point input.

    Examples:
        >>> import eagerflow as ef
        >>> ef.math.bessel_i1([0.0]).numpy().tolist()
        [0.0]
    """
    x = _creation.convert_to_tensor(x)
    return _math.multiply(bessel_i1e(x), _unary.exp(_unary.abs(x)))
