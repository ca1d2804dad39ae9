"""The numba kernel set's forward of ``BatchMatMulV2``: small products on one BLAS thread.

The numba set's kernels keep both cores busy with threads of their own (`jit.run_split`
runs a convolution's image ranges in two Python threads, BLAS on one thread inside each).
A product OpenBLAS splits over its two threads leaves its second thread spinning for a
while after it returns, taking a core from the next kernel's second range: in the small
CNN's traced step (`bench_workloads.py`, numba set, quiet 2-core machine) the dense
layer's three products of ~1M multiply-adds each made the convolutions after them run on
one core in effect, 16.2-16.6 ms a step, against 10.9-12.8 ms with those products on one
thread. Products that small gain little from a second thread anyway. So a product of
fewer than `SMALL` multiply-adds (batch included) runs with OpenBLAS on one thread
(`blas_threads.one_blas_thread`, ~2 us); larger ones keep BLAS's own threads. The values are
NumPy's ``matmul`` either way (the same forward, `kernel_sets.numpy_forward`).
"""

from __future__ import annotations

import math

from eagerflow.ops.kernels import blas_threads, kernel_sets

SMALL = 1 << 21
"""Multiply-adds (m * n * k, times the batch) below which a product runs on one thread."""


def matmul(a, b, transpose_a=False, transpose_b=False, out=None):
    """The forward of ``BatchMatMulV2`` (same arguments), small products on one thread."""
    forward = kernel_sets.numpy_forward("BatchMatMulV2")
    if a.ndim >= 2 and b.ndim >= 2:
        m, k = (a.shape[-1], a.shape[-2]) if transpose_a else (a.shape[-2], a.shape[-1])
        n = b.shape[-2] if transpose_b else b.shape[-1]
        batch = max(math.prod(a.shape[:-2]), math.prod(b.shape[:-2]))
        if m * n * k * batch < SMALL:
            return blas_threads.one_blas_thread(forward, a, b, transpose_a, transpose_b, out)
    return forward(a, b, transpose_a, transpose_b, out)
