"""Normalization: moments, batch_normalization, l2_normalize.

These are compositions of differentiable ops (reductions, ``rsqrt``, products), written
the way TensorFlow writes them, so every input (including the mean, variance, offset and
scale) gets a gradient of any order.

Example:
    >>> import eagerflow as ef
    >>> mean, variance = ef.nn.moments([[1.0, 2.0], [3.0, 6.0]], axes=[0])
    >>> mean, variance
    (ef.Tensor([2. 4.], shape=(2,), dtype=float32), ef.Tensor([1. 4.], shape=(2,), dtype=float32))
"""

from __future__ import annotations

from eagerflow.core import errors
from eagerflow.core.dispatch import convert_input

__all__ = ["batch_normalization", "l2_normalize", "moments"]


def _float_tensor(x, op_name):
    x = convert_input(x)
    if x.dtype.kind != "f":
        raise errors.InvalidArgumentError(
            f"{op_name} needs a floating-point tensor, got dtype {x.dtype.name}", op_name
        )
    return x


def moments(x, axes, shift=None, keepdims=False, name=None):
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

    Example:
        >>> import eagerflow as ef
        >>> mean, variance = ef.nn.moments(ef.ones([4, 2, 2, 3]), axes=[0, 1, 2])
        >>> mean.shape, float(variance[0])
        ((3,), 0.0)
    """
    del shift  # TensorFlow also ignores it in its current implementation
    x = _float_tensor(x, "Moments")
    compute = _math.cast(x, "float32") if x.dtype == "float16" else x
    mean = _reduce.reduce_mean(compute, axes, keepdims=True)
    # TensorFlow wraps the mean in stop_gradient here. That is harmless to first order
    # (d var / d mean = -2 mean(x - mean) = 0) but gives wrong second derivatives, so the
    # mean stays differentiable.
    variance = _reduce.reduce_mean(_math.squared_difference(compute, mean), axes,
                                   keepdims=True)
    if not keepdims and x.ndim:
        reduced = _reduce._axes(axes, x.ndim, "Moments")
        reduced = list(range(x.ndim)) if reduced is None else list(reduced)
        mean = _array.squeeze(mean, reduced)
        variance = _array.squeeze(variance, reduced)
    if compute is not x:
        mean, variance = _math.cast(mean, x.dtype), _math.cast(variance, x.dtype)
    return mean, variance


def batch_normalization(x, mean, variance, offset, scale, variance_epsilon, name=None):
    """Normalises `x` with the given statistics: ``scale * (x - mean) / sqrt(var + eps) + offset``.

    Args:
        x: the input.
        mean, variance: statistics broadcastable to `x` (e.g. from `moments`).
        offset: the beta added after normalising, or None.
        scale: the gamma multiplied after normalising, or None.
        variance_epsilon: a small float added to the variance.

    Returns:
        The normalised tensor, `x`'s shape and dtype.

    Example:
        >>> import eagerflow as ef
        >>> ef.nn.batch_normalization([1.0, 3.0], 2.0, 1.0, 0.5, 2.0, 0.0)
        ef.Tensor([-1.5  2.5], shape=(2,), dtype=float32)
    """
    x = _float_tensor(x, "BatchNormalization")
    inv = _math.rsqrt(_math.add(convert_input(variance), variance_epsilon))
    if scale is not None:
        inv = _math.multiply(inv, scale)
    inv = _math.cast(inv, x.dtype)
    shift = _math.negative(_math.multiply(mean, inv))
    if offset is not None:
        shift = _math.add(shift, offset)
    # x * inv + (offset - mean * inv): the two full-size passes, with the per-channel
    # arithmetic done on the small statistics first, as TensorFlow does.
    return _math.add(_math.multiply(x, inv), _math.cast(shift, x.dtype))


def l2_normalize(x, axis=None, epsilon=1e-12, name=None, dim=None):
    """Divides `x` by its L2 norm along `axis`: ``x / sqrt(max(sum(x**2), epsilon))``.

    Args:
        x: a floating-point tensor.
        axis: the axis or axes to normalise over (None: all); `dim` is its old name.
        epsilon: lower bound of the squared norm, so zero vectors stay zero.

    Example:
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
    square_sum = _reduce.reduce_sum(_math.square(x), axis, keepdims=True)
    return _math.multiply(x, _math.rsqrt(_math.maximum(square_sum, epsilon)))


from eagerflow.core.ops import array as _array  # noqa: E402
from eagerflow.core.ops import math as _math  # noqa: E402
from eagerflow.core.ops import reduce as _reduce  # noqa: E402
