"""Compiled convolution kernels: the forwards of ``Conv2D``, ``Conv2DBackpropInput`` and
``Conv2DBackpropFilter`` without a full im2col or col2im matrix.

Every convolution of `conv_ops.py` (1-D, 2-D, 3-D, transposed, grouped, depthwise and
separable) runs on these three primitives, so these kernels serve all of them. By the
shape of the call:

* many channels on both sides: blocks of whole images whose window-matrix rows a
  compiled loop packs (`BLOCK_BYTES` at a time, so a block stays in one core's cache)
  and BLAS multiplies; the input gradient multiplies per block and a compiled loop sums
  the window gradients back (col2im per block). A transposed convolution is the input
  gradient: its stride-2 "dilated input" is never built.
* one input channel (a first layer), or few output channels at stride 1 (an
  autoencoder's output layer, swapped onto the one-input-channel case by the NumPy
  forwards, see `windows.swapped_pads`): the NumPy forwards, whose window matrix has
  only kh*kw columns, with BLAS on one thread.
* grouped (depthwise), or few output channels at other strides: direct loop nests over
  NHWC arrays that read the input where a window would have copied it (padding is
  skipped, never materialised). ``Conv2D`` adds outer products into the contiguous
  output channels, or, with few output channels, dot products over the contiguous input
  channels; ``Conv2DBackpropInput`` scatters each output pixel's gradient through the
  filter (no division by the stride per tap); ``Conv2DBackpropFilter`` accumulates
  ``x[ci] * dy[co]`` outer products into a partial filter gradient per thread.

Every path gives each thread a range of whole images (`jit.run_split`), running
sequential kernels and BLAS at one thread, so numba's and OpenBLAS's thread pools never
take turns on the cores (``prange`` pools measured 6-10x slower on the loaded machine).
float32 and float64 have compiled kernels; other dtypes (float16) run the op's NumPy
forward. The loops accumulate in the data's dtype, in another order than BLAS, so
results agree with the NumPy kernels to rounding (``tests/ops/kernels/test_conv_jit.py``).
``fastmath`` is limited to reassociation and contraction (no NaN/inf assumptions), so
NaN and inf propagate as in NumPy.
"""

from __future__ import annotations

import numpy as np

from eagerflow.ops.kernels import blas_threads, jit, kernel_sets, scratch, windows

_FLOATS = (np.dtype("float32"), np.dtype("float64"))
SMALL_OUT = windows.SMALL_OUT  # output channels per group taking the few-output paths


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


BLOCK_BYTES = 1 << 20  # window-matrix bytes packed per BLAS call: one core's L2 (Zen 4: 1 MiB)


# -- the cases where one side has a single channel (or a few) ----------------------------
# A first layer (one input channel) has GEMMs with K = kh*kw, an output layer with one
# channel GEMMs with N = 1: the direct loops of this file ran them at ~3.5 GFLOP/s (8 ms
# of CPU for a (64, 28, 28, 1) -> 32 layer, one thread), where NumPy's one-channel window
# matrix (`im2col.columns` builds it transposed, one slice copy per kernel offset) and
# one BLAS call take ~1 ms. A stride-1 convolution with few *output* channels runs as
# the one-*input*-channel case with its input and output swapped: the NumPy forwards do
# that (`windows.swapped_pads`), so these cases call them. They run BLAS on one thread:
# their products are tall and thin (K = 50176 for the filter gradients above), and
# OpenBLAS splitting them over both cores waits on a thread the loaded machine has
# descheduled (0.7-3 s for a 1 ms product, measured).
def _numpy_one_thread(op_name, *args):
    with blas_threads.blas_limited(1):
        return kernel_sets.numpy_forward(op_name)(*args)


# -- Conv2D -------------------------------------------------------------------------------
# The direct kernels below run on one thread over a range of whole images ``b0 <= b < b1``;
# `jit.run_split` gives each thread its own range (each writes only its images' rows), so
# no ``prange`` pool wakes up and spins against the loaded machine's other processes.
@jit.sum_kernel
def _forward_direct(x, w, out, b0, b1, sh, sw, dh, dw, top, left, groups):
    _, h, width, _ = x.shape
    kh, kw, cin, out_c = w.shape
    _, oh, ow, _ = out.shape
    ocg = out_c // groups
    for b in range(b0, b1):
        for r in range(oh):
            acc = out[b, r]  # one output row, in the cache
            acc[:] = 0
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


@jit.sum_kernel
def _forward_dot(x, wt, out, b0, b1, sh, sw, dh, dw, top, left, groups):
    # wt: the filter as (out_c, kh, kw, cin), so each output channel reads a contiguous row.
    _, h, width, _ = x.shape
    out_c, kh, kw, cin = wt.shape
    _, oh, ow, _ = out.shape
    ocg = out_c // groups
    for b in range(b0, b1):
        for r in range(oh):
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

    Few output channels per group (the 32 -> 1 output layer of an autoencoder, whose GEMM
    would be a matrix-vector product over a 9x window matrix): dot products over the
    contiguous input channels, or at stride 1 the swapped one-channel GEMM (see above).
    One input channel (a first layer): NumPy's one-channel window matrix and one GEMM.
    Grouped (depthwise): the direct loop, outer products into the contiguous output
    channels. Otherwise blocks of window-matrix rows packed by a kernel and multiplied by
    BLAS.
    """
    kh, kw, cin, out_c = w.shape
    if not _compiled(x, w):
        return kernel_sets.numpy_forward("Conv2D")(x, w, strides, dilations, pads, groups,
                                                   save_for_gradient)
    if (cin == 1 and groups == 1) or windows.swapped_pads(w.shape, strides, dilations, pads,
                                                          groups) is not None:
        return _numpy_one_thread("Conv2D", x, w, strides, dilations, pads, groups,
                                 save_for_gradient)
    (top, bottom), (left, right) = pads
    oh = (x.shape[1] + top + bottom - (kh - 1) * dilations[0] - 1) // strides[0] + 1
    ow = (x.shape[2] + left + right - (kw - 1) * dilations[1] - 1) // strides[1] + 1
    n = x.shape[0]
    out = scratch.empty((n, oh, ow, out_c), x.dtype)
    x = np.ascontiguousarray(x)
    geometry = _Geometry(strides, dilations, pads, (kh, kw), (oh, ow), x.shape[3], x.itemsize)
    if out_c // groups <= SMALL_OUT or groups > 1:
        dot = out_c // groups <= SMALL_OUT
        kernel = _forward_dot if dot else _forward_direct
        w = np.ascontiguousarray(w.transpose(3, 0, 1, 2) if dot else w)
        jit.run_split(lambda b0, b1: kernel(x, w, out, b0, b1, *geometry.args, groups), n)
        return out
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
@jit.sum_kernel
def _backprop_input_direct(dy, wt, dx, b0, b1, sh, sw, dh, dw, top, left, groups):
    # wt: the filter as (kh, kw, out_c, cin), so each dy value scales a contiguous row.
    # Scatters (as the forward reads), with no division by the strides: the thread owns
    # images b0 <= b < b1 of dx, so no other thread writes there.
    _, h, width, _ = dx.shape
    kh, kw, out_c, cin = wt.shape
    _, oh, ow, _ = dy.shape
    ocg = out_c // groups
    for b in range(b0, b1):
        dx[b] = 0
        for r in range(oh):
            for i in range(kh):
                hi = r * sh + i * dh - top
                if hi < 0 or hi >= h:
                    continue
                acc = dx[b, hi]
                for j in range(kw):
                    for col in range(ow):
                        wi = col * sw + j * dw - left
                        if wi < 0 or wi >= width:
                            continue
                        for co in range(out_c):
                            dv = dy[b, r, col, co]
                            base = (co // ocg) * cin
                            for ci in range(cin):
                                acc[wi, base + ci] += dv * wt[i, j, co, ci]


def backprop_input(dy, w, input_shape, strides, dilations, pads, groups):
    """The ``Conv2DBackpropInput`` forward (same arguments).

    Few output channels at stride 1: the swapped one-channel GEMM (see above). Other few
    channels, or groups: every output pixel's gradient is scattered directly. Otherwise,
    per block of images, BLAS gives the window gradients and a kernel sums them back.
    """
    if not _compiled(dy, w):
        return kernel_sets.numpy_forward("Conv2DBackpropInput")(
            dy, w, input_shape, strides, dilations, pads, groups)
    if windows.swapped_pads(w.shape, strides, dilations, pads, groups) is not None:
        return _numpy_one_thread("Conv2DBackpropInput", dy, w, input_shape, strides, dilations,
                                 pads, groups)
    _, h, width, c = input_shape
    n, oh, ow, out_c = dy.shape
    kh, kw, cin, _ = w.shape
    dx = scratch.empty((n, h, width, c), dy.dtype)
    dy = np.ascontiguousarray(dy)
    geometry = _Geometry(strides, dilations, pads, (kh, kw), (oh, ow), c, dy.itemsize)
    if groups > 1 or out_c <= SMALL_OUT:
        wt = np.ascontiguousarray(w.transpose(0, 1, 3, 2))
        jit.run_split(lambda b0, b1: _backprop_input_direct(dy, wt, dx, b0, b1, *geometry.args,
                                                            groups), n)
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
@jit.sum_kernel
def _backprop_filter_direct(x, dy, acc, b0, b1, sh, sw, dh, dw, top, left, groups):
    # acc: (kh, kw, cin, out_c), the filter gradient of images b0 <= b < b1.
    _, h, width, _ = x.shape
    kh, kw, cin, out_c = acc.shape
    _, oh, ow, _ = dy.shape
    ocg = out_c // groups
    acc[:] = 0
    for b in range(b0, b1):
        for r in range(oh):
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


@jit.sum_kernel
def _backprop_filter_rows(x, dy, acc, b0, b1, sh, sw, dh, dw, top, left, groups):
    # acc: (out_c, kh, kw, cin): with few output channels, each dy value scales a
    # contiguous row of input channels (the loop of `_backprop_filter_direct` turned around).
    _, h, width, _ = x.shape
    out_c, kh, kw, cin = acc.shape
    _, oh, ow, _ = dy.shape
    ocg = out_c // groups
    acc[:] = 0
    for b in range(b0, b1):
        for r in range(oh):
            for i in range(kh):
                hi = r * sh + i * dh - top
                if hi < 0 or hi >= h:
                    continue
                for j in range(kw):
                    for col in range(ow):
                        wi = col * sw + j * dw - left
                        if wi < 0 or wi >= width:
                            continue
                        for co in range(out_c):
                            dv = dy[b, r, col, co]
                            base = (co // ocg) * cin
                            for ci in range(cin):
                                acc[co, i, j, ci] += dv * x[b, hi, wi, base + ci]


def backprop_filter(x, dy, filter_shape, strides, dilations, pads, groups):
    """The ``Conv2DBackpropFilter`` forward (same arguments).

    One input channel: NumPy's one-channel window matrix and one GEMM; few output
    channels at stride 1: the swapped one (see above). Otherwise few output channels: a
    direct loop over rows of input channels; grouped: a direct loop of outer products into
    the output channels (each thread sums its own images into a partial gradient, and the
    partials are added).
    Otherwise, per block of images, a kernel packs the window rows and BLAS accumulates
    ``cols^T @ dy``.
    """
    kh, kw, cin, out_c = filter_shape
    if not _compiled(x, dy):
        return kernel_sets.numpy_forward("Conv2DBackpropFilter")(
            x, dy, filter_shape, strides, dilations, pads, groups)
    n, oh, ow, _ = dy.shape
    x, dy = np.ascontiguousarray(x), np.ascontiguousarray(dy)
    geometry = _Geometry(strides, dilations, pads, (kh, kw), (oh, ow), x.shape[3], x.itemsize)
    if (cin == 1 and groups == 1) or windows.swapped_pads(filter_shape, strides, dilations,
                                                          pads, groups) is not None:
        return _numpy_one_thread("Conv2DBackpropFilter", x, dy, filter_shape, strides,
                                 dilations, pads, groups)
    if out_c // groups <= SMALL_OUT:
        def rows(b0, b1):
            acc = np.empty((out_c, kh, kw, cin), dy.dtype)
            _backprop_filter_rows(x, dy, acc, b0, b1, *geometry.args, groups)
            return acc

        return sum(jit.run_split(rows, n)).transpose(1, 2, 3, 0).copy()
    if groups > 1:
        def direct(b0, b1):
            acc = np.empty(tuple(filter_shape), dy.dtype)
            _backprop_filter_direct(x, dy, acc, b0, b1, *geometry.args, groups)
            return acc

        return sum(jit.run_split(direct, n))
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
