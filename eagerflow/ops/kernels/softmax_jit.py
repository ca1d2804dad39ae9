"""The numba kernels of the softmax rows, and the ``FusedAttention`` forwards that use them.

The exponential stays in NumPy, over the whole array at once (SIMD, ~0.5 ns an element,
where numba's scalar ``exp`` costs 25-45 ns); what is compiled is the arithmetic around it,
one pass per row each: the shift by the row maximum, the normalisation by the row sum,
and the whole backward ``y * (g - sum(g * y))`` (with ``g = dy + dextra``). The NumPy
kernels (`softmax.py`) make three passes backward and two forward besides the exponential,
each over the full array, and allocate a temporary. Sums are reassociated
(`jit.sum_kernel`), so they vectorise and round differently from NumPy's pairwise sums
(within a few ulps); the max, shift and division are exact.
"""

from __future__ import annotations

import numpy as np

from eagerflow.ops import attention as attention_ops
from eagerflow.ops.kernels import jit


@jit.kernel
def _shift_rows(x):  # pragma: no cover - compiled
    rows, width = x.shape
    for i in range(rows):
        top = x[i, 0]
        for j in range(1, width):
            if x[i, j] > top:
                top = x[i, j]
        for j in range(width):
            x[i, j] -= top


@jit.sum_kernel
def _normalize_rows(e):  # pragma: no cover - compiled
    rows, width = e.shape
    for i in range(rows):
        total = e.dtype.type(0)
        for j in range(width):
            total += e[i, j]
        for j in range(width):
            e[i, j] /= total


@jit.sum_kernel
def _grad_rows(y, dy, dextra):  # pragma: no cover - compiled
    rows, width = y.shape
    for i in range(rows):
        inner = y.dtype.type(0)
        for j in range(width):
            dy[i, j] += dextra[i, j]
            inner += dy[i, j] * y[i, j]
        for j in range(width):
            dy[i, j] = y[i, j] * (dy[i, j] - inner)


@jit.sum_kernel
def _grad_rows_plain(y, dy):  # pragma: no cover - compiled
    rows, width = y.shape
    for i in range(rows):
        inner = y.dtype.type(0)
        for j in range(width):
            inner += dy[i, j] * y[i, j]
        for j in range(width):
            dy[i, j] = y[i, j] * (dy[i, j] - inner)


def _rows(array):
    return array.reshape(-1, array.shape[-1])


def softmax_rows(x):
    """`softmax.softmax_rows` compiled: `x` (C-contiguous, float) in place, returned."""
    rows = _rows(x)
    _shift_rows(rows)
    np.exp(x, out=x)
    _normalize_rows(rows)
    return x


def softmax_grad_rows(y, dy, dextra=None):
    """`softmax.softmax_grad_rows` compiled (`dy` C-contiguous; written and returned)."""
    y_rows = _rows(np.ascontiguousarray(y))
    if dextra is None:
        _grad_rows_plain(y_rows, _rows(dy))
    else:
        _grad_rows(y_rows, _rows(dy), _rows(np.ascontiguousarray(
            np.broadcast_to(dextra, dy.shape), dy.dtype)))
    return dy


def attention(query, key, value, mask=None):
    """The numba forward of ``FusedAttention`` (arguments as the op's)."""
    return attention_ops.forward(query, key, value, mask, softmax_rows)


def attention_grad(query, key, value, weights, doutput, dweights):
    """The numba forward of ``FusedAttentionGrad`` (arguments as the op's)."""
    return attention_ops.backward(query, key, value, weights, doutput, dweights,
                                  softmax_grad_rows)
