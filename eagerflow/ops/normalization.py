"""Normalization: moments, batch_normalization, l2_normalize.

`moments` is one fused primitive (mean and variance in one op, with the closed-form
gradient ``dx = dmean / N + dvar * 2 (x - mean) / N``: three full-size passes backwards
instead of about ten for the composition of reductions). `batch_normalization` and
`l2_normalize` are compositions of differentiable ops written the way TensorFlow writes
them, doing the per-channel arithmetic on the small statistics first. Every input
(including the mean, variance, offset and scale) gets a gradient of any order.

Examples:
    >>> import eagerflow as ef
    >>> mean, variance = ef.nn.moments([[1.0, 2.0], [3.0, 6.0]], axes=[0])
    >>> mean, variance
    (ef.Tensor([2. 4.], shape=(2,), dtype=float32), ef.Tensor([1. 4.], shape=(2,), dtype=float32))
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from eagerflow.core import errors
from eagerflow.core.dispatch import convert_input, execute, primitive
from eagerflow.ops import array_ops as _array
from eagerflow.ops import math as _math
from eagerflow.ops import reduce as _reduce
from eagerflow.ops import unary as _unary
from eagerflow.ops.typing import AxisLike, Tensor, TensorLike


def _float_tensor(x: TensorLike, op_name: str) -> Tensor:
    x = convert_input(x)
    if x.dtype.kind != "f":
        raise errors.InvalidArgumentError(
            f"{op_name} needs a floating-point tensor, got dtype {x.dtype.name}", op_name
        )
    return x


def moments(x: TensorLike, axes: Any, shift: Any = None, keepdims: bool = False,
            name: str | None = None) -> tuple[Tensor, Tensor]:
    """Mean and (population) variance of `x` over `axes`.

    Args:
        x: a floating-point tensor.
        axes: the axes to reduce (e.g. ``[0, 1, 2]`` for per-channel NHWC statistics).
        shift: unused; accepted for TensorFlow compatibility.
        keepdims: keep the reduced axes with size 1.

    Returns:
        ``(mean, variance)``. float16 inputs are reduced in float32 and cast back.

    Raises:
        InvalidArgumentError: for a non-float input or an axis out of range.

    Examples:
        >>> import eagerflow as ef
        >>> mean, variance = ef.nn.moments(ef.ones([4, 2, 2, 3]), axes=[0, 1, 2])
        >>> mean.shape, float(variance[0])
        ((3,), 0.0)
    """
    del shift  # TensorFlow also ignores it in its current implementation
    x = _float_tensor(x, "Moments")
    reduced = _reduce._axes(axes, x.ndim, "Moments")
    reduced = tuple(range(x.ndim)) if reduced is None else reduced
    compute = _math.cast(x, "float32") if x.dtype == "float16" else x
    mean, variance = execute(_moments, (compute,), {"axes": reduced})
    if not keepdims and x.ndim:
        mean = _array.squeeze(mean, list(reduced))
        variance = _array.squeeze(variance, list(reduced))
    if compute is not x:
        mean, variance = _math.cast(mean, x.dtype), _math.cast(variance, x.dtype)
    return mean, variance


@primitive("Moments", num_outputs=2)
def _moments(x, axes):
    mean = np.mean(x, axis=axes, keepdims=True)
    centered = x - mean
    np.square(centered, out=centered)
    return mean, np.mean(centered, axis=axes, keepdims=True)


@_moments.gradient
def _moments_grad(dys, outs, x, axes):
    # mean = sum(x) / N, var = sum((x - mean)^2) / N; d var / d mean = 0, so
    # dx = dmean / N + dvar * 2 (x - mean) / N. Written in ops: the mean stays
    # differentiable, so second derivatives are exact too (TensorFlow's stop_gradient on
    # the mean is harmless to first order only).
    dmean, dvar = dys
    if any(x.shape[axis] is None for axis in axes):
        # A trace with unknown dimensions (an input_signature with batch None): the count
        # is known only when the graph runs.
        count: Any = _math.maximum(_math.divide(_array.size(x, dvar.dtype),
                                                _array.size(outs[0], dvar.dtype)), 1.0)
    else:
        count = max(math.prod(x.shape[axis] for axis in axes), 1)
    centered = _math.subtract(x, outs[0])
    spread = _math.multiply(centered, _math.divide(_math.multiply(dvar, 2.0), count))
    return _math.add(spread, _math.divide(dmean, count))


@_moments.jvp
def _moments_jvp(tangents, outs, x, axes):
    # d mean = mean(dx); d var = mean(2 (x - mean) dx) (the mean's own change averages out)
    dx = tangents[0]
    centered = _math.subtract(x, outs[0])
    return (_reduce.reduce_mean(dx, list(axes), keepdims=True),
            _reduce.reduce_mean(_math.multiply(_math.multiply(centered, 2.0), dx), list(axes),
                                keepdims=True))


def batch_normalization(x: TensorLike, mean: TensorLike, variance: Any, offset: Any, scale: Any,
                        variance_epsilon: Any, name: str | None = None) -> Tensor:
    """Normalises `x` with the given statistics: ``scale * (x - mean) / sqrt(var + eps) + offset``.

    Args:
        x: the input.
        mean, variance: statistics broadcastable to `x` (e.g. from `moments`).
        offset: the beta added after normalising, or None.
        scale: the gamma multiplied after normalising, or None.
        variance_epsilon: a small float added to the variance.

    Returns:
        The normalised tensor, `x`'s shape and dtype.

    Raises:
        InvalidArgumentError: for a non-float `x`.

    Examples:
        >>> import eagerflow as ef
        >>> ef.nn.batch_normalization([1.0, 3.0], 2.0, 1.0, 0.5, 2.0, 0.0)
        ef.Tensor([-1.5  2.5], shape=(2,), dtype=float32)
    """
    x = _float_tensor(x, "BatchNormalization")
    inv = _unary.rsqrt(_math.add(convert_input(variance), variance_epsilon))
    if scale is not None:
        inv = _math.multiply(inv, scale)
    inv = _math.cast(inv, x.dtype)
    shift = _unary.negative(_math.multiply(mean, inv))
    if offset is not None:
        shift = _math.add(shift, offset)
    # x * inv + (offset - mean * inv): the two full-size passes, with the per-channel
    # arithmetic done on the small statistics first, as TensorFlow does.
    return _math.add(_math.multiply(x, inv), _math.cast(shift, x.dtype))


def l2_normalize(x: TensorLike, axis: AxisLike = None, epsilon: float = 1e-12,
                 name: str | None = None, dim: Any = None) -> Tensor:
    """Divides `x` by its L2 norm along `axis`: ``x / sqrt(max(sum(x**2), epsilon))``.

    Args:
        x: a floating-point tensor.
        axis: the axis or axes to normalise over (None: all); `dim` is its old name.
        epsilon: lower bound of the squared norm, so zero vectors stay zero.

    Returns:
        A tensor of `x`'s shape with unit L2 norm along `axis`.

    Raises:
        InvalidArgumentError: for a non-float input, or both `axis` and `dim` given.

    Examples:
        >>> import eagerflow as ef
        >>> ef.nn.l2_normalize([3.0, 4.0])
        ef.Tensor([0.6 0.8], shape=(2,), dtype=float32)
        >>> ef.nn.l2_normalize([0.0, 0.0])
        ef.Tensor([0. 0.], shape=(2,), dtype=float32)
    """
    if dim is not None:
        if axis is not None:
            raise errors.InvalidArgumentError(
                "Cannot specify both 'axis' and 'dim' (its deprecated name).", "L2Normalize"
            )
        axis = dim
    x = _float_tensor(x, "L2Normalize")
    square_sum = _reduce.reduce_sum(_unary.square(x), axis, keepdims=True)
    return _math.multiply(x, _unary.rsqrt(_math.maximum(square_sum, epsilon)))
