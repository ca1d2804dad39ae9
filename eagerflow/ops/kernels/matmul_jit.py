"""The numba kernel set's forward of ``BatchMatMulV2``: which threads run a product.

The numba set's kernels keep both cores busy with threads of their own: numba's pool for
compiled work (`jit.run_parts`: a recurrent layer's halves of the batch, attention's
pairs, layer normalization's rows) and Python threads for a convolution's image ranges
(`jit.run_split`). A product OpenBLAS splits over its two threads leaves its second
thread spinning for ~0.1 s after it returns (2^28 cycles, even when the thread count is
lowered meanwhile), taking a core from the next kernel's second part. Two rules keep the
pools from taking turns:

* A product of fewer than `SMALL` multiply-adds (batch included) runs with OpenBLAS on
  one thread (`blas_threads.one_blas_thread`, ~1 us): it gains little from a second
  thread. In the small CNN's traced step (`bench_workloads.py`, quiet 2-core machine) the
  dense layer's three products of ~1M multiply-adds each made the convolutions after them
  run on one core in effect, 16.2-16.6 ms a step, against 10.9-12.8 ms on one thread.
* A larger 2-D float product, while eagerflow's threads are in use (a split ran in the
  last `blas_threads.SPLIT_WINDOW` seconds: a training step with split kernels), runs in
  numba's pool (`gemm_jit.product_by_rows`, or `gemm_jit.product_by_depth` when the inner
  dimension is over `DEEP` times the rows: a weight's gradient), one BLAS thread a part.
  A step without split kernels (an MLP) keeps OpenBLAS's threads, which are as fast on
  their own.

Otherwise the product is OpenBLAS's, on its own threads. The values are NumPy's
``matmul`` (the same forward, `kernel_sets.numpy_forward`) up to rounding: OpenBLAS's
thread count itself changes it (with two threads it may split a product along another
axis: measured ~2.5e-7 relative on float32 at (128, 784, 256)), the pool's products come
from SciPy's build of OpenBLAS, and a product split by depth adds its parts' results.
"""

from __future__ import annotations

import math

import numpy as np

from eagerflow.ops.kernels import blas_threads, extrema, kernel_sets

SMALL = 1 << 21
"""Multiply-adds (m * n * k, times the batch) below which a product runs on one thread."""
DEEP = 4
"""An inner dimension over this many times the result's rows is split instead of the rows."""


def matmul_bias(a, b, bias, transpose_a=False, transpose_b=False, relu=False, out=None):
    """The forward of ``MatMulBias`` (same arguments): the product on the threads chosen
    above, then the bias and relu (`extrema.add_rows_then_relu`, as the op's NumPy forward),
    or, when the product runs in numba's pool by rows, the same epilogue in each part
    while its rows are in cache (`gemm_jit.product_by_rows`, equal values)."""
    if a.ndim >= 2 and b.ndim >= 2 and bias.dtype == a.dtype:
        m, k, n = _sizes(a, b, transpose_a, transpose_b)
        if bias.size == n and m * n * k >= SMALL and _joins_the_pool(a, b, transpose_b, m, k):
            found = _on_the_pool(a, b, transpose_a, transpose_b, out, m, n,
                                 bias.reshape(-1), relu)
            if found is not None:
                return found
    product = matmul(a, b, transpose_a, transpose_b, out)
    if product.ndim != 2 or bias.size != product.shape[1]:
        return kernel_sets.numpy_forward("MatMulBias")(a, b, bias, transpose_a, transpose_b,
                                                       relu)  # (raises the op's error)
    return extrema.add_rows_then_relu(product, bias, relu)


def matmul_sum(a, b, d, axis):
    """The forward of ``MatMulSum`` (same arguments): when the product ``a^T @ b`` runs in
    numba's pool split by depth (`_on_the_pool`), the sum of `d` over its leading `axis`
    (the column sums of `b`, its rows) comes out of the same parts, each adding its rows
    in float64 while they are in cache; otherwise the product on the threads chosen above
    and NumPy's sum. The sums then differ from NumPy's pairwise float32 ones by rounding
    (they are the more accurate)."""
    k, m = a.shape if a.ndim == 2 else (0, 0)
    n = b.shape[-1]
    axis = tuple(axis)
    kept = d.shape[len(axis):]
    if (a.ndim == b.ndim == 2 and b.shape[0] == k and axis == tuple(range(len(axis)))
            and math.prod(kept) == n and d.size == b.size and m * n * k >= SMALL
            and k > DEEP * m and blas_threads.own_threads_busy()):
        found = _on_the_pool(a, b, True, False, None, m, n, sums=True)
        if found is not None:
            return found[0], found[1].reshape(kept)
    return matmul(a, b, True, False), kernel_sets.numpy_forward("Sum")(d, axis)


def _sizes(a, b, transpose_a, transpose_b):
    """``(m, k, n)`` of ``op(a) @ op(b)`` (k read from `a`)."""
    m, k = (a.shape[-1], a.shape[-2]) if transpose_a else (a.shape[-2], a.shape[-1])
    return m, k, b.shape[-2] if transpose_b else b.shape[-1]


def matmul(a, b, transpose_a=False, transpose_b=False, out=None):
    """The forward of ``BatchMatMulV2`` (same arguments), on the threads chosen above."""
    forward = kernel_sets.numpy_forward("BatchMatMulV2")
    if a.ndim >= 2 and b.ndim >= 2:
        m, k, n = _sizes(a, b, transpose_a, transpose_b)
        batch = max(math.prod(a.shape[:-2]), math.prod(b.shape[:-2]))
        if m * n * k * batch < SMALL:
            return blas_threads.one_blas_thread(forward, a, b, transpose_a, transpose_b, out)
        if _joins_the_pool(a, b, transpose_b, m, k):
            found = _on_the_pool(a, b, transpose_a, transpose_b, out, m, n)
            if found is not None:
                return found
    return forward(a, b, transpose_a, transpose_b, out)


def _joins_the_pool(a, b, transpose_b, m, k) -> bool:
    """Whether a product of more than `SMALL` multiply-adds runs in numba's pool: 2-D
    operands whose inner sizes agree (others keep the forward, and its errors), more than
    one row, while split kernels run (`blas_threads.own_threads_busy`)."""
    return (a.ndim == 2 and b.ndim == 2 and m > 1
            and k == (b.shape[1] if transpose_b else b.shape[0])
            and blas_threads.own_threads_busy())


def _on_the_pool(a, b, transpose_a, transpose_b, out, m, n, bias=None, relu=False,
                 sums=False):
    """``op(a) @ op(b)`` in numba's pool (`jit.run_parts`): by ranges of the result's rows,
    or, when the inner dimension is over `DEEP` times the rows, by ranges of it, summing
    the parts' results (`gemm_jit`); with `bias` (and `relu`), ``MatMulBias``'s epilogue
    in the rows' parts; with `sums` (a product split by depth), ``(product, column sums of
    op(b))`` from the same parts. None (the caller's path then) for operands of other
    dtypes than float32 and float64 alike, which BLAS does not multiply, an `out` that is
    not C-contiguous, a `bias` on a product split by depth and `sums` on one that is not."""
    from eagerflow.ops.kernels import gemm_jit, jit  # (loaded already: a split ran)

    dtype = np.result_type(a.dtype, b.dtype)
    k = a.shape[0] if transpose_a else a.shape[1]
    if (a.dtype != b.dtype or dtype not in kernel_sets.COMPILED_DTYPES
            or (out is not None and (out.dtype != dtype or not out.flags.c_contiguous))
            or (bias is not None and k > DEEP * m) or (sums and k <= DEEP * m)):
        return None
    gemm_jit.require_blas()
    a, transpose_a = _row_major(a, transpose_a)
    # (the sums read the rows of b itself)
    b, transpose_b = _row_major(np.ascontiguousarray(b) if sums else b, transpose_b)
    if out is None:
        out = np.empty((m, n), dtype)
    if k > DEEP * m:
        partials = np.empty((jit.part_count(k), m, n), dtype)
        column_sums = np.zeros((len(partials), n)) if sums else None
        jit.run_parts(gemm_jit.product_by_depth, len(partials), a, b, partials, transpose_a,
                      transpose_b, column_sums)
        np.add.reduce(partials, axis=0, out=out)
        if column_sums is not None:
            return out, column_sums.sum(0).astype(dtype)
    else:
        jit.run_parts(gemm_jit.product_by_rows, m, a, b, out, transpose_a, transpose_b,
                      None if bias is None else np.ascontiguousarray(bias), relu)
    return out


def _row_major(x, transpose):
    """``(array, transpose)`` with the array C-contiguous and ``op(array)`` unchanged: a
    transposed view is taken as its C-contiguous base with the flag flipped; any other
    layout is copied."""
    if x.flags.c_contiguous:
        return x, transpose
    if x.flags.f_contiguous:
        return x.T, not transpose
    return np.ascontiguousarray(x), transpose
