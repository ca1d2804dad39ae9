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
