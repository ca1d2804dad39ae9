"""Batch normalization in training as one op, forward and backward.

In training, `BatchNormalization` normalizes each channel (one `axis`) with the mean and
(population) variance of the batch, over every other axis::

    y = (x - mean) / sqrt(var + epsilon) * gamma + beta

Composed from `moments` and `batch_normalization` it costs six full-size passes and
about a dozen ops forward, and more backward, each an op on the tape. Here the forward
is one op (``FusedBatchNorm``, returning ``y`` and the batch ``mean`` and ``variance``,
from which the layer updates its moving statistics) and the backward another
(``FusedBatchNormGrad``), with the closed form, per channel, over the ``N`` reduced
elements, ``xhat = (x - mean) * inv`` and ``inv = 1 / sqrt(var + epsilon)``::

    dbeta = sum(dy),   dgamma = sum(dy * xhat)
    dx = gamma * inv * (dy - dbeta / N - xhat * dgamma / N)
         + dmean / N + 2 * dvar * (x - mean) / N

(the last line carries gradients that reach the batch statistics themselves; they are
zeros in a layer, which updates its moving statistics outside the differentiated
computation). The backward op takes the forward's ``mean`` and ``variance`` instead of
recomputing them. The NumPy kernels below make six full-size passes forward and eight
backward, with NumPy's loops given long rows (`_channels`); with the numba kernel set
the forward is two passes over ``x`` and the backward two over ``x`` and ``dy``
(`ops/kernels/batch_norm_jit.py`).
The backward op's own gradient (second order) differentiates the formula written in
eagerflow ops; through its ``mean`` and ``variance`` inputs, which the forward op
computed from ``x``, it reaches ``x`` by that op's gradient.

Examples:
    >>> import eagerflow as ef
    >>> from eagerflow.ops import batch_norm
    >>> y, mean, variance = batch_norm.batch_norm([[1.0], [3.0]], epsilon=0.0)
    >>> y, mean, variance
    (ef.Tensor(
    [[-1.]
     [ 1.]], shape=(2, 1), dtype=float32), ef.Tensor([2.], shape=(1,), dtype=float32), ef.Tensor([1.], shape=(1,), dtype=float32))
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from eagerflow.core import errors, forwardprop
from eagerflow.core import tape as tape_lib
from eagerflow.core.dispatch import convert_input, execute, primitive
from eagerflow.ops import array_ops as _array
from eagerflow.ops import math as _math
from eagerflow.ops import reduce as _reduce
from eagerflow.ops import unary as _unary
from eagerflow.ops.kernels import kernel_sets, scratch
from eagerflow.ops.typing import Tensor, TensorLike

FUSED_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))
"""The dtypes the fused op computes in (the layer keeps the composite path for others)."""


def _reduced(ndim, axis):
    return tuple(i for i in range(ndim) if i != axis)


def _channel_shape(ndim, axis, channels):
    """The shape of a per-channel vector broadcast against the input."""
    return tuple(channels if i == axis else 1 for i in range(ndim))


def channel_view(array: np.ndarray, axis: int) -> np.ndarray:
    """`array` as a C-contiguous ``(outer, channels, inner)`` array around `axis` (a view
    when `array` is C-contiguous); ``inner`` is 1 for the last axis.

    Examples:
        >>> import numpy as np
        >>> from eagerflow.ops import batch_norm
        >>> batch_norm.channel_view(np.zeros((2, 3, 4, 5)), 1).shape
        (2, 3, 20)
    """
    shape = array.shape
    return np.ascontiguousarray(array).reshape(
        math.prod(shape[:axis]), shape[axis], math.prod(shape[axis + 1:]))


_WIDE = 2048  # elements per row NumPy's loops should get (see `_channels`)
_FOLD_FROM = 1 << 16  # the input size from which `_channels` regroups rows


def _channels(array, axis):
    """``(view, fold)``: `array` laid out for NumPy's loops around the channel `axis`.

    NumPy's loops run along rows: rows of 32 channels cost one inner-loop call per row (a
    subtraction of a per-channel vector took 0.45 ms on a (64, 26, 26, 32) float32 batch,
    a sum over the rows 0.72 ms). So channels last, ``(outer, channels)`` is regrouped
    into rows of `fold` pixels, ``(outer / fold, fold * channels)``, `fold` the largest
    power of two dividing ``outer`` that keeps rows within `_WIDE` elements (0.28 and
    0.16 ms); per-channel vectors are tiled `fold` times (`_per_channel`), which costs
    more than it saves below `_FOLD_FROM` elements (`fold` 1 there). Another axis gives
    the ``(outer, channels, inner)`` `channel_view` and `fold` 0.
    """
    view = channel_view(array, axis)
    outer, channels, inner = view.shape
    if inner != 1:
        return view, 0
    fold = 1 if array.size < _FOLD_FROM else math.gcd(
        outer, 1 << (max(_WIDE // max(channels, 1), 1).bit_length() - 1))
    return view.reshape(outer // fold, fold * channels), fold


def _per_channel(vector, fold):
    """A per-channel vector laid out to broadcast against a `_channels` view."""
    if fold == 1:
        return vector
    return np.tile(vector, fold) if fold else vector.reshape(1, -1, 1)


def _column_sums(rows):
    """Column sums of a C-contiguous ``(count, width)`` array, in its dtype: narrow rows
    are summed in groups of rows of about `_WIDE` elements, then the partial sums folded
    (also smaller rounding errors: each column is summed in interleaved partial sums)."""
    count, width = rows.shape
    if not rows.size:
        return np.add.reduce(rows, 0)
    k = max(_WIDE // width, 1)
    main = count - count % k
    total = np.add.reduce(np.add.reduce(rows[:main].reshape(-1, k * width), 0).reshape(
        k, width), 0)
    if main < count:
        total += np.add.reduce(rows[main:], 0)
    return total


def _channel_sum(view, fold):
    """Per-channel sums of a `_channels` view, in its dtype."""
    if fold:
        return np.add.reduce(_column_sums(view).reshape(fold, view.shape[1] // fold), 0)
    outer, channels, inner = view.shape
    return np.add.reduce(_column_sums(view.reshape(outer, channels * inner)).reshape(
        channels, inner), 1)


@primitive("FusedBatchNorm", num_outputs=3, fresh=True)
def _batch_norm(x, gamma, beta, epsilon, axis):
    view, fold = _channels(x, axis)
    count = x.size // x.shape[axis] if x.shape[axis] else 0
    mean = _channel_sum(view, fold) / count
    centered = np.subtract(view, _per_channel(mean, fold),
                           out=scratch.empty(view.shape, x.dtype))
    y = np.square(centered, out=scratch.empty(view.shape, x.dtype))
    variance = _channel_sum(y, fold) / count
    scale = np.reciprocal(np.sqrt(variance + np.asarray(epsilon, x.dtype))) * gamma
    np.multiply(centered, _per_channel(scale, fold), out=y)
    y += _per_channel(beta, fold)
    return y.reshape(x.shape), mean, variance


_batch_norm.jvp(forwardprop.FROM_VJP)


@_batch_norm.gradient
def _batch_norm_grad(dys, outs, x, gamma, beta, epsilon, axis):
    dy, dmean, dvar = dys
    _, mean, variance = outs
    return execute(_batch_norm_backward, (x, gamma, mean, variance, dy, dmean, dvar),
                   {"epsilon": epsilon, "axis": axis})


@primitive("FusedBatchNormGrad", num_outputs=3, fresh=True)
def _batch_norm_backward(x, gamma, mean, variance, dy, dmean, dvar, epsilon, axis):
    # dx = k * dy + b * (x - mean) + e per channel, with k = gamma * inv,
    # b = (2 dvar - k * inv * dgamma) / N and e = (dmean - k * dbeta) / N
    (view, fold), (grads, _) = _channels(x, axis), _channels(dy, axis)
    count = x.size // x.shape[axis] if x.shape[axis] else 0
    inv = np.reciprocal(np.sqrt(variance + np.asarray(epsilon, x.dtype)))
    centered = np.subtract(view, _per_channel(mean, fold),
                           out=scratch.empty(view.shape, x.dtype))
    dx = np.multiply(centered, grads, out=scratch.empty(view.shape, x.dtype))
    dbeta = _channel_sum(grads, fold)
    dgamma = _channel_sum(dx, fold) * inv
    k = gamma * inv
    b = (2 * dvar - k * inv * dgamma) / count
    e = (dmean - k * dbeta) / count
    np.multiply(grads, _per_channel(k, fold), out=dx)
    centered *= _per_channel(b, fold)
    dx += centered
    dx += _per_channel(e, fold)
    return dx.reshape(x.shape), dgamma, dbeta


_batch_norm_backward.jvp(forwardprop.FROM_VJP)


def _count(x, axis, dtype):
    """The number of elements per channel, as a tensor when a traced shape is unknown."""
    if None in x.shape:
        return _math.divide(_array.size(x, dtype), float(x.shape[axis]))
    return float(math.prod(x.shape) // max(x.shape[axis], 1))


def _backward_formula(x, gamma, mean, variance, dy, dmean, dvar, epsilon, axis):
    """`_batch_norm_backward` in eagerflow ops (for its gradient)."""
    axes = list(_reduced(x.ndim, axis))
    shape = _channel_shape(x.ndim, axis, x.shape[axis])
    count = _count(x, axis, x.dtype)
    inv = _unary.rsqrt(variance + epsilon)
    centered = x - _array.reshape(mean, shape)
    dbeta = _reduce.reduce_sum(dy, axes)
    dgamma = _reduce.reduce_sum(centered * dy, axes) * inv
    k = gamma * inv
    b = (2.0 * dvar - k * inv * dgamma) / count
    e = (dmean - k * dbeta) / count
    dx = dy * _array.reshape(k, shape) + centered * _array.reshape(b, shape)
    return dx + _array.reshape(e, shape), dgamma, dbeta


@_batch_norm_backward.gradient
def _batch_norm_backward_grad(dys, outs, x, gamma, mean, variance, dy, dmean, dvar, epsilon,
                              axis):
    inputs = [x, gamma, mean, variance, dy, dmean, dvar]
    with tape_lib.GradientTape() as tape:
        tape.watch(inputs)
        outputs = _backward_formula(x, gamma, mean, variance, dy, dmean, dvar, epsilon, axis)
    return tape.gradient(list(outputs), inputs, output_gradients=list(dys))


kernel_sets.register("FusedBatchNorm", forward="eagerflow.ops.kernels.batch_norm_jit:batch_norm")
kernel_sets.register("FusedBatchNormGrad",
                     forward="eagerflow.ops.kernels.batch_norm_jit:batch_norm_grad")


def batch_norm(x: TensorLike, gamma: TensorLike | None = None, beta: TensorLike | None = None,
               epsilon: float = 1e-3, axis: int = -1) -> tuple[Tensor, Tensor, Tensor]:
    """Normalizes `x` per channel with its batch statistics, then scales and shifts it.

    Args:
        x: a float32 or float64 tensor of rank >= 1.
        gamma, beta: vectors of the channel axis' length, `x`'s dtype (None: ones and
            zeros, no scale or shift).
        epsilon: added to the variance.
        axis: the channel axis; the statistics are taken over every other axis.

    Returns:
        ``(y, mean, variance)``: ``(x - mean) / sqrt(variance + epsilon) * gamma + beta``
        (`x`'s shape and dtype) and the batch's per-channel mean and (population)
        variance, vectors of the channel axis' length.

    Raises:
        InvalidArgumentError: for an `x` that is not float32/float64 of rank >= 1, an
            axis out of range, or parameters of the wrong shape or dtype.

    Examples:
        >>> import eagerflow as ef
        >>> from eagerflow.ops import batch_norm
        >>> y, _, _ = batch_norm.batch_norm(ef.ones([4, 2, 3]), axis=1)
        >>> y.shape, float(ef.reduce_max(ef.abs(y)))
        ((4, 2, 3), 0.0)
    """
    x = convert_input(x)
    if x.dtype not in FUSED_DTYPES or x.ndim == 0:
        raise errors.InvalidArgumentError(
            f"FusedBatchNorm needs a float32 or float64 tensor of rank >= 1, got dtype "
            f"{x.dtype.name} and shape {x.shape}", "FusedBatchNorm")
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)) or not (
            -x.ndim <= axis < x.ndim):
        raise errors.InvalidArgumentError(
            f"FusedBatchNorm: axis must be an int in [{-x.ndim}, {x.ndim}) for x of shape "
            f"{x.shape}; got {axis!r}", "FusedBatchNorm")
    axis = int(axis) % x.ndim
    channels = x.shape[axis]
    if channels is None:
        raise errors.InvalidArgumentError(
            f"FusedBatchNorm: the channel axis {axis} of x {x.shape} must have a known size",
            "FusedBatchNorm")
    params: list[Any] = []
    for name, value, fill in (("gamma", gamma, 1.0), ("beta", beta, 0.0)):
        if value is None:
            value = np.full(channels, fill, x.dtype)
        value = convert_input(value) if hasattr(value, "dtype") else convert_input(
            value, dtype=x.dtype)  # (Python numbers are weak: they take x's dtype)
        if value.shape != (channels,) or value.dtype != x.dtype:
            raise errors.InvalidArgumentError(
                f"FusedBatchNorm: {name} must be a {x.dtype.name} vector of shape "
                f"({channels},) (axis {axis} of x {x.shape}); got {value.dtype.name} "
                f"{value.shape}", "FusedBatchNorm")
        params.append(value)
    return execute(_batch_norm, (x, *params), {"epsilon": float(epsilon), "axis": axis})
