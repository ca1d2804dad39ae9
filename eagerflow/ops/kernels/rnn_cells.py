"""Compiled kernels of the fused recurrent-cell ops (`eagerflow/ops/recurrent.py`), on numba.

One pass per step over the gates, forward and backward, instead of the ~15 NumPy passes
(sigmoid, tanh, products, split, concat) a composite cell costs. Each kernel is the
compiled form of the NumPy kernel of the same name in `recurrent.py` and is tested
against it. Rows of the batch run in parallel (``prange``); the arithmetic is done in
float64 and rounded once on store, so float32 results are within an ulp of the NumPy
kernels'.

The sigmoid is ``0.5 * tanh(0.5 * x) + 0.5``: the same function as ``1 / (1 + e^-x)``,
without an overflow branch.
"""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True, inline="always")
def _sigmoid(x):
    return 0.5 * np.tanh(0.5 * x) + 0.5


@numba.njit(parallel=True, cache=True)
def _lstm_forward(x, hz, c_prev, h_out, c_out):  # pragma: no cover - compiled
    batch, units = c_prev.shape
    for b in numba.prange(batch):
        for j in range(units):
            i = _sigmoid(np.float64(x[b, j]) + hz[b, j])
            f = _sigmoid(np.float64(x[b, units + j]) + hz[b, units + j])
            g = np.tanh(np.float64(x[b, 2 * units + j]) + hz[b, 2 * units + j])
            o = _sigmoid(np.float64(x[b, 3 * units + j]) + hz[b, 3 * units + j])
            c = f * c_prev[b, j] + i * g
            c_out[b, j] = c
            h_out[b, j] = o * np.tanh(c_out[b, j])


@numba.njit(parallel=True, cache=True)
def _lstm_backward(x, hz, c_prev, c, dh, dc, dz, dc_prev):  # pragma: no cover - compiled
    batch, units = c_prev.shape
    for b in numba.prange(batch):
        for j in range(units):
            i = _sigmoid(np.float64(x[b, j]) + hz[b, j])
            f = _sigmoid(np.float64(x[b, units + j]) + hz[b, units + j])
            g = np.tanh(np.float64(x[b, 2 * units + j]) + hz[b, 2 * units + j])
            o = _sigmoid(np.float64(x[b, 3 * units + j]) + hz[b, 3 * units + j])
            tc = np.tanh(np.float64(c[b, j]))
            d_h = np.float64(dh[b, j])
            d_c = dc[b, j] + d_h * o * (1.0 - tc * tc)
            dz[b, j] = d_c * g * i * (1.0 - i)
            dz[b, units + j] = d_c * c_prev[b, j] * f * (1.0 - f)
            dz[b, 2 * units + j] = d_c * i * (1.0 - g * g)
            dz[b, 3 * units + j] = d_h * tc * o * (1.0 - o)
            dc_prev[b, j] = d_c * f


def lstm_forward(x, hz, c_prev):
    """``(h, c)`` of one LSTM step from the input and recurrent projections (4 gates)."""
    h = np.empty_like(c_prev)
    c = np.empty_like(c_prev)
    _lstm_forward(x, hz, c_prev, h, c)
    return h, c


def lstm_backward(x, hz, c_prev, c, dh, dc):
    """``(dz, dc_prev)`` of one LSTM step; ``dz`` is the gradient of both projections."""
    dz = np.empty_like(x)
    dc_prev = np.empty_like(c_prev)
    _lstm_backward(x, hz, c_prev, c, dh, dc, dz, dc_prev)
    return dz, dc_prev


@numba.njit(parallel=True, cache=True)
def _gru_forward(x, inner, h_prev, h_out):  # pragma: no cover - compiled
    batch, units = h_prev.shape
    for b in numba.prange(batch):
        for j in range(units):
            z = _sigmoid(np.float64(x[b, j]) + inner[b, j])
            r = _sigmoid(np.float64(x[b, units + j]) + inner[b, units + j])
            hh = np.tanh(x[b, 2 * units + j] + r * inner[b, 2 * units + j])
            h_out[b, j] = z * h_prev[b, j] + (1.0 - z) * hh


@numba.njit(parallel=True, cache=True)
def _gru_backward(x, inner, h_prev, dh, dx, dinner, dh_prev):  # pragma: no cover - compiled
    batch, units = h_prev.shape
    for b in numba.prange(batch):
        for j in range(units):
            z = _sigmoid(np.float64(x[b, j]) + inner[b, j])
            r = _sigmoid(np.float64(x[b, units + j]) + inner[b, units + j])
            inner_h = np.float64(inner[b, 2 * units + j])
            hh = np.tanh(x[b, 2 * units + j] + r * inner_h)
            d_h = np.float64(dh[b, j])
            d_z = d_h * (h_prev[b, j] - hh) * z * (1.0 - z)
            d_a = d_h * (1.0 - z) * (1.0 - hh * hh)
            d_r = d_a * inner_h * r * (1.0 - r)
            dx[b, j] = d_z
            dx[b, units + j] = d_r
            dx[b, 2 * units + j] = d_a
            dinner[b, j] = d_z
            dinner[b, units + j] = d_r
            dinner[b, 2 * units + j] = d_a * r
            dh_prev[b, j] = d_h * z


def gru_forward(x, inner, h_prev):
    """``h`` of one GRU step (``reset_after=True``) from the input and recurrent projections."""
    h = np.empty_like(h_prev)
    _gru_forward(x, inner, h_prev, h)
    return h


def gru_backward(x, inner, h_prev, dh):
    """``(dx, dinner, dh_prev)`` of one GRU step (``reset_after=True``)."""
    dx = np.empty_like(x)
    dinner = np.empty_like(inner)
    dh_prev = np.empty_like(h_prev)
    _gru_backward(x, inner, h_prev, dh, dx, dinner, dh_prev)
    return dx, dinner, dh_prev


@numba.njit(parallel=True, cache=True)
def _add_tanh(x, hz, out):  # pragma: no cover - compiled
    batch, units = out.shape
    for b in numba.prange(batch):
        for j in range(units):
            out[b, j] = np.tanh(x[b, j] + hz[b, j])


def simple_rnn_forward(x, hz):
    """``tanh(x + hz)``: one SimpleRNN step from the input and recurrent projections."""
    out = np.empty_like(x)
    _add_tanh(x, hz, out)
    return out
