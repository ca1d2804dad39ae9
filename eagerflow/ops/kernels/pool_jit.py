"""Compiled pooling kernels: the forwards of ``MaxPool``, ``MaxPoolGrad``,
``MaxPoolGradGrad``, ``AvgPool``, ``AvgPoolGrad``, and the fused ``MaxPoolBiasRelu`` and
``MaxPoolBiasReluGrad`` (NHWC, float32 and float64).

Each is one pass over the arrays with no padded copy: a window cell outside the input
counts as the padding value (``-inf`` for the max, ``0`` for the sum) without being
written anywhere. They give the NumPy forwards' values bit for bit:

* the max pool visits a window's cells in row-major order and a later cell wins only when
  strictly greater (ties go to the first maximum, like TensorFlow's gradient); the running
  maximum propagates NaN as ``np.maximum`` does;
* the gradients *gather*: every input cell sums, over the windows that contain it (in the
  NumPy forwards' offset order), the output gradient of each window that routes to it, so
  rows are independent and split over the threads without atomics. The max pool's
  gradients read each window's winning offset, which the forward keeps while a tape
  records (`saved.py`, under the NumPy forward's key, so either set's forward serves
  either set's gradient), or find it again in one pass;
* the average multiplies by ``1 / count`` (the unpadded cells of the window, TensorFlow's
  SAME rule) rounded to the dtype, as the NumPy forward does;
* 2x2 windows that lie inside the input (``MaxPooling2D()``'s default, with even sizes
  or a remainder row and column) take kernels that keep a window in registers and loop
  over the channels of 1-D rows, which vectorizes: 3-4x faster than the general loops
  (`_max2x2_forward`, `_max2x2_backprop`; their gradient *scatters*, one write per cell);
* the fused ``MaxPoolBiasRelu`` is ``relu(MaxPool(x) + bias)`` with the add and clamp in
  the pass that finds the maxima, and ``MaxPoolBiasReluGrad`` masks the pooled gradient
  (``y > 0``), routes it as ``MaxPoolGrad`` does and sums it per channel (in float64)
  for the bias gradient, in one kernel.

Integer and float16 inputs run the op's NumPy forward.
"""

from __future__ import annotations

import numpy as np

from eagerflow.core import context
from eagerflow.ops.kernels import jit, kernel_sets, saved, scratch

_flags = context.flags
_FLOATS = (np.dtype("float32"), np.dtype("float64"))


def _compiled(*arrays) -> bool:
    return all(a.dtype in _FLOATS for a in arrays) and len({a.dtype for a in arrays}) == 1


def _sizes(in_sizes, ksize, strides, pads):
    return tuple((size + before + after - k) // s + 1 for size, k, s, (before, after)
                 in zip(in_sizes, ksize, strides, pads, strict=True))


# -- max pooling --------------------------------------------------------------------------
@jit.parallel_kernel
def _max_forward(x, out, winners, kh, kw, sh, sw, top, left):
    """Window maxima into `out` and, if `winners` is not empty, each maximum's offset.

    The channels are the inner loop (contiguous), with branch-free updates the compiler
    turns into vector selects. A padded cell is ``-inf``: it never beats the running
    maximum, so only a window's first cell needs it.
    """
    n, h, width, c = x.shape
    _, oh, ow, _ = out.shape
    keep = winners.size > 0
    for row in jit.prange(n * oh):
        b = row // oh
        r = row % oh
        best = np.empty(c, x.dtype)
        win = np.zeros(c, winners.dtype)
        for col in range(ow):
            for i in range(kh):
                hi = r * sh + i - top
                for j in range(kw):
                    wi = col * sw + j - left
                    inside = hi >= 0 and hi < h and wi >= 0 and wi < width
                    if i == 0 and j == 0:
                        win[:] = 0
                        if inside:
                            best[:] = x[b, hi, wi]
                        else:
                            best[:] = -np.inf
                    elif inside:
                        k = i * kw + j
                        for ch in range(c):
                            v = x[b, hi, wi, ch]
                            m = best[ch]
                            win[ch] = k if v > m else win[ch]
                            best[ch] = v if (m == m and (v != v or v > m)) else m
            out[b, r, col] = best
            if keep:
                winners[b, r, col] = win


@jit.parallel_kernel
def _max_backprop(winners, dy, dx, kh, kw, sh, sw, top, left):
    """``dx[cell] = sum of dy over the windows whose winner is that cell``."""
    n, h, width, c = dx.shape
    _, oh, ow, _ = dy.shape
    zero = dy.dtype.type(0)
    for row in jit.prange(n * h):
        b = row // h
        hi = row % h
        for wi in range(width):
            acc = dx[b, hi, wi]
            acc[:] = 0
            for i in range(kh):
                from_r = hi + top - i
                if from_r < 0 or from_r % sh or from_r // sh >= oh:
                    continue
                r = from_r // sh
                for j in range(kw):
                    from_c = wi + left - j
                    if from_c < 0 or from_c % sw or from_c // sw >= ow:
                        continue
                    col = from_c // sw
                    k = i * kw + j
                    for ch in range(c):
                        acc[ch] += dy[b, r, col, ch] if winners[b, r, col, ch] == k else zero


@jit.parallel_kernel
def _max_backprop_grad(winners, ddx, out, kw, sh, sw, top, left):
    """``out[window] = ddx at the window's winning cell`` (0 when that cell is padding)."""
    n, h, width, _ = ddx.shape
    _, oh, ow, c = out.shape
    for row in jit.prange(n * oh):
        b = row // oh
        r = row % oh
        for col in range(ow):
            for ch in range(c):
                k = winners[b, r, col, ch]
                hi = r * sh + k // kw - top
                wi = col * sw + k % kw - left
                inside = hi >= 0 and hi < h and wi >= 0 and wi < width
                out[b, r, col, ch] = ddx[b, hi, wi, ch] if inside else 0


@jit.kernel
def _max2x2_forward(x, bias, out, winners, sh, sw):
    """`_max_forward` for 2x2 windows that all lie inside `x` (no padding), and with a
    non-empty `bias` `_max_bias_relu_forward`: the four cells of a window are compared per
    channel in registers, and the channel loop vectorizes (4-6x faster than the general
    loops, which keep the running maximum and winner in arrays that the compiler cannot
    prove apart from `x`). Same values, same winners. One thread: at memory speed a pool
    launch costs more than it saves on a loaded machine."""
    n, _, _, c = x.shape
    _, oh, ow, _ = out.shape
    keep = winners.size > 0
    fused = bias.size > 0
    zero = out.dtype.type(0)
    for b in range(n):
        for r in range(oh):
            hi = r * sh
            for col in range(ow):
                wi = col * sw
                for ch in range(c):
                    m = x[b, hi, wi, ch]
                    k = 0
                    v = x[b, hi, wi + 1, ch]
                    k = 1 if v > m else k
                    m = v if (m == m and (v != v or v > m)) else m
                    v = x[b, hi + 1, wi, ch]
                    k = 2 if v > m else k
                    m = v if (m == m and (v != v or v > m)) else m
                    v = x[b, hi + 1, wi + 1, ch]
                    k = 3 if v > m else k
                    m = v if (m == m and (v != v or v > m)) else m
                    if fused:
                        m = m + bias[ch]
                        m = m if (m > zero or m != m) else zero
                    out[b, r, col, ch] = m
                    if keep:
                        winners[b, r, col, ch] = k


@jit.kernel
def _max2x2_backprop(winners, y, dy, dx, dbias):
    """`_max_backprop` for 2x2 windows of stride 2 from the corner that all lie inside
    `dx`, and with a non-empty `y` `_max_bias_relu_backprop` (relu's mask ``y > 0``, the
    bias gradient into `dbias`): row by row, each window writes its two cells of the row
    (``0 + value``, the same bits as the general loop's sum). Written over 1-D channel
    rows, the loop vectorizes: 4x faster than indexing the 4-D arrays."""
    n, h, width, c = dx.shape
    _, oh, ow, _ = dy.shape
    fused = y.size > 0
    zero = dy.dtype.type(0)
    one = dy.dtype.type(1)
    for b in range(n):
        for r in range(oh):
            for i in range(2):
                row = dx[b, 2 * r + i]
                for col in range(ow):
                    win, grad = winners[b, r, col], dy[b, r, col]
                    pooled = y[b, r, col] if fused else grad
                    left, right = row[2 * col], row[2 * col + 1]
                    for ch in range(c):
                        g = grad[ch]
                        if fused:
                            g = g * (one if pooled[ch] > zero else zero)
                        g = zero + g
                        left[ch] = g if win[ch] == 2 * i else zero
                        right[ch] = g if win[ch] == 2 * i + 1 else zero
    dx[:, 2 * oh:] = 0  # the rows and columns no window reaches
    dx[:, :2 * oh, 2 * ow:] = 0
    if not fused:
        return
    sums = np.zeros(c, np.float64)  # in `_max_bias_relu_backprop`'s order
    for b in range(n):
        for r in range(oh):
            for col in range(ow):
                for ch in range(c):
                    sums[ch] += dy[b, r, col, ch] * (one if y[b, r, col, ch] > zero else zero)
    for ch in range(c):
        dbias[ch] = sums[ch]


def _inside_2x2(in_sizes, ksize, strides, pads, out_sizes) -> bool:
    """Whether every window is 2x2 and lies inside the input (no padded cell)."""
    return tuple(ksize) == (2, 2) and pads[0][0] == 0 and pads[1][0] == 0 and all(
        (o - 1) * s + 2 <= size for o, s, size in zip(out_sizes, strides, in_sizes, strict=True))


def _tiled_2x2(in_sizes, ksize, strides, pads, out_sizes) -> bool:
    """Whether `_max2x2_backprop` applies: 2x2 windows inside the input, stride 2."""
    return tuple(strides) == (2, 2) and _inside_2x2(in_sizes, ksize, strides, pads, out_sizes)


def _none(dtype, ndim):
    """An empty array: "no bias" / "no mask" for the 2x2 kernels."""
    return np.empty((0,) * ndim, dtype)


def _winner_key(ksize, strides, pads):
    # The NumPy MaxPool's key and dtype (`pooling.py`): winners saved by either set serve
    # the gradient of the other.
    return ("max-pool-winners", ksize, strides, pads), np.min_scalar_type(ksize[0] * ksize[1] - 1)


def _pool_max(x, ksize, strides, pads, out_sizes, winners):
    out = scratch.empty((x.shape[0],) + tuple(out_sizes) + (x.shape[3],), x.dtype)
    x = np.ascontiguousarray(x)
    if _inside_2x2(x.shape[1:3], ksize, strides, pads, out_sizes):
        _max2x2_forward(x, _none(x.dtype, 1), out, winners, strides[0], strides[1])
    else:
        _max_forward(x, out, winners, ksize[0], ksize[1], strides[0], strides[1], pads[0][0],
                     pads[1][0])
    return out


def _winners(x, y, ksize, strides, pads):
    """The winners the forward saved for `y` (while a tape recorded), or found again."""
    key, dtype = _winner_key(ksize, strides, pads)
    winners = saved.take(y, key)
    if winners is None:
        winners = scratch.empty(y.shape, dtype)
        _pool_max(x, ksize, strides, pads, y.shape[1:3], winners)
    return winners


def max_pool(x, ksize, strides, pads, save_for_gradient=False):
    """The ``MaxPool`` forward (same arguments). While a tape records (or a plan asks),
    it keeps each window's winning offset for the gradient, as the NumPy forward does."""
    if not _compiled(x):
        return kernel_sets.numpy_forward("MaxPool")(x, ksize, strides, pads,
                                                    save_for_gradient)
    out_sizes = _sizes(x.shape[1:3], ksize, strides, pads)
    if not (_flags.tapes or save_for_gradient):
        return _pool_max(x, ksize, strides, pads, out_sizes, _NO_WINNERS)
    key, dtype = _winner_key(ksize, strides, pads)
    winners = scratch.empty((x.shape[0],) + out_sizes + (x.shape[3],), dtype)
    out = _pool_max(x, ksize, strides, pads, out_sizes, winners)
    saved.remember(out, key, winners)
    return out


_NO_WINNERS = np.empty((0, 0, 0, 0), np.uint8)


def max_pool_backprop(x, y, dy, ksize, strides, pads):
    """The ``MaxPoolGrad`` forward (same arguments)."""
    if not _compiled(x, dy):
        return kernel_sets.numpy_forward("MaxPoolGrad")(x, y, dy, ksize, strides, pads)
    winners = _winners(x, y, ksize, strides, pads)
    dx = scratch.empty(x.shape, dy.dtype)
    dy = np.ascontiguousarray(dy)
    if _tiled_2x2(x.shape[1:3], ksize, strides, pads, dy.shape[1:3]):
        _max2x2_backprop(winners, _none(dy.dtype, 4), dy, dx, _none(dy.dtype, 1))
    else:
        _max_backprop(winners, dy, dx, ksize[0], ksize[1], strides[0], strides[1], pads[0][0],
                      pads[1][0])
    return dx


def max_pool_backprop_grad(x, y, ddx, ksize, strides, pads):
    """The ``MaxPoolGradGrad`` forward (same arguments)."""
    if not _compiled(x, ddx):
        return kernel_sets.numpy_forward("MaxPoolGradGrad")(x, y, ddx, ksize, strides, pads)
    winners = _winners(x, y, ksize, strides, pads)
    out = np.empty(y.shape, ddx.dtype)
    _max_backprop_grad(winners, np.ascontiguousarray(ddx), out, ksize[1], strides[0],
                       strides[1], pads[0][0], pads[1][0])
    return out


# -- max pooling fused with the bias add and relu before it -------------------------------
@jit.kernel
def _max_bias_relu_forward(x, bias, out, winners, kh, kw, sh, sw, top, left):
    """``out = relu(window maxima + bias)``, the maxima (and `winners`, if not empty) found
    as `_max_forward` finds them; the add and the clamp are ``np.add`` and
    ``np.maximum(s, 0)`` (NaN stays, ``-0.0`` becomes ``0.0``). One thread: it runs at
    memory speed, and a pool launch costs more than it saves on a loaded machine."""
    n, h, width, c = x.shape
    _, oh, ow, _ = out.shape
    keep = winners.size > 0
    zero = out.dtype.type(0)
    best = np.empty(c, x.dtype)
    win = np.zeros(c, winners.dtype)
    for b in range(n):
        for r in range(oh):
            for col in range(ow):
                for i in range(kh):
                    hi = r * sh + i - top
                    for j in range(kw):
                        wi = col * sw + j - left
                        inside = hi >= 0 and hi < h and wi >= 0 and wi < width
                        if i == 0 and j == 0:
                            win[:] = 0
                            if inside:
                                best[:] = x[b, hi, wi]
                            else:
                                best[:] = -np.inf
                        elif inside:
                            k = i * kw + j
                            for ch in range(c):
                                v = x[b, hi, wi, ch]
                                m = best[ch]
                                win[ch] = k if v > m else win[ch]
                                best[ch] = v if (m == m and (v != v or v > m)) else m
                for ch in range(c):
                    s = best[ch] + bias[ch]
                    out[b, r, col, ch] = s if (s > zero or s != s) else zero
                if keep:
                    winners[b, r, col] = win


@jit.kernel
def _max_bias_relu_backprop(winners, y, dy, dx, dbias, kh, kw, sh, sw, top, left):
    """``dx``: ``dy * [y > 0]`` routed to each window's winner, summed per cell in
    `_max_backprop`'s order (the same bits); ``dbias``: that masked gradient summed per
    channel over the windows in row-major order, in float64.

    Windows that tile the input from its corner (stride = window, no top/left padding)
    scatter: each cell is written once, ``0 + value`` as the gather's sum gives it."""
    n, h, width, c = dx.shape
    _, oh, ow, _ = dy.shape
    zero = dy.dtype.type(0)
    one = dy.dtype.type(1)
    sums = np.zeros(c, np.float64)
    tiled = sh == kh and sw == kw and top == 0 and left == 0
    for b in range(n):
        for r in range(oh):
            for col in range(ow):
                for ch in range(c):
                    sums[ch] += dy[b, r, col, ch] * (one if y[b, r, col, ch] > zero else zero)
                if not tiled:
                    continue
                for i in range(kh):
                    hi = r * sh + i
                    if hi >= h:
                        break
                    for j in range(kw):
                        wi = col * sw + j
                        if wi >= width:
                            break
                        k = i * kw + j
                        for ch in range(c):
                            g = dy[b, r, col, ch] * (one if y[b, r, col, ch] > zero else zero)
                            dx[b, hi, wi, ch] = zero + g if winners[b, r, col, ch] == k \
                                else zero
    for ch in range(c):
        dbias[ch] = sums[ch]
    if tiled:  # the rows and columns no window reaches
        dx[:, oh * kh:] = 0
        dx[:, :oh * kh, ow * kw:] = 0
        return
    for b in range(n):
        for hi in range(h):
            for wi in range(width):
                acc = dx[b, hi, wi]
                acc[:] = 0
                for i in range(kh):
                    from_r = hi + top - i
                    if from_r < 0 or from_r % sh or from_r // sh >= oh:
                        continue
                    r = from_r // sh
                    for j in range(kw):
                        from_c = wi + left - j
                        if from_c < 0 or from_c % sw or from_c // sw >= ow:
                            continue
                        col = from_c // sw
                        k = i * kw + j
                        for ch in range(c):
                            g = dy[b, r, col, ch] * (one if y[b, r, col, ch] > zero else zero)
                            acc[ch] += g if winners[b, r, col, ch] == k else zero


def max_pool_bias_relu(x, bias, ksize, strides, pads, save_for_gradient=False):
    """The ``MaxPoolBiasRelu`` forward (same arguments); keeps the winners as `max_pool`."""
    if not _compiled(x, bias):
        return kernel_sets.numpy_forward("MaxPoolBiasRelu")(x, bias, ksize, strides, pads,
                                                            save_for_gradient)
    out_sizes = _sizes(x.shape[1:3], ksize, strides, pads)
    out = scratch.empty((x.shape[0],) + out_sizes + (x.shape[3],), x.dtype)
    keep = _flags.tapes or save_for_gradient
    key, dtype = _winner_key(ksize, strides, pads)
    winners = scratch.empty(out.shape, dtype) if keep else _NO_WINNERS
    x, bias = np.ascontiguousarray(x), np.ascontiguousarray(bias)
    if _inside_2x2(x.shape[1:3], ksize, strides, pads, out_sizes):
        _max2x2_forward(x, bias, out, winners, strides[0], strides[1])
    else:
        _max_bias_relu_forward(x, bias, out, winners, ksize[0], ksize[1], strides[0],
                               strides[1], pads[0][0], pads[1][0])
    if keep:
        saved.remember(out, key, winners)
    return out


def max_pool_bias_relu_backprop(x, y, dy, ksize, strides, pads):
    """The ``MaxPoolBiasReluGrad`` forward (same arguments): ``(dx, dbias)``."""
    if not _compiled(x, y, dy):
        return kernel_sets.numpy_forward("MaxPoolBiasReluGrad")(x, y, dy, ksize, strides, pads)
    winners = _winners(x, y, ksize, strides, pads)
    dx = scratch.empty(x.shape, dy.dtype)
    dbias = np.empty(x.shape[3], dy.dtype)
    y, dy = np.ascontiguousarray(y), np.ascontiguousarray(dy)
    if _tiled_2x2(x.shape[1:3], ksize, strides, pads, y.shape[1:3]):
        _max2x2_backprop(winners, y, dy, dx, dbias)
    else:
        _max_bias_relu_backprop(winners, y, dy, dx, dbias, ksize[0], ksize[1], strides[0],
                                strides[1], pads[0][0], pads[1][0])
    return dx, dbias


# -- average pooling ----------------------------------------------------------------------
@jit.kernel
def _count(start, k, size):
    return min(start + k, size) - max(start, 0)


@jit.parallel_kernel
def _avg_forward(x, out, kh, kw, sh, sw, top, left):
    n, h, width, c = x.shape
    _, oh, ow, _ = out.shape
    for row in jit.prange(n * oh):
        b = row // oh
        r = row % oh
        rows = _count(r * sh - top, kh, h)
        for col in range(ow):
            scale = out.dtype.type(1.0 / (rows * _count(col * sw - left, kw, width)))
            acc = out[b, r, col]
            acc[:] = 0
            for i in range(kh):
                hi = r * sh + i - top
                if hi < 0 or hi >= h:
                    continue
                for j in range(kw):
                    wi = col * sw + j - left
                    if wi < 0 or wi >= width:
                        continue
                    for ch in range(c):
                        acc[ch] += x[b, hi, wi, ch]
            for ch in range(c):
                acc[ch] *= scale


@jit.parallel_kernel
def _avg_backprop(dy, dx, kh, kw, sh, sw, top, left):
    n, h, width, c = dx.shape
    _, oh, ow, _ = dy.shape
    for row in jit.prange(n * h):
        b = row // h
        hi = row % h
        for wi in range(width):
            acc = dx[b, hi, wi]
            acc[:] = 0
            for i in range(kh):
                from_r = hi + top - i
                if from_r < 0 or from_r % sh or from_r // sh >= oh:
                    continue
                r = from_r // sh
                rows = _count(r * sh - top, kh, h)
                for j in range(kw):
                    from_c = wi + left - j
                    if from_c < 0 or from_c % sw or from_c // sw >= ow:
                        continue
                    col = from_c // sw
                    scale = dy.dtype.type(1.0 / (rows * _count(col * sw - left, kw, width)))
                    for ch in range(c):
                        acc[ch] += dy[b, r, col, ch] * scale


def avg_pool(x, ksize, strides, pads):
    """The ``AvgPool`` forward (same arguments)."""
    if not _compiled(x):
        return kernel_sets.numpy_forward("AvgPool")(x, ksize, strides, pads)
    out = scratch.empty((x.shape[0],) + _sizes(x.shape[1:3], ksize, strides, pads)
                        + (x.shape[3],), x.dtype)
    _avg_forward(np.ascontiguousarray(x), out, ksize[0], ksize[1], strides[0], strides[1],
                 pads[0][0], pads[1][0])
    return out


def avg_pool_backprop(dy, input_shape, ksize, strides, pads):
    """The ``AvgPoolGrad`` forward (same arguments)."""
    if not _compiled(dy):
        return kernel_sets.numpy_forward("AvgPoolGrad")(dy, input_shape, ksize, strides, pads)
    dx = scratch.empty((dy.shape[0],) + tuple(input_shape[1:3]) + (dy.shape[3],), dy.dtype)
    _avg_backprop(np.ascontiguousarray(dy), dx, ksize[0], ksize[1], strides[0], strides[1],
                  pads[0][0], pads[1][0])
    return dx
