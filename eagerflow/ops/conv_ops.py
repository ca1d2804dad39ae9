"""Convolutions (NHWC): conv1d, conv2d, conv3d, conv2d_transpose, depthwise_conv2d.

All four run on three primitives over one im2col engine (BLAS matmuls on strided
window views, no Python loop over pixels):

* ``Conv2D(x, w)``: the ``(n, oh, ow, kh, kw, c)`` window view of the padded input is
  copied once into an ``(n*oh*ow, kh*kw*c)`` matrix and multiplied by the filter matrix;
  the product is already the NHWC output.
* ``Conv2DBackpropFilter(x, dy)`` = ``columns(x)^T @ dy``, reusing the matrix the forward
  pass built when a tape was recording (see `saved.py`).
* ``Conv2DBackpropInput(dy, w)``: one batched matmul gives, for each of the kh*kw kernel
  offsets, a contiguous ``(n*oh*ow, c)`` block, which is added into the strided slice of
  the padded input gradient that offset touched (col2im by looping over kernel offsets
  only; no ``np.add.at``).

The three are closed under differentiation (each is linear in both inputs), so gradients
of any order work through every convolution:

* d Conv2D: ``dx = BackpropInput(dy, w)``, ``dw = BackpropFilter(x, dy)``;
* d BackpropInput(dy, w) [ddx]: ``d dy = Conv2D(ddx, w)``, ``d w = BackpropFilter(ddx, dy)``;
* d BackpropFilter(x, dy) [ddw]: ``d x = BackpropInput(dy, ddw)``, ``d dy = Conv2D(x, ddw)``.

A stride-1 convolution with few output channels (an autoencoder's 32 -> 1 output layer)
runs its three primitives swapped onto the one-input-channel case
(`windows.swapped_pads`): a window matrix of kh*kw columns instead of a matrix-vector
product over one of kh*kw*c columns (a 58 MB matrix, 9x the input, for (64, 28, 28, 32)).

Grouped convolution (input depth a multiple of the filter's in_channels, as in TF) uses
the same code with a batched matmul over groups; `depthwise_conv2d` is the grouped case
with one input channel per group. `conv2d_transpose` is ``Conv2DBackpropInput`` itself.
`conv3d` is composed, not a primitive: one Conv2D per kernel depth offset over the
matching strided depth slices (folded into the batch), summed; it inherits the gradients
of every order.

Under the numba kernel set (`ef.config.get_kernel_set()`), the three primitives run the
compiled kernels of `kernels/conv_jit.py` instead (no full im2col or col2im matrix), and
so does every convolution built on them.

Examples:
    >>> import eagerflow as ef
    >>> x = ef.ones([1, 4, 4, 1])
    >>> ef.nn.conv2d(x, ef.ones([3, 3, 1, 1]), strides=1, padding="SAME")[0, :, :, 0]
    ef.Tensor(
    [[4. 6. 6. 4.]
     [6. 9. 9. 6.]
     [6. 9. 9. 6.]
     [4. 6. 6. 4.]], shape=(4, 4), dtype=float32)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from eagerflow.core import context, errors, forwardprop
from eagerflow.core.dispatch import convert_input, execute, primitive
from eagerflow.ops import array_ops as _array
from eagerflow.ops import indexing as _indexing
from eagerflow.ops import math as _math
from eagerflow.ops.kernels import im2col, kernel_sets, saved, scratch, windows
from eagerflow.ops.typing import Tensor, TensorLike

_flags = context.flags


# -- NumPy kernels ------------------------------------------------------------------------
def _out_sizes(x_shape, w_shape, strides, dilations, pads) -> tuple:
    return tuple(
        (size + before + after - (k - 1) * d - 1) // s + 1
        for size, k, s, d, (before, after) in zip(x_shape[1:3], w_shape[:2], strides,
                                                   dilations, pads, strict=True)
    )


@primitive("Conv2D", fresh=True)
def _conv2d(x, w, strides, dilations, pads, groups, save_for_gradient=False):
    kh, kw, cin, out_c = w.shape
    out_sizes = _out_sizes(x.shape, w.shape, strides, dilations, pads)
    swapped = windows.swapped_pads(w.shape, strides, dilations, pads, groups)
    if swapped is not None:  # few output channels: the thin side as the input (`windows`)
        return kernel_sets.numpy_forward("Conv2DBackpropInput")(
            x, windows.flipped_filter(w), (x.shape[0],) + out_sizes + (out_c,), strides,
            dilations, swapped, 1)
    cols = im2col.columns(x, (kh, kw), strides, dilations, pads, out_sizes, groups)
    if groups == 1:
        out = scratch.empty((cols.shape[0], out_c), np.result_type(x, w))
        np.matmul(cols, w.reshape(kh * kw * cin, out_c), out=out)
    else:
        w_g = w.reshape(kh * kw * cin, groups, out_c // groups).transpose(1, 0, 2)
        out = np.matmul(cols, w_g).transpose(1, 0, 2)  # (M, groups, out_c / groups)
    if _flags.tapes or save_for_gradient:  # the filter gradient will want the same matrix
        saved.remember(x, ("im2col", (kh, kw), strides, dilations, pads, out_sizes, groups),
                       cols)
    return out.reshape((x.shape[0],) + out_sizes + (out_c,))


_conv2d.jvp(forwardprop.MULTILINEAR)  # JVP: linear in each input: one term per input


@_conv2d.gradient
def _conv2d_grad(dy, out, x, w, needs, strides, dilations, pads, groups):
    attrs = {"strides": strides, "dilations": dilations, "pads": pads, "groups": groups}
    dx = execute(_backprop_input, (dy, w), {"input_shape": x.shape, **attrs}) if needs[0] \
        else None
    dw = execute(_backprop_filter, (x, dy), {"filter_shape": w.shape, **attrs}) if needs[1] \
        else None
    return dx, dw


def _same_windows(conv, backprop_filter) -> bool:
    """Whether the filter gradient will look for exactly the matrix `conv` saves."""
    keys = ("strides", "dilations", "pads", "groups")
    out, dy = conv.outputs[0].shape, backprop_filter.inputs[1].shape
    return (all(conv.attrs[k] == backprop_filter.attrs[k] for k in keys)
            and tuple(conv.inputs[1].shape[:2]) == tuple(backprop_filter.attrs["filter_shape"][:2])
            and None not in out[1:3] and tuple(out[1:3]) == tuple(dy[1:3]))


saved.pair("Conv2DBackpropFilter", "Conv2D", lambda node: node.inputs[0],
           lambda node: node.inputs[0], _same_windows)


@primitive("Conv2DBackpropFilter", fresh=True)
def _backprop_filter(x, dy, filter_shape, strides, dilations, pads, groups):
    kh, kw, cin, out_c = filter_shape
    swapped = windows.swapped_pads(filter_shape, strides, dilations, pads, groups)
    if swapped is not None:  # few output channels: the thin `dy` as the input (`windows`)
        return windows.flipped_filter(kernel_sets.numpy_forward("Conv2DBackpropFilter")(
            dy, x, (kh, kw, out_c, cin), strides, dilations, swapped, 1))
    out_sizes = tuple(dy.shape[1:3])
    cols = saved.take(x, ("im2col", (kh, kw), strides, dilations, pads, out_sizes, groups))
    if cols is None:
        cols = im2col.columns(x, (kh, kw), strides, dilations, pads, out_sizes, groups)
    dy_flat = dy.reshape(-1, out_c)
    if groups == 1:
        dw = (cols.T @ dy_flat).reshape(filter_shape)
    else:
        dy_g = dy_flat.reshape(-1, groups, out_c // groups).transpose(1, 0, 2)
        dw_g = np.matmul(cols.transpose(0, 2, 1), dy_g)  # (groups, kh*kw*cin, out_c/groups)
        dw = dw_g.transpose(1, 0, 2).reshape(filter_shape)
    return dw


_backprop_filter.jvp(forwardprop.MULTILINEAR)  # JVP: linear in each input: one term per input


@_backprop_filter.gradient
def _backprop_filter_grad(ddw, out, x, dy, needs, filter_shape, strides, dilations, pads,
                          groups):
    attrs = {"strides": strides, "dilations": dilations, "pads": pads, "groups": groups}
    dx = execute(_backprop_input, (dy, ddw), {"input_shape": x.shape, **attrs}) if needs[0] \
        else None
    ddy = execute(_conv2d, (x, ddw), attrs) if needs[1] else None
    return dx, ddy


@primitive("Conv2DBackpropInput", fresh=True)
def _backprop_input(dy, w, input_shape, strides, dilations, pads, groups):
    swapped = windows.swapped_pads(w.shape, strides, dilations, pads, groups)
    if swapped is not None:  # few output channels: a convolution of the thin `dy` (`windows`)
        return kernel_sets.numpy_forward("Conv2D")(dy, windows.flipped_filter(w), strides,
                                                   dilations, swapped, 1)
    _, h, width, c = input_shape
    n = dy.shape[0]  # the batch: unknown (None) in `input_shape` in a graph for any batch
    kh, kw, cin, out_c = w.shape
    out_sizes = dy.shape[1:3]
    m = n * out_sizes[0] * out_sizes[1]
    dy_flat = dy.reshape(m, out_c)
    if groups == 1 and c == 1:
        # One GEMM reading dy once, (kh*kw, out_c) @ (out_c, M), instead of kh*kw
        # matrix-vector products that would each read all of dy.
        buffer = scratch.empty((kh * kw, m), dy.dtype)
        np.matmul(w.reshape(kh * kw, out_c), dy_flat.T, out=buffer)
        blocks = buffer.reshape((kh * kw, n) + tuple(out_sizes) + (1, 1))
    elif groups == 1:
        # (kh*kw, out_c, c): one contiguous (M, c) block of column gradients per offset.
        buffer = scratch.empty((kh * kw, m, c), dy.dtype)
        np.matmul(dy_flat, w.reshape(kh * kw, cin, out_c).transpose(0, 2, 1), out=buffer)
        blocks = buffer.reshape((kh * kw, n) + tuple(out_sizes) + (1, c))
    else:
        dy_g = dy_flat.reshape(m, groups, out_c // groups).transpose(1, 0, 2)
        w_g = w.reshape(kh * kw, cin, groups, out_c // groups).transpose(2, 0, 3, 1)
        blocks = np.matmul(dy_g[:, None], w_g)  # (groups, kh*kw, M, cin)
        blocks = blocks.transpose(1, 2, 0, 3).reshape(
            (kh * kw, n) + tuple(out_sizes) + (groups, cin))
    (top, bottom), (left, right) = pads
    padded = bool(top or bottom or left or right)
    shape = (n, h + top + bottom, width + left + right, groups, cin)
    grad = scratch.empty(shape, dy.dtype)
    first = windows.offset_slices(0, 0, strides, dilations, out_sizes)
    if strides == (1, 1):
        # Offset (0, 0) writes a contiguous corner: copy it and zero only the rest (one
        # pass over memory fewer than zero-filling everything and adding).
        rows, cols = first[1].stop, first[2].stop
        grad[:, rows:] = 0
        grad[:, :rows, cols:] = 0
        np.copyto(grad[first], blocks[0])
    else:
        grad.fill(0)
        grad[first] += blocks[0]
    for i in range(kh):
        for j in range(kw):
            if i or j:
                grad[windows.offset_slices(i, j, strides, dilations, out_sizes)] += \
                    blocks[i * kw + j]
    if not padded:
        return grad.reshape(grad.shape[:3] + (c,))
    result = scratch.empty((n, h, width, c), dy.dtype)
    np.copyto(result, grad[:, top:top + h, left:left + width].reshape((n, h, width, c)))
    return result


_backprop_input.jvp(forwardprop.MULTILINEAR)  # JVP: linear in each input: one term per input


@_backprop_input.gradient
def _backprop_input_grad(ddx, out, dy, w, needs, input_shape, strides, dilations, pads,
                         groups):
    attrs = {"strides": strides, "dilations": dilations, "pads": pads, "groups": groups}
    ddy = execute(_conv2d, (ddx, w), attrs) if needs[0] else None
    dw = execute(_backprop_filter, (ddx, dy), {"filter_shape": w.shape, **attrs}) \
        if needs[1] else None
    return ddy, dw


# The compiled kernels of the three primitives (the numba kernel set; `kernel_sets.py`).
for _name, _kernel in (("Conv2D", "conv2d"), ("Conv2DBackpropInput", "backprop_input"),
                       ("Conv2DBackpropFilter", "backprop_filter")):
    kernel_sets.register(_name, forward=f"eagerflow.ops.kernels.conv_jit:{_kernel}")


# -- argument checking --------------------------------------------------------------------
def _float_pair(input, filters, rank: int, op_name: str):  # noqa: A002 - TF's name
    x, w = convert_input(input), convert_input(filters)
    if x.ndim != rank or w.ndim != rank:
        raise errors.InvalidArgumentError(
            f"input and filters must both be {rank}-D, got input shape {x.shape} and filter "
            f"shape {w.shape}", op_name
        )
    if x.dtype.kind != "f" or x.dtype != w.dtype:
        raise errors.InvalidArgumentError(
            f"input and filters must have the same floating-point dtype, got "
            f"{x.dtype.name} and {w.dtype.name}", op_name
        )
    return x, w


def _spatial_args(strides: Any, dilations: Any, padding: Any, rank: int, channels_last: bool,
                  op_name: str) -> tuple[tuple[int, ...], tuple[int, ...], Any]:
    strides = windows.spatial_ints(windows.channel_entry_last(strides, rank, channels_last),
                                   "strides", rank, op_name)
    dilations = windows.spatial_ints(
        windows.channel_entry_last(dilations, rank, channels_last), "dilations", rank, op_name,
        allow_none=True)
    padding = windows.parse_padding(padding, rank, op_name, channels_last)
    return strides, dilations, padding


def _to_nhwc(x, channels_last):
    return x if channels_last else _array.transpose(x, [0, 2, 3, 1])


def _from_nhwc(x, channels_last):
    return x if channels_last else _array.transpose(x, [0, 3, 1, 2])


def _conv(x, w, strides, dilations, padding, op_name):
    """Grouped-aware Conv2D call on NHWC tensors with checked channel counts."""
    channels, cin, out_c = x.shape[3], w.shape[2], w.shape[3]
    if cin == 0 or channels % cin:
        raise errors.InvalidArgumentError(
            f"input depth {channels} (input shape {x.shape}) does not match the filter's "
            f"in_channels {cin} (filter shape {w.shape}): they must be equal, or the input "
            "depth a multiple of it for a grouped convolution", op_name
        )
    groups = channels // cin
    if out_c % groups:
        raise errors.InvalidArgumentError(
            f"output depth {out_c} (filter shape {w.shape}) must be divisible by the number "
            f"of groups {groups} (input shape {x.shape})", op_name
        )
    _, pads = windows.resolve(x.shape[1:3], w.shape[:2], strides, dilations, padding, op_name)
    return execute(_conv2d, (x, w), {"strides": strides, "dilations": dilations,
                                     "pads": pads, "groups": groups})


# -- public ops ---------------------------------------------------------------------------
def conv2d(input: TensorLike, filters: TensorLike, strides: int | Sequence[int], padding: Any,  # noqa: A002
           data_format: str = "NHWC", dilations: int | Sequence[int] | None = None,
           name: str | None = None) -> Tensor:
    """2-D convolution (cross-correlation, as in every deep-learning framework).

    Args:
        input: ``(batch, height, width, in_channels)`` (or NCHW with `data_format`).
        filters: ``(kh, kw, in_channels, out_channels)``; an input depth that is a
            multiple of ``in_channels`` makes a grouped convolution.
        strides: an int or a list of 1, 2 or 4 ints (``[1, sh, sw, 1]``).
        padding: ``"SAME"``, ``"VALID"`` or explicit
            ``[[0, 0], [top, bottom], [left, right], [0, 0]]``.
        data_format: ``"NHWC"`` (default) or ``"NCHW"``.
        dilations: an int or a list of 1, 2 or 4 ints; default 1.

    Returns:
        ``(batch, out_height, out_width, out_channels)`` with TensorFlow's output sizes:
        ``ceil(in / stride)`` for SAME, ``(in - (k - 1) * dilation - 1) // stride + 1``
        for VALID.

    Raises:
        InvalidArgumentError: naming both shapes when the filter's in_channels do not match
            the input depth; for bad ranks, dtypes, strides or paddings, and for a window
            larger than the padded input.

    Examples:
        >>> import eagerflow as ef
        >>> x = ef.ones([2, 28, 28, 3])
        >>> ef.nn.conv2d(x, ef.ones([3, 3, 3, 8]), strides=2, padding="SAME").shape
        (2, 14, 14, 8)
        >>> ef.nn.conv2d(x, ef.ones([5, 5, 3, 8]), strides=1, padding="VALID").shape
        (2, 24, 24, 8)
    """
    channels_last = windows.channels_last(data_format, "NHWC", "NCHW", "Conv2D")
    x, w = _float_pair(input, filters, 4, "Conv2D")
    strides, dilations, padding = _spatial_args(strides, dilations, padding, 2, channels_last,
                                                "Conv2D")
    y = _conv(_to_nhwc(x, channels_last), w, strides, dilations, padding, "Conv2D")
    return _from_nhwc(y, channels_last)


def conv1d(input: TensorLike, filters: TensorLike, stride: int | Sequence[int], padding: Any,  # noqa: A002
           data_format: str = "NWC", dilations: int | Sequence[int] | None = None,
           name: str | None = None) -> Tensor:
    """1-D convolution over ``(batch, width, channels)`` inputs.

    Args:
        input: ``(batch, width, in_channels)`` (or ``"NCW"``).
        filters: ``(k, in_channels, out_channels)``.
        stride: an int or a list of 1 or 3 ints.
        padding: ``"SAME"``, ``"VALID"`` or explicit ``[[0, 0], [left, right], [0, 0]]``.
        data_format: ``"NWC"`` (default) or ``"NCW"``.
        dilations: an int or a list of 1 or 3 ints.

    Returns:
        ``(batch, out_width, out_channels)``, with `conv2d`'s output-size rules.

    Raises:
        InvalidArgumentError: as `conv2d`, naming the 3-D shapes.

    Examples:
        >>> import eagerflow as ef
        >>> ef.nn.conv1d(ef.ones([1, 5, 1]), ef.ones([3, 1, 1]), stride=1, padding="VALID")
        ef.Tensor(
        [[[3.]
          [3.]
          [3.]]], shape=(1, 3, 1), dtype=float32)
    """
    channels_last = windows.channels_last(data_format, "NWC", "NCW", "Conv1D")
    x, w = _float_pair(input, filters, 3, "Conv1D")
    stride = windows.spatial_ints(windows.channel_entry_last(stride, 1, channels_last), "stride",
                                  1, "Conv1D")
    dilations = windows.spatial_ints(windows.channel_entry_last(dilations, 1, channels_last),
                                     "dilations", 1, "Conv1D", allow_none=True)
    padding = windows.parse_padding(padding, 1, "Conv1D", channels_last)
    if not isinstance(padding, str):
        padding = ((0, 0),) + padding
    if not channels_last:
        x = _array.transpose(x, [0, 2, 1])
    if x.shape[2] % max(w.shape[1], 1) or w.shape[1] == 0:
        raise errors.InvalidArgumentError(
            f"input depth {x.shape[2]} (input shape {x.shape}) does not match the filter's "
            f"in_channels {w.shape[1]} (filter shape {w.shape})", "Conv1D"
        )
    y = _conv(_array.expand_dims(x, 1), _array.expand_dims(w, 0), (1,) + stride,
              (1,) + dilations, padding, "Conv1D")
    y = _array.squeeze(y, [1])
    return y if channels_last else _array.transpose(y, [0, 2, 1])


def conv2d_transpose(input: TensorLike, filters: TensorLike, output_shape: Any,  # noqa: A002
                     strides: int | Sequence[int], padding: Any = "SAME",
                     data_format: str = "NHWC", dilations: int | Sequence[int] | None = None,
                     name: str | None = None) -> Tensor:
    """Transposed 2-D convolution: the gradient of `conv2d` with respect to its input.

    Args:
        input: ``(batch, height, width, in_channels)``.
        filters: ``(kh, kw, out_channels, in_channels)`` (note the order, as in TF).
        output_shape: the 4 ints ``(batch, out_height, out_width, out_channels)``; a
            `conv2d` with the same filters, strides and padding on this shape must give
            the shape of `input`.
        strides, padding, data_format, dilations: as in `conv2d`.

    Returns:
        A tensor of shape `output_shape`; the gradient of the matching `conv2d` with
        respect to its input, given `input` as the output gradient.

    Raises:
        InvalidArgumentError: when `output_shape` is inconsistent with the input shape,
            naming both.

    Examples:
        >>> import eagerflow as ef
        >>> x = ef.ones([1, 7, 7, 16])
        >>> ef.nn.conv2d_transpose(x, ef.ones([3, 3, 8, 16]), [1, 14, 14, 8], 2).shape
        (1, 14, 14, 8)
    """
    op_name = "Conv2DBackpropInput"
    channels_last = windows.channels_last(data_format, "NHWC", "NCHW", op_name)
    x, w = _float_pair(input, filters, 4, op_name)
    strides, dilations, padding = _spatial_args(strides, dilations, padding, 2, channels_last,
                                                op_name)
    if hasattr(output_shape, "numpy"):
        output_shape = output_shape.numpy()
    # The batch entry may be None in a function traced for any batch size (its input's
    # batch is None too); the kernel reads the batch from the data when the graph runs.
    shape = tuple(None if i == 0 and v is None else int(v)
                  for i, v in enumerate(np.asarray(output_shape, dtype=object).reshape(-1)))
    if len(shape) != 4:
        raise errors.InvalidArgumentError(
            f"output_shape must have 4 entries, got {output_shape!r}", op_name
        )
    x = _to_nhwc(x, channels_last)
    if not channels_last:
        shape = (shape[0], shape[2], shape[3], shape[1])
    if x.shape[3] != w.shape[3] or shape[3] != w.shape[2] or shape[0] != x.shape[0]:
        raise errors.InvalidArgumentError(
            f"filter shape {w.shape} (kh, kw, out_channels, in_channels) does not fit input "
            f"shape {x.shape} and output_shape {shape} (NHWC): in_channels must equal the "
            "input depth and out_channels the output depth", op_name
        )
    out_sizes, pads = windows.resolve(shape[1:3], w.shape[:2], strides, dilations, padding,
                                      op_name)
    if out_sizes != x.shape[1:3]:
        raise errors.InvalidArgumentError(
            f"output_shape {shape} is inconsistent with the input shape {x.shape}: a conv2d "
            f"with these filters, strides {strides} and padding on output_shape gives spatial "
            f"size {out_sizes}, not {x.shape[1:3]}", op_name
        )
    y = execute(_backprop_input, (x, w), {"input_shape": shape, "strides": strides,
                                          "dilations": dilations, "pads": pads, "groups": 1})
    return _from_nhwc(y, channels_last)


def depthwise_conv2d(input: TensorLike, filter: TensorLike, strides: int | Sequence[int],  # noqa: A002
                     padding: Any, data_format: str | None = None,
                     dilations: int | Sequence[int] | None = None,
                     name: str | None = None) -> Tensor:
    """Depthwise 2-D convolution: each input channel convolved with its own filters.

    Args:
        input: ``(batch, height, width, in_channels)``.
        filter: ``(kh, kw, in_channels, channel_multiplier)``.
        strides: an int or a list of 1, 2 or 4 ints.
        padding, data_format, dilations: as in `conv2d`.

    Returns:
        ``(batch, out_height, out_width, in_channels * channel_multiplier)``, where output
        channel ``k * channel_multiplier + m`` is input channel ``k`` with filter ``m``.

    Raises:
        InvalidArgumentError: naming both shapes when the filter's in_channels are not the
            input depth.

    Examples:
        >>> import eagerflow as ef
        >>> ef.nn.depthwise_conv2d(ef.ones([1, 8, 8, 3]), ef.ones([3, 3, 3, 2]), 1,
        ...                        "SAME").shape
        (1, 8, 8, 6)
    """
    op_name = "DepthwiseConv2dNative"
    channels_last = windows.channels_last(data_format, "NHWC", "NCHW", op_name)
    x, w = _float_pair(input, filter, 4, op_name)
    strides, dilations, padding = _spatial_args(strides, dilations, padding, 2, channels_last,
                                                op_name)
    x = _to_nhwc(x, channels_last)
    kh, kw, channels, multiplier = w.shape
    if channels != x.shape[3]:
        raise errors.InvalidArgumentError(
            f"input depth {x.shape[3]} (input shape {x.shape}) must equal the filter's "
            f"in_channels {channels} (filter shape {w.shape})", op_name
        )
    grouped = _array.reshape(w, [kh, kw, 1, channels * multiplier])
    return _from_nhwc(_conv(x, grouped, strides, dilations, padding, op_name), channels_last)


def conv3d(input: TensorLike, filters: TensorLike, strides: int | Sequence[int], padding: Any,  # noqa: A002
           data_format: str = "NDHWC", dilations: int | Sequence[int] | None = None,
           name: str | None = None) -> Tensor:
    """3-D convolution over volumes (video, scans): ``(batch, depth, height, width, c)``.

    Computed as a sum over the kernel's depth offsets ``i`` of 2-D convolutions of the
    depth slices ``i * dilation, i * dilation + stride, ...`` (folded into the batch
    axis) with the filter plane ``filters[i]``: the same numbers as a direct 3-D
    convolution, on the im2col engine of `conv2d`.

    Args:
        input: ``(batch, depth, height, width, in_channels)`` (or ``"NCDHW"``).
        filters: ``(kd, kh, kw, in_channels, out_channels)``.
        strides: an int or a list of 1, 3 or 5 ints (``[1, sd, sh, sw, 1]``).
        padding: ``"SAME"``, ``"VALID"`` or 3 (or 5) explicit ``[before, after]`` pairs.
        data_format: ``"NDHWC"`` (default) or ``"NCDHW"``.
        dilations: an int or a list of 1, 3 or 5 ints; default 1.

    Returns:
        ``(batch, out_depth, out_height, out_width, out_channels)``, with `conv2d`'s
        output-size rules on each spatial axis.

    Raises:
        InvalidArgumentError: naming both shapes when the filter's in_channels do not match
            the input depth; for bad ranks, dtypes, strides or paddings.

    Examples:
        >>> import eagerflow as ef
        >>> x = ef.ones([1, 4, 4, 4, 2])
        >>> y = ef.nn.conv3d(x, ef.ones([3, 3, 3, 2, 5]), strides=1, padding="VALID")
        >>> y.shape, float(y[0, 0, 0, 0, 0])
        ((1, 2, 2, 2, 5), 54.0)
    """
    op_name = "Conv3D"
    channels_last = windows.channels_last(data_format, "NDHWC", "NCDHW", op_name)
    x, w = _float_pair(input, filters, 5, op_name)
    strides, dilations, padding = _spatial_args(strides, dilations, padding, 3, channels_last,
                                                op_name)
    if not channels_last:
        x = _array.transpose(x, [0, 2, 3, 4, 1])
    if w.shape[3] == 0 or x.shape[4] % w.shape[3]:
        raise errors.InvalidArgumentError(
            f"input depth {x.shape[4]} (input shape {x.shape}) does not match the filter's "
            f"in_channels {w.shape[3]} (filter shape {w.shape}): they must be equal, or the "
            "input depth a multiple of it for a grouped convolution", op_name
        )
    out_sizes, pads = windows.resolve(x.shape[1:4], w.shape[:3], strides, dilations, padding,
                                      op_name)
    if pads[0] != (0, 0):
        x = _indexing.pad(x, [[0, 0], list(pads[0]), [0, 0], [0, 0], [0, 0]])
    batch, _, height, width, channels = x.shape
    out_depth, stride = out_sizes[0], strides[0]
    folded = -1 if batch is None else batch * out_depth  # batch None: traced for any batch
    total = None
    for offset in range(w.shape[0]):
        start = offset * dilations[0]
        planes = x[:, start:start + (out_depth - 1) * stride + 1:stride]
        planes = _array.reshape(planes, [folded, height, width, channels])
        y = _conv(planes, w[offset], strides[1:], dilations[1:], pads[1:], op_name)
        total = y if total is None else _math.add(total, y)
    if total is None:
        raise errors.InvalidArgumentError(
            f"filters must have a non-empty depth axis, got filter shape {w.shape}", op_name)
    y = _array.reshape(total, [-1 if batch is None else batch, out_depth, *total.shape[1:]])
    return y if channels_last else _array.transpose(y, [0, 4, 1, 2, 3])
