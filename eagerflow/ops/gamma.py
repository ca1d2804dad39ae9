"""The log-gamma function and its derivatives: `lgamma`, `digamma` and `polygamma`
(`ef.math`), elementwise, computed in float64 and returned in the input's dtype.

* ``lgamma(x) = log|Gamma(x)|``, from Python's `math.lgamma` (inf at the poles 0, -1, ...);
  its gradient is ``digamma``.
* ``digamma(x) = d lgamma / dx``: the recurrence ``psi(x) = psi(x + 1) - 1 / x`` moves x
  above 10, where the asymptotic series ``log x - 1/(2x) - sum B_2k / (2k x^2k)`` has
  about 1e-13 relative error; below 0.5 the reflection ``psi(x) = psi(1 - x) - pi /
  tan(pi x)``. NaN at the poles and at -inf (TensorFlow's values).
* ``polygamma(n, x)``, the n-th derivative of digamma, for integers ``n >= 1``: the same
  recurrence (``psi_n(x) = psi_n(x + 1) + (-1)^(n+1) n! / x^(n+1)``) above 20, then its
  asymptotic series. Its gradient is ``polygamma(n + 1, x)``, so gradients of any order
  are exact.

Examples:
    >>> import eagerflow as ef
    >>> ef.math.lgamma([1.0, 3.0]).numpy().round(4).tolist()
    [0.0, 0.6931]
    >>> ef.math.digamma([1.0]).numpy().round(4).tolist()
    [-0.5772]
"""

from __future__ import annotations

import math

import numpy as np

from eagerflow.core import errors, forwardprop
from eagerflow.core.dispatch import execute, primitive
from eagerflow.ops import math as _math
from eagerflow.ops import reduce as _reduce
from eagerflow.ops.special import check_float
from eagerflow.ops.typing import Tensor, TensorLike

# B_2k / (2k)! ... the Bernoulli numbers B_2, ..., B_10 of the asymptotic series.
_BERNOULLI = (1.0 / 6.0, -1.0 / 30.0, 1.0 / 42.0, -1.0 / 30.0, 5.0 / 66.0)


def _lgamma_scalar(value: float) -> float:
    try:
        return math.lgamma(value)
    except ValueError:  # a pole: 0, -1, -2, ...
        return math.inf


_lgamma_array = np.frompyfunc(_lgamma_scalar, 1, 1)


def _poles(x: np.ndarray) -> np.ndarray:
    return (x <= 0) & (x == np.floor(x))


def digamma_array(x: np.ndarray) -> np.ndarray:
    """digamma on a float64 array (see the module docstring)."""
    x = np.asarray(x, np.float64)
    reflect = x < 0.5
    z = np.where(reflect, 1.0 - x, x)
    z = np.where(np.isfinite(z), z, 10.0)  # inf and nan are patched in at the end
    result = np.zeros_like(z)
    while True:
        small = z < 10.0
        if not small.any():
            break
        result -= np.where(small, 1.0 / z, 0.0)
        z = np.where(small, z + 1.0, z)
    inverse_square = 1.0 / (z * z)
    series = sum(b / (2 * k) * inverse_square ** k for k, b in enumerate(_BERNOULLI, 1))
    result += np.log(z) - 0.5 / z - series
    with np.errstate(divide="ignore", invalid="ignore"):
        result = np.where(reflect, result - np.pi / np.tan(np.pi * x), result)
    result = np.where(_poles(x) | np.isnan(x) | (x == -np.inf), np.nan, result)
    return np.where(x == np.inf, np.inf, result)


def polygamma_array(n: int, x: np.ndarray) -> np.ndarray:
    """The n-th derivative of digamma (n >= 1) on a float64 array."""
    x = np.asarray(x, np.float64)
    sign = -1.0 if n % 2 == 0 else 1.0  # (-1)^(n+1)
    z = np.where(np.isfinite(x) & ~_poles(x), x, 30.0)
    result = np.zeros_like(z)
    while True:
        small = z < 20.0
        if not small.any():
            break
        result += np.where(small, sign * math.factorial(n) / z ** (n + 1), 0.0)
        z = np.where(small, z + 1.0, z)
    series = math.factorial(n - 1) / z ** n + math.factorial(n) / (2.0 * z ** (n + 1))
    for k, b in enumerate(_BERNOULLI, 1):
        series += b * math.factorial(2 * k + n - 1) / (math.factorial(2 * k) * z ** (2 * k + n))
    result += sign * series
    result = np.where(_poles(x) | np.isnan(x) | (x == -np.inf), np.nan, result)
    return np.where(x == np.inf, 0.0, result)


@primitive("Lgamma", fresh=True)
def _lgamma(x):
    check_float(x, "Lgamma")
    return np.asarray(_lgamma_array(x.astype(np.float64)), np.float64).astype(x.dtype)


_lgamma.jvp(forwardprop.DIAGONAL)


@_lgamma.gradient
def _lgamma_grad(dy, out, x):
    return _math.multiply(dy, execute(_digamma, (x,)))  # d lgamma = digamma


@primitive("Digamma", fresh=True)
def _digamma(x):
    check_float(x, "Digamma")
    return digamma_array(x).astype(x.dtype)


_digamma.jvp(forwardprop.DIAGONAL)


@_digamma.gradient
def _digamma_grad(dy, out, x):
    return _math.multiply(dy, execute(_polygamma, (x,), {"n": 1}))


@primitive("Polygamma", fresh=True)
def _polygamma(x, n):
    check_float(x, "Polygamma")
    return polygamma_array(n, x).astype(x.dtype)


_polygamma.jvp(forwardprop.DIAGONAL)


@_polygamma.gradient
def _polygamma_grad(dy, out, x, n):
    return _math.multiply(dy, execute(_polygamma, (x,), {"n": n + 1}))


def lgamma(x: TensorLike, name: str | None = None) -> Tensor:
    """``log|Gamma(x)|`` elementwise; inf at 0, -1, -2, ... and at +-inf.

    Raises:
        InvalidArgumentError: for a non-floating-point input.

    Examples:
        >>> import eagerflow as ef
        >>> float(ef.math.lgamma(5.0))  # log(4!)
        3.178
    """
    return execute(_lgamma, (x,))


def digamma(x: TensorLike, name: str | None = None) -> Tensor:
    """The derivative of `lgamma` elementwise; NaN at 0, -1, -2, ... and at -inf.

    Raises:
        InvalidArgumentError: for a non-floating-point input.

    Examples:
        >>> import eagerflow as ef
        >>> ef.math.digamma([1.0, 2.0]).numpy().round(4).tolist()
        [-0.5772, 0.4228]
    """
    return execute(_digamma, (x,))


def polygamma(a: TensorLike, x: TensorLike, name: str | None = None) -> Tensor:
    """The `a`-th derivative of `digamma` at `x`, for a whole-number order `a` (the same
    for every entry; ``a = 0`` is digamma itself).

    Raises:
        InvalidArgumentError: for a non-floating-point `x`, or an order that is not one
            non-negative whole number.

    Examples:
        >>> import eagerflow as ef
        >>> ef.math.polygamma(1.0, [1.0]).numpy().round(4).tolist()  # pi**2 / 6
        [1.6449]
    """
    orders = np.unique(np.asarray(a.numpy() if isinstance(a, Tensor) else a, np.float64))
    if orders.size != 1 or orders[0] < 0 or orders[0] != np.floor(orders[0]):
        raise errors.InvalidArgumentError(
            f"polygamma needs one non-negative whole order for all entries, got {orders}",
            op="Polygamma")
    n = int(orders[0])
    return digamma(x) if n == 0 else execute(_polygamma, (x,), {"n": n})


def lbeta(x: TensorLike, name: str | None = None) -> Tensor:
    """``log|Beta(x)|`` of the last axis: ``sum(lgamma(x)) - lgamma(sum(x))``.

    Raises:
        InvalidArgumentError: for a non-floating-point input.

    Examples:
        >>> import eagerflow as ef
        >>> round(float(ef.math.lbeta([1.0, 1.0])), 4)  # Beta(1, 1) = 1
        0.0
    """
    return _math.subtract(_reduce.reduce_sum(lgamma(x), -1),
                          lgamma(_reduce.reduce_sum(x, -1)))
