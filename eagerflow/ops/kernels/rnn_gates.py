"""NumPy kernels of the fused recurrent-cell ops (`ops/recurrent.py`).

A step (`lstm_block_cell`, `gru_block_cell` and their gradients) takes every tanh in
NumPy at once (its SIMD tanh costs ~0.5 ns an element) and hands the arithmetic between
to the gate functions of a `gates` module: this one's (NumPy, a few passes each), or
`rnn_jit`'s, the same functions compiled with numba (one pass each), which are tested
against these. ``t`` is the tanh of the gate pre-activations, halved for the sigmoid
gates, so ``sigmoid(z) = 0.5 * t + 0.5`` (`gate_tanh`): the same function as
``1 / (1 + e^-z)``, and ~6x faster in NumPy than its overflow-safe form with a masked
multiply.

Shapes: ``t`` is ``(batch, gates * units)`` in Keras's gate order (LSTM: input, forget,
cell, output; GRU: update, reset, then the candidate's slot), the states ``(batch, units)``.
"""

from __future__ import annotations

import sys

import numpy as np

from eagerflow.ops.kernels import scratch


def gate_tanh(x, hz, units, gates, tanh_gate):
    """``tanh`` of ``x + hz``, halved first for every gate but `tanh_gate` (a fresh array)."""
    z = np.add(x, hz)
    if tanh_gate is None:
        z *= 0.5
    else:
        z[:, :tanh_gate * units] *= 0.5
        z[:, (tanh_gate + 1) * units:gates * units] *= 0.5
    return np.tanh(z, out=z)


def _half(t):
    return 0.5 * t + 0.5


def lstm_state(t, c_prev):
    """``c = f * c_prev + i * g`` from the gates' tanh ``t``."""
    units = c_prev.shape[1]
    i, f, g = _half(t[:, :units]), _half(t[:, units:2 * units]), t[:, 2 * units:3 * units]
    return f * c_prev + i * g


def lstm_output(t, tanh_c):
    """``h = o * tanh(c)``."""
    units = tanh_c.shape[1]
    return _half(t[:, 3 * units:]) * tanh_c


def lstm_grad(t, tanh_c, c_prev, dh, dc):
    """``(dz, dc_prev)`` of one LSTM step, ``dz`` for the four gates' pre-activations."""
    units = c_prev.shape[1]
    i, f, g = _half(t[:, :units]), _half(t[:, units:2 * units]), t[:, 2 * units:3 * units]
    o = _half(t[:, 3 * units:])
    d_c = dc + dh * o * (1 - tanh_c * tanh_c)
    dz = np.concatenate([d_c * g * i * (1 - i), d_c * c_prev * f * (1 - f),
                         d_c * i * (1 - g * g), dh * tanh_c * o * (1 - o)], axis=1)
    return dz, d_c * f


def lstm_gate_input(z, projected, step, scale):
    """``z += projected[:, step] * scale`` in place."""
    z += projected[:, step] * scale


def lstm_grad_into(t, tanh_c, c_prev, dh, dc, dz, step, dc_prev):
    """`lstm_grad` written into step ``step`` of ``dz (batch, time, 4u)`` and into
    ``dc_prev``."""
    dz[:, step], dc_prev[...] = lstm_grad(t, tanh_c, c_prev, dh, dc)


def gru_candidate_input(t, x, inner):
    """``x_h + r * inner_h``, the candidate's pre-activation (``t`` holds z and r)."""
    units = t.shape[1] // 2
    return x[:, 2 * units:] + _half(t[:, units:]) * inner[:, 2 * units:]


def gru_state(t, candidate, h_prev):
    """``h = z * h_prev + (1 - z) * candidate``."""
    z = _half(t[:, :h_prev.shape[1]])
    return z * h_prev + (1 - z) * candidate


def gru_grad(t, candidate, inner, h_prev, dh):
    """``(dx, dinner, dh_prev)`` of one GRU step (``reset_after=True``)."""
    units = h_prev.shape[1]
    z, r = _half(t[:, :units]), _half(t[:, units:])
    inner_h = inner[:, 2 * units:]
    d_z = dh * (h_prev - candidate) * z * (1 - z)
    d_a = dh * (1 - z) * (1 - candidate * candidate)
    d_r = d_a * inner_h * r * (1 - r)
    return (np.concatenate([d_z, d_r, d_a], axis=1),
            np.concatenate([d_z, d_r, d_a * r], axis=1), dh * z)


def gru_gate_input(inner, bias, projected, step, t):
    """``inner += bias``, then ``t = (projected[:, step] + inner) / 2`` over the update and
    reset gates (before their tanh)."""
    inner += bias
    np.add(projected[:, step, :t.shape[1]], inner[:, :t.shape[1]], out=t)
    t *= 0.5


def gru_grad_into(t, candidate, inner, h_prev, dh, dx, dinner, step, dh_prev):
    """`gru_grad` written into step ``step`` of ``dx`` and ``dinner`` (``(batch, time,
    3u)``) and into ``dh_prev``."""
    dx[:, step], dinner[:, step], dh_prev[...] = gru_grad(t, candidate, inner, h_prev, dh)


_NUMPY = sys.modules[__name__]


def lstm_block_cell(x, hz, c_prev, gates=_NUMPY):
    """``(h, c)`` of one LSTM step: the forward of ``LSTMBlockCell``."""
    t = gate_tanh(x, hz, c_prev.shape[1], 4, 2)
    c = gates.lstm_state(t, c_prev)
    return gates.lstm_output(t, np.tanh(c)), c


def lstm_block_cell_grad(x, hz, c_prev, c, dh, dc, gates=_NUMPY):
    """``(dz, dc_prev)`` of one LSTM step: the forward of ``LSTMBlockCellGrad``."""
    t = gate_tanh(x, hz, c_prev.shape[1], 4, 2)
    return gates.lstm_grad(t, np.tanh(c), c_prev, dh, dc)


def _gru_candidate(x, inner, units, gates):
    t = gate_tanh(x[:, :2 * units], inner[:, :2 * units], units, 2, None)
    candidate = gates.gru_candidate_input(t, x, inner)
    return t, np.tanh(candidate, out=candidate)


def gru_block_cell(x, inner, h_prev, gates=_NUMPY):
    """``h`` of one GRU step: the forward of ``GRUBlockCell``."""
    t, candidate = _gru_candidate(x, inner, h_prev.shape[1], gates)
    return gates.gru_state(t, candidate, h_prev)


def gru_block_cell_grad(x, inner, h_prev, dh, gates=_NUMPY):
    """``(dx, dinner, dh_prev)`` of one GRU step: the forward of ``GRUBlockCellGrad``."""
    t, candidate = _gru_candidate(x, inner, h_prev.shape[1], gates)
    return gates.gru_grad(t, candidate, inner, h_prev, dh)


# -- whole sequences: the forwards of LSTMSequence, GRUSequence and their gradients -------
#
# One call runs every step: per step one small matmul into a preallocated buffer (BLAS,
# called from Python), NumPy's tanh over the step's gates at once, and the gate
# arithmetic of `gates` between. What the backward pass needs is kept as cuDNN's reserve
# space, time-major (``(time, batch, ...)``: a step is one contiguous block). The backward
# loop returns the gradient of every step's gate pre-activations; the recurrent kernel's
# gradient is one GEMM over all steps after it (`ops/recurrent.py`). ``mask`` is the
# recurrent dropout mask (or None): the state enters the recurrent matmul as ``h * mask``.
# The sequence-sized arrays come from `scratch` (recycled memory): fresh, each costs a page
# fault per 4 KiB page, which made an LSTM's forward and backward ~1.5x slower (14 ms
# where malloc kept its pages, 9 ms).

SMALL_PRODUCT = 1 << 19
"""Multiply-adds (rows x inner x columns) of one recurrent product in the sequence loops
(`matmul_in_blocks`, and `rnn_sequence_jit`'s compiled loops)."""


# OpenBLAS takes a product of at most 1e6 multiply-adds through its small-matrix kernels
# (no packing, one thread): on the 2-core AVX-512 machine (one thread, medians) 113 GFLOP/s
# for 32 x 64 x 256 (9.3 us) and 48 x 64 x 256, against 48 GFLOP/s for 64 x 64 x 256 (44
# us: its packed path; with two threads under load, 290 us against 68 for two blocks). So
# a 64-row step's product costs 18.4 us as two blocks of 32 rows and 25-44 us as one;
# blocks of 8 rows still run at the small kernels' speed, and 1 << 19 multiply-adds keep
# a margin below the limit (other BLAS libraries lose ~nothing).
def matmul_in_blocks(a, b, out):
    """``np.matmul(a, b, out=out)`` by blocks of rows of at most `SMALL_PRODUCT`
    multiply-adds; returns `out`."""
    block = max(1, SMALL_PRODUCT // (b.shape[0] * b.shape[1]))
    for start in range(0, a.shape[0], block):
        np.matmul(a[start:start + block], b, out=out[start:start + block])
    return out


def lstm_sequence(projected, h0, c0, kernel, mask=None, gates=_NUMPY):
    """``(h_seq, h, c, c_seq, t_seq)`` of an LSTM over ``projected (batch, time, 4u)``.

    ``h_seq`` is ``(batch, time, units)``; ``c_seq`` (time-major) and ``t_seq`` (the gates'
    tanh, time-major) are kept for `lstm_sequence_grad`.
    """
    batch, steps, width = projected.shape
    units = width // 4
    # tanh(z / 2) for the sigmoid gates: halving is exact in binary floating point, so
    # halving the kernel once and each step's input equals halving every step's z.
    scale = np.full(width, 0.5, projected.dtype)
    scale[2 * units:3 * units] = 1.0
    kernel = kernel * scale
    h_seq = scratch.empty((batch, steps, units), projected.dtype)
    c_seq = scratch.empty((steps, batch, units), projected.dtype)
    t_seq = scratch.empty((steps, batch, width), projected.dtype)
    hidden = np.empty_like(h0) if mask is not None else None
    h, c = h0, c0
    for step in range(steps):
        z = t_seq[step]
        matmul_in_blocks(h if mask is None else np.multiply(h, mask, out=hidden), kernel, z)
        gates.lstm_gate_input(z, projected, step, scale)
        np.tanh(z, out=z)
        c = c_seq[step] = gates.lstm_state(z, c)
        h = h_seq[:, step] = gates.lstm_output(z, np.tanh(c))
    return h_seq, h.copy(), c.copy(), c_seq, t_seq


def lstm_sequence_grad(c0, kernel, h_seq, c_seq, t_seq, dh_seq, dh, dc, mask=None,
                       gates=_NUMPY):
    """``(d_projected, dh0, dc0)`` of `lstm_sequence`, from the gradients of its outputs
    ``h_seq``, ``h`` and ``c`` (``d_projected`` is also the recurrent projections')."""
    batch, steps, units = h_seq.shape
    tanh_c = np.tanh(c_seq, out=scratch.empty(c_seq.shape, c_seq.dtype))
    kernel_t = np.ascontiguousarray(kernel.T)
    # Batch-major results: BLAS takes a step's strided rows; the kernels write by step.
    dz_seq = scratch.empty((batch, steps, 4 * units), h_seq.dtype)
    d_hidden = np.empty_like(c0)
    carries = (np.empty_like(c0), np.empty_like(c0))  # dc alternates between the two
    for step in range(steps - 1, -1, -1):
        dc_prev = carries[step % 2]
        gates.lstm_grad_into(t_seq[step], tanh_c[step], c_seq[step - 1] if step else c0,
                             dh + dh_seq[:, step], dc, dz_seq, step, dc_prev)
        dc = dc_prev
        dh = matmul_in_blocks(dz_seq[:, step], kernel_t, d_hidden)
        if mask is not None:
            dh *= mask
    return dz_seq, dh, dc


def gru_sequence(projected, h0, kernel, bias, mask=None, gates=_NUMPY):
    """``(h_seq, h, inner_seq, t_seq, candidate_seq)`` of a GRU (``reset_after=True``)
    over ``projected (batch, time, 3u)``; ``bias`` is the recurrent bias ``(3u,)``.

    The last three (time-major) are kept for `gru_sequence_grad`.
    """
    batch, steps, width = projected.shape
    units = width // 3
    h_seq = scratch.empty((batch, steps, units), projected.dtype)
    inner_seq = scratch.empty((steps, batch, width), projected.dtype)
    t_seq = scratch.empty((steps, batch, 2 * units), projected.dtype)
    candidate_seq = scratch.empty((steps, batch, units), projected.dtype)
    hidden = np.empty_like(h0) if mask is not None else None
    h = h0
    for step in range(steps):
        x, inner, t = projected[:, step], inner_seq[step], t_seq[step]
        matmul_in_blocks(h if mask is None else np.multiply(h, mask, out=hidden), kernel,
                         inner)
        gates.gru_gate_input(inner, bias, projected, step, t)
        np.tanh(t, out=t)
        candidate = np.tanh(gates.gru_candidate_input(t, x, inner), out=candidate_seq[step])
        h = h_seq[:, step] = gates.gru_state(t, candidate, h)
    return h_seq, h.copy(), inner_seq, t_seq, candidate_seq


def gru_sequence_grad(h0, kernel, h_seq, inner_seq, t_seq, candidate_seq, dh_seq, dh,
                      mask=None, gates=_NUMPY):
    """``(d_projected, d_inner, dh0)`` of `gru_sequence`, from the gradients of its outputs
    ``h_seq`` and ``h``; ``d_inner`` is the gradient of the recurrent projections (with
    the recurrent bias), ``(batch, time, 3u)``."""
    batch, steps, units = h_seq.shape
    kernel_t = np.ascontiguousarray(kernel.T)
    dx_seq = scratch.empty((batch, steps, 3 * units), h_seq.dtype)
    d_inner_seq = scratch.empty((batch, steps, 3 * units), h_seq.dtype)
    d_hidden, dh_direct = np.empty_like(h0), np.empty_like(h0)
    for step in range(steps - 1, -1, -1):
        gates.gru_grad_into(t_seq[step], candidate_seq[step], inner_seq[step],
                            h_seq[:, step - 1] if step else h0, dh + dh_seq[:, step],
                            dx_seq, d_inner_seq, step, dh_direct)
        matmul_in_blocks(d_inner_seq[:, step], kernel_t, d_hidden)
        if mask is not None:
            d_hidden *= mask
        dh = np.add(d_hidden, dh_direct, out=d_hidden)
    return dx_seq, d_inner_seq, dh
