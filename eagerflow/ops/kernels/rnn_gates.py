"""NumPy kernels of the gate arithmetic of the fused recurrent-cell ops (`ops/recurrent.py`).

The ops take every tanh in NumPy (its SIMD tanh costs ~0.5 ns an element) and hand the
arithmetic between them to these functions: ``t`` is the tanh of the gate
pre-activations, halved for the sigmoid gates, so ``sigmoid(z) = 0.5 * t + 0.5``
(`gate_tanh`). `rnn_cells.py` holds the same functions compiled with numba, one pass
each; these are the path without the ``fast`` extra, and the reference the compiled ones
are tested against.

Shapes: ``t`` is ``(batch, gates * units)`` in Keras's gate order (LSTM: input, forget,
cell, output; GRU: update, reset, then the candidate's slot), the states ``(batch, units)``.
"""

from __future__ import annotations

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
