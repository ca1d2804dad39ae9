"""Elementwise math ops: arithmetic, casts and selection.

The unary functions (exp, log, sqrt, sin, sigmoid, ...) live in `ops/unary.py` and
the comparisons and logic in `ops/logic.py`; `ef.math` gathers all three.

Binary ops broadcast like NumPy and promote by eagerflow's dtype table (`core/dtypes.py`):
a Python number is weak (``float32_tensor * 2.0`` stays float32), and an integer meeting
a float becomes that float's dtype (``int32_tensor * 1.5`` is float32, not NumPy's
float64). Every gradient rule below returns gradients of the broadcast shape; the tape
sums them back to each input's shape.

Examples:
    >>> import eagerflow as ef
    >>> ef.add([1.0, 2.0], 1.0)
    ef.Tensor([2. 3.], shape=(2,), dtype=float32)
    >>> ef.maximum(ef.constant([1, 5]), 3)
    ef.Tensor([3 5], shape=(2,), dtype=int32)
"""

from __future__ import annotations

import numpy as np

from eagerflow.core import dtypes, errors, forwardprop
from eagerflow.core.dispatch import convert_input, execute, primitive
from eagerflow.ops.logic import (
    greater,
    greater_equal,
    less_equal,
    logical_not,
)
from eagerflow.ops.typing import DTypeLike, Tensor, TensorLike
from eagerflow.ops.unary import (
    floor,
    log,
    negative,
)

# -- arithmetic ---------------------------------------------------------------------------
# Ops whose forward is exactly one NumPy ufunc use the ufunc itself as the forward: no
# Python frame between the dispatcher and NumPy (~70 ns per op).
_add = primitive("AddV2", elementwise=True, neutral={0: 0, 1: 0})(np.add)


_add.jvp(forwardprop.DIAGONAL)  # JVP: elementwise: the gradient rule with dy = tangent


@_add.gradient
def _add_grad(dy, out, x, y):
    return dy, dy


def add(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """Returns ``x + y`` elementwise, with broadcasting.

    Examples:
        >>> import eagerflow as ef
        >>> ef.add([1, 2], [[10], [20]])
        ef.Tensor(
        [[11 12]
         [21 22]], shape=(2, 2), dtype=int32)
    """
    return execute(_add, (x, y))


def add_n(inputs: list, name: str | None = None) -> Tensor:
    """The elementwise sum of a list of tensors of one shape and dtype (no broadcasting),
    as ``tf.math.add_n``.

    Raises:
        ValueError: for an empty list, or something that is not a list of tensors.
        InvalidArgumentError: for inputs of different shapes or dtypes, naming them.

    Examples:
        >>> import eagerflow as ef
        >>> ef.add_n([ef.constant([1.0, 2.0]), ef.constant([3.0, 4.0])])
        ef.Tensor([4. 6.], shape=(2,), dtype=float32)
    """
    del name
    if not isinstance(inputs, (list, tuple)) or not inputs:
        raise ValueError("add_n: inputs must be a list of at least one tensor of one dtype "
                         f"and shape, got {type(inputs).__name__} {inputs!r:.80}")
    tensors = [convert_input(x) for x in inputs]
    first = tensors[0]
    for i, x in enumerate(tensors[1:], 1):
        if x.dtype != first.dtype:
            raise errors.InvalidArgumentError(
                f"input #{i} (zero-based) was expected to be a {first.dtype.name} tensor but "
                f"is a {x.dtype.name} tensor", "AddN")
        if tuple(x.shape) != tuple(first.shape):
            raise errors.InvalidArgumentError(
                f"Inputs must have the same size and shape. Input 0: {list(first.shape)} != "
                f"input {i}: {list(x.shape)}", "AddN")
    total = first
    for x in tensors[1:]:
        total = add(total, x)
    return total


_sub = primitive("Sub", elementwise=True, neutral={1: 0})(np.subtract)


_sub.jvp(forwardprop.DIAGONAL)  # JVP: elementwise: the gradient rule with dy = tangent


@_sub.gradient
def _sub_grad(dy, out, x, y):
    return dy, negative(dy)


def subtract(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """Returns ``x - y`` elementwise, with broadcasting.

    Examples:
        >>> import eagerflow as ef
        >>> ef.subtract(5.0, [1.0, 2.0])
        ef.Tensor([4. 3.], shape=(2,), dtype=float32)
    """
    return execute(_sub, (x, y))


_mul = primitive("Mul", elementwise=True, neutral={0: 1, 1: 1})(np.multiply)


_mul.jvp(forwardprop.DIAGONAL)  # JVP: elementwise: the gradient rule with dy = tangent


@_mul.gradient
def _mul_grad(dy, out, x, y, needs):
    return (multiply(dy, y) if needs[0] else None), (multiply(dy, x) if needs[1] else None)


def multiply(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """Returns ``x * y`` elementwise, with broadcasting.

    Examples:
        >>> import eagerflow as ef
        >>> ef.multiply([1.0, 2.0], 3.0)
        ef.Tensor([3. 6.], shape=(2,), dtype=float32)
    """
    return execute(_mul, (x, y))


_div = primitive("RealDiv", elementwise=True, neutral={1: 1})(np.true_divide)


_div.jvp(forwardprop.DIAGONAL)  # JVP: elementwise: the gradient rule with dy = tangent


@_div.gradient
def _div_grad(dy, out, x, y, needs):
    # d(x/y)/dx = 1/y ; d(x/y)/dy = -x/y^2 = -out/y
    dx = divide(dy, y) if needs[0] else None
    dyy = negative(divide(multiply(dy, out), y)) if needs[1] else None
    return dx, dyy


def divide(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """Returns ``x / y`` elementwise (true division: integers give float64, like NumPy).

    Examples:
        >>> import eagerflow as ef
        >>> ef.divide([1.0, 3.0], 2.0)
        ef.Tensor([0.5 1.5], shape=(2,), dtype=float32)
    """
    return execute(_div, (x, y))


truediv = divide
"""TensorFlow's name for `divide` (true division, ``x / y``); the same function."""


# FloorDiv and FloorMod declare no `ufunc`: graphs call their forwards, which refuse an
# integer division by zero instead of NumPy's silent 0.
@primitive("FloorDiv", differentiable=False, fresh=True)
def _floordiv(x, y):
    _check_integer_divisor(x, y)
    return np.floor_divide(x, y)


def _check_integer_divisor(x, y):
    # NumPy returns 0 for an integer division by zero; that would be a silent wrong answer.
    divisor = np.asarray(y)
    if divisor.dtype.kind in "iub" and np.asarray(x).dtype.kind in "iub" and not divisor.all():
        raise errors.InvalidArgumentError("Integer division by zero")


def floordiv(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """Returns ``x // y`` elementwise (rounds toward negative infinity; not differentiable).

    Raises:
        InvalidArgumentError: for an integer division by zero.

    Examples:
        >>> import eagerflow as ef
        >>> ef.floordiv([7, -7], 2)
        ef.Tensor([ 3 -4], shape=(2,), dtype=int32)
    """
    return execute(_floordiv, (x, y))


@primitive("FloorMod", elementwise=True)
def _mod(x, y, out=None):
    _check_integer_divisor(x, y)
    return np.mod(x, y, out=out)


_mod.jvp(forwardprop.DIAGONAL)  # JVP: elementwise: the gradient rule with dy = tangent


@_mod.gradient
def _mod_grad(dy, out, x, y, needs):
    # x mod y = x - floor(x / y) * y
    dx = dy if needs[0] else None
    dyy = multiply(negative(dy), floor(divide(x, y))) if needs[1] else None
    return dx, dyy


def mod(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """Returns ``x % y`` elementwise, with the sign of `y` (like Python and NumPy).

    Raises:
        InvalidArgumentError: for an integer division by zero.

    Examples:
        >>> import eagerflow as ef
        >>> ef.mod([7, -7], 3)
        ef.Tensor([1 2], shape=(2,), dtype=int32)
    """
    return execute(_mod, (x, y))


_pow = primitive("Pow", elementwise=True, neutral={1: 1})(np.power)


_pow.jvp(forwardprop.DIAGONAL)  # JVP: elementwise: the gradient rule with dy = tangent


@_pow.gradient
def _pow_grad(dy, out, x, y, needs):
    # d(x^y)/dx = y * x^(y-1) ; d(x^y)/dy = x^y * log(x), taken as 0 where x <= 0
    dx = multiply(dy, multiply(y, pow(x, subtract(y, 1)))) if needs[0] else None
    dyy = None
    if needs[1]:
        positive = greater(x, 0)
        safe_x = where(positive, x, 1)
        dyy = multiply(dy, where(positive, multiply(out, log(safe_x)), 0))
    return dx, dyy


def pow(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """Returns ``x ** y`` elementwise.

    Examples:
        >>> import eagerflow as ef
        >>> ef.pow([2.0, 3.0], 2.0)
        ef.Tensor([4. 9.], shape=(2,), dtype=float32)
    """
    return execute(_pow, (x, y))


_atan2 = primitive("Atan2", elementwise=True)(np.arctan2)


_atan2.jvp(forwardprop.DIAGONAL)  # JVP: elementwise: the gradient rule with dy = tangent


@_atan2.gradient
def _atan2_grad(dy, out, y, x, needs):
    # d atan2(y, x) = (x dy - y dx) / (x^2 + y^2)
    scale = divide(dy, add(multiply(x, x), multiply(y, y)))
    return (multiply(scale, x) if needs[0] else None,
            negative(multiply(scale, y)) if needs[1] else None)


def atan2(y: TensorLike, x: TensorLike, name: str | None = None) -> Tensor:
    """Returns the angle of the point ``(x, y)`` from the positive x axis, in ``[-pi, pi]``
    radians, elementwise (TensorFlow's argument order: `y` first).

    Examples:
        >>> import eagerflow as ef
        >>> ef.atan2([0.0, 0.0], [1.0, -1.0]) / 3.1415927
        ef.Tensor([0. 1.], shape=(2,), dtype=float32)
    """
    return execute(_atan2, (y, x))


@primitive("SquaredDifference", fresh=True, returns_array=True)
def _squared_difference(x, y):
    d = np.subtract(x, y)
    return np.multiply(d, d, out=d if isinstance(d, np.ndarray) else None)


_squared_difference.jvp(forwardprop.DIAGONAL)  # JVP: elementwise: the gradient rule with dy = tangent


@_squared_difference.gradient
def _squared_difference_grad(dy, out, x, y):
    g = multiply(multiply(dy, 2.0), subtract(x, y))
    return g, negative(g)


def squared_difference(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """Returns ``(x - y) ** 2`` elementwise.

    Examples:
        >>> import eagerflow as ef
        >>> ef.math.squared_difference([1.0, 4.0], 2.0)
        ef.Tensor([1. 4.], shape=(2,), dtype=float32)
    """
    return execute(_squared_difference, (x, y))


_maximum = primitive("Maximum", elementwise=True)(np.maximum)


_maximum.jvp(forwardprop.DIAGONAL)  # JVP: elementwise: the gradient rule with dy = tangent


@_maximum.gradient
def _maximum_grad(dy, out, x, y, needs):
    # Ties send the gradient to x, like TensorFlow.
    return _masked_pair(dy, greater_equal(x, y), needs[0], needs[1])


def _masked_pair(dy, take_first, first, second):
    """``(dy where take_first, dy elsewhere)``, each only if wanted.

    Multiplying by the bool mask is ~8x faster than NumPy's `where` on large arrays and
    is the same for finite `dy`; the tape casts the result back to each input's dtype.
    """
    dx = multiply(dy, take_first) if first else None
    dyy = multiply(dy, logical_not(take_first)) if second else None
    return dx, dyy


def maximum(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """Returns the elementwise maximum of `x` and `y`.

    Examples:
        >>> import eagerflow as ef
        >>> ef.maximum([1.0, 5.0], 3.0)
        ef.Tensor([3. 5.], shape=(2,), dtype=float32)
    """
    return execute(_maximum, (x, y))


_minimum = primitive("Minimum", elementwise=True)(np.minimum)


_minimum.jvp(forwardprop.DIAGONAL)  # JVP: elementwise: the gradient rule with dy = tangent


@_minimum.gradient
def _minimum_grad(dy, out, x, y, needs):
    return _masked_pair(dy, less_equal(x, y), needs[0], needs[1])


def minimum(x: TensorLike, y: TensorLike, name: str | None = None) -> Tensor:
    """Returns the elementwise minimum of `x` and `y`.

    Examples:
        >>> import eagerflow as ef
        >>> ef.minimum([1.0, 5.0], 3.0)
        ef.Tensor([1. 3.], shape=(2,), dtype=float32)
    """
    return execute(_minimum, (x, y))


def clip_by_value(t: TensorLike, clip_value_min: TensorLike, clip_value_max: TensorLike,
                  name: str | None = None) -> Tensor:
    """Clips `t` elementwise to ``[clip_value_min, clip_value_max]``.

    The gradient flows only where `t` lies inside the interval.

    Examples:
        >>> import eagerflow as ef
        >>> ef.clip_by_value([-2.0, 0.5, 3.0], -1.0, 1.0)
        ef.Tensor([-1.   0.5  1. ], shape=(3,), dtype=float32)
    """
    return minimum(maximum(t, clip_value_min), clip_value_max)


# -- dtype and selection ------------------------------------------------------------------
@primitive("Cast", fresh=True, elidable="dtype", returns_array=True)
def _cast(x, dtype):
    if (dtype.kind == "O") != (x.dtype.kind == "O"):  # text and numbers do not cast
        raise errors.UnimplementedError(
            f"Cast {dtypes.public(x.dtype).name} to {dtypes.public(dtype).name} is not "
            "supported: use ef.strings.as_string or ef.strings.to_number")
    return x.astype(dtype)


_cast.jvp(forwardprop.DIAGONAL)  # JVP: elementwise: the gradient rule with dy = tangent


@_cast.gradient
def _cast_grad(dy, out, x, dtype):
    if x.dtype.kind in "fc" and dtype.kind in "fc":
        return cast(dy, x.dtype)
    return None


def cast(x: TensorLike, dtype: DTypeLike, name: str | None = None) -> Tensor:
    """Casts `x` to `dtype` (floats to ints truncate toward zero).

    Examples:
        >>> import eagerflow as ef
        >>> ef.cast([1.7, -1.7], ef.int32)
        ef.Tensor([ 1 -1], shape=(2,), dtype=int32)
    """
    return execute(_cast, (x,), {"dtype": dtypes.as_dtype(dtype)})


@primitive("SelectV2", fresh=True, returns_array=True)
def _select(condition, x, y):
    return np.where(condition, x, y)


_select.jvp(forwardprop.DIAGONAL)  # JVP: elementwise: the gradient rule with dy = tangent


@_select.gradient
def _select_grad(dy, out, condition, x, y, needs):
    return (None, *_masked_pair(dy, condition, needs[1], needs[2]))


@primitive("Where", differentiable=False, value_shaped_axis=0)
def _where_indices(condition):
    return np.argwhere(condition).astype(np.int64)


def where(condition: TensorLike, x: TensorLike | None = None, y: TensorLike | None = None,
          name: str | None = None) -> Tensor:
    """Picks `x` where `condition` is true and `y` elsewhere, with broadcasting.

    With only `condition`, returns the int64 coordinates of its true elements, one row
    per element.

    Raises:
        InvalidArgumentError: if only one of `x` and `y` is given.

    Examples:
        >>> import eagerflow as ef
        >>> ef.where([True, False], [1.0, 2.0], [10.0, 20.0])
        ef.Tensor([ 1. 20.], shape=(2,), dtype=float32)
        >>> ef.where([[True, False], [False, True]])
        ef.Tensor(
        [[0 0]
         [1 1]], shape=(2, 2), dtype=int64)
    """
    if x is None and y is None:
        return execute(_where_indices, (condition,))
    if x is None or y is None:
        raise errors.InvalidArgumentError("where() needs both `x` and `y`, or neither.",
                                          "SelectV2")
    return execute(_select, (condition, x, y))

