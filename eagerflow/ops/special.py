"""Smooth special functions NumPy lacks as ufuncs: erf, softplus, log_sigmoid.

`erf` is evaluated in double precision without any table of magic constants: every
coefficient is computed at import time, and three pieces cover the real line:

* ``|x| < 1``: the Taylor series ``erf(x) = 2/sqrt(pi) * sum (-1)^n x^(2n+1) / (n! (2n+1))``
  in ``u = x**2`` by Horner's rule (19 terms: the last is below 1e-17), accurate relative
  to erf even for tiny ``x``;
* ``1 <= |x| < 6``: ``erf(|x|) = 1 - exp(-x**2) * q(|x|)`` where ``q = erfc(x) exp(x**2)``
  is smooth and slowly varying (about ``1 / (x sqrt(pi))``). It is fitted on [1, 3.5) and
  [3.5, 6) by Chebyshev interpolation of Python's correctly-rounded ``math.erfc`` at
  Chebyshev nodes and evaluated by Clenshaw's recurrence; the error is then relative to
  ``erfc``, far below one ulp of ``erf``;
* ``|x| >= 6``: ``erfc(6) < 2.2e-17``, so ``erf`` is ``+-1`` to double precision.

The maximum error against ``math.erf`` on a dense grid is 2 ulp (tests/ops/
test_special.py checks it). Float32 and float16 inputs are evaluated in float64 with
shorter series (enough for their precision: within 1 float32 ulp) and rounded once.

Examples:
    >>> import eagerflow as ef
    >>> ef.math.erf([0.0, 0.5, 3.0])
    ef.Tensor([0.        0.5205 1.0000], shape=(3,), dtype=float32)
    >>> ef.math.softplus([-1000.0, 1000.0])
    ef.Tensor([   0. 1000.], shape=(2,), dtype=float32)
"""

from __future__ import annotations

import math

import numpy as np

from eagerflow.core import errors, forwardprop
from eagerflow.core.dispatch import execute, primitive
from eagerflow.ops import math as _math
from eagerflow.ops import unary as _unary
from eagerflow.ops.typing import Tensor, TensorLike


def _chebyshev_fit(fn, low: float, high: float, degree: int):
    """Coefficients of the degree-`degree` Chebyshev interpolant of `fn` on [low, high]."""
    count = degree + 1
    # Node j sits at angle pi * (2j + 1) / (2 count); the angles k * theta_j are reduced
    # modulo 2 pi in exact integer arithmetic first, because cos(k * theta_j) computed from
    # a rounded theta_j loses about k ulp and that noise would swamp the small coefficients.
    odd = 2 * np.arange(count) + 1
    nodes = np.cos(np.pi * odd / (2 * count)) * (high - low) / 2 + (high + low) / 2
    values = np.array([fn(float(v)) for v in nodes])
    phase = np.outer(np.arange(count), odd) % (4 * count)
    coeffs = (2.0 / count) * (np.cos(np.pi * phase / (2 * count)) @ values)
    coeffs[0] /= 2
    return coeffs, low, high


def _clenshaw(fit, x: np.ndarray) -> np.ndarray:
    """Evaluates a Chebyshev series at `x` by Clenshaw's recurrence (numerically stable)."""
    coeffs, low, high = fit
    t = (2.0 * x - (low + high)) / (high - low)
    two_t = 2.0 * t
    b1 = np.full_like(t, coeffs[-1])
    b2 = np.zeros_like(t)
    spare = np.empty_like(t)
    for c in coeffs[-2:0:-1]:  # b_k = 2 t b_(k+1) - b_(k+2) + c_k, in rotating buffers
        np.multiply(two_t, b1, out=spare)
        spare -= b2
        spare += c
        b1, b2, spare = spare, b1, b2
    return t * b1 - b2 + coeffs[0]


def _scaled_erfc(x: float) -> float:
    return math.erfc(x) * math.exp(x * x)


_TAYLOR = np.array([(-1.0) ** n / (math.factorial(n) * (2 * n + 1)) for n in range(19)])
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
# (Taylor coefficients for |x| < 1, ((low, high, fit of q = erfc * exp(x^2)), ...)).
# Double precision needs 19 terms and degree 22 + 18 fits up to 6; single precision (the
# result is rounded to float32 or float16) needs 10 terms and one degree-12 fit up to 4
# (q to 6e-9 relative; erf(4) rounds to 1 in float32), which halves the work.
_DOUBLE_PLAN = (_TAYLOR, ((1.0, 3.5, _chebyshev_fit(_scaled_erfc, 1.0, 3.5, 22)),
                          (3.5, 6.0, _chebyshev_fit(_scaled_erfc, 3.5, 6.0, 18))))
_SINGLE_PLAN = (_TAYLOR[:10], ((1.0, 4.0, _chebyshev_fit(_scaled_erfc, 1.0, 4.0, 12)),))


def _erf_small(x: np.ndarray, taylor) -> np.ndarray:
    u = x * x
    acc = np.full_like(u, taylor[-1])
    for c in taylor[-2::-1]:
        acc *= u
        acc += c
    acc *= x
    acc *= _TWO_OVER_SQRT_PI
    return acc


def _erf_float64(x: np.ndarray, plan) -> np.ndarray:
    taylor, tails = plan
    magnitude = np.abs(x)
    if magnitude.size == 0 or np.max(magnitude) < 1.0:  # no masking needed
        return _erf_small(x, taylor)
    out = np.sign(x)  # beyond the last tail (and NaN, which stays NaN)
    small = magnitude < 1.0
    if small.any():
        out[small] = _erf_small(x[small], taylor)
    for low, high, fit in tails:
        where = (magnitude >= low) & (magnitude < high)
        if where.any():
            tail = magnitude[where]
            erfc = np.exp(-tail * tail) * _clenshaw(fit, tail)
            out[where] = np.copysign(1.0 - erfc, x[where])
    return out


def erf_array(x: np.ndarray) -> np.ndarray:
    """erf of a floating-point ndarray, in its dtype (the NumPy kernel behind `erf`)."""
    if x.dtype == np.float64:
        return _erf_float64(x, _DOUBLE_PLAN)
    return _erf_float64(x.astype(np.float64), _SINGLE_PLAN).astype(x.dtype)


# erfc beyond erf's tails: one more fit of q up to 12, then q's asymptotic series
# q(x) = 1 / (x sqrt(pi)) * sum_k (-1)^k (2k - 1)!! / (2 x^2)^k, whose 12 terms are exact
# to double precision from 12 on (erfc itself underflows to 0 past x = 27.3).
_ERFC_TAILS = _DOUBLE_PLAN[1] + ((6.0, 12.0, _chebyshev_fit(_scaled_erfc, 6.0, 12.0, 16)),)
_ASYMPTOTIC = np.array([(-1.0) ** k * math.prod(range(1, 2 * k, 2)) for k in range(12)])


def erfc_array(x: np.ndarray) -> np.ndarray:
    """erfc of a floating-point ndarray, in its dtype, without the cancellation of
    ``1 - erf(x)`` (the NumPy kernel behind `erfc`)."""
    x64 = np.asarray(x, np.float64).reshape(-1)  # 1-D: NumPy answers 0-d with scalars
    magnitude = np.abs(x64)
    out = np.full_like(x64, np.nan)  # NaN falls in no band below and stays NaN
    small = magnitude < 1.0  # erf is at most 0.85 there: 1 - erf does not cancel
    out[small] = 1.0 - _erf_small(x64[small], _TAYLOR)
    for low, high, fit in _ERFC_TAILS + ((12.0, np.inf, None),):
        where = (magnitude >= low) & (magnitude < high) if high < np.inf else magnitude >= low
        if not where.any():
            continue
        tail = magnitude[where]
        if fit is not None:
            q = _clenshaw(fit, tail)
        else:
            with np.errstate(divide="ignore", invalid="ignore"):
                q = np.polyval(_ASYMPTOTIC[::-1], 0.5 / (tail * tail)) / (tail * math.sqrt(math.pi))
            q[np.isinf(tail)] = 0.0
        tail_erfc = np.exp(-tail * tail) * q
        out[where] = np.where(x64[where] > 0, tail_erfc, 2.0 - tail_erfc)
    return out.reshape(np.shape(x)).astype(x.dtype, copy=False)


def check_float(x, op_name):
    """Raises `InvalidArgumentError` naming `op_name` unless ndarray `x` is floating-point.

    The input check of the float-only elementwise kernels here and in `activations.py`.

    Examples:
        >>> import eagerflow as ef, numpy as np
        >>> from eagerflow.ops import special
        >>> try:
        ...     special.check_float(np.zeros(2, np.int32), "Erf")
        ... except ef.errors.InvalidArgumentError as error:
        ...     print(error)
        Erf needs a floating-point input, got dtype int32 [Op:Erf]
    """
    if x.dtype.kind != "f":
        raise errors.InvalidArgumentError(
            f"{op_name} needs a floating-point input, got dtype {x.dtype.name}", op_name
        )


@primitive("Erf")
def _erf(x):
    check_float(x, "Erf")
    return erf_array(x)


_erf.jvp(forwardprop.DIAGONAL)  # JVP: elementwise: the gradient rule with dy = tangent


@_erf.gradient
def _erf_grad(dy, out, x):
    # d/dx erf(x) = 2 / sqrt(pi) * exp(-x^2)
    slope = _math.multiply(_unary.exp(_unary.negative(_unary.square(x))), 2.0 / math.sqrt(math.pi))
    return _math.multiply(dy, slope)


@primitive("Erfc")
def _erfc(x):
    check_float(x, "Erfc")
    return erfc_array(x)


_erfc.jvp(forwardprop.DIAGONAL)  # JVP: elementwise: the gradient rule with dy = tangent


@_erfc.gradient
def _erfc_grad(dy, out, x):
    # d/dx erfc(x) = -2 / sqrt(pi) * exp(-x^2)
    slope = _math.multiply(_unary.exp(_unary.negative(_unary.square(x))),
                           -2.0 / math.sqrt(math.pi))
    return _math.multiply(dy, slope)


def erfc(x: TensorLike, name: str | None = None) -> Tensor:
    """The complementary error function ``1 - erf(x)``, elementwise, computed without the
    cancellation of that difference (``erfc(3)`` keeps all its digits).

    Args:
        x: a floating-point tensor.

    Raises:
        InvalidArgumentError: for a non-floating-point input.

    Examples:
        >>> import eagerflow as ef
        >>> ef.math.erfc([0.0]), ef.math.erfc([-30.0])
        (ef.Tensor([1.], shape=(1,), dtype=float32), ef.Tensor([2.], shape=(1,), dtype=float32))
    """
    return execute(_erfc, (x,))


def erf(x: TensorLike, name: str | None = None) -> Tensor:
    """The Gauss error function ``2 / sqrt(pi) * integral_0^x exp(-t**2) dt``, elementwise.

    Args:
        x: a floating-point tensor.

    Returns:
        A tensor of the same dtype, accurate to a few ulp in float64.

    Raises:
        InvalidArgumentError: for a non-floating-point input.

    Examples:
        >>> import eagerflow as ef
        >>> ef.math.erf([-1.0, 1.0])
        ef.Tensor([-0.8427  0.8427], shape=(2,), dtype=float32)
    """
    return execute(_erf, (x,))


@primitive("Softplus")
def _softplus(x):
    check_float(x, "Softplus")
    # log(1 + e^x) = max(x, 0) + log1p(e^-|x|): never exponentiates a positive number.
    # (np.logaddexp(x, 0) computes the same but runs about 10x slower.)
    out = np.log1p(np.exp(-np.abs(x)))
    out += np.maximum(x, 0)
    return out


_softplus.jvp(forwardprop.DIAGONAL)  # JVP: elementwise: the gradient rule with dy = tangent


@_softplus.gradient
def _softplus_grad(dy, out, x):
    return _math.multiply(dy, _unary.sigmoid(x))  # d/dx log(1 + e^x) = sigmoid(x)


def softplus(features: TensorLike, name: str | None = None) -> Tensor:
    """``log(exp(x) + 1)`` elementwise, without overflow for any `x`.

    Args:
        features: a floating-point tensor.

    Returns:
        A tensor of the same shape and dtype; its gradient is ``sigmoid(x)``.

    Raises:
        InvalidArgumentError: for a non-floating-point input.

    Examples:
        >>> import eagerflow as ef
        >>> ef.math.softplus([0.0, 2.0])
        ef.Tensor([0.6931 2.1269 ], shape=(2,), dtype=float32)
    """
    return execute(_softplus, (features,))


def log_sigmoid(x: TensorLike, name: str | None = None) -> Tensor:
    """``log(sigmoid(x)) = -softplus(-x)``, elementwise and stable for any `x`.

    Args:
        x: a floating-point tensor.

    Returns:
        A tensor of the same shape and dtype (all values <= 0).

    Examples:
        >>> import eagerflow as ef
        >>> ef.math.log_sigmoid([-1000.0, -1.0])
        ef.Tensor([-1000.           -1.3133], shape=(2,), dtype=float32)
    """
    return _unary.negative(softplus(_unary.negative(x)))
