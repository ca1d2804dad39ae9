"""The numba kernels of layer normalization (`ops/layer_norm.py`).

One row (the last axis) at a time: its mean and variance (two passes over the row, in
float64, as the NumPy kernel's centred variance), then the normalized output, or the
whole backward (``dx``, and ``dgamma``/``dbeta`` accumulated across rows in float64),
the per-element arithmetic in the row's dtype, where the NumPy kernels make seven to
twelve full-size passes. No transcendental
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
def _forward(x, gamma, beta, epsilon, out):  # pragma: no cover - compiled
    rows, width = x.shape
    for i in range(rows):
        mean, inv = _row_stats(x[i], epsilon)
        # The row's arithmetic in its own dtype, as the NumPy kernel's (float32: twice the
        # vector lanes of float64; the forward took 54 us instead of 88 at (2048, 64)).
        center, scale = x.dtype.type(mean), x.dtype.type(inv)
        for j in range(width):
            out[i, j] = (x[i, j] - center) * scale * gamma[j] + beta[j]


@jit.sum_kernel
def _backward(x, gamma, dy, epsilon, dx, dgamma, dbeta):  # pragma: no cover - compiled
    rows, width = x.shape
    xhat = np.empty(width, x.dtype)
    for i in range(rows):
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


def _rows(array):
    return np.ascontiguousarray(array).reshape(-1, array.shape[-1])


def layer_norm(x, gamma, beta, epsilon):
    """The numba forward of ``FusedLayerNorm`` (arguments as the op's)."""
    out = np.empty(x.shape, x.dtype)
    _forward(_rows(x), gamma, beta, float(epsilon), out.reshape(-1, x.shape[-1]))
    return out


def layer_norm_grad(x, gamma, dy, epsilon):
    """The numba forward of ``FusedLayerNormGrad``: ``(dx, dgamma, dbeta)``."""
    dx = np.empty(x.shape, x.dtype)
    dgamma = np.zeros(x.shape[-1], np.float64)
    dbeta = np.zeros(x.shape[-1], np.float64)
    _backward(_rows(x), gamma, _rows(dy), float(epsilon), dx.reshape(-1, x.shape[-1]), dgamma,
              dbeta)
    return dx, dgamma.astype(gamma.dtype), dbeta.astype(gamma.dtype)
