"""The numba kernels of layer normalization (`ops/layer_norm.py`).

One row (the last axis) at a time: its mean and variance (two passes over the row, in
float64, as the NumPy kernel's centred variance), then the normalized output, or the
whole backward (``dx``, and ``dgamma``/``dbeta`` accumulated across rows in float64),
where the NumPy kernels make seven to twelve full-size passes. No transcendental
function: a square root per row. The row sums are reassociated (`jit.sum_kernel`), which
lets LLVM vectorize them: ~18x faster than in order, at float64 rounding differences.
Large arrays are shared between threads in chunks of rows (`chunks.run`; the kernels hold
no GIL), each chunk of the backward summing its own ``dgamma``/``dbeta``.
"""

from __future__ import annotations

import numpy as np

from eagerflow.ops.kernels import chunks, jit


@jit.sum_kernel
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
        for j in range(width):
            out[i, j] = (x[i, j] - mean) * inv * gamma[j] + beta[j]


@jit.sum_kernel
def _backward(x, gamma, dy, epsilon, dx, dgamma, dbeta):  # pragma: no cover - compiled
    rows, width = x.shape
    for i in range(rows):
        mean, inv = _row_stats(x[i], epsilon)
        mean_g = 0.0
        mean_gx = 0.0
        for j in range(width):
            xhat = (x[i, j] - mean) * inv
            g = dy[i, j] * gamma[j]
            mean_g += g
            mean_gx += g * xhat
            dgamma[j] += dy[i, j] * xhat
            dbeta[j] += dy[i, j]
        mean_g /= width
        mean_gx /= width
        for j in range(width):
            xhat = (x[i, j] - mean) * inv
            dx[i, j] = inv * (dy[i, j] * gamma[j] - mean_g - xhat * mean_gx)


SPLIT_ELEMENTS = 1 << 16
"""Elements from which the rows are shared between threads (`chunks.run`): below it a
call takes ~50 us or less on one thread, and handing rows to another costs about a chunk."""

CHUNKS_PER_THREAD = 4
"""Chunks of rows per thread (`chunks.run`)."""


def _rows(array):
    return np.ascontiguousarray(array).reshape(-1, array.shape[-1])


def _chunk_rows(rows: int, width: int) -> tuple[int, int]:
    """``(rows per chunk, threads)`` for `rows` rows of `width`: one chunk on one thread
    when the array is small."""
    threads = jit.threads()
    if rows * width < SPLIT_ELEMENTS or threads == 1:
        return max(rows, 1), 1
    return max(1, -(-rows // (CHUNKS_PER_THREAD * threads))), threads


def layer_norm(x, gamma, beta, epsilon):
    """The numba forward of ``FusedLayerNorm`` (arguments as the op's)."""
    out = np.empty(x.shape, x.dtype)
    rows, out_rows, epsilon = _rows(x), out.reshape(-1, x.shape[-1]), float(epsilon)
    chunk, threads = _chunk_rows(*rows.shape)
    chunks.run(lambda start, stop: _forward(rows[start:stop], gamma, beta, epsilon,
                                            out_rows[start:stop]),
               rows.shape[0], chunk, threads)
    return out


def layer_norm_grad(x, gamma, dy, epsilon):
    """The numba forward of ``FusedLayerNormGrad``: ``(dx, dgamma, dbeta)``. Each chunk of
    rows sums its own ``dgamma``/``dbeta`` (in float64); the chunks' sums are added last."""
    dx = np.empty(x.shape, x.dtype)
    rows, dy_rows, epsilon = _rows(x), _rows(dy), float(epsilon)
    dx_rows = dx.reshape(-1, x.shape[-1])
    chunk, threads = _chunk_rows(*rows.shape)
    parts = np.zeros((2, -(-rows.shape[0] // chunk), x.shape[-1]), np.float64)

    def task(start, stop):
        part = start // chunk
        _backward(rows[start:stop], gamma, dy_rows[start:stop], epsilon, dx_rows[start:stop],
                  parts[0, part], parts[1, part])

    chunks.run(task, rows.shape[0], chunk, threads)
    dgamma, dbeta = parts.sum(axis=1)  # (one chunk: its sums exactly)
    return dx, dgamma.astype(gamma.dtype), dbeta.astype(gamma.dtype)
