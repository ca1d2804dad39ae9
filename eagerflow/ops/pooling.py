"""Pooling (NHWC): max_pool2d, avg_pool2d, their 1-D forms, and global pools.

Both pools loop over the kh*kw window offsets only: each offset is one strided slice of
the (padded) input covering every window at once, combined with ``np.maximum`` or ``+``.

* ``MaxPool``'s gradient ``MaxPoolGrad(x, y, dy)`` routes each window's gradient to the
  first cell (in row-major window order) equal to the window's maximum, like TensorFlow,
  so ties (such as windows of zeros after a relu) do not duplicate gradient. Its own
  gradient is ``MaxPoolGradGrad(x, y, ddx)``, which reads ``ddx`` at those same cells;
  the two are each other's transpose, so gradients of any order work.
* ``AvgPool`` with ``SAME`` padding divides each window by its number of valid (unpadded)
  cells, like TensorFlow. ``AvgPoolGrad(dy)`` spreads ``dy / count`` back; the two are
  linear and each other's transpose.

Under the numba kernel set (`ef.config.get_kernel_set()`), the five primitives run the
compiled kernels of `kernels/pool_jit.py` (same values, one pass, no padded copy).

Examples:
    >>> import eagerflow as ef
    >>> x = ef.reshape(ef.range(16.0), [1, 4, 4, 1])
    >>> ef.nn.max_pool2d(x, 2, 2, "VALID")[0, :, :, 0]
    ef.Tensor(
    [[ 5.  7.]
     [13. 15.]], shape=(2, 2), dtype=float32)
    >>> ef.nn.avg_pool2d(ef.ones([1, 3, 3, 1]), 2, 2, "SAME")[0, :, :, 0]
    ef.Tensor(
    [[1. 1.]
     [1. 1.]], shape=(2, 2), dtype=float32)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from eagerflow.core import context, errors, forwardprop
from eagerflow.core.dispatch import convert_input, execute, primitive
from eagerflow.ops import array_ops as _array
from eagerflow.ops import logic as _logic
from eagerflow.ops import math as _math
from eagerflow.ops import nn_ops  # noqa: F401 - registers BiasAdd(Grad), whose forwards are reused
from eagerflow.ops import reduce as _reduce
from eagerflow.ops.kernels import extrema, kernel_sets, saved, scratch, windows
from eagerflow.ops.typing import Tensor, TensorLike

_ONES = (1, 1)
_flags = context.flags


def _out_sizes(in_sizes, ksize, strides, pads) -> tuple:
    return tuple((size + before + after - k) // s + 1
                 for size, k, s, (before, after) in zip(in_sizes, ksize, strides, pads,
                                                                 strict=True))


def _lowest(dtype):
    return -np.inf if dtype.kind == "f" else np.iinfo(dtype).min


def _offsets(ksize, strides, out_sizes):
    for i in range(ksize[0]):
        for j in range(ksize[1]):
            yield windows.offset_slices(i, j, strides, _ONES, out_sizes)


def _crop(grad, pads, in_sizes):
    (top, _), (left, _) = pads
    if grad.shape[1:3] == tuple(in_sizes):
        return grad
    out = scratch.empty((grad.shape[0],) + tuple(in_sizes) + (grad.shape[3],), grad.dtype)
    np.copyto(out, grad[:, top:top + in_sizes[0], left:left + in_sizes[1]])
    return out


# -- max pooling --------------------------------------------------------------------------
def _running_max(xp, ksize, strides, out_sizes, winners=None):
    """Window maxima; also fills `winners` with the offset of each window's first maximum.

    The offsets are visited in row-major window order and a later offset wins only when
    strictly greater, so ties go to the first maximum, like TensorFlow's gradient.
    """
    out: np.ndarray | None = None
    better: Any = None
    for k, index in enumerate(_offsets(ksize, strides, out_sizes)):
        if out is None:
            out = scratch.empty(xp[index].shape, xp.dtype)
            np.copyto(out, xp[index])
            if winners is not None:
                winners.fill(0)
                better = np.empty(out.shape, winners.dtype)
            continue
        if winners is not None:
            # k grows, so the last offset that beat the running maximum is the largest
            # k * [beat]: a maximum of small ints (np.copyto(..., where=) is 20x slower).
            np.greater(xp[index], out, out=better.view(np.bool_)) if better.itemsize == 1 \
                else np.copyto(better, np.greater(xp[index], out))
            better *= k
            np.maximum(winners, better, out=winners)
        np.maximum(out, xp[index], out=out)
    return out


def _winner_dtype(ksize):
    return np.min_scalar_type(ksize[0] * ksize[1] - 1)


@primitive("MaxPool", fresh=True)
def _max_pool(x, ksize, strides, pads, save_for_gradient=False):
    xp = windows.pad(x, pads, _lowest(x.dtype), allocate=scratch.empty)
    out_sizes = _out_sizes(x.shape[1:3], ksize, strides, pads)
    if not ((_flags.tapes or save_for_gradient) and x.dtype.kind == "f"):
        return _running_max(xp, ksize, strides, out_sizes)
    # A tape may want the gradient: keep where each maximum was (one byte per output),
    # which makes MaxPoolGrad a few cheap passes instead of a search through every window.
    winners = scratch.empty((x.shape[0],) + out_sizes + (x.shape[3],), _winner_dtype(ksize))
    out = _running_max(xp, ksize, strides, out_sizes, winners)
    saved.remember(out, ("max-pool-winners", ksize, strides, pads), winners)
    return out


def _same_pool(producer, consumer) -> bool:
    return all(producer.attrs[k] == consumer.attrs[k] for k in ("ksize", "strides", "pads"))


for _consumer in ("MaxPoolGrad", "MaxPoolGradGrad"):  # inputs (x, y, ...): keyed by y
    saved.pair(_consumer, "MaxPool", lambda node: node.inputs[1],
               lambda node: node.outputs[0], _same_pool)


_max_pool.jvp(forwardprop.FROM_VJP)  # JVP: the transposed gradient rule


@_max_pool.gradient
def _max_pool_grad(dy, y, x, ksize, strides, pads):
    return execute(_max_pool_backprop, (x, y, dy),
                   {"ksize": ksize, "strides": strides, "pads": pads})


def _winners(x, y, ksize, strides, pads):
    """The winner offsets saved for `y`'s windows by the forward pass, or recomputed."""
    winners = saved.take(y, ("max-pool-winners", ksize, strides, pads))
    if winners is None:
        xp = windows.pad(x, pads, _lowest(x.dtype), allocate=scratch.empty)
        winners = scratch.empty(y.shape, _winner_dtype(ksize))
        _running_max(xp, ksize, strides, y.shape[1:3], winners)
    return winners


@primitive("MaxPoolGrad", fresh=True)
def _max_pool_backprop(x, y, dy, ksize, strides, pads):
    winners = _winners(x, y, ksize, strides, pads)
    (top, bottom), (left, right) = pads
    grad = scratch.empty((x.shape[0], x.shape[1] + top + bottom, x.shape[2] + left + right,
                          x.shape[3]), dy.dtype)
    disjoint = all(s >= k for s, k in zip(strides, ksize, strict=True))
    # Windows that do not overlap and tile the whole (padded) input write every cell once.
    tiled = disjoint and all(s == k and o * s == size for s, k, o, size in zip(
        strides, ksize, y.shape[1:3], grad.shape[1:3], strict=True))
    if not tiled:
        grad.fill(0)
    for k, index in enumerate(_offsets(ksize, strides, y.shape[1:3])):
        if disjoint:  # windows do not overlap: each cell is written at most once
            np.multiply(dy, winners == k, out=grad[index])
        else:
            grad[index] += dy * (winners == k)
    return _crop(grad, pads, x.shape[1:3])


_max_pool_backprop.jvp(forwardprop.FROM_VJP)  # JVP: the transposed gradient rule


@_max_pool_backprop.gradient
def _max_pool_backprop_grad(ddx, out, x, y, dy, ksize, strides, pads):
    # The routing is piecewise constant in x (and y): only dy carries a gradient.
    return None, None, execute(_max_pool_backprop_grad_op, (x, y, ddx),
                               {"ksize": ksize, "strides": strides, "pads": pads})


@primitive("MaxPoolGradGrad")
def _max_pool_backprop_grad_op(x, y, ddx, ksize, strides, pads):
    winners = _winners(x, y, ksize, strides, pads)
    ddxp = windows.pad(ddx, pads, 0, allocate=scratch.empty)
    result = np.zeros(y.shape, ddx.dtype)
    for k, index in enumerate(_offsets(ksize, strides, y.shape[1:3])):
        result += ddxp[index] * (winners == k)
    return result


_max_pool_backprop_grad_op.jvp(forwardprop.FROM_VJP)  # JVP: the transposed gradient rule


@_max_pool_backprop_grad_op.gradient
def _max_pool_backprop_grad_op_grad(dz, out, x, y, ddx, ksize, strides, pads):
    return None, None, execute(_max_pool_backprop, (x, y, dz),
                               {"ksize": ksize, "strides": strides, "pads": pads})


# -- max pooling fused with the bias add and relu before it -------------------------------
@primitive("MaxPoolBiasRelu", fresh=True)
def _max_pool_bias_relu(x, bias, ksize, strides, pads, save_for_gradient=False):
    # The window maxima of x, then the bias and the clamp on the pooled tensor: bitwise
    # relu(MaxPool(x) + bias) as the three ops give it. The winners saved for the
    # gradient are keyed by this output (the pooled array, updated in place).
    out = kernel_sets.numpy_forward("MaxPool")(x, ksize, strides, pads, save_for_gradient)
    kernel_sets.numpy_forward("BiasAdd")(out, bias, channel_axis=3, out=out)  # (wide rows)
    return extrema.maximum(out, 0, out=out)


saved.pair("MaxPoolBiasReluGrad", "MaxPoolBiasRelu", lambda node: node.inputs[1],
           lambda node: node.outputs[0], _same_pool)
_max_pool_bias_relu.jvp(forwardprop.FROM_VJP)  # JVP: the transposed gradient rule


@_max_pool_bias_relu.gradient
def _max_pool_bias_relu_grad(dy, y, x, bias, ksize, strides, pads):
    return execute(_max_pool_bias_relu_backprop, (x, y, dy),
                   {"ksize": ksize, "strides": strides, "pads": pads})


@primitive("MaxPoolBiasReluGrad", num_outputs=2)
def _max_pool_bias_relu_backprop(x, y, dy, ksize, strides, pads):
    # relu's mask on the pooled side (where y > 0), then routed to the winners of x;
    # the bias gradient is the masked gradient summed per channel (routing moves each
    # value to one cell without changing it).
    masked = np.multiply(dy, y > 0, out=scratch.empty(dy.shape, dy.dtype))
    dx = kernel_sets.numpy_forward("MaxPoolGrad")(x, y, masked, ksize, strides, pads)
    return dx, kernel_sets.numpy_forward("BiasAddGrad")(masked, channel_axis=3)


_max_pool_bias_relu_backprop.jvp(forwardprop.FROM_VJP)  # JVP: the transposed gradient rule


@_max_pool_bias_relu_backprop.gradient
def _max_pool_bias_relu_backprop_grad(dd, out, x, y, dy, ksize, strides, pads):
    # Linear in dy, piecewise constant in x and y: d(dy) = (ddx read at the winners
    # + dbias) * [y > 0]; only dy carries a gradient.
    ddx, ddbias = dd
    routed = execute(_max_pool_backprop_grad_op, (x, y, ddx),
                     {"ksize": ksize, "strides": strides, "pads": pads})
    return None, None, _math.multiply(routed + ddbias, _logic.greater(y, 0))


# -- average pooling ----------------------------------------------------------------------
def _counts(in_sizes, ksize, strides, pads, dtype):
    """``1 / (number of unpadded cells)`` of every window, shaped ``(1, oh, ow, 1)``."""
    per_axis = []
    outs = _out_sizes(in_sizes, ksize, strides, pads)
    for size, k, s, (before, _), out in zip(in_sizes, ksize, strides, pads, outs, strict=True):
        start = np.arange(out) * s - before
        per_axis.append(np.minimum(start + k, size) - np.maximum(start, 0))
    count = np.multiply.outer(per_axis[0], per_axis[1])
    return (1.0 / count).astype(dtype)[None, :, :, None]


@primitive("AvgPool", fresh=True)
def _avg_pool(x, ksize, strides, pads):
    xp = windows.pad(x, pads, allocate=scratch.empty)
    out = None
    for index in _offsets(ksize, strides, _out_sizes(x.shape[1:3], ksize, strides, pads)):
        if out is None:
            out = scratch.empty(xp[index].shape, x.dtype)
            np.copyto(out, xp[index])
        else:
            out += xp[index]
    out *= _counts(x.shape[1:3], ksize, strides, pads, x.dtype)
    return out


_avg_pool.jvp(forwardprop.LINEAR)  # JVP: linear: the op applied to the tangents


@_avg_pool.gradient
def _avg_pool_grad(dy, y, x, ksize, strides, pads):
    return execute(_avg_pool_backprop, (dy,), {"input_shape": x.shape, "ksize": ksize,
                                               "strides": strides, "pads": pads})


@primitive("AvgPoolGrad")
def _avg_pool_backprop(dy, input_shape, ksize, strides, pads):
    _, h, w, _ = input_shape
    n, c = dy.shape[0], dy.shape[3]  # the traced input_shape may leave the batch unknown
    (top, bottom), (left, right) = pads
    scaled = dy * _counts((h, w), ksize, strides, pads, dy.dtype)
    grad = scratch.empty((n, h + top + bottom, w + left + right, c), dy.dtype)
    grad.fill(0)
    for index in _offsets(ksize, strides, dy.shape[1:3]):
        grad[index] += scaled
    return _crop(grad, pads, (h, w))


_avg_pool_backprop.jvp(forwardprop.LINEAR)  # JVP: linear: the op applied to the tangents


@_avg_pool_backprop.gradient
def _avg_pool_backprop_grad(ddx, out, dy, input_shape, ksize, strides, pads):
    return execute(_avg_pool, (ddx,), {"ksize": ksize, "strides": strides, "pads": pads})


# The compiled kernels (the numba kernel set; `kernel_sets.py`).
for _name, _kernel in (("MaxPool", "max_pool"), ("MaxPoolGrad", "max_pool_backprop"),
                       ("MaxPoolGradGrad", "max_pool_backprop_grad"), ("AvgPool", "avg_pool"),
                       ("AvgPoolGrad", "avg_pool_backprop"),
                       ("MaxPoolBiasRelu", "max_pool_bias_relu"),
                       ("MaxPoolBiasReluGrad", "max_pool_bias_relu_backprop")):
    kernel_sets.register(_name, forward=f"eagerflow.ops.kernels.pool_jit:{_kernel}")


# -- public ops ---------------------------------------------------------------------------
def _pool_args(input, ksize, strides, padding, data_format, op_name, explicit_ok):  # noqa: A002
    if data_format not in (None, "NHWC", "NCHW"):
        raise errors.InvalidArgumentError(
            f"data_format must be 'NHWC' or 'NCHW'. Received: data_format={data_format!r}",
            op_name,
        )
    channels_last = data_format != "NCHW"
    x = convert_input(input)
    if x.ndim != 4:
        raise errors.InvalidArgumentError(
            f"input must be 4-D (batch, height, width, channels), got shape {x.shape}", op_name
        )
    if op_name == "AvgPool" and x.dtype.kind != "f":
        raise errors.InvalidArgumentError(
            f"AvgPool needs a floating-point input, got {x.dtype.name}", op_name
        )
    if not channels_last:
        ksize, strides = (windows.channel_entry_last(v, 2, False) for v in (ksize, strides))
        x = _array.transpose(x, [0, 2, 3, 1])
    ksize = windows.spatial_ints(ksize, "ksize", 2, op_name)
    strides = windows.spatial_ints(strides, "strides", 2, op_name)
    padding = windows.parse_padding(padding, 2, op_name, channels_last)
    if not isinstance(padding, str):
        if not explicit_ok:
            raise errors.InvalidArgumentError(
                f"{op_name} supports padding 'SAME' or 'VALID' only (TensorFlow's avg_pool2d "
                f"has no explicit padding). Received: padding={list(padding)}", op_name
            )
        if any(max(pair) >= k for pair, k in zip(padding, ksize, strict=True)):
            raise errors.InvalidArgumentError(
                f"explicit padding {list(padding)} must be smaller than the window {ksize} "
                "(a window made only of padding has no maximum)", op_name
            )
    _, pads = windows.resolve(x.shape[1:3], ksize, strides, _ONES, padding, op_name)
    return x, channels_last, {"ksize": ksize, "strides": strides, "pads": pads}


def max_pool2d(input: TensorLike, ksize: int | Sequence[int],
               strides: int | Sequence[int], padding: str, data_format: str = "NHWC",
               name: str | None = None) -> Tensor:  # noqa: A002
    """Max pooling over ``ksize`` windows of an NHWC tensor.

    Args:
        input: ``(batch, height, width, channels)`` (or NCHW with `data_format`).
        ksize: window size: an int or a list of 1, 2 or 4 ints.
        strides: an int or a list of 1, 2 or 4 ints.
        padding: ``"SAME"`` (padded cells never win), ``"VALID"``, or explicit
            ``[[0, 0], [top, bottom], [left, right], [0, 0]]`` smaller than the window.
        data_format: ``"NHWC"`` or ``"NCHW"``.

    Returns:
        The pooled tensor; its gradient goes to the first maximum of each window.

    Raises:
        InvalidArgumentError: for a non-4-D input, bad sizes, or a window that does not
            fit.

    Examples:
        >>> import eagerflow as ef
        >>> ef.nn.max_pool2d(ef.ones([8, 28, 28, 32]), 2, 2, "VALID").shape
        (8, 14, 14, 32)
        >>> ef.nn.max_pool2d(ef.ones([8, 5, 5, 1]), 3, 2, "SAME").shape
        (8, 3, 3, 1)
    """
    x, channels_last, attrs = _pool_args(input, ksize, strides, padding, data_format,
                                         "MaxPool", True)
    y = execute(_max_pool, (x,), attrs)
    return y if channels_last else _array.transpose(y, [0, 3, 1, 2])


def max_pool2d_bias_relu(input: TensorLike, bias: TensorLike, ksize: int | Sequence[int],
                         strides: int | Sequence[int], padding: str,
                         name: str | None = None) -> Tensor:  # noqa: A002
    """``relu(max_pool2d(input) + bias)`` in one op: the fused form of a conv layer's bias
    add and relu followed by a max pool.

    A per-channel add and relu are non-decreasing and rounding is monotone, so this is
    ``max_pool2d(relu(bias_add(input, bias)))`` bit for bit, with the add and the clamp on
    the pooled tensor. Its gradient routes to each window's first maximum of `input` (the
    two forms differ only where the bias add rounds two different inputs of a window to
    one value). `ef.function` rewrites that three-op chain into this op (see
    `graph/passes/pool_first.py`); the backward pass is one op too
    (``MaxPoolBiasReluGrad``: the input gradient and the bias gradient together).

    Args:
        input: ``(batch, height, width, channels)`` floats.
        bias: ``(channels,)``, the dtype of `input`.
        ksize, strides, padding: as in `max_pool2d`.

    Returns:
        The pooled tensor.

    Raises:
        InvalidArgumentError: for a non-4-D or non-float input, a bias that is not one
            value per channel of the input's dtype, or bad sizes.

    Examples:
        >>> import eagerflow as ef
        >>> from eagerflow.ops import pooling
        >>> x = ef.reshape(ef.range(16.0), [1, 4, 4, 1])
        >>> pooling.max_pool2d_bias_relu(x, [-6.0], 2, 2, "VALID")[0, :, :, 0]
        ef.Tensor(
        [[0. 1.]
         [7. 9.]], shape=(2, 2), dtype=float32)
    """
    x, _, attrs = _pool_args(input, ksize, strides, padding, "NHWC", "MaxPoolBiasRelu", True)
    b = convert_input(bias)
    if x.dtype.kind != "f" or b.dtype != x.dtype or b.shape != (x.shape[3],):
        raise errors.InvalidArgumentError(
            f"MaxPoolBiasRelu needs a float input and one bias per channel of its dtype: "
            f"input {x.dtype.name} {x.shape}, bias {b.dtype.name} {b.shape} (expected "
            f"({x.shape[3]},))", "MaxPoolBiasRelu")
    return execute(_max_pool_bias_relu, (x, b), attrs)


def avg_pool2d(input: TensorLike, ksize: int | Sequence[int],
               strides: int | Sequence[int], padding: str, data_format: str = "NHWC",
               name: str | None = None) -> Tensor:  # noqa: A002
    """Average pooling; with ``"SAME"`` padding each window averages its valid cells only.

    Args:
        input: ``(batch, height, width, channels)`` floats (or NCHW with `data_format`).
        ksize, strides: an int or a list of 1, 2 or 4 ints.
        padding: ``"SAME"`` or ``"VALID"``.
        data_format: ``"NHWC"`` or ``"NCHW"``.

    Returns:
        The pooled tensor (TensorFlow's output sizes); its gradient spreads each window's
        gradient evenly over the window's valid cells.

    Raises:
        InvalidArgumentError: for a non-4-D or non-float input, bad sizes, or explicit
            paddings.

    Examples:
        >>> import eagerflow as ef
        >>> x = ef.reshape(ef.range(9.0), [1, 3, 3, 1])
        >>> ef.nn.avg_pool2d(x, 2, 2, "SAME")[0, :, :, 0]
        ef.Tensor(
        [[2.  3.5]
         [6.5 8. ]], shape=(2, 2), dtype=float32)
    """
    x, channels_last, attrs = _pool_args(input, ksize, strides, padding, data_format,
                                         "AvgPool", False)
    y = execute(_avg_pool, (x,), attrs)
    return y if channels_last else _array.transpose(y, [0, 3, 1, 2])


def _pool1d(pool, input, ksize, strides, padding, data_format, op_name):  # noqa: A002
    if data_format not in (None, "NWC", "NCW"):
        raise errors.InvalidArgumentError(
            f"data_format must be 'NWC' or 'NCW'. Received: data_format={data_format!r}",
            op_name,
        )
    x = convert_input(input)
    if x.ndim != 3:
        raise errors.InvalidArgumentError(
            f"input must be 3-D (batch, width, channels), got shape {x.shape}", op_name
        )
    channels_last = data_format != "NCW"
    if not channels_last:
        x = _array.transpose(x, [0, 2, 1])
        ksize, strides = (windows.channel_entry_last(v, 1, False) for v in (ksize, strides))
    ksize = (1,) + windows.spatial_ints(ksize, "ksize", 1, op_name)
    strides = (1,) + windows.spatial_ints(strides, "strides", 1, op_name)
    padding = windows.parse_padding(padding, 1, op_name)
    if not isinstance(padding, str):
        padding = [(0, 0), *padding]
    y = _array.squeeze(pool(_array.expand_dims(x, 1), ksize, strides, padding), [1])
    return y if channels_last else _array.transpose(y, [0, 2, 1])


def max_pool1d(input: TensorLike, ksize: int | Sequence[int],
               strides: int | Sequence[int], padding: str, data_format: str = "NWC",
               name: str | None = None) -> Tensor:  # noqa: A002
    """Max pooling over windows of a ``(batch, width, channels)`` tensor.

    Args:
        input: ``(batch, width, channels)`` (or ``"NCW"``).
        ksize, strides: an int or a list of 1 or 3 ints.
        padding: ``"SAME"``, ``"VALID"`` or explicit ``[[0, 0], [left, right], [0, 0]]``.
        data_format: ``"NWC"`` or ``"NCW"``.

    Returns:
        The pooled tensor.

    Raises:
        InvalidArgumentError: as `max_pool2d`, or for a non-3-D input.

    Examples:
        >>> import eagerflow as ef
        >>> ef.nn.max_pool1d([[[1.0], [3.0], [2.0], [0.0]]], 2, 2, "VALID")
        ef.Tensor(
        [[[3.]
          [2.]]], shape=(1, 2, 1), dtype=float32)
    """
    return _pool1d(max_pool2d, input, ksize, strides, padding, data_format, "MaxPool")


def avg_pool1d(input: TensorLike, ksize: int | Sequence[int],
               strides: int | Sequence[int], padding: str, data_format: str = "NWC",
               name: str | None = None) -> Tensor:  # noqa: A002
    """Average pooling over windows of a ``(batch, width, channels)`` tensor.

    Args:
        input: ``(batch, width, channels)`` floats (or ``"NCW"``).
        ksize, strides: an int or a list of 1 or 3 ints.
        padding: ``"SAME"`` (valid cells only) or ``"VALID"``.
        data_format: ``"NWC"`` or ``"NCW"``.

    Returns:
        The pooled tensor.

    Raises:
        InvalidArgumentError: as `avg_pool2d`, or for a non-3-D input.

    Examples:
        >>> import eagerflow as ef
        >>> ef.nn.avg_pool1d([[[1.0], [3.0], [2.0]]], 2, 2, "SAME")
        ef.Tensor(
        [[[2.]
          [2.]]], shape=(1, 2, 1), dtype=float32)
    """
    return _pool1d(avg_pool2d, input, ksize, strides, padding, data_format, "AvgPool")


def global_pool(reduce: Callable[..., Tensor], input: TensorLike,  # noqa: A002
                keepdims: bool, data_format: str, op_name: str,
                formats: tuple[str, str] = ("NHWC", "NCHW")) -> Tensor:
    """`reduce` over the spatial axes of a channels-last or channels-first tensor whose
    layouts are `formats` (e.g. ``("NDHWC", "NCDHW")`` for volumes)."""
    x = convert_input(input)
    rank = len(formats[0])
    if x.ndim != rank:
        layout = ", ".join({"N": "batch", "C": "channels", "D": "depth", "H": "height",
                            "W": "width"}[axis] for axis in formats[0])
        raise errors.InvalidArgumentError(
            f"input must be {rank}-D ({layout}), got shape {x.shape}", op_name
        )
    if data_format not in formats:
        raise errors.InvalidArgumentError(
            f"data_format must be '{formats[0]}' or '{formats[1]}'. Received: "
            f"data_format={data_format!r}", op_name,
        )
    spatial = list(range(1, rank - 1)) if data_format == formats[0] else list(range(2, rank))
    return reduce(x, spatial, keepdims=keepdims)


def global_avg_pool2d(input: TensorLike, keepdims: bool = False,
                      data_format: str = "NHWC", name: str | None = None) -> Tensor:  # noqa: A002
    """Mean over the spatial dims: ``(batch, h, w, c) -> (batch, c)``.

    Args:
        input: a 4-D tensor.
        keepdims: keep the spatial dims with size 1 (``(batch, 1, 1, c)``).
        data_format: ``"NHWC"`` or ``"NCHW"``.

    Returns:
        ``(batch, channels)`` (or ``(batch, 1, 1, channels)`` with `keepdims`).

    Raises:
        InvalidArgumentError: for a non-4-D input or an unknown `data_format`.

    Examples:
        >>> import eagerflow as ef
        >>> ef.nn.global_avg_pool2d(ef.ones([2, 5, 5, 3])).shape
        (2, 3)
    """
    return global_pool(_reduce.reduce_mean, input, keepdims, data_format, "GlobalAvgPool")


def global_max_pool2d(input: TensorLike, keepdims: bool = False,
                      data_format: str = "NHWC", name: str | None = None) -> Tensor:  # noqa: A002
    """Maximum over the spatial dims: ``(batch, h, w, c) -> (batch, c)``.

    Args:
        input: a 4-D tensor.
        keepdims: keep the spatial dims with size 1.
        data_format: ``"NHWC"`` or ``"NCHW"``.

    Returns:
        ``(batch, channels)`` (or ``(batch, 1, 1, channels)`` with `keepdims`); tied
        maxima share the gradient.

    Raises:
        InvalidArgumentError: for a non-4-D input or an unknown `data_format`.

    Examples:
        >>> import eagerflow as ef
        >>> ef.nn.global_max_pool2d(ef.ones([2, 5, 5, 3]), keepdims=True).shape
        (2, 1, 1, 3)
    """
    return global_pool(_reduce.reduce_max, input, keepdims, data_format, "GlobalMaxPool")
