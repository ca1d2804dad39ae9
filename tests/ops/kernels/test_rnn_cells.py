"""The compiled recurrent-cell kernels (numba) against the NumPy kernels they replace."""

import numpy as np
import pytest

pytest.importorskip("numba")

from eagerflow.ops import recurrent  # noqa: E402
from eagerflow.ops.kernels import rnn_cells  # noqa: E402


def _tol(dtype):
    return {"rtol": 2e-6, "atol": 2e-6} if dtype == np.float32 else {"rtol": 1e-13,
                                                                        "atol": 1e-13}


def _inputs(dtype, widths, batch=5, seed=0, scale=2.0):
    rng = np.random.default_rng(seed)
    return [(scale * rng.normal(size=(batch, w))).astype(dtype) for w in widths]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_lstm_kernels_match_numpy(dtype):
    x, hz, c_prev, dh, dc = _inputs(dtype, (12, 12, 3, 3, 3))
    want = recurrent.lstm_forward(x, hz, c_prev)
    got = rnn_cells.lstm_forward(x, hz, c_prev)
    for g, w in zip(got, want, strict=True):
        assert g.dtype == dtype
        np.testing.assert_allclose(g, w, **_tol(dtype))
    c = want[1]
    for g, w in zip(rnn_cells.lstm_backward(x, hz, c_prev, c, dh, dc),
                    recurrent.lstm_backward(x, hz, c_prev, c, dh, dc), strict=True):
        assert g.dtype == dtype
        np.testing.assert_allclose(g, w, **_tol(dtype))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_gru_kernels_match_numpy(dtype):
    x, inner, h_prev, dh = _inputs(dtype, (9, 9, 3, 3))
    np.testing.assert_allclose(rnn_cells.gru_forward(x, inner, h_prev),
                               recurrent.gru_forward(x, inner, h_prev), **_tol(dtype))
    for g, w in zip(rnn_cells.gru_backward(x, inner, h_prev, dh),
                    recurrent.gru_backward(x, inner, h_prev, dh), strict=True):
        assert g.dtype == dtype
        np.testing.assert_allclose(g, w, **_tol(dtype))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_simple_rnn_kernel_matches_numpy(dtype):
    x, hz = _inputs(dtype, (4, 4))
    np.testing.assert_allclose(rnn_cells.simple_rnn_forward(x, hz), np.tanh(x + hz),
                               **_tol(dtype))


def test_kernels_take_strided_views():
    """The layers pass one time step of the projected sequence: a non-contiguous view."""
    sequence = np.random.default_rng(1).normal(size=(4, 6, 8))
    x = sequence[:, 2]
    hz, c_prev = np.ones((4, 8)), np.zeros((4, 2))
    for g, w in zip(rnn_cells.lstm_forward(x, hz, c_prev),
                    recurrent.lstm_forward(x, hz, c_prev), strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-13, atol=1e-13)


def test_saturated_gates_stay_finite():
    x, hz, c_prev = _inputs(np.float32, (8, 8, 2), scale=1e4)
    h, c = rnn_cells.lstm_forward(x, hz, c_prev)
    assert np.all(np.isfinite(h)) and np.all(np.isfinite(c))
    np.testing.assert_allclose(h, recurrent.lstm_forward(x, hz, c_prev)[0], atol=1e-6)
