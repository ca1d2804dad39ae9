"""Compiled pooling kernels: the forwards of ``MaxPool``, ``MaxPoolGrad``,
``MaxPoolGradGrad``, ``AvgPool`` and ``AvgPoolGrad`` (NHWC, float32 and float64).

Each is one pass over the arrays with no padded copy: a window cell outside the input
counts as the padding value (``-inf`` for the max, ``0`` for the sum) without being
written anywhere. They give the NumPy forwards' values bit for bit:

* the max pool visits a window's cells in row-major order and a later cell wins only when
  strictly greater (ties go to the first maximum, like TensorFlow's gradient); the running
  maximum propagates NaN as ``np.maximum`` does;
* the gradients *gather*: every input cell sums, over the windows that contain it (in the
  NumPy forwards' offset order), the output gradient of each window that routes to it, so
  rows are independent and split over the threads without atomics. The max pool's
  gradients first record each window's winning cell (one pass over the windows);
* the average multiplies by ``1 / count`` (the unpadded cells of the window, TensorFlow's
  SAME rule) rounded to the dtype, as the NumPy forward does.

Integer and float16 inputs run the op's NumPy forward.
"""

from __future__ import annotations

import numpy as np

from eagerflow.ops.kernels import jit, kernel_sets, scratch

_FLOATS = (np.dtype("float32"), np.dtype("float64"))


def _compiled(*arrays) -> bool:
    return all(a.dtype in _FLOATS for a in arrays) and len({a.dtype for a in arrays}) == 1


def _sizes(in_sizes, ksize, strides, pads):
    return tuple((size + before + after - k) // s + 1 for size, k, s, (before, after)
                 in zip(in_sizes, ksize, strides, pads, strict=True))


# -- max pooling --------------------------------------------------------------------------
@jit.parallel_kernel
def _max_forward(x, out, winners, kh, kw, sh, sw, top, left):
    """Window maxima into `out` and, if `winners` is not empty, each maximum's offset."""
    n, h, width, c = x.shape
    _, oh, ow, _ = out.shape
    keep = winners.size > 0
    for row in jit.prange(n * oh):
        b = row // oh
        r = row % oh
        for col in range(ow):
            for ch in range(c):
                best = -np.inf
                winner = 0
                for i in range(kh):
                    hi = r * sh + i - top
                    for j in range(kw):
                        wi = col * sw + j - left
                        inside = hi >= 0 and hi < h and wi >= 0 and wi < width
                        v = x[b, hi, wi, ch] if inside else -np.inf
                        if i == 0 and j == 0:
                            best = v
                        else:
                            if v > best:
                                winner = i * kw + j
                            if best == best and (v != v or v > best):
                                best = v
                out[b, r, col, ch] = best
                if keep:
                    winners[b, r, col, ch] = winner


@jit.parallel_kernel
def _max_backprop(winners, dy, dx, kh, kw, sh, sw, top, left):
    """``dx[cell] = sum of dy over the windows whose winner is that cell``."""
    n, h, width, c = dx.shape
    _, oh, ow, _ = dy.shape
    for row in jit.prange(n * h):
        b = row // h
        hi = row % h
        for wi in range(width):
            for ch in range(c):
                dx[b, hi, wi, ch] = 0
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
                        if winners[b, r, col, ch] == k:
                            dx[b, hi, wi, ch] += dy[b, r, col, ch]


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


def _winners(x, ksize, strides, pads, out_sizes):
    winners = np.empty((x.shape[0],) + tuple(out_sizes) + (x.shape[3],), np.int32)
    out = scratch.empty(winners.shape, x.dtype)
    _max_forward(np.ascontiguousarray(x), out, winners, ksize[0], ksize[1], strides[0],
                 strides[1], pads[0][0], pads[1][0])
    return winners


def max_pool(x, ksize, strides, pads, save_for_gradient=False):
    """The ``MaxPool`` forward (same arguments; the gradient kernels find the winners
    again, one pass, so nothing is saved)."""
    if not _compiled(x):
        return kernel_sets.numpy_forward("MaxPool")(x, ksize, strides, pads,
                                                    save_for_gradient)
    out = scratch.empty((x.shape[0],) + _sizes(x.shape[1:3], ksize, strides, pads)
                        + (x.shape[3],), x.dtype)
    _max_forward(np.ascontiguousarray(x), out, np.empty((0, 0, 0, 0), np.int32), ksize[0],
                 ksize[1], strides[0], strides[1], pads[0][0], pads[1][0])
    return out


def max_pool_backprop(x, y, dy, ksize, strides, pads):
    """The ``MaxPoolGrad`` forward (same arguments)."""
    if not _compiled(x, dy):
        return kernel_sets.numpy_forward("MaxPoolGrad")(x, y, dy, ksize, strides, pads)
    winners = _winners(x, ksize, strides, pads, y.shape[1:3])
    dx = scratch.empty(x.shape, dy.dtype)
    _max_backprop(winners, np.ascontiguousarray(dy), dx, ksize[0], ksize[1], strides[0],
                  strides[1], pads[0][0], pads[1][0])
    return dx


def max_pool_backprop_grad(x, y, ddx, ksize, strides, pads):
    """The ``MaxPoolGradGrad`` forward (same arguments)."""
    if not _compiled(x, ddx):
        return kernel_sets.numpy_forward("MaxPoolGradGrad")(x, y, ddx, ksize, strides, pads)
    winners = _winners(x, ksize, strides, pads, y.shape[1:3])
    out = np.empty(y.shape, ddx.dtype)
    _max_backprop_grad(winners, np.ascontiguousarray(ddx), out, ksize[1], strides[0],
                       strides[1], pads[0][0], pads[1][0])
    return out


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
