"""The numba kernels of the softmax rows: ``Softmax``, ``SoftmaxGrad`` and ``LogSoftmaxGrad``
(``FusedAttention``'s, which run per (example, head) beside its products, are in
`attention_jit.py`).

The exponential stays in NumPy, over the whole array at once (SIMD, ~0.5 ns an element,
where numba's scalar ``exp`` costs 25-45 ns; `exp_shifted_float32`, as fast on one core,
is for loops that exponentiate a block while it is in cache, as attention's pairs do);
what is compiled is the arithmetic around it,
one pass per row each: the shift by the row maximum, the normalisation by the row sum,
and the whole backward ``y * (g - sum(g * y))`` (with ``g = dy + dextra``). The NumPy
kernels (`softmax.py`) make three passes backward and two forward besides the exponential,
each over the full array, and allocate a temporary. Sums are reassociated
(`jit.sum_kernel`), so they vectorise and round differently from NumPy's pairwise sums
(within a few ulps); the max, shift and division are exact.
"""

from __future__ import annotations

import math

import numpy as np

from eagerflow.ops.kernels import jit, kernel_sets, scratch
from eagerflow.ops.kernels import softmax as numpy_rows


_F32 = np.float32
_LOG2E, _HALF, _ONE = _F32(1.4426950408889634), _F32(0.5), _F32(1.0)
# ln 2 in two parts (Cody and Waite): n * _LN2_HI is exact for |n| < 2**11
_LN2_HI, _LN2_LO = _F32(0.693359375), _F32(-2.12194440e-4)
# exp's Taylor coefficients 1/2!, ..., 1/7! (float32 constants once numba freezes them)
_E2, _E3, _E4, _E5, _E6, _E7 = (_F32(1 / math.factorial(k)) for k in range(2, 8))
_EXP_LOW = _F32(-104.0)  # exp(-104) < 2**-150: rounds to 0 in float32


@jit.inline_formula
def exp_shifted_float32(x):  # pragma: no cover - compiled (inlined into the loops)
    """``exp(x)`` of a float32 ``x <= 0`` (a score minus its row's maximum), in float32
    arithmetic without library calls, so the loop around it vectorizes (~0.5 ns an element
    on one core, NumPy's SIMD pass ~0.45): within 1 unit in the last place of the correctly
    rounded value, subnormal results included (checked on 5 million values in
    ``tests/ops/kernels/test_softmax_jit.py``; NumPy's float32 ``exp`` is within 2). NaN
    stays NaN and -inf gives 0; a positive ``x`` is taken as 0 (the caller's rows have
    none).

    ``x = n ln 2 + r`` with ``|r| <= ln(2) / 2`` (``ln 2`` in two parts, so ``r`` is
    exact to float32 rounding), ``exp(r)`` from its Taylor series to degree 7 (truncation
    below 6e-9 relative), times ``2**n`` built from its exponent bits in two factors (one
    of them 1 unless the result is subnormal).
    """
    y = x if x > _EXP_LOW else _EXP_LOW
    y = y if y < 0 else _F32(0)
    k = np.int32(y * _LOG2E - _HALF)  # (toward zero: the nearest integer to y / ln 2 or
    n = _F32(k)                       # the one above it, so |r| <= 0.35)
    r = (y - n * _LN2_HI) - n * _LN2_LO
    p = _ONE + r * (_ONE + r * (_E2 + r * (_E3 + r * (_E4 + r * (_E5 + r * (_E6 + r * _E7))))))
    normal = k if k > -126 else -126
    e = (p * jit.float32_from_bits(np.int32((normal + 127) << 23))
         * jit.float32_from_bits(np.int32((k - normal + 127) << 23)))
    e = e if x > _EXP_LOW else _F32(0)
    return e if x == x else x


@jit.elementwise_kernel
def exp_shifted_rows(block):  # pragma: no cover - compiled
    """`exp_shifted_float32` of each element of a 2-D float32 block, in place."""
    rows, width = block.shape
    for i in range(rows):
        for j in range(width):
            block[i, j] = exp_shifted_float32(block[i, j])


@jit.kernel
def shift_rows(x, out):  # pragma: no cover - compiled
    """``out = x - max`` per row (`out` may be `x`)."""
    rows, width = x.shape
    for i in range(rows):
        top = x[i, 0]
        for j in range(1, width):
            if x[i, j] > top:
                top = x[i, j]
        for j in range(width):
            out[i, j] = x[i, j] - top


@jit.sum_kernel
def normalize_rows(e):  # pragma: no cover - compiled
    """Each row of `e` divided by its sum, in place."""
    rows, width = e.shape
    for i in range(rows):
        total = e.dtype.type(0)
        for j in range(width):
            total += e[i, j]
        for j in range(width):
            e[i, j] /= total


@jit.sum_kernel
def grad_rows(y, dy, dextra):  # pragma: no cover - compiled
    """``dy = y * (g - sum(g * y))`` per row with ``g = dy + dextra`` (`dextra`: None or
    rows like `dy`)."""
    # `dextra` None: numba compiles that case without the add (the branch is pruned).
    rows, width = y.shape
    for i in range(rows):
        inner = y.dtype.type(0)
        for j in range(width):
            if dextra is not None:
                dy[i, j] += dextra[i, j]
            inner += dy[i, j] * y[i, j]
        for j in range(width):
            dy[i, j] = y[i, j] * (dy[i, j] - inner)


@jit.sum_kernel
def _log_softmax_grad_rows(dy, probs):  # pragma: no cover - compiled
    rows, width = dy.shape
    for i in range(rows):
        total = dy.dtype.type(0)
        for j in range(width):
            total += dy[i, j]
        for j in range(width):
            probs[i, j] = dy[i, j] - probs[i, j] * total


def _rows(array):
    return array.reshape(-1, array.shape[-1])



def _last_axis(arrays, axis):
    """Whether the rows kernels apply: `axis` is the last of C-contiguous float32 or float64
    arrays."""
    first = arrays[0]
    return (axis == first.ndim - 1 and first.size > 0
            and first.dtype in kernel_sets.COMPILED_DTYPES
            and all(a.flags.c_contiguous and a.dtype == first.dtype and a.shape == first.shape
                    for a in arrays))


def softmax_rows(x):
    """`softmax.softmax_rows` compiled, into a new (pooled) array: the shift runs twice as
    fast into another buffer as in place (numba cannot rule out aliasing there)."""
    if x.size == 0:  # (rows of no elements: the kernel reads each row's first)
        return numpy_rows.softmax_rows(x)
    out = scratch.empty(x.shape, x.dtype)
    rows = _rows(out)
    shift_rows(_rows(x), rows)
    np.exp(out, out=out)
    normalize_rows(rows)
    return out


def softmax_grad_rows(y, dy, dextra=None):
    """`softmax.softmax_grad_rows` compiled (`dy` C-contiguous; written and returned)."""
    y_rows = _rows(np.ascontiguousarray(y))
    if dextra is not None:
        dextra = _rows(np.ascontiguousarray(np.broadcast_to(dextra, dy.shape), dy.dtype))
    grad_rows(y_rows, _rows(dy), dextra)
    return dy


def softmax(x, axis):
    """The numba forward of ``Softmax`` (the NumPy one unless `axis` is the last)."""
    if not _last_axis((x,), axis):
        return kernel_sets.numpy_forward("Softmax")(x, axis=axis)
    return softmax_rows(x)


def softmax_grad(y, dy, axis):
    """The numba forward of ``SoftmaxGrad`` (the NumPy one unless `axis` is the last)."""
    if not _last_axis((y, dy), axis):
        return kernel_sets.numpy_forward("SoftmaxGrad")(y, dy, axis=axis)
    dx = scratch.empty(dy.shape, dy.dtype)
    np.copyto(dx, dy)
    return softmax_grad_rows(y, dx)


def log_softmax_grad(y, dy, axis):
    """The numba forward of ``LogSoftmaxGrad`` (the NumPy one unless `axis` is the last)."""
    if not _last_axis((y, dy), axis):
        return kernel_sets.numpy_forward("LogSoftmaxGrad")(y, dy, axis=axis)
    probs = np.exp(y, out=scratch.empty(y.shape, y.dtype))
    _log_softmax_grad_rows(_rows(dy), _rows(probs))
    return probs
