"""Reductions and scans: sums, means, extremes, products, logsumexp, arg-extremes, top-k.

`axis` is None (all axes), an int, or a list of ints; `keepdims` keeps reduced axes with
size 1. Integer sums keep their dtype (int32 stays int32, as in TensorFlow).

Examples:
    >>> import eagerflow as ef
    >>> x = ef.constant([[1.0, 2.0], [3.0, 4.0]])
    >>> ef.reduce_sum(x), ef.reduce_mean(x, axis=0)
    (ef.Tensor(10.0, shape=(), dtype=float32), ef.Tensor([2. 3.], shape=(2,), dtype=float32))
"""

from __future__ import annotations

import builtins
import math
from typing import Any

import numpy as np

from eagerflow.core import buffers, dtypes, errors, forwardprop
from eagerflow.core.variable import Variable
from eagerflow.core.dispatch import convert_input, execute, primitive
from eagerflow.ops import array_ops as _array
from eagerflow.ops import creation as _creation
from eagerflow.ops import indexing as _indexing
from eagerflow.ops import logic as _logic
from eagerflow.ops import math as _math
from eagerflow.ops import unary as _unary
from eagerflow.ops.typing import AxisLike, Tensor, TensorLike


def _axes(axis, ndim: int, op_name: str):
    """Normalizes `axis` to None or a sorted tuple of non-negative ints."""
    if axis is None:
        return None
    if isinstance(axis, (Tensor, Variable)):
        axis = buffers.read(convert_input(axis)).tolist()
    items = [axis] if isinstance(axis, (int, np.integer)) else list(axis)
    result = set()
    for a in items:
        a = int(a)
        if not -ndim <= a < builtins.max(ndim, 1):
            raise errors.InvalidArgumentError(
                f"Invalid reduction dimension {a} for input with {ndim} dimensions "
                f"(expected [{-ndim}, {ndim}))", op_name
            )
        a = a % ndim if ndim else 0
        if a in result:
            raise errors.InvalidArgumentError(
                f"Invalid reduction arguments: Axes contains duplicate dimension: {a}", op_name
            )
        result.add(a)
    return tuple(sorted(result))


def _kept_shape(shape, axes) -> tuple:
    return tuple(1 if axes is None or i in axes else n for i, n in enumerate(shape))


def _count(shape, axes) -> int:
    if axes is None:
        return math.prod(shape)
    return math.prod(shape[a] for a in axes)


def _reduce_call(op, input_tensor, axis, keepdims):
    x = convert_input(input_tensor)
    axes = _axes(axis, x.ndim, op.name)
    if axes is not None and x.ndim == 0:
        axes = None
    return execute(op, (x,), {"axis": axes, "keepdims": bool(keepdims)})


def _spread(dy, x, axis, keepdims):
    """Broadcasts the gradient of a reduction back over the reduced axes of `x`."""
    if not keepdims:
        dy = _array.reshape(dy, _kept_shape(x.shape, axis))
    if None in x.shape:  # a traced tensor with unknown dimensions: broadcast against x itself
        return _math.add(dy, _creation.zeros_like(x, dtype=dy.dtype))
    return _array.broadcast_to(dy, x.shape)


_add_reduce = np.add.reduce
# A full reduction passes no attrs (the defaults of the forward and gradient below mean
# "all axes"): no dict is built or unpacked on that hot path.
_ALL_AXES: dict = {}


@primitive("Sum", fresh=True, returns_array=True)
def _sum(x, axis=None, keepdims=False):
    if x.dtype.kind in "fc":
        if not keepdims:
            return _add_reduce(x, axis)  # fewest arguments: the ufunc parses no keywords
        # (here and below: NumPy runs these positional reduce arguments; its stubs reject them)
        return _add_reduce(x, axis, None, None, True)  # type: ignore[call-overload]
    # NumPy sums small integers in int64; keep the input's dtype like TensorFlow.
    dtype = x.dtype if x.dtype.kind != "b" else np.dtype(np.int32)
    return _add_reduce(x, axis, dtype, None, keepdims)  # type: ignore[call-overload]


_sum.jvp(forwardprop.LINEAR)  # JVP: linear: the op applied to the tangents


@_sum.gradient
def _sum_grad(dy, out, x, axis=None, keepdims=False):
    return _spread(dy, x, axis, keepdims)


def reduce_sum(input_tensor: TensorLike, axis: AxisLike = None, keepdims: bool = False,
               name: str | None = None) -> Tensor:
    """Sums elements over `axis` (all axes by default).

    Examples:
        >>> import eagerflow as ef
        >>> ef.reduce_sum([[1, 2], [3, 4]], axis=1)
        ef.Tensor([3 7], shape=(2,), dtype=int32)
    """
    if axis is None and not keepdims:
        return execute(_sum, (input_tensor,), _ALL_AXES)
    return _reduce_call(_sum, input_tensor, axis, keepdims)


@primitive("Mean", fresh=True, returns_array=True)
def _mean(x, axis=None, keepdims=False):
    if x.dtype.kind in "iub":
        total = np.add.reduce(x, axis=axis, keepdims=keepdims, dtype=np.int64)
        return (total // builtins.max(_count(x.shape, axis), 1)).astype(x.dtype)
    return np.mean(x, axis=axis, keepdims=keepdims)


_mean.jvp(forwardprop.LINEAR)  # JVP: linear: the op applied to the tangents


@_mean.gradient
def _mean_grad(dy, out, x, axis=None, keepdims=False):
    reduced = x.shape if axis is None else [x.shape[a] for a in axis]
    if None in reduced:  # a traced tensor with unknown dimensions: count when the graph runs
        count = _math.divide(_array.size(x, dy.dtype),
                             _math.maximum(_array.size(out, dy.dtype), 1))
        return _spread(_math.divide(dy, _math.maximum(count, 1)), x, axis, keepdims)
    # Divide before spreading: the spread is a broadcast view, so no full-size temporary.
    return _spread(_math.divide(dy, builtins.max(_count(x.shape, axis), 1)), x, axis, keepdims)


def reduce_mean(input_tensor: TensorLike, axis: AxisLike = None, keepdims: bool = False,
                name: str | None = None) -> Tensor:
    """Averages elements over `axis` (integer tensors give an integer mean, like TF).

    Examples:
        >>> import eagerflow as ef
        >>> ef.reduce_mean([[1.0, 2.0], [3.0, 4.0]], axis=0)
        ef.Tensor([2. 3.], shape=(2,), dtype=float32)
    """
    if axis is None and not keepdims:
        return execute(_mean, (input_tensor,), _ALL_AXES)
    return _reduce_call(_mean, input_tensor, axis, keepdims)


def _extreme_grad(dy, out, x, axis, keepdims):
    # The gradient is shared equally between tied extremes, like TensorFlow.
    y = out if keepdims else _array.reshape(out, _kept_shape(x.shape, axis))
    mask = _math.cast(_logic.equal(x, y), dy.dtype)
    ties = _reduce_call(_sum, mask, axis, True)
    return _math.divide(_math.multiply(_spread(dy, x, axis, keepdims), mask), ties)


def _check_nonempty(x, axis, op_name):
    if x.size == 0 and (axis is None or builtins.any(x.shape[a] == 0 for a in axis)):
        raise errors.InvalidArgumentError(
            f"Reduction of an empty tensor (shape {x.shape}) has no identity", op_name
        )


@primitive("Max", fresh=True, returns_array=True)
def _max(x, axis, keepdims):
    _check_nonempty(x, axis, "Max")
    return np.maximum.reduce(x, axis=axis, keepdims=keepdims)


_max.gradient(_extreme_grad)
_max.jvp(forwardprop.FROM_VJP)  # JVP: the transposed gradient rule (ties share it)


def reduce_max(input_tensor: TensorLike, axis: AxisLike = None, keepdims: bool = False,
               name: str | None = None) -> Tensor:
    """Takes the maximum over `axis`.

    Examples:
        >>> import eagerflow as ef
        >>> ef.reduce_max([[1, 5], [3, 4]], axis=0)
        ef.Tensor([3 5], shape=(2,), dtype=int32)
    """
    return _reduce_call(_max, input_tensor, axis, keepdims)


@primitive("Min", fresh=True, returns_array=True)
def _min(x, axis, keepdims):
    _check_nonempty(x, axis, "Min")
    return np.minimum.reduce(x, axis=axis, keepdims=keepdims)


_min.gradient(_extreme_grad)
_min.jvp(forwardprop.FROM_VJP)  # JVP: the transposed gradient rule (ties share it)


def reduce_min(input_tensor: TensorLike, axis: AxisLike = None, keepdims: bool = False,
               name: str | None = None) -> Tensor:
    """Takes the minimum over `axis`.

    Examples:
        >>> import eagerflow as ef
        >>> ef.reduce_min([[1, 5], [3, 4]], axis=1)
        ef.Tensor([1 3], shape=(2,), dtype=int32)
    """
    return _reduce_call(_min, input_tensor, axis, keepdims)


@primitive("Prod", fresh=True, returns_array=True)
def _prod(x, axis, keepdims):
    dtype = x.dtype if x.dtype.kind != "b" else np.dtype(np.int32)
    return np.multiply.reduce(x, axis=axis, keepdims=keepdims, dtype=dtype)


_prod.jvp(forwardprop.FROM_VJP)  # JVP: the transposed gradient rule


@_prod.gradient
def _prod_grad(dy, out, x, axis, keepdims):
    # d/dx_i prod(x) = product of the other elements, computed from exclusive cumulative
    # products on both sides so that zeros in x need no division.
    axes = tuple(builtins.range(x.ndim)) if axis is None else axis
    rest = tuple(i for i in builtins.range(x.ndim) if i not in axes)
    perm = rest + axes
    moved = _array.transpose(x, perm)
    kept = [x.shape[i] for i in rest]
    flat = _array.reshape(moved, kept + [-1])
    left = cumprod(flat, axis=-1, exclusive=True)
    right = cumprod(flat, axis=-1, exclusive=True, reverse=True)
    others = _array.reshape(_math.multiply(left, right), moved.shape)
    others = _array.transpose(others, list(np.argsort(perm)))
    return _math.multiply(_spread(dy, x, axis, keepdims), others)


def reduce_prod(input_tensor: TensorLike, axis: AxisLike = None, keepdims: bool = False,
                name: str | None = None) -> Tensor:
    """Multiplies elements over `axis`.

    Examples:
        >>> import eagerflow as ef
        >>> ef.reduce_prod([[1.0, 2.0], [3.0, 4.0]])
        ef.Tensor(24.0, shape=(), dtype=float32)
    """
    return _reduce_call(_prod, input_tensor, axis, keepdims)


@primitive("LogSumExp", fresh=True, returns_array=True)
def _logsumexp(x, axis, keepdims):
    peak = np.maximum.reduce(x, axis=axis, keepdims=True)
    peak = np.where(np.isfinite(peak), peak, 0).astype(x.dtype, copy=False)
    total = np.add.reduce(np.exp(x - peak), axis=axis, keepdims=True)
    result = np.log(total) + peak
    return result if keepdims else result.reshape(
        tuple(n for i, n in enumerate(x.shape) if axis is not None and i not in axis)
    )


@_logsumexp.gradient
def _logsumexp_grad(dy, out, x, axis, keepdims):
    y = out if keepdims else _array.reshape(out, _kept_shape(x.shape, axis))
    return _math.multiply(_spread(dy, x, axis, keepdims), _unary.exp(_math.subtract(x, y)))


@_logsumexp.jvp
def _logsumexp_jvp(tangents, out, x, axis, keepdims):
    # d logsumexp(x) = sum(softmax(x) * dx) over axis
    y = out if keepdims else _array.reshape(out, _kept_shape(x.shape, axis))
    weighted = _math.multiply(tangents[0], _unary.exp(_math.subtract(x, y)))
    return reduce_sum(weighted, None if axis is None else list(axis), keepdims=keepdims)


def reduce_logsumexp(input_tensor: TensorLike, axis: AxisLike = None, keepdims: bool = False,
                     name: str | None = None) -> Tensor:
    """Computes ``log(sum(exp(x)))`` over `axis` without overflow.

    Examples:
        >>> import eagerflow as ef
        >>> ef.reduce_logsumexp([1000.0, 1000.0])
        ef.Tensor(1000.6932, shape=(), dtype=float32)
    """
    x = convert_input(input_tensor)
    if x.dtype.kind not in "fc":
        raise errors.InvalidArgumentError(
            f"reduce_logsumexp needs a floating-point tensor, got {x.dtype.name}", "LogSumExp"
        )
    return _reduce_call(_logsumexp, x, axis, keepdims)


@primitive("Any", differentiable=False)
def _any(x, axis, keepdims):
    return np.logical_or.reduce(x.astype(bool, copy=False), axis=axis, keepdims=keepdims)


def reduce_any(input_tensor: TensorLike, axis: AxisLike = None, keepdims: bool = False,
               name: str | None = None) -> Tensor:
    """Logical OR over `axis`.

    Examples:
        >>> import eagerflow as ef
        >>> ef.reduce_any([[True, False], [False, False]], axis=1)
        ef.Tensor([ True False], shape=(2,), dtype=bool)
    """
    return _reduce_call(_any, input_tensor, axis, keepdims)


@primitive("All", differentiable=False)
def _all(x, axis, keepdims):
    return np.logical_and.reduce(x.astype(bool, copy=False), axis=axis, keepdims=keepdims)


def reduce_all(input_tensor: TensorLike, axis: AxisLike = None, keepdims: bool = False,
               name: str | None = None) -> Tensor:
    """Logical AND over `axis`.

    Examples:
        >>> import eagerflow as ef
        >>> ef.reduce_all([[True, False], [True, True]], axis=1)
        ef.Tensor([False  True], shape=(2,), dtype=bool)
    """
    return _reduce_call(_all, input_tensor, axis, keepdims)


def reduce_variance(input_tensor: TensorLike, axis: AxisLike = None, keepdims: bool = False,
                    name: str | None = None) -> Tensor:
    """Population variance over `axis` (divides by N).

    Examples:
        >>> import eagerflow as ef
        >>> ef.reduce_variance([1.0, 2.0, 3.0, 4.0])
        ef.Tensor(1.25, shape=(), dtype=float32)
    """
    x = convert_input(input_tensor)
    if x.dtype.kind not in "fc":
        raise errors.InvalidArgumentError(
            f"reduce_variance needs a floating-point tensor, got {x.dtype.name}", "Variance"
        )
    centered = _math.subtract(x, reduce_mean(x, axis, keepdims=True))
    return reduce_mean(_unary.square(centered), axis, keepdims)


def reduce_euclidean(input_tensor: TensorLike, axis: AxisLike = None, keepdims: bool = False,
                     name: str | None = None) -> Tensor:
    """Euclidean norm ``sqrt(sum(x ** 2))`` over `axis`.

    Examples:
        >>> import eagerflow as ef
        >>> ef.math.reduce_euclidean_norm([3.0, 4.0])
        ef.Tensor(5.0, shape=(), dtype=float32)
    """
    return _unary.sqrt(reduce_sum(_unary.square(input_tensor), axis, keepdims))


def reduce_std(input_tensor: TensorLike, axis: AxisLike = None, keepdims: bool = False,
               name: str | None = None) -> Tensor:
    """Population standard deviation over `axis`.

    Examples:
        >>> import eagerflow as ef
        >>> ef.reduce_std([1.0, 3.0])
        ef.Tensor(1.0, shape=(), dtype=float32)
    """
    return _unary.sqrt(reduce_variance(input_tensor, axis, keepdims))


@primitive("ArgMax", differentiable=False, returns_array=True)
def _argmax(x, axis, output_type):
    return np.argmax(x, axis=axis).astype(output_type, copy=False)


def argmax(input: TensorLike, axis: AxisLike = None, output_type: Any = dtypes.int64,
           name: str | None = None) -> Tensor:  # noqa: A002
    """Index of the largest value along `axis` (axis 0 when None, like TensorFlow).

    Examples:
        >>> import eagerflow as ef
        >>> ef.argmax([[1, 9], [7, 3]], axis=1)
        ef.Tensor([1 0], shape=(2,), dtype=int64)
    """
    x = convert_input(input)
    axis = _single_axis(0 if axis is None else axis, x.ndim, "ArgMax")
    return execute(_argmax, (x,), {"axis": axis, "output_type": dtypes.as_dtype(output_type)})


@primitive("ArgMin", differentiable=False, returns_array=True)
def _argmin(x, axis, output_type):
    return np.argmin(x, axis=axis).astype(output_type, copy=False)


def argmin(input: TensorLike, axis: AxisLike = None, output_type: Any = dtypes.int64,
           name: str | None = None) -> Tensor:  # noqa: A002
    """Index of the smallest value along `axis` (axis 0 when None, like TensorFlow).

    Examples:
        >>> import eagerflow as ef
        >>> ef.argmin([[1, 9], [7, 3]], axis=1)
        ef.Tensor([0 1], shape=(2,), dtype=int64)
    """
    x = convert_input(input)
    axis = _single_axis(0 if axis is None else axis, x.ndim, "ArgMin")
    return execute(_argmin, (x,), {"axis": axis, "output_type": dtypes.as_dtype(output_type)})


def _single_axis(axis, ndim, op_name) -> int:
    axes = _axes(axis, ndim, op_name)
    if axes is None or len(axes) != 1 or ndim == 0:
        raise errors.InvalidArgumentError(
            f"expected one axis of a tensor of rank >= 1, got axis={axis!r} for rank {ndim}",
            op_name,
        )
    return axes[0]


def _scan(fn, x, axis, exclusive, reverse, identity):
    if reverse:
        x = np.flip(x, axis)
    result = fn(x, axis=axis, dtype=x.dtype)
    if exclusive:
        pad = np.full_like(np.take(result, [0], axis=axis), identity)
        result = np.concatenate([pad, np.take(result, np.arange(x.shape[axis] - 1), axis=axis)],
                                axis=axis)
    return np.flip(result, axis) if reverse else result


@primitive("Cumsum", fresh=True, returns_array=True)
def _cumsum(x, axis, exclusive, reverse):
    return _scan(np.cumsum, x, axis, exclusive, reverse, 0)


_cumsum.jvp(forwardprop.LINEAR)  # JVP: linear: the op applied to the tangents


@_cumsum.gradient
def _cumsum_grad(dy, out, x, axis, exclusive, reverse):
    return cumsum(dy, axis, exclusive=exclusive, reverse=not reverse)


def cumsum(x: TensorLike, axis: int = 0, exclusive: bool = False, reverse: bool = False,
           name: str | None = None) -> Tensor:
    """Cumulative sum along `axis`; `exclusive` leaves out the current element.

    Examples:
        >>> import eagerflow as ef
        >>> ef.cumsum([1, 2, 3]), ef.cumsum([1, 2, 3], exclusive=True, reverse=True)
        (ef.Tensor([1 3 6], shape=(3,), dtype=int32), ef.Tensor([5 3 0], shape=(3,), dtype=int32))
    """
    x = convert_input(x)
    axis = _single_axis(axis, x.ndim, "Cumsum")
    return execute(_cumsum, (x,), {"axis": axis, "exclusive": bool(exclusive),
                                   "reverse": bool(reverse)})


@primitive("Cumprod", fresh=True, returns_array=True)
def _cumprod(x, axis, exclusive, reverse):
    return _scan(np.cumprod, x, axis, exclusive, reverse, 1)


_cumprod.jvp(forwardprop.FROM_VJP)  # JVP: the transposed gradient rule


@_cumprod.gradient
def _cumprod_grad(dy, out, x, axis, exclusive, reverse):
    # Like TensorFlow: sum of dy * y over the elements each x_i enters, divided by x_i
    # (so the gradient at x_i == 0 is not finite).
    summed = cumsum(_math.multiply(dy, out), axis, exclusive=exclusive, reverse=not reverse)
    return _math.divide(summed, x)


def cumprod(x: TensorLike, axis: int = 0, exclusive: bool = False, reverse: bool = False,
            name: str | None = None) -> Tensor:
    """Cumulative product along `axis`; `exclusive` leaves out the current element.

    Examples:
        >>> import eagerflow as ef
        >>> ef.math.cumprod([1.0, 2.0, 3.0])
        ef.Tensor([1. 2. 6.], shape=(3,), dtype=float32)
    """
    x = convert_input(x)
    axis = _single_axis(axis, x.ndim, "Cumprod")
    return execute(_cumprod, (x,), {"axis": axis, "exclusive": bool(exclusive),
                                    "reverse": bool(reverse)})


@primitive("TopKV2", num_outputs=2)
def _top_k(x, k, sorted):  # noqa: A002 - TensorFlow's attribute name
    order = np.argsort(-x if x.dtype.kind != "b" else ~x, axis=-1, kind="stable")[..., :k]
    return np.take_along_axis(x, order, axis=-1), order.astype(np.int32)


_top_k.jvp(forwardprop.FROM_VJP)  # JVP: the transposed gradient rule


@_top_k.gradient
def _top_k_grad(dys, outs, x, k, sorted):  # noqa: A002
    return _indexing.scatter_along_last_axis(dys[0], outs[1], x.shape[-1])


def top_k(input: TensorLike, k: int = 1, sorted: bool = True,
          name: str | None = None) -> tuple[Tensor, Tensor]:  # noqa: A002
    """The `k` largest entries along the last axis and their indices (ties: lower index first).

    Returns:
        ``(values, indices)``; `indices` are int32.

    Examples:
        >>> import eagerflow as ef
        >>> values, indices = ef.math.top_k([1.0, 5.0, 3.0], k=2)
        >>> values, indices
        (ef.Tensor([5. 3.], shape=(2,), dtype=float32), ef.Tensor([1 2], shape=(2,), dtype=int32))
    """
    x = convert_input(input)
    k = int(k)
    if k < 0:
        raise errors.InvalidArgumentError(f"Need k >= 0, got {k}", "TopKV2")
    if x.ndim == 0 or k > x.shape[-1]:
        raise errors.InvalidArgumentError(
            f"input must have at least k={k} columns, got shape {x.shape}", "TopKV2"
        )
    return execute(_top_k, (x,), {"k": k, "sorted": bool(sorted)})
