"""Sliding-window geometry shared by convolutions and pooling (NumPy level, no ops).

Everything here works on ndarrays in NHWC layout and on plain Python ints:

* argument normalisation with TensorFlow's conventions (`spatial_ints` for strides,
  dilations and window sizes; `parse_padding` for ``"SAME"``, ``"VALID"`` and explicit
  paddings);
* TensorFlow's output-size rules (`resolve`): ``VALID`` gives
  ``(in - effective_k) // stride + 1``, ``SAME`` gives ``ceil(in / stride)`` with the
  total padding split so the extra cell goes after (bottom/right), explicit paddings give
  ``(in + before + after - effective_k) // stride + 1``, where ``effective_k =
  (k - 1) * dilation + 1``;
* window access without Python loops over pixels: `patches` is an ``as_strided`` view of
  every window at once (copied into an im2col matrix by a single reshape), and
  `offset_slices` gives, for one kernel offset, the strided slice of the padded input
  that offset touches in every window (used by col2im and by pooling, which loop only
  over the kh*kw kernel offsets).

These helpers serve `conv.py` and `pooling.py`; user code calls the ops.

Examples:
    >>> from eagerflow.ops.kernels import windows
    >>> windows.resolve((28, 28), (3, 3), (2, 2), (1, 1), "SAME")
    ((14, 14), ((0, 1), (0, 1)))
"""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import as_strided

from eagerflow.core import errors


def channels_last(data_format, last: str, first: str, op_name: str) -> bool:
    """Whether `data_format` puts channels last.

    Args:
        data_format: None, `last` (e.g. ``"NHWC"``) or `first` (e.g. ``"NCHW"``).
        last, first: the accepted channels-last and channels-first names.
        op_name: the op named in errors.

    Returns:
        True for `last` or None, False for `first`.

    Raises:
        InvalidArgumentError: for any other value.

    Examples:
        >>> from eagerflow.ops.kernels import windows
        >>> windows.channels_last("NCHW", "NHWC", "NCHW", "Conv2D")
        False
    """
    if data_format is None or data_format == last:
        return True
    if data_format == first:
        return False
    raise errors.InvalidArgumentError(
        f"data_format must be '{last}' or '{first}'. Received: data_format={data_format!r}",
        op_name,
    )


def channel_entry_last(value, rank: int, channels_last: bool):
    """Moves the channel entry of a full-length channels-first strides/ksize list last.

    Args:
        value: an int, None, or a list of ints (a tensor is converted).
        rank: the number of spatial dimensions.
        channels_last: whether the data format is channels-last already.

    Returns:
        ``[1, 1, sh, sw]`` (NCHW) as ``[1, sh, sw, 1]``, the NHWC form `spatial_ints`
        checks; ints, None, short lists and channels-last values unchanged.

    Examples:
        >>> from eagerflow.ops.kernels import windows
        >>> windows.channel_entry_last([1, 1, 2, 3], 2, channels_last=False)
        [1, 2, 3, 1]
    """
    if channels_last or value is None or isinstance(value, (int, np.integer)):
        return value
    if hasattr(value, "numpy"):
        value = value.numpy().tolist()
    items = list(value)
    return [items[0]] + items[2:] + [items[1]] if len(items) == rank + 2 else items


def spatial_ints(value, name: str, rank: int, op_name: str, allow_none=False) -> tuple:
    """Normalises strides/dilations/ksize to `rank` positive ints.

    Args:
        value: an int, or a list of 1, `rank` or ``rank + 2`` ints (the last form, TF's
            ``[1, s, s, 1]``, must have 1 in the batch and channel positions).
        name: the argument's name, for errors.
        rank: the number of spatial dimensions.
        op_name: the op named in errors.
        allow_none: map None to all ones (dilations' default).

    Returns:
        A tuple of `rank` positive ints.

    Raises:
        InvalidArgumentError: for anything else, quoting the value.

    Examples:
        >>> from eagerflow.ops.kernels import windows
        >>> windows.spatial_ints([1, 2, 3, 1], "strides", 2, "Conv2D")
        (2, 3)
    """
    if value is None and allow_none:
        return (1,) * rank
    if hasattr(value, "numpy"):
        value = value.numpy().tolist()
    items = [value] if isinstance(value, (int, np.integer)) else list(value)
    ok = all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in items)
    if ok and len(items) == rank + 2:
        if items[0] != 1 or items[-1] != 1:
            raise errors.InvalidArgumentError(
                f"{name} in the batch and depth dimensions must be 1, got {name}={value!r}",
                op_name,
            )
        items = items[1:-1]
    elif ok and len(items) == 1:
        items = items * rank
    if not ok or len(items) != rank or any(v < 1 for v in items):
        raise errors.InvalidArgumentError(
            f"{name} must be a positive int or a list of 1, {rank} or {rank + 2} positive "
            f"ints. Received: {name}={value!r}", op_name
        )
    return tuple(int(v) for v in items)


def parse_padding(padding, rank: int, op_name: str, channels_last=True):
    """Normalises a padding argument.

    Args:
        padding: ``"SAME"``, ``"VALID"`` (any case), or explicit pairs as TF writes them:
            one ``[before, after]`` per dimension including batch and channels (which must
            be ``[0, 0]``), or `rank` pairs for the spatial dimensions only.
        rank: the number of spatial dimensions.
        op_name: the op named in errors.
        channels_last: where the channel pair sits in the full form.

    Returns:
        ``"SAME"``, ``"VALID"`` or a tuple of `rank` ``(before, after)`` pairs.

    Raises:
        InvalidArgumentError: for anything else, or padding of the batch/channel dims.

    Examples:
        >>> from eagerflow.ops.kernels import windows
        >>> windows.parse_padding([[0, 0], [1, 2], [0, 1], [0, 0]], 2, "Conv2D")
        ((1, 2), (0, 1))
    """
    if isinstance(padding, str):
        text = padding.upper()
        if text in ("SAME", "VALID"):
            return text
    else:
        try:
            pairs = np.asarray(padding)
        except Exception:  # noqa: BLE001 - reported below
            pairs = None
        if (pairs is not None and pairs.ndim == 2 and pairs.shape[1] == 2
                and pairs.dtype.kind in "iu" and pairs.shape[0] in (rank, rank + 2)
                and (pairs >= 0).all()):
            if pairs.shape[0] == rank + 2:
                outer = (0, -1) if channels_last else (0, 1)
                if pairs[list(outer)].any():
                    raise errors.InvalidArgumentError(
                        f"explicit padding of the batch and channel dimensions must be 0, "
                        f"got padding={pairs.tolist()}", op_name
                    )
                pairs = pairs[1:-1] if channels_last else pairs[2:]
            return tuple((int(a), int(b)) for a, b in pairs)
    raise errors.InvalidArgumentError(
        f"padding must be 'SAME', 'VALID' or a list of {rank + 2} [before, after] pairs of "
        f"non-negative ints. Received: padding={padding!r}", op_name
    )


def resolve(in_sizes, kernel, strides, dilations, padding, op_name="Conv2D"):
    """Output spatial sizes and ``(before, after)`` paddings, by TensorFlow's rules.

    Args:
        in_sizes: the input's spatial sizes.
        kernel, strides, dilations: per spatial dimension.
        padding: as returned by `parse_padding`.
        op_name: the op named in errors.

    Returns:
        ``(out_sizes, pads)``.

    Raises:
        InvalidArgumentError: when the window does not fit (output size would be < 1).

    Examples:
        >>> from eagerflow.ops.kernels import windows
        >>> windows.resolve((7,), (3,), (2,), (1,), "SAME")
        ((4,), ((1, 1),))
    """
    out_sizes, pads = [], []
    for i, (size, k, s, d) in enumerate(zip(in_sizes, kernel, strides, dilations,
                                                     strict=True)):
        effective = (k - 1) * d + 1
        if padding == "SAME":
            out = -(-size // s)
            total = max((out - 1) * s + effective - size, 0)
            before, after = total // 2, total - total // 2
        else:
            before, after = (0, 0) if padding == "VALID" else padding[i]
            out = (size + before + after - effective) // s + 1
        if out < 1:
            raise errors.InvalidArgumentError(
                f"Computed output size would be negative: {out - 1} [input_size: {size}, "
                f"effective_filter_size: {effective}, stride: {s}, padding: {before}+{after}] "
                f"in spatial dimension {i}", op_name
            )
        out_sizes.append(out)
        pads.append((before, after))
    return tuple(out_sizes), tuple(pads)


def pad(x: np.ndarray, pads, value=0, allocate=np.empty) -> np.ndarray:
    """Pads the spatial dims (1 and 2) of an NHWC array with `value`.

    Args:
        x: an NHWC ndarray.
        pads: ``((top, bottom), (left, right))``.
        value: the fill value (``-inf`` for max pooling).
        allocate: ``allocate(shape, dtype)`` for the result (e.g. `scratch.empty`).

    Returns:
        A new array, or `x` itself when every padding is 0.

    Examples:
        >>> import numpy as np
        >>> from eagerflow.ops.kernels import windows
        >>> windows.pad(np.ones((1, 1, 1, 1)), ((1, 0), (0, 1)))[0, :, :, 0]
        array([[0., 0.],
               [1., 0.]])
    """
    (top, bottom), (left, right) = pads
    if not (top or bottom or left or right):
        return x
    n, h, w, c = x.shape
    out = allocate((n, h + top + bottom, w + left + right, c), x.dtype)
    # Fill only the border: filling the whole buffer first would write it twice.
    out[:, :top] = value
    out[:, top + h:] = value
    out[:, top:top + h, :left] = value
    out[:, top:top + h, left + w:] = value
    out[:, top:top + h, left:left + w] = x
    return out


def patches(xp: np.ndarray, kernel, strides, dilations, out_sizes) -> np.ndarray:
    """A read-only view of every window of the padded input (no copy).

    Args:
        xp: the padded NHWC ndarray.
        kernel, strides, dilations: per spatial dimension.
        out_sizes: the output's spatial sizes.

    Returns:
        An ``(n, oh, ow, kh, kw, c)`` strided view; ``reshape(n*oh*ow, -1)`` on it is the
        im2col matrix.

    Examples:
        >>> import numpy as np
        >>> from eagerflow.ops.kernels import windows
        >>> x = np.arange(9.0).reshape(1, 3, 3, 1)
        >>> windows.patches(x, (2, 2), (1, 1), (1, 1), (2, 2))[0, 1, 1, :, :, 0]
        array([[4., 5.],
               [7., 8.]])
    """
    n, _, _, c = xp.shape
    s_n, s_h, s_w, s_c = xp.strides
    shape = (n, out_sizes[0], out_sizes[1], kernel[0], kernel[1], c)
    strides = (s_n, strides[0] * s_h, strides[1] * s_w, dilations[0] * s_h,
               dilations[1] * s_w, s_c)
    return as_strided(xp, shape, strides, writeable=False)


def offset_slices(i: int, j: int, strides, dilations, out_sizes) -> tuple:
    """Index of the cells that kernel offset ``(i, j)`` reads in every window.

    Args:
        i, j: the kernel offset.
        strides, dilations: per spatial dimension.
        out_sizes: the output's spatial sizes.

    Returns:
        A tuple of slices selecting an ``(n, oh, ow, c)`` strided view of the padded input.

    Examples:
        >>> from eagerflow.ops.kernels import windows
        >>> windows.offset_slices(1, 0, (2, 2), (1, 1), (3, 3))
        (slice(None, None, None), slice(1, 6, 2), slice(0, 5, 2))
    """
    top, left = i * dilations[0], j * dilations[1]
    return (slice(None),
            slice(top, top + strides[0] * (out_sizes[0] - 1) + 1, strides[0]),
            slice(left, left + strides[1] * (out_sizes[1] - 1) + 1, strides[1]))


SMALL_OUT = 4
"""Output channels at or below which a stride-1 convolution runs swapped (`swapped_pads`)."""


def swapped_pads(w_shape, strides, dilations, pads, groups):
    """The padding of the swapped convolution, or None when the swap does not apply.

    A convolution with few output channels multiplies by a thin filter matrix (N = 1 for
    the one-channel output layer of an autoencoder): a matrix-vector product over a
    window matrix kh*kw times the size of its input. At stride 1, swapping the roles of
    its input and output turns it into a convolution with that few *input* channels,
    whose window matrix is small (``im2col.columns`` builds it with one slice copy per
    kernel offset). With the filter flipped and its channel axes exchanged
    (`flipped_filter`) and ``(k - 1) * dilation - pad`` on each side:

    * ``Conv2D(x, w) = Conv2DBackpropInput(x, w')`` (the output as a few-channel input);
    * ``Conv2DBackpropInput(dy, w) = Conv2D(dy, w')`` (a convolution of the thin `dy`);
    * ``Conv2DBackpropFilter(x, dy)`` is ``Conv2DBackpropFilter(dy, x)`` flipped, with its
      channel axes exchanged.

    Args:
        w_shape: the filter's shape ``(kh, kw, cin, out_c)``.
        strides, dilations, pads, groups: the convolution's.

    Returns:
        ``((top, bottom), (left, right))`` for the swapped convolution; None for strides
        other than 1, groups, more than `SMALL_OUT` output channels or no fewer than
        input channels (so a swapped convolution never swaps back), or a padding wider
        than the dilated window (the swapped padding would be negative).

    Examples:
        >>> from eagerflow.ops.kernels import windows
        >>> windows.swapped_pads((3, 3, 32, 1), (1, 1), (1, 1), ((1, 1), (1, 1)), 1)
        ((1, 1), (1, 1))
        >>> print(windows.swapped_pads((3, 3, 32, 1), (2, 2), (1, 1), ((0, 1), (0, 1)), 1))
        None
    """
    if groups != 1 or w_shape[3] > SMALL_OUT or w_shape[3] >= w_shape[2] \
            or tuple(strides) != (1, 1):
        return None
    swapped = tuple(((k - 1) * d - before, (k - 1) * d - after)
                    for k, d, (before, after) in zip(w_shape[:2], dilations, pads, strict=True))
    return swapped if min(min(pair) for pair in swapped) >= 0 else None


def flipped_filter(w: np.ndarray) -> np.ndarray:
    """The filter of the swapped convolution: ``w[kh-1-i, kw-1-j].T`` at offset ``(i, j)``.

    Examples:
        >>> import numpy as np
        >>> from eagerflow.ops.kernels import windows
        >>> w = np.arange(4.0).reshape(2, 1, 2, 1)  # (kh, kw, cin, out_c)
        >>> windows.flipped_filter(w)[:, 0, 0]  # (kh, kw, out_c, cin), rows flipped
        array([[2., 3.],
               [0., 1.]])
    """
    return np.ascontiguousarray(w[::-1, ::-1].transpose(0, 1, 3, 2))
