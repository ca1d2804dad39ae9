"""Keras 3's order statistics and NaN-ignoring reductions (`keras.ops.median`, `quantile`,
`percentile`, `nansum`, `nanmean`, ..., `nanquantile`), part of `ef.ops.numpy`, with
NumPy's semantics and Keras's dtype rules.

The NaN-ignoring reductions replace NaNs by the reduction's identity (0 for sums, 1 for
products, -inf/inf for max/min) and count only the other entries, so their gradients are
those of the plain reductions and are 0 at the NaNs; a slice that is all NaN gives NaN
(and -1 for `nanargmax`/`nanargmin`), as NumPy.

Quantiles sort each slice (`top_k`, with NaNs moved to the end) and interpolate between
the two order statistics around ``q * (n - 1)`` (`method` "linear"; "lower", "higher",
"nearest" and "midpoint" as NumPy), where n counts the non-NaN entries for the `nan*`
forms; the plain forms give NaN for a slice holding a NaN. The result has `q`'s shape
in front of the reduced shape, and gradients flow to the picked entries.

Examples:
    >>> import eagerflow as ef
    >>> ef.ops.nanmean([1.0, float("nan"), 3.0])
    ef.Tensor(2.0, shape=(), dtype=float32)
    >>> ef.ops.median([[1.0, 5.0, 2.0]], axis=1)
    ef.Tensor([2.], shape=(1,), dtype=float32)
    >>> ef.ops.quantile([1.0, 2.0, 3.0, 4.0], [0.25, 0.5])
    ef.Tensor([1.75 2.5 ], shape=(2,), dtype=float32)
"""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np

from eagerflow.core import context
from eagerflow.ops import array_ops as _array
from eagerflow.ops import creation as _creation
from eagerflow.ops import indexing as _indexing
from eagerflow.ops import logic as _logic
from eagerflow.ops import math as _math
from eagerflow.ops import reduce as _reduce
from eagerflow.ops import unary as _unary
from eagerflow.ops.typing import AxisLike, DTypeLike, Tensor, TensorLike

_SMALL_INTS = ("bool", "int8", "int16", "uint8", "uint16")


def _t(x: TensorLike) -> Tensor:
    return _creation.convert_to_tensor(x)


def _nan_mask(x: Tensor) -> Tensor:
    return _logic.not_equal(x, x) if x.dtype.kind == "f" else _creation.zeros_like(x, "bool")


def _fill_nan(x: Tensor, value: float) -> Tensor:
    if x.dtype.kind != "f":
        return x
    return _math.where(_nan_mask(x), _creation.constant(value, x.dtype), x)


def _all_nan(x: Tensor, axis: AxisLike, keepdims: bool) -> Tensor:
    return _reduce.reduce_all(_nan_mask(x), axis=axis, keepdims=keepdims)


def _float_of(x: Tensor) -> Tensor:
    """Keras's ``result_type(x.dtype, float)``: floats keep their dtype, others float32."""
    return x if x.dtype.kind == "f" else _math.cast(x, "float32")


def nansum(x: TensorLike, axis: AxisLike = None, keepdims: bool = False) -> Tensor:
    """The sum along `axis`, NaNs counted as 0 (`keras.ops.nansum`); small integer and
    bool inputs sum as int32."""
    x = _t(x)
    if x.dtype.name in _SMALL_INTS:
        x = _math.cast(x, "int32")
    return _reduce.reduce_sum(_fill_nan(x, 0.0), axis=axis, keepdims=keepdims)


def nanprod(x: TensorLike, axis: AxisLike = None, keepdims: bool = False) -> Tensor:
    """The product along `axis`, NaNs counted as 1 (`keras.ops.nanprod`)."""
    x = _t(x)
    if x.dtype.name in _SMALL_INTS:
        x = _math.cast(x, "int32")
    return _reduce.reduce_prod(_fill_nan(x, 1.0), axis=axis, keepdims=keepdims)


def _nan_count(x: Tensor, axis: AxisLike, keepdims: bool) -> Tensor:
    present = _math.cast(_logic.logical_not(_nan_mask(x)), x.dtype)
    return _reduce.reduce_sum(present, axis=axis, keepdims=keepdims)


def nanmean(x: TensorLike, axis: AxisLike = None, keepdims: bool = False) -> Tensor:
    """The mean of the non-NaN entries along `axis` (`keras.ops.nanmean`); NaN for an
    all-NaN slice."""
    x = _float_of(_t(x))
    total = _reduce.reduce_sum(_fill_nan(x, 0.0), axis=axis, keepdims=keepdims)
    return _math.divide(total, _nan_count(x, axis, keepdims))


def nanvar(x: TensorLike, axis: AxisLike = None, keepdims: bool = False) -> Tensor:
    """The population variance of the non-NaN entries along `axis` (`keras.ops.nanvar`)."""
    x = _float_of(_t(x))
    mean = nanmean(x, axis=axis, keepdims=True)
    squared = _unary.square(_math.subtract(_fill_nan(x, 0.0), mean))
    squared = _math.where(_nan_mask(x), _creation.zeros_like(squared), squared)
    total = _reduce.reduce_sum(squared, axis=axis, keepdims=keepdims)
    return _math.divide(total, _nan_count(x, axis, keepdims))


def nanstd(x: TensorLike, axis: AxisLike = None, keepdims: bool = False) -> Tensor:
    """The population standard deviation of the non-NaN entries (`keras.ops.nanstd`)."""
    return _unary.sqrt(nanvar(x, axis=axis, keepdims=keepdims))


def _nan_extreme(x: TensorLike, axis: AxisLike, keepdims: bool, largest: bool) -> Tensor:
    x = _t(x)
    reduce_fn = _reduce.reduce_max if largest else _reduce.reduce_min
    if x.dtype.kind != "f":
        return reduce_fn(x, axis=axis, keepdims=keepdims)
    result = reduce_fn(_fill_nan(x, -np.inf if largest else np.inf), axis=axis,
                       keepdims=keepdims)
    nan = _creation.constant(np.nan, x.dtype)
    return _math.where(_all_nan(x, axis, keepdims), nan, result)


def nanmax(x: TensorLike, axis: AxisLike = None, keepdims: bool = False) -> Tensor:
    """The maximum of the non-NaN entries along `axis` (`keras.ops.nanmax`); NaN for an
    all-NaN slice."""
    return _nan_extreme(x, axis, keepdims, largest=True)


def nanmin(x: TensorLike, axis: AxisLike = None, keepdims: bool = False) -> Tensor:
    """The minimum of the non-NaN entries along `axis` (`keras.ops.nanmin`); NaN for an
    all-NaN slice."""
    return _nan_extreme(x, axis, keepdims, largest=False)


def _nan_arg(x: TensorLike, axis: int | None, keepdims: bool, largest: bool) -> Tensor:
    x = _t(x)
    if axis is None:
        flat = _array.reshape(x, [-1])
        result = _nan_arg(flat, 0, False, largest)
        return _array.reshape(result, [1] * x.ndim) if keepdims else result
    arg = _reduce.argmax if largest else _reduce.argmin
    filled = _fill_nan(x, -np.inf if largest else np.inf)
    result = arg(filled, axis=axis, output_type=np.int32)
    if x.dtype.kind == "f":
        result = _math.where(_all_nan(x, axis, False), _creation.constant(-1, "int32"), result)
    return _array.expand_dims(result, axis) if keepdims else result


def nanargmax(x: TensorLike, axis: int | None = None, keepdims: bool = False) -> Tensor:
    """The index of the largest non-NaN entry along `axis`, int32; -1 for an all-NaN slice
    (`keras.ops.nanargmax`)."""
    return _nan_arg(x, axis, keepdims, largest=True)


def nanargmin(x: TensorLike, axis: int | None = None, keepdims: bool = False) -> Tensor:
    """The index of the smallest non-NaN entry along `axis`, int32; -1 for an all-NaN slice
    (`keras.ops.nanargmin`)."""
    return _nan_arg(x, axis, keepdims, largest=False)


def _cumulative(x: TensorLike, axis: int | None, dtype: DTypeLike, fill: float,
                scan: Any) -> Tensor:
    x = _t(x)
    if dtype is not None:
        x = _math.cast(x, dtype)
    elif x.dtype.kind == "b":
        x = _math.cast(x, "int32")
    if axis is None:
        x, axis = _array.reshape(x, [-1]), 0
    return scan(_fill_nan(x, fill), axis=axis)


def nancumsum(x: TensorLike, axis: int | None = None, dtype: DTypeLike = None) -> Tensor:
    """The cumulative sum along `axis` (flattened when None), NaNs counted as 0
    (`keras.ops.nancumsum`)."""
    return _cumulative(x, axis, dtype, 0.0, _reduce.cumsum)


def nancumprod(x: TensorLike, axis: int | None = None, dtype: DTypeLike = None) -> Tensor:
    """The cumulative product along `axis` (flattened when None), NaNs counted as 1
    (`keras.ops.nancumprod`)."""
    return _cumulative(x, axis, dtype, 1.0, _reduce.cumprod)


# -- quantiles -------------------------------------------------------------------------------
_METHODS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(x: TensorLike, q: TensorLike, axis: AxisLike, method: str, keepdims: bool,
              ignore_nan: bool, scale: float) -> Tensor:
    if method not in _METHODS:
        raise ValueError(f"`method` must be one of {_METHODS}. Received: method={method!r}")
    x = _float_of(_t(x))
    # Python numbers keep their float64 digits (0.1 as float32 would move the quantile).
    q = q if isinstance(q, Tensor) else _t(np.asarray(q, np.float64))
    if context.thread.tracer is None:  # traced values are only known when the graph runs
        q_values = np.asarray(q.numpy(), np.float64)
        if np.any(q_values < 0) or np.any(q_values > scale):
            raise ValueError(f"`q` must be in the range [0, {scale:g}]. "
                             f"Received: q={q_values.tolist()}")
    q = _math.cast(_math.divide(_math.cast(q, "float64"), scale), x.dtype)
    ndim = x.ndim
    axes = (tuple(builtins.range(ndim)) if axis is None else
            tuple(int(a) % builtins.max(ndim, 1) for a in
                  ([axis] if isinstance(axis, (int, np.integer)) else axis)))
    kept = [a for a in builtins.range(ndim) if a not in axes]
    moved = _array.transpose(x, kept + list(axes)) if ndim else x
    rows = _array.reshape(moved, [x.shape[a] for a in kept] + [-1])
    n = rows.shape[-1]
    nan = _nan_mask(rows)
    # Sort ascending with the NaNs last (as +inf), keeping the gradient to the picks.
    values, _ = _reduce.top_k(_unary.negative(_math.where(
        nan, _creation.constant(np.inf, rows.dtype), rows)), k=n)
    ordered = _unary.negative(values)
    if ignore_nan:
        count = _reduce.reduce_sum(_math.cast(_logic.logical_not(nan), rows.dtype), -1,
                                   keepdims=True)
    else:
        count = _creation.fill(list(rows.shape[:-1]) + [1], float(n), rows.dtype.name)
    flat_q = _array.reshape(q, [-1])
    position = _math.multiply(_math.maximum(_math.subtract(count, 1.0), 0.0), flat_q)
    low, high = _unary.floor(position), _unary.ceil(position)
    if method == "nearest":
        low = high = _unary.round(position)
    elif method == "lower":
        high = low
    elif method == "higher":
        low = high
    last = max(n - 1, 0)

    def pick(index: Tensor) -> Tensor:
        index = _math.cast(_math.clip_by_value(index, 0.0, float(last)), "int32")
        return _indexing.gather(ordered, index, axis=-1, batch_dims=ordered.ndim - 1)

    below, above = pick(low), pick(high)
    if method == "midpoint":
        result = _math.multiply(_math.add(below, above), 0.5)
    else:
        result = _math.add(below, _math.multiply(_math.subtract(above, below),
                                                 _math.subtract(position, low)))
    invalid = (_logic.equal(count, 0.0) if ignore_nan else
               _reduce.reduce_any(nan, -1, keepdims=True))
    result = _math.where(invalid, _creation.constant(np.nan, result.dtype), result)
    # (kept..., nq) -> (q..., kept...) with the reduced axes as 1s when keepdims.
    result = _array.transpose(result, [result.ndim - 1] + list(builtins.range(result.ndim - 1)))
    shape = [x.shape[a] if a in kept else 1 for a in builtins.range(ndim)] if keepdims else \
        [x.shape[a] for a in kept]
    return _array.reshape(result, list(q.shape) + shape)


def quantile(x: TensorLike, q: TensorLike, axis: AxisLike = None, method: str = "linear",
             keepdims: bool = False) -> Tensor:
    """The `q`-th quantiles (in [0, 1]) of `x` along `axis` (`keras.ops.quantile`).

    Raises:
        ValueError: for `q` outside [0, 1] or an unknown `method`.
    """
    return _quantile(x, q, axis, method, keepdims, False, 1.0)


def percentile(x: TensorLike, q: TensorLike, axis: AxisLike = None, method: str = "linear",
               keepdims: bool = False) -> Tensor:
    """The `q`-th percentiles (in [0, 100]) of `x` along `axis` (`keras.ops.percentile`).

    Raises:
        ValueError: for `q` outside [0, 100] or an unknown `method`.
    """
    return _quantile(x, q, axis, method, keepdims, False, 100.0)


def median(x: TensorLike, axis: AxisLike = None, keepdims: bool = False) -> Tensor:
    """The median of `x` along `axis` (`keras.ops.median`); NaN for a slice with a NaN."""
    return _quantile(x, 0.5, axis, "linear", keepdims, False, 1.0)


def nanquantile(x: TensorLike, q: TensorLike, axis: AxisLike = None, method: str = "linear",
                keepdims: bool = False) -> Tensor:
    """`quantile` of the non-NaN entries (`keras.ops.nanquantile`); NaN for an all-NaN slice.

    Raises:
        ValueError: for `q` outside [0, 1] or an unknown `method`.
    """
    return _quantile(x, q, axis, method, keepdims, True, 1.0)


def nanpercentile(x: TensorLike, q: TensorLike, axis: AxisLike = None, method: str = "linear",
                  keepdims: bool = False) -> Tensor:
    """`percentile` of the non-NaN entries (`keras.ops.nanpercentile`).

    Raises:
        ValueError: for `q` outside [0, 100] or an unknown `method`.
    """
    return _quantile(x, q, axis, method, keepdims, True, 100.0)


def nanmedian(x: TensorLike, axis: AxisLike = None, keepdims: bool = False) -> Tensor:
    """The median of the non-NaN entries along `axis` (`keras.ops.nanmedian`)."""
    return _quantile(x, 0.5, axis, "linear", keepdims, True, 1.0)

