"""3-D pooling (NDHWC volumes), composed of two 2-D pools, so no new kernels and the same
gradients:

* a pool over height and width of every depth slice (the volume seen as
  ``(batch * depth, height, width, channels)`` images), then
* a pool over depth, the result seen as ``(batch, depth, height * width, channels)``
  images pooled by ``(kd, 1)`` windows.

A box window's maximum is the maximum over depth of its slices' maxima, and its first
maximum in (depth, height, width) order is what the two routed gradients select, as
TensorFlow's `max_pool3d` gradient does. With ``"SAME"`` padding each axis is padded by
its own rule, and a box's count of valid cells is the product of the per-axis counts, so
the two averages give the average of the valid cells.

Examples:
    >>> import eagerflow as ef
    >>> ef.nn.max_pool3d(ef.ones([2, 4, 4, 4, 3]), 2, 2, "VALID").shape
    (2, 2, 2, 2, 3)
"""

from __future__ import annotations

from collections.abc import Sequence

from eagerflow.core import errors
from eagerflow.core.dispatch import convert_input
from eagerflow.ops import array_ops as _array
from eagerflow.ops import pooling as _pooling
from eagerflow.ops import reduce as _reduce
from eagerflow.ops.kernels import windows
from eagerflow.ops.typing import Tensor, TensorLike

_FORMATS = ("NDHWC", "NCDHW")


def _pool3d(pool2d, input, ksize, strides, padding, data_format, op_name):  # noqa: A002
    if data_format not in (None, "NDHWC", "NCDHW"):
        raise errors.InvalidArgumentError(
            f"data_format must be 'NDHWC' or 'NCDHW'. Received: data_format={data_format!r}",
            op_name)
    x = convert_input(input)
    if x.ndim != 5:
        raise errors.InvalidArgumentError(
            f"input must be 5-D (batch, depth, height, width, channels), got shape {x.shape}",
            op_name)
    channels_last = data_format != "NCDHW"
    if not channels_last:
        ksize, strides = (windows.channel_entry_last(v, 3, False) for v in (ksize, strides))
        x = _array.transpose(x, [0, 2, 3, 4, 1])
    ksize = windows.spatial_ints(ksize, "ksize", 3, op_name)
    strides = windows.spatial_ints(strides, "strides", 3, op_name)
    if not isinstance(padding, str) or padding.upper() not in ("SAME", "VALID"):
        raise errors.InvalidArgumentError(
            f"{op_name} supports padding 'SAME' or 'VALID'. Received: padding={padding!r}",
            op_name)
    padding = padding.upper()
    n, d, h, w, c = x.shape
    if None in (d, h, w, c):
        raise errors.InvalidArgumentError(
            f"{op_name} needs known depth, height, width and channels; got shape {x.shape}",
            op_name)
    slices = pool2d(_array.reshape(x, [-1, h, w, c]), list(ksize[1:]), list(strides[1:]),
                    padding)
    oh, ow = slices.shape[1], slices.shape[2]
    columns = _array.reshape(slices, [-1, d, oh * ow, c])
    pooled = pool2d(columns, [ksize[0], 1], [strides[0], 1], padding)
    y = _array.reshape(pooled, [-1, pooled.shape[1], oh, ow, c])
    return y if channels_last else _array.transpose(y, [0, 4, 1, 2, 3])


def max_pool3d(input: TensorLike, ksize: int | Sequence[int],
               strides: int | Sequence[int], padding: str,
               data_format: str = "NDHWC", name: str | None = None) -> Tensor:  # noqa: A002
    """Max pooling over ``ksize`` boxes of an NDHWC volume.

    Args:
        input: ``(batch, depth, height, width, channels)`` (or NCDHW with `data_format`).
        ksize: window size: an int or a list of 1, 3 or 5 ints.
        strides: an int or a list of 1, 3 or 5 ints.
        padding: ``"SAME"`` (padded cells never win) or ``"VALID"``.
        data_format: ``"NDHWC"`` or ``"NCDHW"``.

    Returns:
        The pooled volume; its gradient goes to the first maximum of each box.

    Raises:
        InvalidArgumentError: for a non-5-D input, bad sizes, or a window that does not
            fit.

    Examples:
        >>> import eagerflow as ef
        >>> x = ef.reshape(ef.range(8.0), [1, 2, 2, 2, 1])
        >>> float(ef.nn.max_pool3d(x, 2, 2, "VALID")[0, 0, 0, 0, 0])
        7.0
    """
    return _pool3d(_pooling.max_pool2d, input, ksize, strides, padding, data_format,
                   "MaxPool3D")


def avg_pool3d(input: TensorLike, ksize: int | Sequence[int],
               strides: int | Sequence[int], padding: str,
               data_format: str = "NDHWC", name: str | None = None) -> Tensor:  # noqa: A002
    """Average pooling over boxes; with ``"SAME"`` padding each box averages its valid
    cells only.

    Args:
        input: ``(batch, depth, height, width, channels)`` floats (or NCDHW).
        ksize, strides: an int or a list of 1, 3 or 5 ints.
        padding: ``"SAME"`` or ``"VALID"``.
        data_format: ``"NDHWC"`` or ``"NCDHW"``.

    Returns:
        The pooled volume.

    Raises:
        InvalidArgumentError: for a non-5-D or non-float input, or bad sizes.

    Examples:
        >>> import eagerflow as ef
        >>> x = ef.reshape(ef.range(8.0), [1, 2, 2, 2, 1])
        >>> float(ef.nn.avg_pool3d(x, 2, 2, "VALID")[0, 0, 0, 0, 0])
        3.5
    """
    return _pool3d(_pooling.avg_pool2d, input, ksize, strides, padding, data_format,
                   "AvgPool3D")


def global_avg_pool3d(input: TensorLike, keepdims: bool = False,
                      data_format: str = "NDHWC", name: str | None = None) -> Tensor:  # noqa: A002
    """Mean over depth, height and width: ``(batch, d, h, w, c) -> (batch, c)``.

    Args:
        input: a 5-D tensor.
        keepdims: keep the spatial dims with size 1.
        data_format: ``"NDHWC"`` or ``"NCDHW"``.

    Raises:
        InvalidArgumentError: for a non-5-D input or an unknown `data_format`.

    Examples:
        >>> import eagerflow as ef
        >>> ef.nn.global_avg_pool3d(ef.ones([2, 3, 3, 3, 4])).shape
        (2, 4)
    """
    return _pooling.global_pool(_reduce.reduce_mean, input, keepdims, data_format,
                               "GlobalAvgPool3D", _FORMATS)


def global_max_pool3d(input: TensorLike, keepdims: bool = False,
                      data_format: str = "NDHWC", name: str | None = None) -> Tensor:  # noqa: A002
    """Maximum over depth, height and width: ``(batch, d, h, w, c) -> (batch, c)``.

    Args:
        input: a 5-D tensor.
        keepdims: keep the spatial dims with size 1.
        data_format: ``"NDHWC"`` or ``"NCDHW"``.

    Raises:
        InvalidArgumentError: for a non-5-D input or an unknown `data_format`.

    Examples:
        >>> import eagerflow as ef
        >>> ef.nn.global_max_pool3d(ef.ones([2, 3, 3, 3, 4]), keepdims=True).shape
        (2, 1, 1, 1, 4)
    """
    return _pooling.global_pool(_reduce.reduce_max, input, keepdims, data_format,
                               "GlobalMaxPool3D", _FORMATS)
