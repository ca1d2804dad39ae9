"""Unary elementwise math ops: negative, abs, sign, exp, log, roots, trigonometry, rounding.

One input, one output of the same shape; each differentiable op has its gradient rule
directly below it, written in eagerflow ops (so higher orders work). All of them are
in `ef.math` and at the top level (``ef.exp``, ``ef.math.exp``).

Examples:
    >>> import eagerflow as ef
    >>> ef.exp([0.0]), ef.square([3.0])
    (ef.Tensor([1.], shape=(1,), dtype=float32), ef.Tensor([9.], shape=(1,), dtype=float32))
"""

from __future__ import annotations

import numpy as np

from eagerflow.core import forwardprop, logits, tensor
from eagerflow.core.dispatch import convert_input, execute, primitive
from eagerflow.ops import creation as _creation
from eagerflow.ops import math as _math
from eagerflow.ops.typing import Tensor, TensorLike

_Tensor = tensor.Tensor

# Ops whose forward is exactly one NumPy ufunc use the ufunc itself as the forward (see
# `ops/math.py`).
_neg = primitive("Neg", elementwise=True, involution=True)(np.negative)


_neg.jvp(forwardprop.DIAGONAL)  # JVP: elementwise: the gradient rule with dy = tangent


@_neg.gradient
def _neg_grad(dy, out, x):
    return negative(dy)


def negative(x: TensorLike, name: str | None = None) -> Tensor:
    """Returns ``-x`` elementwise.

    Examples:
        >>> import eagerflow as ef
        >>> ef.negative([1.0, -2.0])
        ef.Tensor([-1.  2.], shape=(2,), dtype=float32)
    """
    return execute(_neg, (x,))


_abs = primitive("Abs", elementwise=True)(np.abs)


_abs.jvp(forwardprop.DIAGONAL)  # JVP: elementwise: the gradient rule with dy = tangent


@_abs.gradient
def _abs_grad(dy, out, x):
    return _math.multiply(dy, sign(x))


def abs(x: TensorLike, name: str | None = None) -> Tensor:  # noqa: A001 - TensorFlow's name
    """Returns ``|x|`` elementwise.

    Examples:
        >>> import eagerflow as ef
        >>> ef.abs([-1.5, 2.0])
        ef.Tensor([1.5 2. ], shape=(2,), dtype=float32)
    """
    return execute(_abs, (x,))


@primitive("Sign", elementwise=True, ufunc=np.sign)
def _sign(x):
    return np.sign(x)


_sign.jvp(forwardprop.DIAGONAL)  # JVP: elementwise: the gradient rule with dy = tangent


@_sign.gradient
def _sign_grad(dy, out, x):
    return _creation.zeros_like(x)  # piecewise constant: zero almost everywhere, like TensorFlow


def sign(x: TensorLike, name: str | None = None) -> Tensor:
    """Returns -1, 0 or 1 elementwise, by the sign of `x` (its gradient is zero).

    Examples:
        >>> import eagerflow as ef
        >>> ef.sign([-3.0, 0.0, 2.0])
        ef.Tensor([-1.  0.  1.], shape=(3,), dtype=float32)
    """
    return execute(_sign, (x,))


_exp = primitive("Exp", elementwise=True)(np.exp)


_exp.jvp(forwardprop.DIAGONAL)  # JVP: elementwise: the gradient rule with dy = tangent


@_exp.gradient
def _exp_grad(dy, out, x):
    return _math.multiply(dy, out)  # d/dx e^x = e^x: reuse the output


def exp(x: TensorLike, name: str | None = None) -> Tensor:
    """Returns ``e ** x`` elementwise.

    Examples:
        >>> import eagerflow as ef
        >>> ef.exp([0.0, 1.0])
        ef.Tensor([1.       2.7183], shape=(2,), dtype=float32)
    """
    return execute(_exp, (x,))


@primitive("Expm1", elementwise=True, ufunc=np.expm1)
def _expm1(x):
    return np.expm1(x)


_expm1.jvp(forwardprop.DIAGONAL)  # JVP: elementwise: the gradient rule with dy = tangent


@_expm1.gradient
def _expm1_grad(dy, out, x):
    return _math.multiply(dy, _math.add(out, 1))  # d/dx (e^x - 1) = e^x


def expm1(x: TensorLike, name: str | None = None) -> Tensor:
    """Returns ``e ** x - 1`` elementwise, accurate for small `x`.

    Examples:
        >>> import eagerflow as ef
        >>> float(ef.expm1(1e-10)) > 0
        True
    """
    return execute(_expm1, (x,))


_log = primitive("Log", elementwise=True)(np.log)


_log.jvp(forwardprop.DIAGONAL)  # JVP: elementwise: the gradient rule with dy = tangent


@_log.gradient
def _log_grad(dy, out, x):
    return _math.divide(dy, x)


def log(x: TensorLike, name: str | None = None) -> Tensor:
    """Returns the natural logarithm of `x` elementwise.

    Examples:
        >>> import eagerflow as ef
        >>> ef.log([1.0, 100.0])
        ef.Tensor([0.        4.6052], shape=(2,), dtype=float32)
    """
    return execute(_log, (x,))


@primitive("Log1p", elementwise=True, ufunc=np.log1p)
def _log1p(x):
    return np.log1p(x)


_log1p.jvp(forwardprop.DIAGONAL)  # JVP: elementwise: the gradient rule with dy = tangent


@_log1p.gradient
def _log1p_grad(dy, out, x):
    return _math.divide(dy, _math.add(x, 1))


def log1p(x: TensorLike, name: str | None = None) -> Tensor:
    """Returns ``log(1 + x)`` elementwise, accurate for small `x`.

    Examples:
        >>> import eagerflow as ef
        >>> ef.log1p([0.0])
        ef.Tensor([0.], shape=(1,), dtype=float32)
    """
    return execute(_log1p, (x,))


_sqrt = primitive("Sqrt", elementwise=True)(np.sqrt)


_sqrt.jvp(forwardprop.DIAGONAL)  # JVP: elementwise: the gradient rule with dy = tangent


@_sqrt.gradient
def _sqrt_grad(dy, out, x):
    return _math.divide(_math.multiply(dy, 0.5), out)  # d/dx sqrt(x) = 1 / (2 sqrt(x))


def sqrt(x: TensorLike, name: str | None = None) -> Tensor:
    """Returns the square root of `x` elementwise.

    Examples:
        >>> import eagerflow as ef
        >>> ef.sqrt([4.0, 9.0])
        ef.Tensor([2. 3.], shape=(2,), dtype=float32)
    """
    return execute(_sqrt, (x,))


@primitive("Rsqrt", fresh=True, returns_array=True)
def _rsqrt(x):
    return np.reciprocal(np.sqrt(x))


_rsqrt.jvp(forwardprop.DIAGONAL)  # JVP: elementwise: the gradient rule with dy = tangent


@_rsqrt.gradient
def _rsqrt_grad(dy, out, x):
    # d/dx x^(-1/2) = -x^(-3/2) / 2 = -y^3 / 2
    return _math.multiply(dy, _math.multiply(-0.5, _math.multiply(out, square(out))))


def rsqrt(x: TensorLike, name: str | None = None) -> Tensor:
    """Returns ``1 / sqrt(x)`` elementwise.

    Examples:
        >>> import eagerflow as ef
        >>> ef.rsqrt([4.0])
        ef.Tensor([0.5], shape=(1,), dtype=float32)
    """
    return execute(_rsqrt, (x,))


@primitive("Reciprocal", elementwise=True, ufunc=np.reciprocal)
def _reciprocal(x):
    return np.reciprocal(x)


_reciprocal.jvp(forwardprop.DIAGONAL)  # JVP: elementwise: the gradient rule with dy = tangent


@_reciprocal.gradient
def _reciprocal_grad(dy, out, x):
    return negative(_math.multiply(dy, square(out)))  # d/dx 1/x = -1/x^2


def reciprocal(x: TensorLike, name: str | None = None) -> Tensor:
    """Returns ``1 / x`` elementwise.

    Examples:
        >>> import eagerflow as ef
        >>> ef.math.reciprocal([2.0, 4.0])
        ef.Tensor([0.5  0.25], shape=(2,), dtype=float32)
    """
    return execute(_reciprocal, (x,))


_square = primitive("Square", elementwise=True)(np.square)


_square.jvp(forwardprop.DIAGONAL)  # JVP: elementwise: the gradient rule with dy = tangent


@_square.gradient
def _square_grad(dy, out, x):
    return _math.multiply(dy, _math.multiply(x, 2.0))


def square(x: TensorLike, name: str | None = None) -> Tensor:
    """Returns ``x * x`` elementwise.

    Examples:
        >>> import eagerflow as ef
        >>> ef.square([2.0, -3.0])
        ef.Tensor([4. 9.], shape=(2,), dtype=float32)
    """
    return execute(_square, (x,))


@primitive("Sin", elementwise=True, ufunc=np.sin)
def _sin(x):
    return np.sin(x)


_sin.jvp(forwardprop.DIAGONAL)  # JVP: elementwise: the gradient rule with dy = tangent


@_sin.gradient
def _sin_grad(dy, out, x):
    return _math.multiply(dy, cos(x))


def sin(x: TensorLike, name: str | None = None) -> Tensor:
    """Returns the sine of `x` (radians) elementwise.

    Examples:
        >>> import eagerflow as ef
        >>> ef.sin([0.0])
        ef.Tensor([0.], shape=(1,), dtype=float32)
    """
    return execute(_sin, (x,))


@primitive("Cos", elementwise=True, ufunc=np.cos)
def _cos(x):
    return np.cos(x)


_cos.jvp(forwardprop.DIAGONAL)  # JVP: elementwise: the gradient rule with dy = tangent


@_cos.gradient
def _cos_grad(dy, out, x):
    return negative(_math.multiply(dy, sin(x)))


def cos(x: TensorLike, name: str | None = None) -> Tensor:
    """Returns the cosine of `x` (radians) elementwise.

    Examples:
        >>> import eagerflow as ef
        >>> ef.cos([0.0])
        ef.Tensor([1.], shape=(1,), dtype=float32)
    """
    return execute(_cos, (x,))


@primitive("Tan", elementwise=True, ufunc=np.tan)
def _tan(x):
    return np.tan(x)


_tan.jvp(forwardprop.DIAGONAL)  # JVP: elementwise: the gradient rule with dy = tangent


@_tan.gradient
def _tan_grad(dy, out, x):
    return _math.multiply(dy, _math.add(square(out), 1))  # d/dx tan = 1 + tan^2


def tan(x: TensorLike, name: str | None = None) -> Tensor:
    """Returns the tangent of `x` (radians) elementwise.

    Examples:
        >>> import eagerflow as ef
        >>> ef.tan([0.0])
        ef.Tensor([0.], shape=(1,), dtype=float32)
    """
    return execute(_tan, (x,))


_tanh = primitive("Tanh", elementwise=True)(np.tanh)


_tanh.jvp(forwardprop.DIAGONAL)  # JVP: elementwise: the gradient rule with dy = tangent


@_tanh.gradient
def _tanh_grad(dy, out, x):
    return _math.multiply(dy, _math.subtract(1, square(out)))  # 1 - tanh^2


def tanh(x: TensorLike, name: str | None = None) -> Tensor:
    """Returns the hyperbolic tangent of `x` elementwise.

    Examples:
        >>> import eagerflow as ef
        >>> ef.tanh([0.0])
        ef.Tensor([0.], shape=(1,), dtype=float32)
    """
    return execute(_tanh, (x,))


@primitive("Sigmoid", fresh=True, returns_array=True)
def _sigmoid(x):
    # 1 / (1 + e^-x) overflows for very negative x; e^-|x| never does.
    # For x < 0, sigmoid(x) = e^x / (1 + e^x) = e * r with r = 1 / (1 + e^-|x|).
    # Flattened because NumPy answers 0-d inputs with scalars, which take no `out=`.
    flat = x.reshape(-1)
    e = np.exp(-np.abs(flat))
    r = 1 / (1 + e)
    np.multiply(e, r, out=r, where=flat < 0)
    return r.reshape(x.shape)


_sigmoid.jvp(forwardprop.DIAGONAL)  # JVP: elementwise: the gradient rule with dy = tangent


@_sigmoid.gradient
def _sigmoid_grad(dy, out, x):
    return _math.multiply(dy, _math.multiply(out, _math.subtract(1, out)))  # s (1 - s)


def sigmoid(x: TensorLike, name: str | None = None) -> Tensor:
    """Returns ``1 / (1 + exp(-x))`` elementwise, without overflow for any `x`.

    Examples:
        >>> import eagerflow as ef
        >>> ef.sigmoid([0.0, -1000.0])
        ef.Tensor([0.5 0. ], shape=(2,), dtype=float32)

    The result remembers `x` as its logits (`eagerflow.core.logits`), so a binary
    cross-entropy of it is computed from `x`, exactly, as Keras does in a traced step.
    """
    if not isinstance(x, _Tensor):
        x = convert_input(x)
    y = execute(_sigmoid, (x,))
    logits.remember(y, x, logits.SIGMOID)
    return y


@primitive("Floor", differentiable=False, elementwise=True, ufunc=np.floor)
def _floor(x):
    return np.floor(x)


def floor(x: TensorLike, name: str | None = None) -> Tensor:
    """Rounds `x` down elementwise (not differentiable).

    Examples:
        >>> import eagerflow as ef
        >>> ef.floor([1.5, -1.5])
        ef.Tensor([ 1. -2.], shape=(2,), dtype=float32)
    """
    return execute(_floor, (x,))


@primitive("Ceil", differentiable=False, elementwise=True, ufunc=np.ceil)
def _ceil(x):
    return np.ceil(x)


def ceil(x: TensorLike, name: str | None = None) -> Tensor:
    """Rounds `x` up elementwise (not differentiable).

    Examples:
        >>> import eagerflow as ef
        >>> ef.ceil([1.5, -1.5])
        ef.Tensor([ 2. -1.], shape=(2,), dtype=float32)
    """
    return execute(_ceil, (x,))


@primitive("Round", differentiable=False, fresh=True, returns_array=True)
def _round(x):
    return np.round(x)


def round(x: TensorLike, name: str | None = None) -> Tensor:  # noqa: A001 - TensorFlow's name
    """Rounds `x` to the nearest integer, halves to even (not differentiable).

    Examples:
        >>> import eagerflow as ef
        >>> ef.round([0.5, 1.5, 2.4])
        ef.Tensor([0. 2. 2.], shape=(3,), dtype=float32)
    """
    return execute(_round, (x,))


# -- hyperbolic and inverse trigonometric functions --------------------------------------
# NumPy's ufuncs, not formulas of exp and log: ``log(x + sqrt(x^2 + 1))`` is -inf at
# x = -1e4 in float32 and ``(e^x - e^-x) / 2`` is 0 at x = 1e-8.
def _unary_ufunc(name: str, ufunc: np.ufunc, derivative):
    """Declares an elementwise op whose forward is `ufunc` and whose gradient is
    ``dy * derivative(x, out)`` (written in eagerflow ops, so higher orders work)."""
    op = primitive(name, elementwise=True, ufunc=ufunc)(ufunc)
    op.jvp(forwardprop.DIAGONAL)  # JVP: elementwise: the gradient rule with dy = tangent

    @op.gradient
    def _grad(dy, out, x):
        return _math.multiply(dy, derivative(x, out))

    return op


def _one_minus_square(x):
    return _math.subtract(1.0, square(x))


_sinh = _unary_ufunc("Sinh", np.sinh, lambda x, out: cosh(x))
_cosh = _unary_ufunc("Cosh", np.cosh, lambda x, out: sinh(x))
_asin = _unary_ufunc("Asin", np.arcsin, lambda x, out: rsqrt(_one_minus_square(x)))
_acos = _unary_ufunc("Acos", np.arccos,
                     lambda x, out: negative(rsqrt(_one_minus_square(x))))
_atan = _unary_ufunc("Atan", np.arctan,
                     lambda x, out: reciprocal(_math.add(square(x), 1.0)))
_asinh = _unary_ufunc("Asinh", np.arcsinh, lambda x, out: rsqrt(_math.add(square(x), 1.0)))
_acosh = _unary_ufunc("Acosh", np.arccosh,
                      lambda x, out: rsqrt(_math.subtract(square(x), 1.0)))
_atanh = _unary_ufunc("Atanh", np.arctanh, lambda x, out: reciprocal(_one_minus_square(x)))


def sinh(x: TensorLike, name: str | None = None) -> Tensor:
    """Returns the hyperbolic sine of `x` elementwise.

    Examples:
        >>> import eagerflow as ef
        >>> ef.sinh([0.0])
        ef.Tensor([0.], shape=(1,), dtype=float32)
    """
    return execute(_sinh, (x,))


def cosh(x: TensorLike, name: str | None = None) -> Tensor:
    """Returns the hyperbolic cosine of `x` elementwise.

    Examples:
        >>> import eagerflow as ef
        >>> ef.cosh([0.0])
        ef.Tensor([1.], shape=(1,), dtype=float32)
    """
    return execute(_cosh, (x,))


def asin(x: TensorLike, name: str | None = None) -> Tensor:
    """Returns the arcsine of `x` (in [-1, 1]; NaN outside) elementwise, in radians.

    Examples:
        >>> import eagerflow as ef
        >>> ef.asin([0.0])
        ef.Tensor([0.], shape=(1,), dtype=float32)
    """
    return execute(_asin, (x,))


def acos(x: TensorLike, name: str | None = None) -> Tensor:
    """Returns the arccosine of `x` (in [-1, 1]; NaN outside) elementwise, in radians.

    Examples:
        >>> import eagerflow as ef
        >>> ef.acos([1.0])
        ef.Tensor([0.], shape=(1,), dtype=float32)
    """
    return execute(_acos, (x,))


def atan(x: TensorLike, name: str | None = None) -> Tensor:
    """Returns the arctangent of `x` elementwise, in radians.

    Examples:
        >>> import eagerflow as ef
        >>> ef.atan([0.0])
        ef.Tensor([0.], shape=(1,), dtype=float32)
    """
    return execute(_atan, (x,))


def asinh(x: TensorLike, name: str | None = None) -> Tensor:
    """Returns the inverse hyperbolic sine of `x` elementwise.

    Examples:
        >>> import eagerflow as ef
        >>> ef.asinh([0.0])
        ef.Tensor([0.], shape=(1,), dtype=float32)
    """
    return execute(_asinh, (x,))


def acosh(x: TensorLike, name: str | None = None) -> Tensor:
    """Returns the inverse hyperbolic cosine of `x` (>= 1; NaN below) elementwise.

    Examples:
        >>> import eagerflow as ef
        >>> ef.acosh([1.0])
        ef.Tensor([0.], shape=(1,), dtype=float32)
    """
    return execute(_acosh, (x,))


def atanh(x: TensorLike, name: str | None = None) -> Tensor:
    """Returns the inverse hyperbolic tangent of `x` (in (-1, 1)) elementwise.

    Examples:
        >>> import eagerflow as ef
        >>> ef.atanh([0.0])
        ef.Tensor([0.], shape=(1,), dtype=float32)
    """
    return execute(_atanh, (x,))
