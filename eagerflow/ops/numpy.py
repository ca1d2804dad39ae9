"""Keras 3's NumPy-style ops (`keras.ops.numpy`, also `ef.ops.<name>`): Keras's names,
signatures and dtype rules on eagerflow's differentiable ops.

Reductions take `axis=None` (all axes), an int or a tuple, and `keepdims`; `argmax`,
`cumsum` and `take` flatten for `axis=None`, as NumPy. Binary ops promote with Keras's
`result_type` (`eagerflow.ops.keras_core`); float functions of integers give float32.

Examples:
    >>> import eagerflow as ef
    >>> x = ef.constant([[1, 2], [3, 4]])
    >>> ef.ops.sum(x, axis=0)
    ef.Tensor([4 6], shape=(2,), dtype=int32)
    >>> ef.ops.mean(x)
    ef.Tensor(2.5, shape=(), dtype=float32)
    >>> ef.ops.add(x, 0.5)[0]
    ef.Tensor([1.5 2.5], shape=(2,), dtype=float32)
"""

from __future__ import annotations

import builtins
import math as _pymath
from collections.abc import Sequence
from typing import Any

import numpy as np

from eagerflow.ops import array_ops as _array
from eagerflow.ops import creation as _creation
from eagerflow.ops import decompositions as _decompositions
from eagerflow.ops import einsum_ops as _einsum
from eagerflow.ops import indexing as _indexing
from eagerflow.ops import keras_core as _core
from eagerflow.ops import keras_missing as _keras_missing
from eagerflow.ops import linalg_ops as _linalg
from eagerflow.ops import logic as _logic
from eagerflow.ops import math as _math
from eagerflow.ops import reduce as _reduce
from eagerflow.ops import safe_math as _safe_math
from eagerflow.ops import unary as _unary
from eagerflow.ops.keras_trig import (
    arccos,
    arccosh,
    arcsin,
    arcsinh,
    arctan,
    arctan2,
    arctanh,
    cos,
    cosh,
    sin,
    sinh,
    tan,
    tanh,
)
from eagerflow.ops.keras_arrays import (
    arange,
    array,
    bitwise_and,
    bitwise_invert,
    bitwise_not,
    bitwise_or,
    bitwise_xor,
    copy,
    diag,
    diagflat,
    dsplit,
    dstack,
    empty,
    empty_like,
    eye,
    fabs,
    fliplr,
    flipud,
    fmax,
    fmin,
    fmod,
    full,
    full_like,
    geomspace,
    hsplit,
    identity,
    isneginf,
    isposinf,
    kron,
    ldexp,
    linspace,
    logaddexp2,
    logspace,
    meshgrid,
    ones,
    ones_like,
    rot90,
    sinc,
    trapezoid,
    tri,
    tril,
    triu,
    vander,
    vsplit,
    zeros,
    zeros_like,
)
# Several names a line below: this module is at its 1,000-line budget.
from eagerflow.ops.keras_data import argpartition, bincount, histogram, nonzero, unique
from eagerflow.ops.keras_numbers import (  # noqa: I001
    bartlett, bitwise_left_shift, bitwise_right_shift, blackman, conj, conjugate, digitize,
    gcd, hamming, hanning, i0, imag, isin, isreal, kaiser, lcm, left_shift, nextafter, real,
    right_shift, searchsorted, signbit, unravel_index,
)
from eagerflow.ops.keras_products import corrcoef, correlate, cross
from eagerflow.ops.keras_stats import (  # noqa: I001
    median, nanargmax, nanargmin, nancumprod, nancumsum, nanmax, nanmean, nanmedian, nanmin,
    nanpercentile, nanprod, nanquantile, nanstd, nansum, nanvar, percentile, quantile,
)
from eagerflow.ops.factorizations import slogdet as _slogdet
from eagerflow.ops.typing import AxisLike, DTypeLike, Tensor, TensorLike

_t = _creation.convert_to_tensor
_f = _core.as_float
_binary = _core.binary


def _sum_dtype(x: Tensor) -> Any:
    """Keras's accumulator dtype: small ints and bools sum in int32, uint8 in uint32."""
    if x.dtype.kind == "b" or x.dtype in (np.int8, np.int16):
        return np.dtype("int32")
    if x.dtype == np.uint8:
        return np.dtype("uint32")
    return x.dtype


def _scan_dtype(x: Tensor) -> Any:
    """Keras's running sums and products: bools accumulate in int32, the rest as they are."""
    return np.dtype("int32") if x.dtype.kind == "b" else x.dtype


def _flat(x: Tensor) -> Tensor:
    return _array.reshape(x, [-1])


def _axis_tuple(axis: AxisLike, ndim: int) -> tuple[int, ...]:
    if axis is None:
        return tuple(builtins.range(ndim))
    items: list[Any] = [axis] if isinstance(axis, (int, np.integer)) else list(axis)
    return tuple(int(a) % builtins.max(ndim, 1) for a in items)


# -- elementwise: one input ------------------------------------------------------------------
def abs(x: TensorLike) -> Tensor:  # noqa: A001
    """Absolute value, elementwise (`keras.ops.abs`)."""
    return _unary.abs(x)


absolute = abs
"""Absolute value, elementwise (`keras.ops.absolute`, the same function as `abs`)."""


def negative(x: TensorLike) -> Tensor:
    """`-x`, elementwise (`keras.ops.negative`)."""
    return _unary.negative(x)


def sign(x: TensorLike) -> Tensor:
    """-1, 0 or 1 by the sign of `x` (`keras.ops.sign`)."""
    return _unary.sign(x)


def square(x: TensorLike) -> Tensor:
    """`x * x`; bools become int32 (`keras.ops.square`)."""
    x = _t(x)
    return _unary.square(_math.cast(x, "int32") if x.dtype.kind == "b" else x)


def sqrt(x: TensorLike) -> Tensor:
    """Square root; integers give float32 (`keras.ops.sqrt`)."""
    return _unary.sqrt(_f(x))


def exp(x: TensorLike) -> Tensor:
    """`e ** x` (`keras.ops.exp`)."""
    return _unary.exp(_f(x))


def exp2(x: TensorLike) -> Tensor:
    """`2 ** x` (`keras.ops.exp2`): a power of 2, not ``exp(x log 2)``, which loses ~30 ulp
    at x = 100 in float32."""
    x = _f(x)
    return _math.pow(_creation.constant(2.0, x.dtype), x)


def expm1(x: TensorLike) -> Tensor:
    """`exp(x) - 1`, accurate near 0 (`keras.ops.expm1`)."""
    return _unary.expm1(_f(x))


def log(x: TensorLike) -> Tensor:
    """Natural logarithm (`keras.ops.log`)."""
    return _unary.log(_f(x))


def _log_base(x: TensorLike, base: float) -> Tensor:
    x = _f(x)
    return _math.divide(_unary.log(x), _creation.constant(_pymath.log(base), x.dtype))


def log2(x: TensorLike) -> Tensor:
    """Base-2 logarithm (`keras.ops.log2`)."""
    return _log_base(x, 2.0)


def log10(x: TensorLike) -> Tensor:
    """Base-10 logarithm (`keras.ops.log10`)."""
    return _log_base(x, 10.0)


def log1p(x: TensorLike) -> Tensor:
    """`log(1 + x)`, accurate near 0 (`keras.ops.log1p`)."""
    return _unary.log1p(_f(x))


def reciprocal(x: TensorLike) -> Tensor:
    """`1 / x` (`keras.ops.reciprocal`)."""
    return _unary.reciprocal(_f(x))


def floor(x: TensorLike) -> Tensor:
    """Rounds down; integers give float32 (`keras.ops.floor`)."""
    return _unary.floor(_f(x))


def ceil(x: TensorLike) -> Tensor:
    """Rounds up; integers give float32 (`keras.ops.ceil`)."""
    return _unary.ceil(_f(x))


def trunc(x: TensorLike) -> Tensor:
    """Rounds toward zero; integers keep their dtype (`keras.ops.trunc`)."""
    x = _t(x)
    if x.dtype.kind != "f":
        return x
    return _math.multiply(_unary.sign(x), _unary.floor(_unary.abs(x)))


def round(x: TensorLike, decimals: int = 0) -> Tensor:  # noqa: A001
    """Rounds half to even, to `decimals` places (`keras.ops.round`)."""
    x = _t(x)
    if decimals == 0 or x.dtype.kind != "f":
        return _unary.round(x) if x.dtype.kind == "f" else x
    factor = _creation.constant(10.0 ** decimals, x.dtype)
    return _math.divide(_unary.round(_math.multiply(x, factor)), factor)


def cbrt(x: TensorLike) -> Tensor:
    """Cube root, real for negative `x` (`keras.ops.cbrt`)."""
    x = _f(x)
    return _math.multiply(_unary.sign(x), _math.pow(_unary.abs(x), 1.0 / 3.0))


def deg2rad(x: TensorLike) -> Tensor:
    """Degrees to radians (`keras.ops.deg2rad`)."""
    return _math.multiply(_f(x), np.pi / 180.0)


def rad2deg(x: TensorLike) -> Tensor:
    """Radians to degrees (`keras.ops.rad2deg`)."""
    return _math.multiply(_f(x), 180.0 / np.pi)


def isnan(x: TensorLike) -> Tensor:
    """Whether each entry is NaN (`keras.ops.isnan`)."""
    x = _t(x)
    return _logic.not_equal(x, x) if x.dtype.kind == "f" else _creation.zeros_like(x, "bool")


def isinf(x: TensorLike) -> Tensor:
    """Whether each entry is +-inf (`keras.ops.isinf`)."""
    x = _t(x)
    if x.dtype.kind != "f":
        return _creation.zeros_like(x, "bool")
    return _logic.equal(_unary.abs(x), _creation.constant(np.inf, x.dtype))


def isfinite(x: TensorLike) -> Tensor:
    """Whether each entry is neither NaN nor infinite (`keras.ops.isfinite`)."""
    return _logic.logical_not(_logic.logical_or(isnan(x), isinf(x)))


def logical_not(x: TensorLike) -> Tensor:
    """Elementwise NOT of truth values (`keras.ops.logical_not`)."""
    return _logic.logical_not(_math.cast(x, "bool"))


def clip(x: TensorLike, x_min: TensorLike, x_max: TensorLike) -> Tensor:
    """`x` limited to `[x_min, x_max]`; bools become int32 (`keras.ops.clip`)."""
    x = _t(x)
    if x.dtype.kind == "b":
        x = _math.cast(x, "int32")
    return _math.clip_by_value(x, _core.as_tensor(x_min, x.dtype), _core.as_tensor(x_max, x.dtype))


def nan_to_num(x: TensorLike, nan: float = 0.0, posinf: float | None = None,
               neginf: float | None = None) -> Tensor:
    """NaN and infinities replaced by finite numbers (`keras.ops.nan_to_num`)."""
    x = _t(x)
    if x.dtype.kind != "f":
        return x
    info = np.finfo(x.dtype)
    high = _creation.constant(info.max if posinf is None else posinf, x.dtype)
    low = _creation.constant(info.min if neginf is None else neginf, x.dtype)
    x = _math.where(isnan(x), _creation.constant(nan, x.dtype), x)
    x = _math.where(_logic.equal(x, np.inf), high, x)
    return _math.where(_logic.equal(x, -np.inf), low, x)


# -- elementwise: two inputs -----------------------------------------------------------------
def add(x1: TensorLike, x2: TensorLike) -> Tensor:
    """`x1 + x2` with Keras's dtype promotion (`keras.ops.add`)."""
    return _binary(_math.add, x1, x2)


def subtract(x1: TensorLike, x2: TensorLike) -> Tensor:
    """`x1 - x2` (`keras.ops.subtract`)."""
    return _binary(_math.subtract, x1, x2)


def multiply(x1: TensorLike, x2: TensorLike) -> Tensor:
    """`x1 * x2` (`keras.ops.multiply`)."""
    return _binary(_math.multiply, x1, x2)


def divide(x1: TensorLike, x2: TensorLike) -> Tensor:
    """True division `x1 / x2`; integers give float32 (`keras.ops.divide`)."""
    dtype = _core.result_type(x1, x2, 1.0)
    return _math.divide(_core.as_tensor(x1, dtype), _core.as_tensor(x2, dtype))


true_divide = divide
"""True division (`keras.ops.true_divide`, the same function as `divide`)."""


def divide_no_nan(x1: TensorLike, x2: TensorLike) -> Tensor:
    """`x1 / x2`, 0 where `x2` is 0 (`keras.ops.divide_no_nan`)."""
    dtype = _core.result_type(x1, x2, 1.0)
    return _safe_math.divide_no_nan(_core.as_tensor(x1, dtype), _core.as_tensor(x2, dtype))


def floor_divide(x1: TensorLike, x2: TensorLike) -> Tensor:
    """`x1 // x2` (`keras.ops.floor_divide`)."""
    return _binary(_math.floordiv, x1, x2)


def mod(x1: TensorLike, x2: TensorLike) -> Tensor:
    """`x1 % x2` with the sign of `x2` (`keras.ops.mod`)."""
    return _binary(_math.mod, x1, x2)


def power(x1: TensorLike, x2: TensorLike) -> Tensor:
    """`x1 ** x2` (`keras.ops.power`)."""
    return _binary(_math.pow, x1, x2)


def maximum(x1: TensorLike, x2: TensorLike) -> Tensor:
    """Elementwise maximum (`keras.ops.maximum`)."""
    return _binary(_math.maximum, x1, x2)


def minimum(x1: TensorLike, x2: TensorLike) -> Tensor:
    """Elementwise minimum (`keras.ops.minimum`)."""
    return _binary(_math.minimum, x1, x2)


def hypot(x1: TensorLike, x2: TensorLike) -> Tensor:
    """`sqrt(x1^2 + x2^2)` without overflow or underflow, as Keras computes it:
    ``max * sqrt(1 + (min / max)^2)`` of the absolute values (`keras.ops.hypot`)."""
    dtype = _core.result_type(x1, x2, 1.0)
    a, b = _unary.abs(_core.as_tensor(x1, dtype)), _unary.abs(_core.as_tensor(x2, dtype))
    high, low = _math.maximum(a, b), _math.minimum(a, b)
    ratio = divide_no_nan(low, high)
    return _math.multiply(high, _unary.sqrt(_math.add(1.0, _unary.square(ratio))))


def logaddexp(x1: TensorLike, x2: TensorLike) -> Tensor:
    """`log(exp(x1) + exp(x2))`, computed stably (`keras.ops.logaddexp`)."""
    dtype = _core.result_type(x1, x2, 1.0)
    a, b = _core.as_tensor(x1, dtype), _core.as_tensor(x2, dtype)
    # max(a, b) + log1p(exp(-|a - b|)): no overflow for large inputs
    gap = _unary.exp(_unary.negative(_unary.abs(_math.subtract(a, b))))
    return _math.add(_math.maximum(a, b), _unary.log1p(gap))


def _compare(op: Any, x1: TensorLike, x2: TensorLike) -> Tensor:
    return _binary(op, x1, x2)


def equal(x1: TensorLike, x2: TensorLike) -> Tensor:
    """`x1 == x2`, elementwise (`keras.ops.equal`)."""
    return _compare(_logic.equal, x1, x2)


def not_equal(x1: TensorLike, x2: TensorLike) -> Tensor:
    """`x1 != x2`, elementwise (`keras.ops.not_equal`)."""
    return _compare(_logic.not_equal, x1, x2)


def less(x1: TensorLike, x2: TensorLike) -> Tensor:
    """`x1 < x2`, elementwise (`keras.ops.less`)."""
    return _compare(_logic.less, x1, x2)


def less_equal(x1: TensorLike, x2: TensorLike) -> Tensor:
    """`x1 <= x2`, elementwise (`keras.ops.less_equal`)."""
    return _compare(_logic.less_equal, x1, x2)


def greater(x1: TensorLike, x2: TensorLike) -> Tensor:
    """`x1 > x2`, elementwise (`keras.ops.greater`)."""
    return _compare(_logic.greater, x1, x2)


def greater_equal(x1: TensorLike, x2: TensorLike) -> Tensor:
    """`x1 >= x2`, elementwise (`keras.ops.greater_equal`)."""
    return _compare(_logic.greater_equal, x1, x2)


def logical_and(x1: TensorLike, x2: TensorLike) -> Tensor:
    """Elementwise AND of truth values (`keras.ops.logical_and`)."""
    return _logic.logical_and(_math.cast(x1, "bool"), _math.cast(x2, "bool"))


def logical_or(x1: TensorLike, x2: TensorLike) -> Tensor:
    """Elementwise OR of truth values (`keras.ops.logical_or`)."""
    return _logic.logical_or(_math.cast(x1, "bool"), _math.cast(x2, "bool"))


def logical_xor(x1: TensorLike, x2: TensorLike) -> Tensor:
    """Elementwise XOR of truth values (`keras.ops.logical_xor`)."""
    return _logic.logical_xor(_math.cast(x1, "bool"), _math.cast(x2, "bool"))


def isclose(x1: TensorLike, x2: TensorLike, rtol: float = 1e-5, atol: float = 1e-8,
            equal_nan: bool = False) -> Tensor:
    """`|x1 - x2| <= atol + rtol * |x2|`, elementwise (`keras.ops.isclose`)."""
    dtype = _core.result_type(x1, x2)
    a, b = _core.as_tensor(x1, dtype), _core.as_tensor(x2, dtype)
    if dtype.kind != "f":
        return _logic.equal(a, b)
    bound = _math.add(_math.multiply(_unary.abs(b), rtol), atol)
    close = _logic.less_equal(_unary.abs(_math.subtract(a, b)), bound)
    close = _logic.logical_or(close, _logic.equal(a, b))  # equal infinities
    if equal_nan:
        close = _logic.logical_or(close, _logic.logical_and(isnan(a), isnan(b)))
    return close


def allclose(x1: TensorLike, x2: TensorLike, rtol: float = 1e-5, atol: float = 1e-8,
             equal_nan: bool = False) -> Tensor:
    """Whether all entries are close (`keras.ops.allclose`)."""
    return _reduce.reduce_all(isclose(x1, x2, rtol, atol, equal_nan))


def where(condition: TensorLike, x1: TensorLike | None = None,
          x2: TensorLike | None = None) -> Any:
    """`x1` where `condition` holds, else `x2` (`keras.ops.where`); with neither, the
    indices of the true entries, one int32 vector per axis (as `numpy.nonzero`).

    Raises:
        ValueError: if only one of `x1` and `x2` is given.
    """
    if (x1 is None) != (x2 is None):
        raise ValueError("where: `x1` and `x2` must either both be None or both be given. "
                         f"Received: x1={x1!r}, x2={x2!r}")
    condition = _math.cast(condition, "bool")
    if x1 is None:
        found = _math.cast(_math.where(condition), "int32")
        return tuple(found[:, i] for i in builtins.range(condition.ndim))
    dtype = _core.result_type(x1, x2)
    return _math.where(condition, _core.as_tensor(x1, dtype), _core.as_tensor(x2, dtype))  # type: ignore[arg-type]


def select(condlist: Sequence[TensorLike], choicelist: Sequence[TensorLike],
           default: TensorLike = 0) -> Tensor:
    """The first choice whose condition holds, else `default` (`keras.ops.select`)."""
    result: Any = default
    for condition, choice in reversed(list(zip(condlist, choicelist))):
        result = where(condition, choice, result)
    return _t(result)


def heaviside(x1: TensorLike, x2: TensorLike) -> Tensor:
    """0 for `x1 < 0`, `x2` at 0, 1 above (`keras.ops.heaviside`)."""
    dtype = _core.result_type(x1, x2)
    if dtype.kind != "f":
        dtype = np.dtype("float32")
    a, b = _core.as_tensor(x1, dtype), _core.as_tensor(x2, dtype)
    step = _math.cast(_logic.greater(a, 0.0), dtype)
    return _math.where(_logic.equal(a, 0.0), _array.broadcast_to(b, step.shape)
                       if b.shape != step.shape else b, step)


# -- reductions ------------------------------------------------------------------------------
def sum(x: TensorLike, axis: AxisLike = None, keepdims: bool = False) -> Tensor:  # noqa: A001
    """Sum along `axis` (`keras.ops.sum`); bools and small ints sum in int32."""
    x = _t(x)
    return _reduce.reduce_sum(_core.as_tensor(x, _sum_dtype(x)), axis=axis, keepdims=keepdims)


def prod(x: TensorLike, axis: AxisLike = None, keepdims: bool = False,
         dtype: DTypeLike = None) -> Tensor:
    """Product along `axis` (`keras.ops.prod`)."""
    x = _t(x)
    target = np.dtype(dtype) if dtype is not None else _sum_dtype(x)
    return _reduce.reduce_prod(_core.as_tensor(x, target), axis=axis, keepdims=keepdims)


def mean(x: TensorLike, axis: AxisLike = None, keepdims: bool = False) -> Tensor:
    """Mean along `axis`; integers give float32 (`keras.ops.mean`)."""
    return _reduce.reduce_mean(_f(x), axis=axis, keepdims=keepdims)


def var(x: TensorLike, axis: AxisLike = None, keepdims: bool = False) -> Tensor:
    """Population variance along `axis` (`keras.ops.var`)."""
    return _reduce.reduce_variance(_f(x), axis=axis, keepdims=keepdims)


def std(x: TensorLike, axis: AxisLike = None, keepdims: bool = False) -> Tensor:
    """Population standard deviation along `axis` (`keras.ops.std`)."""
    return _reduce.reduce_std(_f(x), axis=axis, keepdims=keepdims)


def _extreme(reduce_fn: Any, combine: Any, x: TensorLike, axis: AxisLike, keepdims: bool,
             initial: Any) -> Tensor:
    result = reduce_fn(_t(x), axis=axis, keepdims=keepdims)
    return result if initial is None else combine(result, _core.as_tensor(initial, result.dtype))


def max(x: TensorLike, axis: AxisLike = None, keepdims: bool = False,  # noqa: A001
        initial: Any = None) -> Tensor:
    """Maximum along `axis`, at least `initial` (`keras.ops.max`)."""
    return _extreme(_reduce.reduce_max, _math.maximum, x, axis, keepdims, initial)


def min(x: TensorLike, axis: AxisLike = None, keepdims: bool = False,  # noqa: A001
        initial: Any = None) -> Tensor:
    """Minimum along `axis`, at most `initial` (`keras.ops.min`)."""
    return _extreme(_reduce.reduce_min, _math.minimum, x, axis, keepdims, initial)


def amax(x: TensorLike, axis: AxisLike = None, keepdims: bool = False) -> Tensor:
    """Maximum along `axis` (`keras.ops.amax`)."""
    return _reduce.reduce_max(_t(x), axis=axis, keepdims=keepdims)


def amin(x: TensorLike, axis: AxisLike = None, keepdims: bool = False) -> Tensor:
    """Minimum along `axis` (`keras.ops.amin`)."""
    return _reduce.reduce_min(_t(x), axis=axis, keepdims=keepdims)


def all(x: TensorLike, axis: AxisLike = None, keepdims: bool = False) -> Tensor:  # noqa: A001
    """Whether every entry along `axis` is true (`keras.ops.all`)."""
    return _reduce.reduce_all(_math.cast(x, "bool"), axis=axis, keepdims=keepdims)


def any(x: TensorLike, axis: AxisLike = None, keepdims: bool = False) -> Tensor:  # noqa: A001
    """Whether some entry along `axis` is true (`keras.ops.any`)."""
    return _reduce.reduce_any(_math.cast(x, "bool"), axis=axis, keepdims=keepdims)


def count_nonzero(x: TensorLike, axis: AxisLike = None) -> Tensor:
    """The number of non-zero entries along `axis`, int32 (`keras.ops.count_nonzero`)."""
    return _reduce.reduce_sum(_math.cast(_math.cast(x, "bool"), "int32"), axis=axis)


def _arg(reduce_fn: Any, x: TensorLike, axis: int | None, keepdims: bool) -> Tensor:
    x = _t(x)
    if axis is None:
        result = reduce_fn(_flat(x), axis=0, output_type=np.int32)
        return _array.reshape(result, [1] * x.ndim) if keepdims else result
    result = reduce_fn(x, axis=axis, output_type=np.int32)
    return _array.expand_dims(result, axis) if keepdims else result


def argmax(x: TensorLike, axis: int | None = None, keepdims: bool = False) -> Tensor:
    """Index of the maximum along `axis` (flattened for None), int32 (`keras.ops.argmax`)."""
    return _arg(_reduce.argmax, x, axis, keepdims)


def argmin(x: TensorLike, axis: int | None = None, keepdims: bool = False) -> Tensor:
    """Index of the minimum along `axis` (flattened for None), int32 (`keras.ops.argmin`)."""
    return _arg(_reduce.argmin, x, axis, keepdims)


def cumsum(x: TensorLike, axis: int | None = None, dtype: DTypeLike = None) -> Tensor:
    """Running sum along `axis` (flattened for None) (`keras.ops.cumsum`)."""
    x = _t(x)
    x = _core.as_tensor(x, np.dtype(dtype) if dtype is not None else _scan_dtype(x))
    return _reduce.cumsum(_flat(x), axis=0) if axis is None else _reduce.cumsum(x, axis=axis)


def cumprod(x: TensorLike, axis: int | None = None, dtype: DTypeLike = None) -> Tensor:
    """Running product along `axis` (flattened for None) (`keras.ops.cumprod`)."""
    x = _t(x)
    x = _core.as_tensor(x, np.dtype(dtype) if dtype is not None else _scan_dtype(x))
    return _reduce.cumprod(_flat(x), axis=0) if axis is None else _reduce.cumprod(x, axis=axis)


def average(x: TensorLike, axis: int | None = None, weights: TensorLike | None = None) -> Tensor:
    """The (weighted) mean along `axis` (`keras.ops.average`)."""
    x = _f(x)
    if weights is None:
        return _reduce.reduce_mean(x, axis=axis)
    w = _core.as_tensor(weights, x.dtype)
    if w.ndim == 1 and x.ndim > 1 and axis is not None:
        w = _array.reshape(w, [-1 if i == axis % x.ndim else 1 for i in builtins.range(x.ndim)])
    total = _reduce.reduce_sum(_math.multiply(x, w), axis=axis)
    return _math.divide(total, _reduce.reduce_sum(_array.broadcast_to(w, x.shape), axis=axis))


def ptp(x: TensorLike, axis: AxisLike = None, keepdims: bool = False) -> Tensor:
    """Range (maximum minus minimum) along `axis` (`keras.ops.ptp`)."""
    x = _t(x)
    return _math.subtract(_reduce.reduce_max(x, axis=axis, keepdims=keepdims),
                          _reduce.reduce_min(x, axis=axis, keepdims=keepdims))


def trace(x: TensorLike, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Tensor:
    """Sum along the diagonal of axes `axis1`, `axis2` (`keras.ops.trace`)."""
    return sum(diagonal(x, offset, axis1, axis2), axis=-1)


def diagonal(x: TensorLike, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Tensor:
    """The diagonal of axes `axis1`, `axis2`, moved last (`keras.ops.diagonal`)."""
    x = _t(x)
    x = moveaxis(x, (axis1, axis2), (-2, -1))
    x = x[..., :, offset:] if offset >= 0 else x[..., -offset:, :]
    n = builtins.min(x.shape[-2], x.shape[-1])
    return _decompositions.diag_part(x[..., :n, :n])


# -- shapes and arrays -----------------------------------------------------------------------
def reshape(x: TensorLike, newshape: Sequence[int] | int) -> Tensor:
    """`x` with shape `newshape` (one entry may be -1) (`keras.ops.reshape`)."""
    return _array.reshape(x, [newshape] if isinstance(newshape, int) else list(newshape))


def ravel(x: TensorLike) -> Tensor:
    """`x` flattened to a vector (`keras.ops.ravel`)."""
    return _flat(_t(x))


def transpose(x: TensorLike, axes: Sequence[int] | None = None) -> Tensor:
    """`x` with its axes permuted (reversed for None) (`keras.ops.transpose`)."""
    return _array.transpose(x, None if axes is None else list(axes))


def moveaxis(x: TensorLike, source: int | Sequence[int],
             destination: int | Sequence[int]) -> Tensor:
    """`x` with axes `source` moved to `destination` (`keras.ops.moveaxis`)."""
    x = _t(x)
    src = [source] if isinstance(source, int) else list(source)
    dst = [destination] if isinstance(destination, int) else list(destination)
    src = [s % x.ndim for s in src]
    dst = [d % x.ndim for d in dst]
    order = [i for i in builtins.range(x.ndim) if i not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return _array.transpose(x, order)


def swapaxes(x: TensorLike, axis1: int, axis2: int) -> Tensor:
    """`x` with two axes exchanged (`keras.ops.swapaxes`)."""
    x = _t(x)
    order = list(builtins.range(x.ndim))
    order[axis1], order[axis2] = order[axis2], order[axis1]
    return _array.transpose(x, order)


def expand_dims(x: TensorLike, axis: int | Sequence[int]) -> Tensor:
    """`x` with size-1 axes inserted at `axis` (an int or tuple) (`keras.ops.expand_dims`)."""
    x = _t(x)
    axes = [axis] if isinstance(axis, int) else list(axis)
    ndim = x.ndim + len(axes)
    for a in sorted(a % ndim for a in axes):
        x = _array.expand_dims(x, a)
    return x


def squeeze(x: TensorLike, axis: AxisLike = None) -> Tensor:
    """`x` without its size-1 axes (or those in `axis`) (`keras.ops.squeeze`)."""
    return _array.squeeze(x, axis=axis)


def broadcast_to(x: TensorLike, shape: Sequence[int]) -> Tensor:
    """`x` broadcast to `shape` (`keras.ops.broadcast_to`)."""
    return _array.broadcast_to(x, list(shape))


def _common(xs: Sequence[TensorLike]) -> list[Any]:
    dtype = _core.result_type(*xs)
    return [_core.as_tensor(x, dtype) for x in xs]


def concatenate(xs: Sequence[TensorLike], axis: int | None = 0) -> Tensor:
    """`xs` joined along `axis` (flattened first for None) (`keras.ops.concatenate`)."""
    tensors = _common(xs)
    if axis is None:
        return _array.concat([_flat(t) for t in tensors], axis=0)
    return _array.concat(tensors, axis=axis)


def append(x1: TensorLike, x2: TensorLike, axis: int | None = None) -> Tensor:
    """`x2` appended to `x1` along `axis` (flattened for None) (`keras.ops.append`)."""
    return concatenate([x1, x2], axis=axis)


def stack(x: Sequence[TensorLike], axis: int = 0) -> Tensor:
    """`x` stacked along a new axis (`keras.ops.stack`)."""
    return _array.stack(_common(x), axis=axis)


def hstack(xs: Sequence[TensorLike]) -> Tensor:
    """`xs` joined column-wise (axis 1, or 0 for vectors) (`keras.ops.hstack`)."""
    tensors = _common(xs)
    return _array.concat(tensors, axis=0 if tensors[0].ndim == 1 else 1)


def vstack(xs: Sequence[TensorLike]) -> Tensor:
    """`xs` joined along axis 0 (`keras.ops.vstack`; as Keras, vectors are not made rows
    first, unlike NumPy)."""
    return _array.concat(_common(xs), axis=0)


def split(x: TensorLike, indices_or_sections: int | Sequence[int], axis: int = 0) -> list:
    """`x` split into equal sections, or at the given indices (`keras.ops.split`)."""
    x = _t(x)
    if isinstance(indices_or_sections, int):
        return _array.split(x, indices_or_sections, axis=axis)
    bounds = [0, *indices_or_sections, x.shape[axis]]
    return _array.split(x, [b - a for a, b in zip(bounds, bounds[1:])], axis=axis)


def array_split(x: TensorLike, indices_or_sections: int, axis: int = 0) -> list:
    """`x` split into `indices_or_sections` nearly equal parts (`keras.ops.array_split`)."""
    x = _t(x)
    length, count = x.shape[axis], int(indices_or_sections)
    sizes = [length // count + (1 if i < length % count else 0) for i in builtins.range(count)]
    return _array.split(x, sizes, axis=axis)


def tile(x: TensorLike, repeats: int | Sequence[int]) -> Tensor:
    """`x` repeated `repeats` times per axis, NumPy's rule (`keras.ops.tile`)."""
    x = _t(x)
    reps = [repeats] if isinstance(repeats, int) else list(repeats)
    if len(reps) > x.ndim:
        x = _array.reshape(x, [1] * (len(reps) - x.ndim) + list(x.shape))
    reps = [1] * (x.ndim - len(reps)) + reps
    return _array.tile(x, reps)


def repeat(x: TensorLike, repeats: int | Sequence[int], axis: int | None = None) -> Tensor:
    """Each entry of `x` repeated along `axis` (flattened for None) (`keras.ops.repeat`)."""
    x = _t(x)
    if axis is None:
        x, axis = _flat(x), 0
    counts = np.broadcast_to(np.asarray(repeats, np.int64), (x.shape[axis],))
    index = np.repeat(np.arange(x.shape[axis]), counts).astype(np.int32)
    return _indexing.gather(x, index, axis=axis)


def flip(x: TensorLike, axis: AxisLike = None) -> Tensor:
    """`x` reversed along `axis` (all axes for None) (`keras.ops.flip`)."""
    x = _t(x)
    axes = _axis_tuple(axis, x.ndim)
    key = tuple(builtins.slice(None, None, -1) if i in axes else builtins.slice(None)
                for i in builtins.range(x.ndim))
    return _array.getitem(x, key)


def roll(x: TensorLike, shift: int | Sequence[int], axis: AxisLike = None) -> Tensor:
    """`x` rotated by `shift` along `axis` (flattened for None) (`keras.ops.roll`)."""
    x = _t(x)
    if axis is None:
        return _array.reshape(roll(_flat(x), shift, 0), x.shape)
    axes = _axis_tuple(axis, x.ndim)
    shifts = [shift] * len(axes) if isinstance(shift, int) else list(shift)
    for a, s in zip(axes, shifts):
        n = x.shape[a]
        if n:
            index = ((np.arange(n) - s) % n).astype(np.int32)
            x = _indexing.gather(x, index, axis=a)
    return x


def take(x: TensorLike, indices: TensorLike, axis: int | None = None) -> Tensor:
    """Entries of `x` at `indices` along `axis` (flattened for None); negative indices
    count from the end (`keras.ops.take`)."""
    x = _t(x)
    if axis is None:
        x, axis = _flat(x), 0
    index = _t(indices)
    if index.dtype.kind not in "iu":
        index = _math.cast(index, "int32")
    size = x.shape[axis]
    index = _math.where(_logic.less(index, 0), _math.add(index, size), index)
    return _indexing.gather(x, index, axis=axis)


def take_along_axis(x: TensorLike, indices: TensorLike, axis: int | None = None) -> Tensor:
    """Entries of `x` picked by `indices` along `axis`, NumPy's `take_along_axis`
    (`keras.ops.take_along_axis`)."""
    x = _t(x)
    index = _t(indices)
    if axis is None:
        x, axis = _flat(x), 0
    axis %= x.ndim
    size = x.shape[axis]
    index = _math.where(_logic.less(index, 0), _math.add(index, size), index)
    shape = list(np.broadcast_shapes(tuple(s if i != axis else 1 for i, s in enumerate(x.shape)),
                                     tuple(s if i != axis else 1
                                           for i, s in enumerate(index.shape))))
    x = _array.broadcast_to(x, [s if i != axis else size for i, s in enumerate(shape)])
    index = _array.broadcast_to(index, [s if i != axis else index.shape[axis]
                                        for i, s in enumerate(shape)])
    x = moveaxis(x, axis, -1)
    index = moveaxis(index, axis, -1)
    picked = _indexing.gather(x, index, axis=x.ndim - 1, batch_dims=x.ndim - 1)
    return moveaxis(picked, -1, axis)


def pad(x: TensorLike, pad_width: Any, mode: str = "constant",
        constant_values: Any = None) -> Tensor:
    """`x` padded by `pad_width` (NumPy's forms) (`keras.ops.pad`).

    Raises:
        ValueError: for `constant_values` with a mode other than "constant", or a mode
            other than "constant", "reflect" or "symmetric".
    """
    x = _t(x)
    widths = np.broadcast_to(np.asarray(pad_width, np.int64), (x.ndim, 2)).tolist()
    if mode not in ("constant", "reflect", "symmetric"):
        raise ValueError(f"pad: `mode` must be 'constant', 'reflect' or 'symmetric'. "
                         f"Received: mode={mode!r}")
    if constant_values is not None and mode != "constant":
        raise ValueError(f"pad: `constant_values` is only used with mode='constant'. "
                         f"Received: mode={mode!r}")
    value = 0 if constant_values is None else constant_values
    return _indexing.pad(x, widths, mode=mode.upper(), constant_values=value)


def size(x: TensorLike) -> Tensor:
    """The number of entries of `x`, an int32 scalar (`keras.ops.size`)."""
    return _creation.constant(np.int32(np.prod(_t(x).shape, dtype=np.int64)))


def ndim(x: TensorLike) -> int:
    """The number of axes of `x` (`keras.ops.ndim`)."""
    return _t(x).ndim


def get_item(x: TensorLike, key: Any) -> Tensor:
    """`x[key]` (`keras.ops.get_item`)."""
    return _array.getitem(_t(x), key)


def diff(a: TensorLike, n: int = 1, axis: int = -1) -> Tensor:
    """The `n`-th difference along `axis` (`keras.ops.diff`)."""
    x = _t(a)
    axis %= x.ndim
    for _ in builtins.range(n):
        head = tuple(builtins.slice(1, None) if i == axis else builtins.slice(None)
                     for i in builtins.range(x.ndim))
        tail = tuple(builtins.slice(None, -1) if i == axis else builtins.slice(None)
                     for i in builtins.range(x.ndim))
        x = _math.subtract(_array.getitem(x, head), _array.getitem(x, tail))
    return x


def sort(x: TensorLike, axis: int = -1) -> Tensor:
    """`x` sorted ascending along `axis` (`keras.ops.sort`)."""
    x = moveaxis(_t(x), axis, -1)
    values, _ = _reduce.top_k(_unary.negative(x) if x.dtype.kind != "b" else x, k=x.shape[-1])
    return moveaxis(_unary.negative(values), -1, axis)


def argsort(x: TensorLike, axis: int | None = -1) -> Tensor:
    """The indices that sort `x` ascending along `axis`, ties in index order
    (`keras.ops.argsort`)."""
    x = _t(x)
    if axis is None:
        x, axis = _flat(x), 0
    moved = moveaxis(x, axis, -1)
    _, indices = _reduce.top_k(_unary.negative(_f(moved)), k=moved.shape[-1])
    return moveaxis(_math.cast(indices, "int32"), -1, axis)


# -- products --------------------------------------------------------------------------------
def matmul(x1: TensorLike, x2: TensorLike) -> Tensor:
    """Matrix product, NumPy's rules for vectors (`keras.ops.matmul`); for bools, whether
    some pair of entries is true."""
    a, b = _common([x1, x2])
    if a.dtype.kind == "b":
        return _logic.greater(matmul(_math.cast(a, "int32"), _math.cast(b, "int32")), 0)
    if a.ndim == 1 and b.ndim == 1:
        return _reduce.reduce_sum(_math.multiply(a, b))
    if a.ndim == 1:
        return _array.squeeze(_linalg.matmul(_array.expand_dims(a, 0), b), axis=-2)
    if b.ndim == 1:
        return _array.squeeze(_linalg.matmul(a, _array.expand_dims(b, -1)), axis=-1)
    return _linalg.matmul(a, b)


def dot(x1: TensorLike, x2: TensorLike) -> Tensor:
    """NumPy's `dot`: products of scalars, vectors and matrices (`keras.ops.dot`)."""
    a, b = _common([x1, x2])
    if a.ndim == 0 or b.ndim == 0:
        return _math.multiply(a, b)
    if b.ndim == 1 or a.ndim == 1 or (a.ndim == 2 and b.ndim == 2):
        return matmul(a, b)
    return _linalg.tensordot(a, b, axes=[[a.ndim - 1], [b.ndim - 2]])


def tensordot(x1: TensorLike, x2: TensorLike, axes: Any = 2) -> Tensor:
    """Sum of products over `axes` (`keras.ops.tensordot`)."""
    a, b = _common([x1, x2])
    return _linalg.tensordot(a, b, axes=axes)


def einsum(subscripts: str, *operands: TensorLike) -> Tensor:
    """Einstein summation (`keras.ops.einsum`)."""
    return _einsum.einsum(subscripts, *_common(operands))


def outer(x1: TensorLike, x2: TensorLike) -> Tensor:
    """Outer product of the flattened inputs (`keras.ops.outer`)."""
    a, b = _common([x1, x2])
    return _math.multiply(_array.reshape(a, [-1, 1]), _array.reshape(b, [1, -1]))


def inner(x1: TensorLike, x2: TensorLike) -> Tensor:
    """Sum of products over the last axes (`keras.ops.inner`)."""
    a, b = _common([x1, x2])
    if a.ndim == 0 or b.ndim == 0:
        return _math.multiply(a, b)
    return _linalg.tensordot(a, b, axes=[[a.ndim - 1], [b.ndim - 1]])


def vdot(x1: TensorLike, x2: TensorLike) -> Tensor:
    """Dot product of the flattened inputs (`keras.ops.vdot`)."""
    a, b = _common([x1, x2])
    return _reduce.reduce_sum(_math.multiply(_flat(a), _flat(b)))



def slogdet(x: TensorLike) -> tuple[Tensor, Tensor]:
    """The sign and log absolute determinant of square matrices (`keras.ops.slogdet`)."""
    return _slogdet(_f(x))


__all__ = [
    "abs", "absolute", "add", "all", "allclose", "amax", "amin", "any", "append", "arange",
    "arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctan2", "arctanh", "argmax",
    "argmin", "argpartition", "argsort", "array", "array_split", "average", "bartlett",
    "bincount", "bitwise_and", "bitwise_invert", "bitwise_left_shift", "bitwise_not",
    "bitwise_or", "bitwise_right_shift", "bitwise_xor", "blackman", "broadcast_to", "cbrt",
    "ceil", "clip", "concatenate", "conj", "conjugate", "copy", "corrcoef", "correlate", "cos",
    "cosh", "count_nonzero", "cross", "cumprod", "cumsum", "deg2rad", "diag", "diagflat",
    "diagonal", "diff", "digitize", "divide", "divide_no_nan", "dot", "dsplit", "dstack",
    "einsum", "empty", "empty_like", "equal", "exp", "exp2", "expand_dims", "expm1", "eye",
    "fabs", "flip", "fliplr", "flipud", "floor", "floor_divide", "fmax", "fmin", "fmod",
    "full", "full_like", "gcd", "geomspace", "get_item", "greater", "greater_equal", "hamming",
    "hanning", "heaviside", "histogram", "hsplit", "hstack", "hypot", "i0", "identity", "imag",
    "inner", "isclose", "isfinite", "isin", "isinf", "isnan", "isneginf", "isposinf", "isreal",
    "kaiser", "kron", "lcm", "ldexp", "left_shift", "less", "less_equal", "linspace", "log",
    "log10", "log1p", "log2", "logaddexp", "logaddexp2", "logical_and", "logical_not",
    "logical_or", "logical_xor", "logspace", "matmul", "max", "maximum", "mean", "median",
    "meshgrid", "min", "minimum", "mod", "moveaxis", "multiply", "nan_to_num", "nanargmax",
    "nanargmin", "nancumprod", "nancumsum", "nanmax", "nanmean", "nanmedian", "nanmin",
    "nanpercentile", "nanprod", "nanquantile", "nanstd", "nansum", "nanvar", "ndim",
    "negative", "nextafter", "nonzero", "not_equal", "ones", "ones_like", "outer", "pad",
    "percentile", "power", "prod", "ptp", "quantile", "rad2deg", "ravel", "real", "reciprocal",
    "repeat", "reshape", "right_shift", "roll", "rot90", "round", "searchsorted", "select",
    "sign", "signbit", "sin", "sinc", "sinh", "size", "slogdet", "sort", "split", "sqrt",
    "square", "squeeze", "stack", "std", "subtract", "sum", "swapaxes", "take",
    "take_along_axis", "tan", "tanh", "tensordot", "tile", "trace", "transpose", "trapezoid",
    "tri", "tril", "triu", "true_divide", "trunc", "unique", "unravel_index", "vander", "var",
    "vdot", "vsplit", "vstack", "where", "zeros", "zeros_like",
]


def __getattr__(name: str) -> Any:
    raise _keras_missing.missing("numpy", name)
