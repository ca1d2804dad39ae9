"""The numba kernels of layer normalization (`ops/layer_norm.py`).

The rows are split over numba's threads (`jit.run_parts`), each thread taking a range of
them one row (the last axis) at a time: its mean and variance (two passes over the row,
in float64, as the NumPy kernel's centred variance), then the normalized output, or the
whole backward (``dx``, and ``dgamma``/``dbeta`` accumulated across a thread's rows in
float64, the threads' sums then added), the per-element arithmetic in the row's dtype,
where the NumPy kernels make seven to twelve full-size passes. No transcendental
function: a square root per row. The row sums are reassociated (`jit.sum_kernel`), which
lets LLVM vectorize them: ~18x faster than in order, at float64 rounding differences.
"""

from __future__ import annotations

import numpy as np

from eagerflow.ops.kernels import jit


# Inlined into each kernel at numba's IR level (so compiled with the kernel's flags, its
# sums reassociated and vectorized): as a called function it cost the forward 67 us
# instead of 53 at (2048, 64).
@jit.inline_formula
def _row_stats(row, epsilon):  # pragma: no cover - compiled
    width = row.shape[0]
    total = 0.0
    for j in range(width):
        total += row[j]
    mean = total / width
    spread = 0.0
    for j in range(width):
        d = row[j] - mean
        spread += d * d
    return mean, 1.0 / np.sqrt(spread / width + epsilon)


@jit.sum_kernel
def _forward(x, gamma, beta, epsilon, out, lo, hi):  # pragma: no cover - compiled
    """Rows `lo` to `hi` of the forward."""
    width = x.shape[1]
    for i in range(lo, hi):
        mean, inv = _row_stats(x[i], epsilon)
        # The row's arithmetic in its own dtype, as the NumPy kernel's (float32: twice the
        # vector lanes of float64; the forward took 54 us instead of 88 at (2048, 64)).
        center, scale = x.dtype.type(mean), x.dtype.type(inv)
        for j in range(width):
            out[i, j] = (x[i, j] - center) * scale * gamma[j] + beta[j]


@jit.sum_kernel
def _backward(x, gamma, dy, epsilon, dx, dgamma, dbeta, lo, hi):  # pragma: no cover - compiled
    """Rows `lo` to `hi` of the backward: their ``dx``; their sums added to `dgamma` and
    `dbeta`."""
    width = x.shape[1]
    xhat = np.empty(width, x.dtype)
    for i in range(lo, hi):
        mean, inv = _row_stats(x[i], epsilon)
        center, scale = x.dtype.type(mean), x.dtype.type(inv)  # (as in `_forward`)
        mean_g = 0.0
        mean_gx = 0.0
        for j in range(width):
            xhat[j] = (x[i, j] - center) * scale
            g = dy[i, j] * gamma[j]
            mean_g += g
            mean_gx += g * xhat[j]
        # (a loop of its own: with the sums above LLVM vectorized neither; 141 us instead
        # of 177 at (2048, 64))
        for j in range(width):
            dgamma[j] += dy[i, j] * xhat[j]
            dbeta[j] += dy[i, j]
        row_g = x.dtype.type(mean_g / width)
        row_gx = x.dtype.type(mean_gx / width)
        for j in range(width):
            dx[i, j] = scale * (dy[i, j] * gamma[j] - row_g - xhat[j] * row_gx)


# One range of rows per thread of numba's pool (`jit.run_parts`).

@jit.parallel_kernel
def _forward_parts(parts, x, gamma, beta, epsilon, out):  # pragma: no cover - compiled
    for part in jit.prange(parts):
        lo, hi = jit.part_bounds(x.shape[0], parts, part)
        _forward(x, gamma, beta, epsilon, out, lo, hi)


@jit.parallel_kernel
def _backward_parts(parts, x, gamma, dy, epsilon, dx, dgamma,
                    dbeta):  # pragma: no cover - compiled
    for part in jit.prange(parts):
        lo, hi = jit.part_bounds(x.shape[0], parts, part)
        _backward(x, gamma, dy, epsilon, dx, dgamma[part], dbeta[part], lo, hi)


def _rows(array):
    return np.ascontiguousarray(array).reshape(-1, array.shape[-1])


def layer_norm(x, gamma, beta, epsilon):
    """The numba forward of ``FusedLayerNorm`` (arguments as the op's)."""
    out = np.empty(x.shape, x.dtype)
    rows = _rows(x)
    jit.run_parts(_forward_parts, rows.shape[0], rows, gamma, beta, float(epsilon),
                  out.reshape(rows.shape))
    return out


def layer_norm_grad(x, gamma, dy, epsilon):
    """The numba forward of ``FusedLayerNormGrad``: ``(dx, dgamma, dbeta)``."""
    dx = np.empty(x.shape, x.dtype)
    rows = _rows(x)
    # (a row of sums per part)
    dgamma, dbeta = np.zeros((2, jit.part_count(rows.shape[0]), x.shape[-1]), np.float64)
    jit.run_parts(_backward_parts, rows.shape[0], rows, gamma, _rows(dy), float(epsilon),
                  dx.reshape(rows.shape), dgamma, dbeta)
    return dx, dgamma.sum(0).astype(gamma.dtype), dbeta.sum(0).astype(gamma.dtype)
