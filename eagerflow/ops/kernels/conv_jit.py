"""Compiled convolution kernels: the forwards of ``Conv2D``, ``Conv2DBackpropInput`` and
``Conv2DBackpropFilter`` without an im2col or col2im matrix.

Every convolution of `conv_ops.py` (1-D, 2-D, 3-D, transposed, grouped, depthwise and
separable) runs on these three primitives, so these kernels serve all of them. Each one
is a direct loop nest over NHWC arrays that reads the input where a window would have
copied it:

* ``Conv2D``: for every output pixel, ``out[co] += x[hi, wi, ci] * w[i, j, ci, co]`` over
  the kernel offsets that land inside the input (padding is skipped, never
  materialised); the innermost loop runs over the contiguous output channels (an outer
  product the compiler vectorises). With few output channels (the 32 -> 1 output layer of
  an autoencoder, whose GEMM would be a matrix-vector product over a 9x window matrix)
  the loop turns around into dot products over the contiguous input channels.
* ``Conv2DBackpropInput`` gathers instead of scattering: every input pixel sums, over the
  offsets whose stride arithmetic lands on an output pixel, ``dy[co] * w[i, j, ci, co]``;
  each thread writes only its own rows, so no col2im buffer and no atomics.
* ``Conv2DBackpropFilter`` accumulates ``x[ci] * dy[co]`` outer products into one partial
  filter gradient per batch chunk (one per thread) and sums the partials.

The direct loops spread their rows (batch x output rows) over numba's threads with
``prange``; the packed paths give each thread a range of whole images (`jit.run_split`),
packing and multiplying its own blocks with BLAS at one thread, so numba's and OpenBLAS's
thread pools never take turns on the cores. float32 and
float64 have compiled kernels; other dtypes (float16) run the op's NumPy forward. The
loops accumulate in the data's dtype, in another order than BLAS, so results agree with
the NumPy kernels to rounding (``tests/ops/kernels/test_conv_jit.py``).
``fastmath`` is limited to reassociation and contraction (no NaN/inf assumptions), so
NaN and inf propagate as in NumPy.
"""

from __future__ import annotations

import numpy as np

from eagerflow.ops.kernels import jit, kernel_sets, scratch

_FLOATS = (np.dtype("float32"), np.dtype("float64"))
SMALL_OUT = 4  # output channels per group at or below which Conv2D uses dot products


def _compiled(*arrays) -> bool:
    return all(a.dtype in _FLOATS for a in arrays) and len({a.dtype for a in arrays}) == 1


# -- window packing and unpacking around BLAS (ungrouped convolutions) -------------------
# Sequential kernels: `jit.run_split` runs one range of images per thread, each packing
# its blocks and multiplying them with BLAS at one thread.
@jit.kernel
def _pack(x, cols, b0, sh, sw, dh, dw, top, left, kh, kw, oh, ow):
    """Rows of the im2col matrix of images ``b0, b0 + 1, ...`` (zeros where padded)."""
    _, h, width, c = x.shape
    for rr in range(cols.shape[0] // ow):
        b = b0 + rr // oh
        r = rr % oh
        for col in range(ow):
            dst = cols[rr * ow + col]
            for i in range(kh):
                hi = r * sh + i * dh - top
                for j in range(kw):
                    wi = col * sw + j * dw - left
                    k = (i * kw + j) * c
                    if hi < 0 or hi >= h or wi < 0 or wi >= width:
                        for ci in range(c):
                            dst[k + ci] = 0
                    else:
                        for ci in range(c):
                            dst[k + ci] = x[b, hi, wi, ci]


@jit.kernel
def _unpack_add(dcols, dx, b0, sh, sw, dh, dw, top, left, kh, kw, oh, ow):
    """col2im of images ``b0, ...``: each image's window gradients summed into `dx`."""
    _, h, width, c = dx.shape
    for bb in range(dcols.shape[0] // (oh * ow)):
        b = b0 + bb
        dx[b] = 0
        for r in range(oh):
            for col in range(ow):
                src = dcols[(bb * oh + r) * ow + col]
                for i in range(kh):
                    hi = r * sh + i * dh - top
                    if hi < 0 or hi >= h:
                        continue
                    for j in range(kw):
                        wi = col * sw + j * dw - left
                        if wi < 0 or wi >= width:
                            continue
                        k = (i * kw + j) * c
                        for ci in range(c):
                            dx[b, hi, wi, ci] += src[k + ci]


class _Geometry:
    """The strides, dilations and padding of a call, and its blocks of whole images."""

    def __init__(self, strides, dilations, pads, kernel, out_sizes, channels, itemsize):
        (top, _), (left, _) = pads
        self.args = (strides[0], strides[1], dilations[0], dilations[1], top, left)
        self.window = (kernel[0], kernel[1], out_sizes[0], out_sizes[1])
        self.pixels = out_sizes[0] * out_sizes[1]
        self.k = kernel[0] * kernel[1] * channels
        # Whole images per block, so that one block's window matrix stays near the cache.
        self.images = max(1, BLOCK_BYTES // max(1, self.pixels * self.k * itemsize))

    def blocks(self, start, stop):
        for b0 in range(start, stop, self.images):
            yield b0, min(self.images, stop - b0)

    def buffer(self, dtype):
        return scratch.empty((self.images * self.pixels, self.k), dtype)


BLOCK_BYTES = 4 << 20  # window-matrix rows packed per BLAS call


# -- Conv2D -------------------------------------------------------------------------------
@jit.parallel_sum_kernel
def _forward_direct(x, w, out, sh, sw, dh, dw, top, left, groups):
    n, h, width, _ = x.shape
    kh, kw, cin, out_c = w.shape
    _, oh, ow, _ = out.shape
    ocg = out_c // groups
    for row in jit.prange(n * oh):
        b = row // oh
        r = row % oh
        acc = np.zeros((ow, out_c), out.dtype)  # one output row, in the cache
        for i in range(kh):
            hi = r * sh + i * dh - top
            if hi < 0 or hi >= h:
                continue
            for j in range(kw):
                for col in range(ow):
                    wi = col * sw + j * dw - left
                    if wi < 0 or wi >= width:
                        continue
                    for g in range(groups):
                        for ci in range(cin):
                            xv = x[b, hi, wi, g * cin + ci]
                            for co in range(g * ocg, (g + 1) * ocg):
                                acc[col, co] += xv * w[i, j, ci, co]
        out[b, r] = acc


@jit.parallel_sum_kernel
def _forward_dot(x, wt, out, sh, sw, dh, dw, top, left, groups):
    # wt: the filter as (out_c, kh, kw, cin), so each output channel reads a contiguous row.
    n, h, width, _ = x.shape
    out_c, kh, kw, cin = wt.shape
    _, oh, ow, _ = out.shape
    ocg = out_c // groups
    for row in jit.prange(n * oh):
        b = row // oh
        r = row % oh
        for col in range(ow):
            for co in range(out_c):
                base = (co // ocg) * cin
                total = out.dtype.type(0)
                for i in range(kh):
                    hi = r * sh + i * dh - top
                    if hi < 0 or hi >= h:
                        continue
                    for j in range(kw):
                        wi = col * sw + j * dw - left
                        if wi < 0 or wi >= width:
                            continue
                        for ci in range(cin):
                            total += x[b, hi, wi, base + ci] * wt[co, i, j, ci]
                out[b, r, col, co] = total


def conv2d(x, w, strides, dilations, pads, groups, save_for_gradient=False):
    """The ``Conv2D`` forward (same arguments; `save_for_gradient` has nothing to save).

    Few output channels per group: dot products over the input channels. Grouped
    (depthwise): the direct loop. Otherwise blocks of window-matrix rows packed by a
    kernel and multiplied by BLAS.
    """
    kh, kw, cin, out_c = w.shape
    if not _compiled(x, w) or (cin == 1 and groups == 1):
        # One input channel: NumPy's transposed window matrix is faster (0.86 against
        # 1.83 ms for a (64, 28, 28, 1) -> 32 layer, one thread, CPU time).
        return kernel_sets.numpy_forward("Conv2D")(x, w, strides, dilations, pads, groups,
                                                   save_for_gradient)
    (top, bottom), (left, right) = pads
    oh = (x.shape[1] + top + bottom - (kh - 1) * dilations[0] - 1) // strides[0] + 1
    ow = (x.shape[2] + left + right - (kw - 1) * dilations[1] - 1) // strides[1] + 1
    n = x.shape[0]
    out = scratch.empty((n, oh, ow, out_c), x.dtype)
    x = np.ascontiguousarray(x)
    geometry = _Geometry(strides, dilations, pads, (kh, kw), (oh, ow), x.shape[3], x.itemsize)
    if out_c // groups <= SMALL_OUT:
        _forward_dot(x, np.ascontiguousarray(w.transpose(3, 0, 1, 2)), out, *geometry.args,
                     groups)
    elif groups > 1:
        _forward_direct(x, np.ascontiguousarray(w), out, *geometry.args, groups)
    else:
        matrix = w.reshape(geometry.k, out_c)
        flat = out.reshape(n * geometry.pixels, out_c)

        def images(start, stop):
            cols = geometry.buffer(x.dtype)
            for b0, count in geometry.blocks(start, stop):
                rows = count * geometry.pixels
                _pack(x, cols[:rows], b0, *geometry.args, *geometry.window)
                np.matmul(cols[:rows], matrix, out=flat[b0 * geometry.pixels:][:rows])

        jit.run_split(images, n)
    return out


# -- Conv2DBackpropInput ------------------------------------------------------------------
@jit.parallel_sum_kernel
def _backprop_input_direct(dy, wt, dx, sh, sw, dh, dw, top, left, groups):
    # wt: the filter as (kh, kw, out_c, cin), so each dy value scales a contiguous row.
    n, h, width, c = dx.shape
    kh, kw, out_c, cin = wt.shape
    _, oh, ow, _ = dy.shape
    ocg = out_c // groups
    for row in jit.prange(n * h):
        b = row // h
        hi = row % h
        acc = np.zeros((width, c), dx.dtype)  # one input row, in the cache
        for i in range(kh):
            rows_from = hi + top - i * dh
            if rows_from < 0 or rows_from % sh:
                continue
            r = rows_from // sh
            if r >= oh:
                continue
            for j in range(kw):
                for wi in range(width):
                    cols_from = wi + left - j * dw
                    if cols_from < 0 or cols_from % sw:
                        continue
                    col = cols_from // sw
                    if col >= ow:
                        continue
                    for co in range(out_c):
                        dv = dy[b, r, col, co]
                        base = (co // ocg) * cin
                        for ci in range(cin):
                            acc[wi, base + ci] += dv * wt[i, j, co, ci]
        dx[b, hi] = acc


def backprop_input(dy, w, input_shape, strides, dilations, pads, groups):
    """The ``Conv2DBackpropInput`` forward (same arguments).

    Few channels or groups: every input pixel gathers its gradient directly. Otherwise,
    per block of images, BLAS gives the window gradients and a kernel sums them back.
    """
    if not _compiled(dy, w):
        return kernel_sets.numpy_forward("Conv2DBackpropInput")(
            dy, w, input_shape, strides, dilations, pads, groups)
    _, h, width, c = input_shape
    n, oh, ow, out_c = dy.shape
    kh, kw, cin, _ = w.shape
    dx = scratch.empty((n, h, width, c), dy.dtype)
    dy = np.ascontiguousarray(dy)
    geometry = _Geometry(strides, dilations, pads, (kh, kw), (oh, ow), c, dy.itemsize)
    if groups > 1 or out_c <= SMALL_OUT:
        _backprop_input_direct(dy, np.ascontiguousarray(w.transpose(0, 1, 3, 2)), dx,
                               *geometry.args, groups)
        return dx
    matrix_t = w.reshape(geometry.k, out_c).T
    flat = dy.reshape(n * geometry.pixels, out_c)

    def images(start, stop):  # whole images: the threads write disjoint parts of dx
        dcols = geometry.buffer(dy.dtype)
        for b0, count in geometry.blocks(start, stop):
            rows = count * geometry.pixels
            np.matmul(flat[b0 * geometry.pixels:][:rows], matrix_t, out=dcols[:rows])
            _unpack_add(dcols[:rows], dx, b0, *geometry.args, *geometry.window)

    jit.run_split(images, n)
    return dx


# -- Conv2DBackpropFilter -----------------------------------------------------------------
@jit.parallel_sum_kernel
def _backprop_filter_direct(x, dy, partial, sh, sw, dh, dw, top, left, groups):
    # partial: (chunks, kh, kw, cin, out_c), one filter gradient per chunk of the rows.
    n, h, width, _ = x.shape
    chunks, kh, kw, cin, out_c = partial.shape
    _, oh, ow, _ = dy.shape
    ocg = out_c // groups
    rows = n * oh
    for t in jit.prange(chunks):
        acc = partial[t]
        acc[:] = 0
        for row in range(t * rows // chunks, (t + 1) * rows // chunks):
            b = row // oh
            r = row % oh
            for i in range(kh):
                hi = r * sh + i * dh - top
                if hi < 0 or hi >= h:
                    continue
                for j in range(kw):
                    for col in range(ow):
                        wi = col * sw + j * dw - left
                        if wi < 0 or wi >= width:
                            continue
                        for g in range(groups):
                            for ci in range(cin):
                                xv = x[b, hi, wi, g * cin + ci]
                                for co in range(g * ocg, (g + 1) * ocg):
                                    acc[i, j, ci, co] += xv * dy[b, r, col, co]


def backprop_filter(x, dy, filter_shape, strides, dilations, pads, groups):
    """The ``Conv2DBackpropFilter`` forward (same arguments).

    Grouped: a direct loop with one partial gradient per thread. Otherwise, per block of
    images, a kernel packs the window rows and BLAS accumulates ``cols^T @ dy``.
    """
    kh, kw, cin, out_c = filter_shape
    if not _compiled(x, dy) or (cin == 1 and groups == 1):  # (NumPy's faster: see conv2d)
        return kernel_sets.numpy_forward("Conv2DBackpropFilter")(
            x, dy, filter_shape, strides, dilations, pads, groups)
    n, oh, ow, _ = dy.shape
    x, dy = np.ascontiguousarray(x), np.ascontiguousarray(dy)
    geometry = _Geometry(strides, dilations, pads, (kh, kw), (oh, ow), x.shape[3], x.itemsize)
    if groups > 1:
        chunks = max(1, min(jit.threads(), n * oh))
        partial = np.empty((chunks,) + tuple(filter_shape), dy.dtype)
        _backprop_filter_direct(x, dy, partial, *geometry.args, groups)
        return partial[0] if chunks == 1 else partial.sum(axis=0)
    flat = dy.reshape(n * geometry.pixels, out_c)

    def images(start, stop):  # one partial filter gradient per thread
        cols = geometry.buffer(x.dtype)
        dw = np.zeros((geometry.k, out_c), dy.dtype)
        for b0, count in geometry.blocks(start, stop):
            rows = count * geometry.pixels
            _pack(x, cols[:rows], b0, *geometry.args, *geometry.window)
            dw += cols[:rows].T @ flat[b0 * geometry.pixels:][:rows]
        return dw

    return sum(jit.run_split(images, n)).reshape(filter_shape)
