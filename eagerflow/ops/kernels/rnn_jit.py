"""The numba kernels of the fused recurrent-cell ops (`ops/recurrent.py`): their gate
arithmetic compiled.

`lstm_block_cell`, `lstm_block_cell_grad`, `gru_block_cell` and `gru_block_cell_grad` are
the kernel forwards registered for the ops ``LSTMBlockCell``, ``LSTMBlockCellGrad``,
``GRUBlockCell`` and ``GRUBlockCellGrad``: the steps of `rnn_gates.py` with the gate
arithmetic below (same functions, arguments and results as the NumPy ones there, tested
against them), each one pass over the step instead of five to fifteen NumPy passes.
The whole-sequence ops (``LSTMSequence``, ``GRUSequence`` and their gradients) run as
`rnn_sequence_jit`'s compiled loops, one per half of the batch, where those apply (float32
forwards, float32 and float64 gradients), and as `rnn_gates`'s Python
loops over these gate functions otherwise.

What stays in NumPy: every tanh. numba calls the C library's scalar ``tanh``
(~25-45 ns an element on the 2-core AVX-512 box: the llvmlite wheels carry no vector
math library) where NumPy's SIMD tanh takes ~0.5 ns; a vectorizable rational tanh written
here still cost ~4 ns. So a step is NumPy's tanh of all gates at once, then one of these
loops, which LLVM vectorizes.

The loops are serial: a step of a recurrent layer is a few thousand elements, less than
a thread pool's wake-up, and under load numba's workers and OpenBLAS's spin against each
other (a ``prange`` version measured 6-10x slower on the loaded 2-core box).

"""

from __future__ import annotations

import sys

import numpy as np

from eagerflow.ops.kernels import jit, rnn_gates
from eagerflow.ops.kernels import rnn_sequence_jit as sequences


@jit.kernel
def _lstm_state(t, c_prev, c):  # pragma: no cover - compiled
    batch, units = c_prev.shape
    for b in range(batch):
        for j in range(units):
            i = 0.5 * t[b, j] + 0.5
            f = 0.5 * t[b, units + j] + 0.5
            c[b, j] = f * c_prev[b, j] + i * t[b, 2 * units + j]


@jit.kernel
def _lstm_output(t, tanh_c, h):  # pragma: no cover - compiled
    batch, units = tanh_c.shape
    for b in range(batch):
        for j in range(units):
            h[b, j] = (0.5 * t[b, 3 * units + j] + 0.5) * tanh_c[b, j]


@jit.kernel
def lstm_gate_input(z, projected, step, scale):  # pragma: no cover - compiled
    """``z += projected[:, step] * scale`` in place (one pass, no temporary)."""
    batch, width = z.shape
    for b in range(batch):
        for j in range(width):
            z[b, j] += projected[b, step, j] * scale[j]


# The gradient kernels compute a row's shared term into a float64 row first and then
# write each output in its own loop: one loop writing five outputs from eight inputs got
# no vectorization from LLVM (which cannot rule out that the arrays overlap), while
# loops of one output each vectorize: 2.5x faster (LSTM step 17.6 against 6.9 us). The
# float64 row keeps the values bit for bit (numba computes ``0.5 * t`` in float64).
@jit.kernel
def _lstm_grad(t, tanh_c, c_prev, dh, dc, dz, step, dc_prev):  # pragma: no cover
    batch, units = c_prev.shape
    d_c = np.empty(units, np.float64)
    for b in range(batch):
        tb, tcb, dhb, out = t[b], tanh_c[b], dh[b], dz[b, step]
        for j in range(units):
            o = 0.5 * tb[3 * units + j] + 0.5
            d_c[j] = dc[b, j] + dhb[j] * o * (1 - tcb[j] * tcb[j])
        for j in range(units):
            i = 0.5 * tb[j] + 0.5
            out[j] = d_c[j] * tb[2 * units + j] * i * (1 - i)
        for j in range(units):
            f = 0.5 * tb[units + j] + 0.5
            out[units + j] = d_c[j] * c_prev[b, j] * f * (1 - f)
        for j in range(units):
            g = tb[2 * units + j]
            out[2 * units + j] = d_c[j] * (0.5 * tb[j] + 0.5) * (1 - g * g)
        for j in range(units):
            o = 0.5 * tb[3 * units + j] + 0.5
            out[3 * units + j] = dhb[j] * tcb[j] * o * (1 - o)
        for j in range(units):
            dc_prev[b, j] = d_c[j] * (0.5 * tb[units + j] + 0.5)


def lstm_state(t, c_prev):
    """``c = f * c_prev + i * g`` from the gates' tanh ``t``."""
    c = np.empty(c_prev.shape, c_prev.dtype)
    _lstm_state(t, c_prev, c)
    return c


def lstm_output(t, tanh_c):
    """``h = o * tanh(c)``."""
    h = np.empty(tanh_c.shape, tanh_c.dtype)
    _lstm_output(t, tanh_c, h)
    return h


# The gradients' outputs are 3-D, ``(batch, time, width)``, written at one step: the
# kernel is compiled for a C-contiguous array, where a strided 2-D view of the step
# (numba's layout "A") measured ~1.5x slower (GRU step: 22 vs 15 us). A single step (the
# per-cell ops) is a sequence of one.
lstm_grad_into = _lstm_grad
"""`lstm_grad` written into step ``step`` of ``dz (batch, time, 4u)`` and into
``dc_prev``: ``(t, tanh_c, c_prev, dh, dc, dz, step, dc_prev)``."""


def lstm_grad(t, tanh_c, c_prev, dh, dc):
    """``(dz, dc_prev)`` of one LSTM step, ``dz`` for the four gates' pre-activations."""
    dz = np.empty((t.shape[0], 1, t.shape[1]), t.dtype)
    dc_prev = np.empty(c_prev.shape, c_prev.dtype)
    _lstm_grad(t, tanh_c, c_prev, dh, dc, dz, 0, dc_prev)
    return dz[:, 0], dc_prev


@jit.kernel
def _gru_candidate_input(t, x, inner, out):  # pragma: no cover - compiled
    batch, units = out.shape
    for b in range(batch):
        for j in range(units):
            r = 0.5 * t[b, units + j] + 0.5
            out[b, j] = x[b, 2 * units + j] + r * inner[b, 2 * units + j]


@jit.kernel
def _gru_state(t, candidate, h_prev, h):  # pragma: no cover - compiled
    batch, units = h_prev.shape
    for b in range(batch):
        for j in range(units):
            z = 0.5 * t[b, j] + 0.5
            h[b, j] = z * h_prev[b, j] + (1 - z) * candidate[b, j]


@jit.kernel
def gru_gate_input(inner, bias, projected, step, t):  # pragma: no cover - compiled
    """``inner += bias``, then ``t = (projected[:, step] + inner) / 2`` over the update and
    reset gates (before their tanh)."""
    batch, width = inner.shape
    for b in range(batch):
        for j in range(width):
            inner[b, j] += bias[j]
        for j in range(t.shape[1]):
            t[b, j] = 0.5 * (projected[b, step, j] + inner[b, j])


@jit.kernel
def _gru_grad(t, candidate, inner, h_prev, dh, dx, dinner, step, dh_prev):  # pragma: no cover
    batch, units = h_prev.shape
    d_z, d_a = np.empty(units, np.float64), np.empty(units, np.float64)
    for b in range(batch):
        tb, hb, dhb, xb, ib = t[b], candidate[b], dh[b], dx[b, step], dinner[b, step]
        for j in range(units):
            z = 0.5 * tb[j] + 0.5
            d_z[j] = dhb[j] * (h_prev[b, j] - hb[j]) * z * (1 - z)
        for j in range(units):
            z = 0.5 * tb[j] + 0.5
            d_a[j] = dhb[j] * (1 - z) * (1 - hb[j] * hb[j])
        for j in range(units):
            xb[j] = d_z[j]
            ib[j] = d_z[j]
        for j in range(units):
            r = 0.5 * tb[units + j] + 0.5
            d_r = d_a[j] * inner[b, 2 * units + j] * r * (1 - r)
            xb[units + j] = d_r
            ib[units + j] = d_r
        for j in range(units):
            xb[2 * units + j] = d_a[j]
            ib[2 * units + j] = d_a[j] * (0.5 * tb[units + j] + 0.5)
        for j in range(units):
            dh_prev[b, j] = dhb[j] * (0.5 * tb[j] + 0.5)


gru_grad_into = _gru_grad
"""`gru_grad` written into step ``step`` of ``dx`` and ``dinner`` (``(batch, time,
3u)``) and into ``dh_prev``: ``(t, candidate, inner, h_prev, dh, dx, dinner, step,
dh_prev)``."""


def gru_candidate_input(t, x, inner):
    """``x_h + r * inner_h``, the candidate's pre-activation (``t`` holds z and r)."""
    out = np.empty((t.shape[0], t.shape[1] // 2), t.dtype)
    _gru_candidate_input(t, x, inner, out)
    return out


def gru_state(t, candidate, h_prev):
    """``h = z * h_prev + (1 - z) * candidate``."""
    h = np.empty(h_prev.shape, h_prev.dtype)
    _gru_state(t, candidate, h_prev, h)
    return h


def gru_grad(t, candidate, inner, h_prev, dh):
    """``(dx, dinner, dh_prev)`` of one GRU step (``reset_after=True``)."""
    dx = np.empty((inner.shape[0], 1, inner.shape[1]), inner.dtype)
    dinner = np.empty_like(dx)
    dh_prev = np.empty(h_prev.shape, h_prev.dtype)
    _gru_grad(t, candidate, inner, h_prev, dh, dx, dinner, 0, dh_prev)
    return dx[:, 0], dinner[:, 0], dh_prev


_COMPILED = sys.modules[__name__]


def lstm_block_cell(x, hz, c_prev):
    """The forward of ``LSTMBlockCell`` with this module's gate arithmetic."""
    return rnn_gates.lstm_block_cell(x, hz, c_prev, _COMPILED)


def lstm_block_cell_grad(x, hz, c_prev, c, dh, dc):
    """The forward of ``LSTMBlockCellGrad`` with this module's gate arithmetic."""
    return rnn_gates.lstm_block_cell_grad(x, hz, c_prev, c, dh, dc, _COMPILED)


def gru_block_cell(x, inner, h_prev):
    """The forward of ``GRUBlockCell`` with this module's gate arithmetic."""
    return rnn_gates.gru_block_cell(x, inner, h_prev, _COMPILED)


def gru_block_cell_grad(x, inner, h_prev, dh):
    """The forward of ``GRUBlockCellGrad`` with this module's gate arithmetic."""
    return rnn_gates.gru_block_cell_grad(x, inner, h_prev, dh, _COMPILED)


def _first(mask):
    return mask[0] if mask else None


def lstm_sequence(projected, h0, c0, kernel, *mask):
    """The forward of ``LSTMSequence``: the compiled loop of `rnn_sequence_jit` where it
    applies (float32), else `rnn_gates`'s with this module's gate arithmetic."""
    if sequences.usable(projected.dtype, forward=True):
        return sequences.lstm_sequence(projected, h0, c0, kernel, _first(mask))
    return rnn_gates.lstm_sequence(projected, h0, c0, kernel, _first(mask), gates=_COMPILED)


def lstm_sequence_grad(projected, h0, c0, kernel, h_seq, c_seq, t_seq, dh_seq, dh, dc, *mask):
    """The forward of ``LSTMSequenceGrad``: the compiled loop of `rnn_sequence_jit` where it
    applies, else `rnn_gates`'s with this module's gate arithmetic."""
    if sequences.usable(projected.dtype, forward=False):
        return sequences.lstm_sequence_grad(c0, kernel, h_seq, c_seq, t_seq, dh_seq, dh, dc,
                                            _first(mask))
    return rnn_gates.lstm_sequence_grad(c0, kernel, h_seq, c_seq, t_seq, dh_seq, dh, dc,
                                        _first(mask), gates=_COMPILED)


def gru_sequence(projected, h0, kernel, bias, *mask):
    """The forward of ``GRUSequence``: the compiled loop of `rnn_sequence_jit` where it
    applies (float32), else `rnn_gates`'s with this module's gate arithmetic."""
    if sequences.usable(projected.dtype, forward=True):
        return sequences.gru_sequence(projected, h0, kernel, bias, _first(mask))
    return rnn_gates.gru_sequence(projected, h0, kernel, bias, _first(mask), gates=_COMPILED)


def gru_sequence_grad(projected, h0, kernel, bias, h_seq, inner_seq, t_seq, candidate_seq,
                      dh_seq, dh, *mask):
    """The forward of ``GRUSequenceGrad``: the compiled loop of `rnn_sequence_jit` where it
    applies, else `rnn_gates`'s with this module's gate arithmetic."""
    if sequences.usable(projected.dtype, forward=False):
        return sequences.gru_sequence_grad(h0, kernel, h_seq, inner_seq, t_seq, candidate_seq,
                                           dh_seq, dh, _first(mask))
    return rnn_gates.gru_sequence_grad(h0, kernel, h_seq, inner_seq, t_seq, candidate_seq,
                                       dh_seq, dh, _first(mask), gates=_COMPILED)
