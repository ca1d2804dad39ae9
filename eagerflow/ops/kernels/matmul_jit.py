"""The numba kernel set's forward of ``BatchMatMulV2``: which threads run a product.

The numba set's kernels keep both cores busy with threads of their own (`jit.run_split`
runs a convolution's image ranges, or a recurrent layer's halves of the batch, in two
Python threads, BLAS on one thread inside each). A product OpenBLAS splits over its two
threads leaves its second thread spinning for ~0.1 s after it returns (2^28 cycles, even
when the thread count is lowered meanwhile), taking a core from the next kernel's second
range. Two rules keep the two pools from taking turns:

* A product of fewer than `SMALL` multiply-adds (batch included) runs with OpenBLAS on
  one thread (`blas_threads.one_blas_thread`, ~2 us): it gains little from a second
  thread. In the small CNN's traced step (`bench_workloads.py`, quiet 2-core machine) the
  dense layer's three products of ~1M multiply-adds each made the convolutions after them
  run on one core in effect, 16.2-16.6 ms a step, against 10.9-12.8 ms on one thread.
* A larger 2-D product, while eagerflow's own threads are in use (`jit.run_split` ran in
  the last `blas_threads.SPLIT_WINDOW` seconds: a training step with split kernels), runs
  as ranges of its result's rows on those threads, each a one-thread BLAS product. In the
  LSTM workload's step (the projection of every step's input, and the two weight
  gradients around the compiled sequence loops) this took the step from 7.0-7.4 ms to
  5.6-6.2 ms on the quiet machine (GRU: 16.5-19.9 to 15.0-17.8). A step without split
  kernels (an MLP) keeps OpenBLAS's threads, which are faster there: a split costs
  ~60-120 us of thread hand-off, which a 128 x 784 x 256 product (0.3 ms) does not repay.

Otherwise the product is OpenBLAS's, on its own threads. The values are NumPy's
``matmul`` (the same forward, `kernel_sets.numpy_forward`) on each range, up to the
rounding OpenBLAS's thread count itself changes (with two threads it may split a product
along another axis: measured ~2.5e-7 relative on float32 at (128, 784, 256)).
"""

from __future__ import annotations

import math

import numpy as np

from eagerflow.ops.kernels import blas_threads, kernel_sets

SMALL = 1 << 21
"""Multiply-adds (m * n * k, times the batch) below which a product runs on one thread."""


def matmul(a, b, transpose_a=False, transpose_b=False, out=None):
    """The forward of ``BatchMatMulV2`` (same arguments), on the threads chosen above."""
    forward = kernel_sets.numpy_forward("BatchMatMulV2")
    if a.ndim >= 2 and b.ndim >= 2:
        m, k = (a.shape[-1], a.shape[-2]) if transpose_a else (a.shape[-2], a.shape[-1])
        n = b.shape[-2] if transpose_b else b.shape[-1]
        batch = max(math.prod(a.shape[:-2]), math.prod(b.shape[:-2]))
        if m * n * k * batch < SMALL:
            return blas_threads.one_blas_thread(forward, a, b, transpose_a, transpose_b, out)
        if (a.ndim == 2 and b.ndim == 2 and m > 1
                and k == (b.shape[1] if transpose_b else b.shape[0])
                and blas_threads.own_threads_busy()):
            return _split_rows(forward, a, b, transpose_a, transpose_b, out, m, n)
    return forward(a, b, transpose_a, transpose_b, out)


def _split_rows(forward, a, b, transpose_a, transpose_b, out, m, n):
    """``op(a) @ op(b)`` as one range of the result's rows per thread (`jit.run_split`)."""
    from eagerflow.ops.kernels import jit  # (loaded already: a split ran moments ago)

    if out is None:
        out = np.empty((m, n), np.result_type(a.dtype, b.dtype))

    def rows(first: int, stop: int) -> None:
        part = a[:, first:stop] if transpose_a else a[first:stop]
        forward(part, b, transpose_a, transpose_b, out[first:stop])

    jit.run_split(rows, m)
    return out
