"""Inverses of the error function and of the normal CDF: `erfinv` and `ndtri`
(`ef.math`, and `ef.ops.erfinv`), computed in float64 and returned in the input's dtype.

``ndtri(p)`` solves ``Phi(x) = p`` for the standard normal CDF ``Phi(x) = erfc(-x /
sqrt(2)) / 2``. It starts from the rational approximation 26.2.23 of Abramowitz and Stegun
(error below 4.5e-4) in the tail ``p < 1/2`` and takes Newton steps on ``log Phi(x) = log
p``, whose slope ``phi(x) / Phi(x)`` stays well scaled far into the tail, to full float64
precision; ``ndtri(p) = -ndtri(1 - p)`` above 1/2 (``1 - p`` is then exact).
``erfinv(y) = ndtri((y + 1) / 2) / sqrt(2)`` for ``|y| >= 1/2``; below it (and for ndtri
when ``|p - 1/2| < 1/4``), Newton steps on ``erf(x) = y`` from its Taylor series keep the
relative precision of small `y`. Outside the domain the result is
NaN, at its ends +-inf, as in TensorFlow.

Gradients: ``d erfinv / dy = sqrt(pi) / 2 * exp(erfinv(y)^2)`` and ``d ndtri / dp =
sqrt(2 pi) * exp(ndtri(p)^2 / 2)``, both written with the op's own output, so they
differentiate again.

Examples:
    >>> import eagerflow as ef
    >>> ef.math.erfinv([0.0, 0.5]).numpy().round(4).tolist()
    [0.0, 0.4769]
    >>> ef.math.ndtri([0.5, 0.975]).numpy().round(4).tolist()
    [0.0, 1.96]
"""

from __future__ import annotations

import math

import numpy as np

from eagerflow.core import forwardprop
from eagerflow.core.dispatch import execute, primitive
from eagerflow.ops import math as _math
from eagerflow.ops import unary as _unary
from eagerflow.ops.special import check_float, erf_array, erfc_array
from eagerflow.ops.typing import Tensor, TensorLike

_SQRT2 = math.sqrt(2.0)


def _lower_tail(p: np.ndarray) -> np.ndarray:
    """ndtri for 0 < p <= 1/2 (float64)."""
    t = np.sqrt(-2.0 * np.log(p))
    x = -(t - (2.515517 + 0.802853 * t + 0.010328 * t * t)
          / (1.0 + 1.432788 * t + 0.189269 * t * t + 0.001308 * t ** 3))
    log_p = np.log(p)
    for _ in range(4):  # quadratic convergence: 4.5e-4 -> 1e-7 -> 1e-14 -> 1e-16
        cdf = 0.5 * erfc_array(-x / _SQRT2)
        density = np.exp(-0.5 * x * x) / math.sqrt(2.0 * math.pi)
        x = x - (np.log(cdf) - log_p) * cdf / density
    return x


def _erfinv_central(y: np.ndarray) -> np.ndarray:
    """erfinv for |y| < 1/2 (float64): Newton steps on erf from its Taylor start."""
    x = math.sqrt(math.pi) / 2.0 * (y + math.pi / 12.0 * y ** 3)
    for _ in range(4):
        slope = 2.0 / math.sqrt(math.pi) * np.exp(-x * x)
        x = x - (erf_array(x) - y) / slope
    return x


def ndtri_array(p: np.ndarray) -> np.ndarray:
    """The inverse normal CDF of a float64 array (see the module docstring)."""
    p = np.asarray(p, np.float64)
    inside = (p > 0) & (p < 1)
    safe = np.where(inside, p, 0.25)
    central = np.abs(safe - 0.5) < 0.25  # 2p - 1 is exact there
    upper = safe > 0.5
    tail = _lower_tail(np.where(central, 0.1, np.where(upper, 1.0 - safe, safe)))
    x = np.where(central, _SQRT2 * _erfinv_central(np.where(central, 2.0 * safe - 1.0, 0.0)),
                 np.where(upper, -tail, tail))
    x = np.where(p == 0, -np.inf, np.where(p == 1, np.inf, x))
    return np.where(inside | (p == 0) | (p == 1), x, np.nan)


def erfinv_array(y: np.ndarray) -> np.ndarray:
    """The inverse error function of a float64 array (see the module docstring)."""
    y = np.asarray(y, np.float64)
    small = np.abs(y) < 0.5
    central = _erfinv_central(np.where(small, y, 0.0))
    return np.where(small, central, ndtri_array((y + 1.0) / 2.0) / _SQRT2)


@primitive("Erfinv", fresh=True)
def _erfinv(y):
    check_float(y, "Erfinv")
    return erfinv_array(y).astype(y.dtype)


_erfinv.jvp(forwardprop.DIAGONAL)


@_erfinv.gradient
def _erfinv_grad(dy, out, y):
    # d erfinv(y) / dy = sqrt(pi) / 2 * exp(erfinv(y)^2)
    return _math.multiply(dy, _math.multiply(_unary.exp(_unary.square(out)),
                                             math.sqrt(math.pi) / 2.0))


@primitive("Ndtri", fresh=True)
def _ndtri(p):
    check_float(p, "Ndtri")
    return ndtri_array(p).astype(p.dtype)


_ndtri.jvp(forwardprop.DIAGONAL)


@_ndtri.gradient
def _ndtri_grad(dy, out, p):
    # d ndtri(p) / dp = 1 / phi(ndtri(p)) = sqrt(2 pi) * exp(ndtri(p)^2 / 2)
    return _math.multiply(dy, _math.multiply(_unary.exp(_math.multiply(_unary.square(out),
                                                                       0.5)),
                                             math.sqrt(2.0 * math.pi)))


def erfinv(x: TensorLike, name: str | None = None) -> Tensor:
    """The inverse error function elementwise: ``erf(erfinv(x)) == x`` on (-1, 1), +-inf
    at +-1, NaN outside.

    Raises:
        InvalidArgumentError: for a non-floating-point input.

    Examples:
        >>> import eagerflow as ef
        >>> ef.math.erfinv([-1.0, 1.0])
        ef.Tensor([-inf  inf], shape=(2,), dtype=float32)
    """
    return execute(_erfinv, (x,))


def ndtri(x: TensorLike, name: str | None = None) -> Tensor:
    """The inverse of the standard normal CDF (the normal quantile function) elementwise:
    -inf at 0, inf at 1, NaN outside [0, 1].

    Raises:
        InvalidArgumentError: for a non-floating-point input.

    Examples:
        >>> import eagerflow as ef
        >>> ef.math.ndtri([0.0, 0.5, 1.0])
        ef.Tensor([-inf   0.  inf], shape=(3,), dtype=float32)
    """
    return execute(_ndtri, (x,))


def erfcinv(x: TensorLike, name: str | None = None) -> Tensor:
    """The inverse complementary error function: ``erfc(erfcinv(x)) == x`` on (0, 2),
    computed as ``-ndtri(x / 2) / sqrt(2)`` (precise for small `x`).

    Raises:
        InvalidArgumentError: for a non-floating-point input.

    Examples:
        >>> import eagerflow as ef
        >>> ef.math.erfcinv([0.3, 0.0]).numpy().round(4).tolist()
        [0.7329, inf]
    """
    return _math.divide(_unary.negative(ndtri(_math.multiply(x, 0.5))), _SQRT2)
