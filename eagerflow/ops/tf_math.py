"""TensorFlow's `tf.math` functions that are compositions of other ops: predicates
(`is_nan`, `is_inf`, `is_finite`), rounding (`rint`), counting (`count_nonzero`,
`zero_fraction`, `in_top_k`), `polyval`, `cumulative_logsumexp` and
`invert_permutation`, each with TensorFlow's signature and dtype rules.

Examples:
    >>> import eagerflow as ef
    >>> ef.math.is_nan([1.0, float("nan")])
    ef.Tensor([False  True], shape=(2,), dtype=bool)
    >>> ef.math.polyval([1.0, 2.0, 3.0], 2.0)
    ef.Tensor(11.0, shape=(), dtype=float32)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from eagerflow.core import errors
from eagerflow.core.dispatch import execute, primitive
from eagerflow.ops import array_ops as _array
from eagerflow.ops import creation as _creation
from eagerflow.ops import indexing as _indexing
from eagerflow.ops import logic as _logic
from eagerflow.ops import math as _math
from eagerflow.ops import reduce as _reduce
from eagerflow.ops import unary as _unary
from eagerflow.ops.typing import AxisLike, DTypeLike, Tensor, TensorLike


def _float(x: TensorLike, op_name: str) -> Tensor:
    x = _creation.convert_to_tensor(x)
    if x.dtype.kind != "f":
        raise errors.InvalidArgumentError(
            f"{op_name} expects a floating-point tensor, got {x.dtype.name}", op=op_name)
    return x


def is_nan(x: TensorLike, name: str | None = None) -> Tensor:
    """Whether each entry is NaN.

    Raises:
        InvalidArgumentError: for a non-floating-point input, as TensorFlow.

    Examples:
        >>> import eagerflow as ef
        >>> ef.math.is_nan([0.0, float("nan")])
        ef.Tensor([False  True], shape=(2,), dtype=bool)
    """
    x = _float(x, "IsNan")
    return _logic.not_equal(x, x)


def is_inf(x: TensorLike, name: str | None = None) -> Tensor:
    """Whether each entry is +inf or -inf.

    Raises:
        InvalidArgumentError: for a non-floating-point input, as TensorFlow.

    Examples:
        >>> import eagerflow as ef
        >>> ef.math.is_inf([0.0, float("-inf")])
        ef.Tensor([False  True], shape=(2,), dtype=bool)
    """
    x = _float(x, "IsInf")
    return _logic.equal(_unary.abs(x), _creation.constant(np.inf, x.dtype))


def is_finite(x: TensorLike, name: str | None = None) -> Tensor:
    """Whether each entry is neither NaN nor infinite.

    Raises:
        InvalidArgumentError: for a non-floating-point input, as TensorFlow.

    Examples:
        >>> import eagerflow as ef
        >>> ef.math.is_finite([0.0, float("inf"), float("nan")])
        ef.Tensor([ True False False], shape=(3,), dtype=bool)
    """
    x = _float(x, "IsFinite")
    return _logic.less(_unary.abs(x), _creation.constant(np.inf, x.dtype))


def rint(x: TensorLike, name: str | None = None) -> Tensor:
    """Rounds to the nearest integer, halves to even (``rint(2.5) == 2``), keeping the dtype.

    Raises:
        InvalidArgumentError: for a non-floating-point input.

    Examples:
        >>> import eagerflow as ef
        >>> ef.math.rint([0.5, 1.5, -1.7])
        ef.Tensor([ 0.  2. -2.], shape=(3,), dtype=float32)
    """
    return _unary.round(_float(x, "Rint"))


def count_nonzero(input: TensorLike, axis: AxisLike = None,  # noqa: A002
                  keepdims: bool | None = None, dtype: DTypeLike = "int64",
                  name: str | None = None) -> Tensor:
    """The number of non-zero entries along `axis` (all axes by default), as `dtype`.

    Examples:
        >>> import eagerflow as ef
        >>> ef.math.count_nonzero([[0.0, 1.0], [2.0, 0.0]], axis=1)
        ef.Tensor([1 1], shape=(2,), dtype=int64)
    """
    x = _creation.convert_to_tensor(input)
    nonzero = _math.cast(_logic.not_equal(x, _creation.zeros_like(x)), "int64")
    return _math.cast(_reduce.reduce_sum(nonzero, axis=axis, keepdims=bool(keepdims)), dtype)


def zero_fraction(value: TensorLike, name: str | None = None) -> Tensor:
    """The fraction of entries of `value` that are zero, as a float32 scalar.

    Examples:
        >>> import eagerflow as ef
        >>> ef.math.zero_fraction([0.0, 1.0, 0.0, 3.0])
        ef.Tensor(0.5, shape=(), dtype=float32)
    """
    x = _creation.convert_to_tensor(value)
    zero = _math.cast(_logic.equal(x, _creation.zeros_like(x)), "float32")
    return _reduce.reduce_mean(zero)


def polyval(coeffs: Sequence[TensorLike], x: TensorLike, name: str | None = None) -> Tensor:
    """The polynomial ``coeffs[0] * x**(n-1) + ... + coeffs[n-1]``, by Horner's rule.

    Args:
        coeffs: a list of tensors (or numbers), highest power first.
        x: the point(s) to evaluate at.

    Raises:
        ValueError: when `coeffs` is not a list or tuple.

    Examples:
        >>> import eagerflow as ef
        >>> ef.math.polyval([2.0, 0.0, 1.0], [1.0, 3.0])
        ef.Tensor([ 3. 19.], shape=(2,), dtype=float32)
    """
    if not isinstance(coeffs, (list, tuple)):
        raise ValueError(f"`coeffs` must be a list of tensors. Received: coeffs={coeffs!r}")
    x = _creation.convert_to_tensor(x)
    if not coeffs:
        return _creation.zeros_like(x)
    result: Any = _math.add(_creation.zeros_like(x), coeffs[0])
    for coefficient in coeffs[1:]:
        result = _math.add(_math.multiply(result, x), coefficient)
    return result


def cumulative_logsumexp(x: TensorLike, axis: int = 0, exclusive: bool = False,
                         reverse: bool = False, name: str | None = None) -> Tensor:
    """``log(cumsum(exp(x)))`` along `axis`, computed without overflow.

    Args:
        x: a floating-point tensor.
        axis: the axis to accumulate along.
        exclusive: whether each entry leaves itself out (the first is then -inf).
        reverse: whether to accumulate from the end.

    Raises:
        InvalidArgumentError: for a non-floating-point input.

    Examples:
        >>> import eagerflow as ef
        >>> ef.math.cumulative_logsumexp([0.0, 0.0, 0.0]).numpy().round(4).tolist()
        [0.0, 0.6931, 1.0986]
    """
    x = _float(x, "CumulativeLogsumexp")
    axis = int(axis)
    if not -x.ndim <= axis < max(x.ndim, 1):
        raise errors.InvalidArgumentError(f"axis {axis} is out of range for shape {x.shape}",
                                          op="CumulativeLogsumexp")
    return execute(_cumulative_logsumexp, (x,), {"axis": axis % max(x.ndim, 1),
                                                 "exclusive": bool(exclusive),
                                                 "reverse": bool(reverse)})


@primitive("CumulativeLogsumexp", fresh=True)
def _cumulative_logsumexp(x, axis, exclusive, reverse):
    if x.ndim == 0:
        return np.full_like(x, -np.inf) if exclusive else x.copy()
    values = np.flip(x, axis) if reverse else x
    out = np.logaddexp.accumulate(values, axis=axis)  # a running log-sum, no overflow
    if exclusive:
        out = np.concatenate([np.full_like(np.take(out, [0], axis), -np.inf),
                              np.take(out, np.arange(out.shape[axis] - 1), axis)], axis)
    return np.flip(out, axis) if reverse else out


@_cumulative_logsumexp.gradient
def _cumulative_logsumexp_grad(dy, out, x, axis, exclusive, reverse):
    # dx_j = exp(x_j) * sum over the outputs i that include j of dy_i * exp(-out_i), summed
    # in log space (TensorFlow's rule), the positive and negative parts of dy apart.
    log_positive, log_negative = _log_parts(dy)

    def spread(log_part):
        total = execute(_cumulative_logsumexp, (_math.subtract(log_part, out),),
                        {"axis": axis, "exclusive": exclusive, "reverse": not reverse})
        return _unary.exp(_math.add(total, x))

    return _math.subtract(spread(log_positive), spread(log_negative))


@_cumulative_logsumexp.jvp
def _cumulative_logsumexp_jvp(tangents, out, x, axis, exclusive, reverse):
    # dy_i = sum over the j that y_i includes of exp(x_j - y_i) t_j: the same accumulation
    # of x + log|t|, the positive and negative parts of t apart.
    log_positive, log_negative = _log_parts(tangents[0])

    def gather(log_part):
        total = execute(_cumulative_logsumexp, (_math.add(x, log_part),),
                        {"axis": axis, "exclusive": exclusive, "reverse": reverse})
        return _unary.exp(_math.subtract(total, out))

    return _math.subtract(gather(log_positive), gather(log_negative))


def _log_parts(values: Tensor) -> tuple[Tensor, Tensor]:
    """``log(max(v, 0))`` and ``log(max(-v, 0))``, the dtype's lowest number for log(0)."""
    lowest = float(np.finfo(values.dtype).min)
    positive, negative = _logic.greater(values, 0.0), _logic.less(values, 0.0)
    ones = _creation.ones_like(values)
    return (_math.where(positive, _unary.log(_math.where(positive, values, ones)), lowest),
            _math.where(negative, _unary.log(_math.where(negative, _unary.negative(values),
                                                         ones)), lowest))


def invert_permutation(x: TensorLike, name: str | None = None) -> Tensor:
    """The inverse of the permutation `x`: ``y[x[i]] = i``, in `x`'s integer dtype.

    Raises:
        InvalidArgumentError: when `x` is not a vector of integers.

    Examples:
        >>> import eagerflow as ef
        >>> ef.math.invert_permutation([3, 4, 0, 2, 1])
        ef.Tensor([2 4 3 0 1], shape=(5,), dtype=int32)
    """
    x = _creation.convert_to_tensor(x)
    if x.ndim != 1 or x.dtype.kind not in "iu":
        raise errors.InvalidArgumentError(
            f"invert_permutation expects a vector of integers, got shape {x.shape} and dtype "
            f"{x.dtype.name}", op="InvertPermutation")
    positions = _creation.range(x.shape[0], dtype=x.dtype)
    return _indexing.scatter_nd(_array.expand_dims(x, 1), positions, (x.shape[0],))


def in_top_k(targets: TensorLike, predictions: TensorLike, k: int,
             name: str | None = None) -> Tensor:
    """Whether each target class is among the `k` highest predictions of its row.

    Ties at the boundary count as in the top `k`; a row whose target prediction is not
    finite, or whose target is out of range, gives False (TensorFlow's rules).

    Args:
        targets: a vector of class indices, one per row of `predictions`.
        predictions: a ``(batch, classes)`` float matrix.
        k: how many top predictions to consider.

    Examples:
        >>> import eagerflow as ef
        >>> ef.math.in_top_k([0, 1], [[0.1, 0.9], [0.3, 0.7]], k=1)
        ef.Tensor([False  True], shape=(2,), dtype=bool)
    """
    predictions = _creation.convert_to_tensor(predictions)
    targets = _math.cast(_creation.convert_to_tensor(targets), "int64")
    if predictions.ndim != 2 or targets.shape != predictions.shape[:1]:
        raise errors.InvalidArgumentError(
            f"in_top_k expects predictions of shape (batch, classes) and targets of shape "
            f"(batch,), got {predictions.shape} and {targets.shape}", op="InTopKV2")
    classes = predictions.shape[1]
    valid = _logic.logical_and(_logic.greater_equal(targets, 0),
                               _logic.less(targets, classes))
    safe = _math.where(valid, targets, _creation.zeros_like(targets))
    picked = _indexing.gather(predictions, safe, axis=1, batch_dims=1)
    above = _reduce.reduce_sum(
        _math.cast(_logic.greater(predictions, _array.expand_dims(picked, 1)), "int32"), axis=1)
    finite = _logic.less(_unary.abs(picked), np.inf) if picked.dtype.kind == "f" else valid
    return _logic.logical_and(_logic.logical_and(valid, finite), _logic.less(above, int(k)))


def real(input: TensorLike, name: str | None = None) -> Tensor:  # noqa: A002
    """The real part: `input` itself, eagerflow's tensors being real.

    Examples:
        >>> import eagerflow as ef
        >>> ef.math.real([1.5, -2.0])
        ef.Tensor([ 1.5 -2. ], shape=(2,), dtype=float32)
    """
    return _creation.convert_to_tensor(input)


def imag(input: TensorLike, name: str | None = None) -> Tensor:  # noqa: A002
    """The imaginary part: zeros of `input`'s shape and dtype for real tensors.

    Examples:
        >>> import eagerflow as ef
        >>> ef.math.imag([1.5, -2.0])
        ef.Tensor([0. 0.], shape=(2,), dtype=float32)
    """
    return _creation.zeros_like(_creation.convert_to_tensor(input))


def conj(x: TensorLike, name: str | None = None) -> Tensor:
    """The complex conjugate: `x` itself for real tensors.

    Examples:
        >>> import eagerflow as ef
        >>> ef.math.conj([1.0])
        ef.Tensor([1.], shape=(1,), dtype=float32)
    """
    return _creation.convert_to_tensor(x)


def _ordered(x: TensorLike, strict: bool) -> Tensor:
    flat = _array.reshape(_creation.convert_to_tensor(x), [-1])
    compare = _logic.greater if strict else _logic.greater_equal
    return _reduce.reduce_all(compare(flat[1:], flat[:-1]))


def is_non_decreasing(x: TensorLike, name: str | None = None) -> Tensor:
    """Whether the entries of `x`, in row-major order, never decrease (True for fewer than
    two entries).

    Examples:
        >>> import eagerflow as ef
        >>> ef.math.is_non_decreasing([1, 1, 2])
        ef.Tensor(True, shape=(), dtype=bool)
    """
    return _ordered(x, strict=False)


def is_strictly_increasing(x: TensorLike, name: str | None = None) -> Tensor:
    """Whether the entries of `x`, in row-major order, strictly increase.

    Examples:
        >>> import eagerflow as ef
        >>> ef.math.is_strictly_increasing([1, 1, 2])
        ef.Tensor(False, shape=(), dtype=bool)
    """
    return _ordered(x, strict=True)


def scalar_mul(scalar: TensorLike, x: TensorLike, name: str | None = None) -> Tensor:
    """`scalar * x` for a scalar `scalar`.

    Raises:
        ValueError: when `scalar` is not a scalar.

    Examples:
        >>> import eagerflow as ef
        >>> ef.math.scalar_mul(2.0, [1.0, 3.0])
        ef.Tensor([2. 6.], shape=(2,), dtype=float32)
    """
    if np.ndim(scalar.numpy() if isinstance(scalar, Tensor) else scalar) != 0:
        raise ValueError(f"`scalar` must be a 0-D value. Received: scalar={scalar!r}")
    return _math.multiply(scalar, x)


def accumulate_n(inputs: Sequence[TensorLike], shape: Any = None, tensor_dtype: Any = None,
                 name: str | None = None) -> Tensor:
    """The elementwise sum of a list of tensors of one shape (TensorFlow's deprecated name
    for `add_n`).

    Examples:
        >>> import eagerflow as ef
        >>> ef.math.accumulate_n([[1.0, 2.0], [3.0, 4.0]])
        ef.Tensor([4. 6.], shape=(2,), dtype=float32)
    """
    return _math.add_n(list(inputs))
