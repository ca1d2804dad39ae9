"""Whole recurrent sequences as compiled loops, one per part of the batch (numba set).

The sequences of a batch are independent, so `lstm_sequence`, `gru_sequence` and their
gradients run the whole loop over the time steps as one compiled function per range of
rows (`jit.run_parts`: one range per thread of numba's pool). Inside, a step is the
recurrent product as numba's ``np.dot(h, kernel, out)`` (BLAS through scipy's
``cython_blas``, on one thread in each part) and the gate arithmetic inlined, with no
Python between steps. The Python loops of `rnn_gates`
ran on one core; PyTorch's LSTM uses both.

* **Values.** The same formulas as `rnn_gates` (its functions are the reference the tests
  hold these to), in the arrays' own precision. The gradient loops accept float32 and
  float64; the LSTM's takes the carries' tanh from NumPy in float64 and computes it as the
  forward did in float32. The forwards take float32 only: their tanh is `tanh_float32`,
  a vectorizable formula (~0.6 ns an element, against ~25-45 ns for the C library's
  scalar ``tanhf`` numba would call and ~0.4 ns for NumPy's SIMD tanh) with at most ~8
  units in the last place of error; float64 sequences keep `rnn_gates`'s loop with
  NumPy's tanh. The products come from another BLAS library than
  NumPy's (scipy's OpenBLAS), so results agree with the NumPy kernel set to rounding
  (relative ~1e-6 in float32), not bit for bit.
* **When.** `usable` says whether a sequence can take these loops (by its dtype);
  float16 sequences keep `rnn_gates`'s loops. numba's ``np.dot`` calls scipy's BLAS,
  part of the ``fast`` extra the numba kernel set requires (`kernel_sets.NEEDS`).
* **Threads.** A second BLAS library means a second thread pool: scipy's OpenBLAS is
  registered with `blas_threads` when this module loads, and the loops run with BLAS on
  one thread (measured: a 64-row LSTM forward of 50 steps took 3.8 ms on the loaded 2-core
  machine with scipy's pool free, 1.4 ms held at one thread).
* **Products.** Each recurrent product runs in blocks of rows small enough for
  OpenBLAS's small-matrix kernels (`dot_in_blocks`), 2-4x faster per multiply-add here
  than its packed path on a whole batch's product.

Measured on the 2-core machine (float32, batch 64, 64 units, forward and gradient, medians
in a calm minute): LSTM over 50 steps 2.45 ms against 4.30 ms for `rnn_gates`'s loop with
`rnn_jit`'s gates; GRU over 100 steps 3.73 against 9.84 ms. In numba's pool, with the
carries' tanh in the gradient's loops: LSTM 1.63-1.66 ms (1.70-1.88 with NumPy's tanh
pass), GRU 3.4-3.5 ms. See
docs/guides/performance.md ("Compiled sequence loops").
"""

from __future__ import annotations

import math

import numpy as np

from eagerflow.ops.kernels import blas_threads, jit, kernel_sets, rnn_gates, scratch

_F32 = np.float32
_HALF, _ONE, _TWO = _F32(0.5), _F32(1.0), _F32(2.0)
# expm1's Taylor coefficients 1/2!, ..., 1/8! (see `tanh_float32`); numba freezes these
# globals as float32 constants, so the formula stays in float32 (16 lanes in AVX-512).
_C2, _C3, _C4, _C5, _C6, _C7, _C8 = (_F32(1 / math.factorial(k)) for k in range(2, 9))
_TANH_LIMIT = _F32(9.0)  # tanh(9) rounds to 1 in float32
_SHRINK = _F32(2 / 64)  # expm1(2a) from expm1(2a / 64) by six doublings


def usable(dtype: np.dtype, forward: bool) -> bool:
    """Whether a sequence of `dtype` runs in these loops: float32 for a forward, float32 or
    float64 for a gradient."""
    return dtype in ((np.float32,) if forward else kernel_sets.COMPILED_DTYPES)


# numba's np.dot would load scipy's BLAS when the first kernel using it compiles; loaded
# now, `blas_threads` finds it and holds its threads in `jit.run_parts`.
blas_threads.load_scipy_blas()


@jit.inline_formula
def tanh_float32(x):  # pragma: no cover - compiled (inlined into the loops below)
    """tanh of a float32 value in float32 arithmetic, ~0.6 ns an element (vectorized).

    ``tanh(a) = q / (q + 2)`` with ``q = expm1(2a)``, ``a = |x|`` clamped to 9, and
    ``expm1(2a)`` from its Taylor series to degree 8 at ``y = 2a / 64 <= 0.28`` (truncation
    below 3e-8 relative) by six doublings ``expm1(2y) = expm1(y) (expm1(y) + 2)``, which
    keep the relative error (no cancellation near 0). Error: at most ~8 units in the last
    place, mean ~0.4 (measured on 4.1 million values against float64's tanh, the tests
    check 440,000; subnormal inputs lose bits in the scaling, a few of their steps
    absolutely); NaN stays NaN, the sign is ``x``'s. (`graph/passes/fusion_jit.py`'s
    ``_tanh_float32`` is the correctly rounded variant in float64 arithmetic, ~2 ns.)
    """
    a = abs(x)
    y = (a if not a > _TANH_LIMIT else _TANH_LIMIT) * _SHRINK  # (NaN stays NaN)
    q = y * (_ONE + y * (_C2 + y * (_C3 + y * (_C4 + y * (_C5 + y * (_C6 + y * (
        _C7 + y * _C8)))))))
    for _ in range(6):
        q = q * (q + _TWO)
    return _F32(math.copysign(q / (q + _TWO), x))


# Blocks of rows as `rnn_gates.matmul_in_blocks` (same limit): under OpenBLAS's
# small-matrix limit, 2-4x faster per multiply-add than a whole batch's product.
@jit.kernel
def dot_in_blocks(a, b, out):  # pragma: no cover - compiled
    """``np.dot(a, b, out)`` by blocks of rows of at most `rnn_gates.SMALL_PRODUCT`
    multiply-adds."""
    block = max(1, rnn_gates.SMALL_PRODUCT // (b.shape[0] * b.shape[1]))
    for start in range(0, a.shape[0], block):
        stop = min(start + block, a.shape[0])
        np.dot(a[start:stop], b, out[start:stop])


# -- LSTM ---------------------------------------------------------------------------------
# Layouts as in `rnn_gates.lstm_sequence`: ``h_seq`` batch-major, ``c_seq`` and ``t_seq``
# time-major (a step's rows ``lo:hi`` are then one contiguous block: np.dot writes them).

@jit.elementwise_kernel
def lstm_forward_rows(projected, h0, c0, kernel, scale, mask, h_seq, c_seq, t_seq, lo,
                      hi):  # pragma: no cover - compiled
    """Rows ``lo:hi`` of `rnn_gates.lstm_sequence` (``kernel`` already scaled by
    ``scale``: halved for the sigmoid gates)."""
    steps, width = projected.shape[1], projected.shape[2]
    units, rows = width // 4, hi - lo
    h, c = h0[lo:hi].copy(), c0[lo:hi].copy()  # this range's states, updated in place
    hidden = np.empty_like(h)
    for step in range(steps):
        z = t_seq[step, lo:hi]
        if mask is None:
            dot_in_blocks(h, kernel, z)
        else:
            for b in range(rows):
                for j in range(units):
                    hidden[b, j] = h[b, j] * mask[lo + b, j]
            dot_in_blocks(hidden, kernel, z)
        for b in range(rows):
            row = lo + b
            for j in range(width):
                z[b, j] = tanh_float32(z[b, j] + projected[row, step, j] * scale[j])
            for j in range(units):
                i, f = _HALF * z[b, j] + _HALF, _HALF * z[b, units + j] + _HALF
                c[b, j] = f * c[b, j] + i * z[b, 2 * units + j]
                c_seq[step, row, j] = c[b, j]
            for j in range(units):
                h[b, j] = (_HALF * z[b, 3 * units + j] + _HALF) * tanh_float32(c[b, j])
                h_seq[row, step, j] = h[b, j]


# The loops index the big arrays element by element, never through a view per row: a
# view costs a reference-count increment and decrement on the parent array, which two
# threads then bounce between their cores (and the per-row views cost ~2x the loop time
# on one thread already). One view per step (for np.dot) is cheap.
@jit.elementwise_kernel
def lstm_backward_rows(kernel_t, c0, c_seq, t_seq, tanh_c, dh_seq, dh, dc, mask, dz_seq, dh0,
                       dc0, lo, hi):  # pragma: no cover - compiled
    """Rows ``lo:hi`` of `rnn_gates.lstm_sequence_grad` (``kernel_t``: the kernel
    transposed, contiguous; ``tanh_c``: the carries' tanh, or None to compute them in
    float32 as the forward did); writes ``dz_seq``, ``dh0`` and ``dc0``."""
    steps, width = dz_seq.shape[1], dz_seq.shape[2]
    units, rows = width // 4, hi - lo
    dz = np.empty((rows, width), dz_seq.dtype)
    d_hidden = dh[lo:hi].copy()  # the gradient reaching h through the recurrence
    carry = dc[lo:hi].copy()
    d_c = np.empty(units, dz_seq.dtype)
    tanh = np.empty(units, dz_seq.dtype)
    for step in range(steps - 1, -1, -1):
        c_prev = c_seq[step - 1] if step else c0
        t, c = t_seq[step], c_seq[step]
        for b in range(rows):
            row = lo + b
            # One output per loop, as `rnn_jit._lstm_grad` (those vectorize).
            if tanh_c is None:  # (float32: the forward's own tanh of the carry)
                for j in range(units):
                    tanh[j] = tanh_float32(c[row, j])
            else:
                for j in range(units):
                    tanh[j] = tanh_c[step, row, j]
            for j in range(units):
                d_hidden[b, j] = d_hidden[b, j] + dh_seq[row, step, j]
            for j in range(units):
                o = _HALF * t[row, 3 * units + j] + _HALF
                d_c[j] = carry[b, j] + d_hidden[b, j] * o * (_ONE - tanh[j] * tanh[j])
            for j in range(units):
                i = _HALF * t[row, j] + _HALF
                dz[b, j] = d_c[j] * t[row, 2 * units + j] * i * (_ONE - i)
            for j in range(units):
                f = _HALF * t[row, units + j] + _HALF
                dz[b, units + j] = d_c[j] * c_prev[row, j] * f * (_ONE - f)
            for j in range(units):
                g = t[row, 2 * units + j]
                dz[b, 2 * units + j] = d_c[j] * (_HALF * t[row, j] + _HALF) * (_ONE - g * g)
            for j in range(units):
                o = _HALF * t[row, 3 * units + j] + _HALF
                dz[b, 3 * units + j] = d_hidden[b, j] * tanh[j] * o * (_ONE - o)
            for j in range(units):
                carry[b, j] = d_c[j] * (_HALF * t[row, units + j] + _HALF)
            for j in range(width):
                dz_seq[row, step, j] = dz[b, j]
        dot_in_blocks(dz, kernel_t, d_hidden)
        if mask is not None:
            for b in range(rows):
                for j in range(units):
                    d_hidden[b, j] *= mask[lo + b, j]
    dh0[lo:hi] = d_hidden
    dc0[lo:hi] = carry


# One part of the batch per thread of numba's pool (`jit.run_parts`).

@jit.parallel_kernel
def _lstm_forward_parts(parts, projected, h0, c0, kernel, scale, mask, h_seq, c_seq,
                        t_seq):  # pragma: no cover - compiled
    for part in jit.prange(parts):
        lo, hi = jit.part_bounds(projected.shape[0], parts, part)
        lstm_forward_rows(projected, h0, c0, kernel, scale, mask, h_seq, c_seq, t_seq, lo, hi)


@jit.parallel_kernel
def _lstm_backward_parts(parts, kernel_t, c0, c_seq, t_seq, tanh_c, dh_seq, dh, dc, mask,
                         dz_seq, dh0, dc0):  # pragma: no cover - compiled
    for part in jit.prange(parts):
        lo, hi = jit.part_bounds(dz_seq.shape[0], parts, part)
        lstm_backward_rows(kernel_t, c0, c_seq, t_seq, tanh_c, dh_seq, dh, dc, mask, dz_seq,
                           dh0, dc0, lo, hi)


def _contiguous(*arrays):
    """C-contiguous arrays (one compiled signature each, and np.dot's operands)."""
    return [None if a is None else np.ascontiguousarray(a) for a in arrays]


def lstm_sequence(projected, h0, c0, kernel, mask=None):
    """`rnn_gates.lstm_sequence` (same arguments and results), float32, split over the
    batch."""
    projected, h0, c0, kernel, mask = _contiguous(projected, h0, c0, kernel, mask)
    batch, steps, width = projected.shape
    units = width // 4
    scale = np.full(width, 0.5, projected.dtype)
    scale[2 * units:3 * units] = 1.0
    kernel = kernel * scale  # halving is exact: the same z / 2 as halving every step's z
    h_seq = scratch.empty((batch, steps, units), projected.dtype)
    c_seq = scratch.empty((steps, batch, units), projected.dtype)
    t_seq = scratch.empty((steps, batch, width), projected.dtype)
    jit.run_parts(_lstm_forward_parts, batch, projected, h0, c0, kernel, scale, mask, h_seq,
                  c_seq, t_seq)
    return h_seq, h_seq[:, -1].copy(), c_seq[-1].copy(), c_seq, t_seq


def lstm_sequence_grad(c0, kernel, h_seq, c_seq, t_seq, dh_seq, dh, dc, mask=None):
    """`rnn_gates.lstm_sequence_grad` (same arguments and results), split over the
    batch."""
    c0, c_seq, t_seq, dh_seq, dh, dc, mask = _contiguous(c0, c_seq, t_seq, dh_seq, dh, dc,
                                                         mask)
    batch, steps, units = h_seq.shape
    # float32: the carries' tanh in the loops, as the forward computed it (`tanh_float32`,
    # vectorized: NumPy's SIMD pass over all of them took ~0.1 ms on the main thread);
    # float64: NumPy's tanh, all at once.
    tanh_c = (None if c_seq.dtype == np.float32
              else np.tanh(c_seq, out=scratch.empty(c_seq.shape, c_seq.dtype)))
    kernel_t = np.ascontiguousarray(kernel.T)
    dz_seq = scratch.empty((batch, steps, 4 * units), h_seq.dtype)
    dh0, dc0 = np.empty_like(c0), np.empty_like(c0)
    jit.run_parts(_lstm_backward_parts, batch, kernel_t, c0, c_seq, t_seq, tanh_c, dh_seq, dh,
                  dc, mask, dz_seq, dh0, dc0)
    return dz_seq, dh0, dc0


# -- GRU (reset_after=True) ---------------------------------------------------------------
# Layouts as in `rnn_gates.gru_sequence`: ``h_seq`` batch-major, ``inner_seq``, ``t_seq``
# and ``candidate_seq`` time-major.

@jit.elementwise_kernel
def gru_forward_rows(projected, h0, kernel, bias, mask, h_seq, inner_seq, t_seq,
                     candidate_seq, lo, hi):  # pragma: no cover - compiled
    """Rows ``lo:hi`` of `rnn_gates.gru_sequence`."""
    steps, width = projected.shape[1], projected.shape[2]
    units, rows = width // 3, hi - lo
    h = h0[lo:hi].copy()  # this range's state, updated in place
    hidden = np.empty_like(h)
    for step in range(steps):
        inner, t, candidate = inner_seq[step, lo:hi], t_seq[step], candidate_seq[step]
        if mask is None:
            dot_in_blocks(h, kernel, inner)
        else:
            for b in range(rows):
                for j in range(units):
                    hidden[b, j] = h[b, j] * mask[lo + b, j]
            dot_in_blocks(hidden, kernel, inner)
        for b in range(rows):
            row = lo + b
            for j in range(width):
                inner[b, j] += bias[j]
            for j in range(2 * units):
                t[row, j] = tanh_float32((projected[row, step, j] + inner[b, j]) * _HALF)
            for j in range(units):
                r = _HALF * t[row, units + j] + _HALF
                candidate[row, j] = tanh_float32(projected[row, step, 2 * units + j]
                                                 + r * inner[b, 2 * units + j])
            for j in range(units):
                z = _HALF * t[row, j] + _HALF
                h[b, j] = z * h[b, j] + (_ONE - z) * candidate[row, j]
                h_seq[row, step, j] = h[b, j]


@jit.elementwise_kernel
def gru_backward_rows(kernel_t, h0, h_seq, inner_seq, t_seq, candidate_seq, dh_seq, dh, mask,
                      dx_seq, d_inner_seq, dh0, lo, hi):  # pragma: no cover - compiled
    """Rows ``lo:hi`` of `rnn_gates.gru_sequence_grad` (``kernel_t``: the kernel
    transposed, contiguous); writes ``dx_seq``, ``d_inner_seq`` and ``dh0``."""
    steps, width = dx_seq.shape[1], dx_seq.shape[2]
    units, rows = width // 3, hi - lo
    d_inner = np.empty((rows, width), dx_seq.dtype)
    d_hidden = dh[lo:hi].copy()  # the gradient reaching h (through the recurrence, then
    dh_direct = np.empty_like(d_hidden)  # plus the direct path z * dh)
    h_prev = np.empty(units, dx_seq.dtype)
    d_z, d_a = np.empty(units, dx_seq.dtype), np.empty(units, dx_seq.dtype)
    for step in range(steps - 1, -1, -1):
        t, candidate, inner = t_seq[step], candidate_seq[step], inner_seq[step]
        for b in range(rows):
            row = lo + b
            for j in range(units):
                h_prev[j] = h_seq[row, step - 1, j] if step else h0[row, j]
            for j in range(units):
                d_hidden[b, j] = d_hidden[b, j] + dh_seq[row, step, j]
            for j in range(units):
                z = _HALF * t[row, j] + _HALF
                d_z[j] = d_hidden[b, j] * (h_prev[j] - candidate[row, j]) * z * (_ONE - z)
            for j in range(units):
                z, a = _HALF * t[row, j] + _HALF, candidate[row, j]
                d_a[j] = d_hidden[b, j] * (_ONE - z) * (_ONE - a * a)
            for j in range(units):
                dx_seq[row, step, j] = d_z[j]
                d_inner[b, j] = d_z[j]
            for j in range(units):
                r = _HALF * t[row, units + j] + _HALF
                d_r = d_a[j] * inner[row, 2 * units + j] * r * (_ONE - r)
                dx_seq[row, step, units + j] = d_r
                d_inner[b, units + j] = d_r
            for j in range(units):
                dx_seq[row, step, 2 * units + j] = d_a[j]
                d_inner[b, 2 * units + j] = d_a[j] * (_HALF * t[row, units + j] + _HALF)
            for j in range(units):
                dh_direct[b, j] = d_hidden[b, j] * (_HALF * t[row, j] + _HALF)
            for j in range(width):
                d_inner_seq[row, step, j] = d_inner[b, j]
        dot_in_blocks(d_inner, kernel_t, d_hidden)
        for b in range(rows):
            for j in range(units):
                scaled = d_hidden[b, j] if mask is None else d_hidden[b, j] * mask[lo + b, j]
                d_hidden[b, j] = scaled + dh_direct[b, j]
    dh0[lo:hi] = d_hidden


@jit.parallel_kernel
def _gru_forward_parts(parts, projected, h0, kernel, bias, mask, h_seq, inner_seq, t_seq,
                       candidate_seq):  # pragma: no cover - compiled
    for part in jit.prange(parts):
        lo, hi = jit.part_bounds(projected.shape[0], parts, part)
        gru_forward_rows(projected, h0, kernel, bias, mask, h_seq, inner_seq, t_seq,
                         candidate_seq, lo, hi)


@jit.parallel_kernel
def _gru_backward_parts(parts, kernel_t, h0, h_seq, inner_seq, t_seq, candidate_seq, dh_seq,
                        dh, mask, dx_seq, d_inner_seq, dh0):  # pragma: no cover - compiled
    for part in jit.prange(parts):
        lo, hi = jit.part_bounds(h_seq.shape[0], parts, part)
        gru_backward_rows(kernel_t, h0, h_seq, inner_seq, t_seq, candidate_seq, dh_seq, dh,
                          mask, dx_seq, d_inner_seq, dh0, lo, hi)


def gru_sequence(projected, h0, kernel, bias, mask=None):
    """`rnn_gates.gru_sequence` (same arguments and results), float32, split over the
    batch."""
    projected, h0, kernel, bias, mask = _contiguous(projected, h0, kernel, bias, mask)
    batch, steps, width = projected.shape
    units = width // 3
    h_seq = scratch.empty((batch, steps, units), projected.dtype)
    inner_seq = scratch.empty((steps, batch, width), projected.dtype)
    t_seq = scratch.empty((steps, batch, 2 * units), projected.dtype)
    candidate_seq = scratch.empty((steps, batch, units), projected.dtype)
    jit.run_parts(_gru_forward_parts, batch, projected, h0, kernel, bias, mask, h_seq,
                  inner_seq, t_seq, candidate_seq)
    return h_seq, h_seq[:, -1].copy(), inner_seq, t_seq, candidate_seq


def gru_sequence_grad(h0, kernel, h_seq, inner_seq, t_seq, candidate_seq, dh_seq, dh,
                      mask=None):
    """`rnn_gates.gru_sequence_grad` (same arguments and results), split over the batch."""
    h0, h_seq, inner_seq, t_seq, candidate_seq, dh_seq, dh, mask = _contiguous(
        h0, h_seq, inner_seq, t_seq, candidate_seq, dh_seq, dh, mask)
    batch, steps, units = h_seq.shape
    kernel_t = np.ascontiguousarray(kernel.T)
    dx_seq = scratch.empty((batch, steps, 3 * units), h_seq.dtype)
    d_inner_seq = scratch.empty((batch, steps, 3 * units), h_seq.dtype)
    dh0 = np.empty_like(h0)
    jit.run_parts(_gru_backward_parts, batch, kernel_t, h0, h_seq, inner_seq, t_seq,
                  candidate_seq, dh_seq, dh, mask, dx_seq, d_inner_seq, dh0)
    return dx_seq, d_inner_seq, dh0
