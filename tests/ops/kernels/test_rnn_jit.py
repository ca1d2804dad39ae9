"""The compiled recurrent-cell kernels (numba, rnn_jit.py) against the NumPy ones
(rnn_gates.py)."""

import numpy as np
import pytest

pytest.importorskip("numba")

import eagerflow as ef  # noqa: E402
from eagerflow.ops import recurrent  # noqa: E402, F401  (registers the kernels)
from eagerflow.ops.kernels import kernel_sets, rnn_gates, rnn_jit  # noqa: E402


def _tol(dtype):
    return {"rtol": 1e-6, "atol": 1e-6} if dtype == np.float32 else {"rtol": 1e-13,
                                                                        "atol": 1e-13}


def _inputs(dtype, widths, batch=5, seed=0, scale=2.0):
    rng = np.random.default_rng(seed)
    return [(scale * rng.normal(size=(batch, w))).astype(dtype) for w in widths]


def _same(got, want, dtype):
    got = got if isinstance(got, tuple) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    for g, w in zip(got, want, strict=True):
        assert g.dtype == dtype and g.shape == w.shape
        np.testing.assert_allclose(g, w, **_tol(dtype))


# 67 units: the gradient kernels' vectorized loops and their remainders.
@pytest.mark.parametrize("units", [3, 67])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_lstm_gate_arithmetic_matches_numpy(dtype, units):
    t = np.tanh(_inputs(dtype, (4 * units,))[0])
    c_prev, tanh_c, dh, dc = _inputs(dtype, (units,) * 4, seed=1)
    tanh_c = np.tanh(tanh_c)
    for name, args in (("lstm_state", (t, c_prev)), ("lstm_output", (t, tanh_c)),
                       ("lstm_grad", (t, tanh_c, c_prev, dh, dc))):
        _same(getattr(rnn_jit, name)(*args), getattr(rnn_gates, name)(*args), dtype)


@pytest.mark.parametrize("units", [3, 67])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_gru_gate_arithmetic_matches_numpy(dtype, units):
    t = np.tanh(_inputs(dtype, (2 * units,))[0])
    x, inner, candidate, h_prev, dh = _inputs(dtype, (3 * units, 3 * units) + (units,) * 3,
                                              seed=2)
    candidate = np.tanh(candidate)
    for name, args in (("gru_candidate_input", (t, x, inner)),
                       ("gru_state", (t, candidate, h_prev)),
                       ("gru_grad", (t, candidate, inner, h_prev, dh))):
        _same(getattr(rnn_jit, name)(*args), getattr(rnn_gates, name)(*args), dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_whole_step_kernels_match_on_strided_views(dtype):
    """The layers pass one time step of the projected sequence: a non-contiguous view."""
    sequence = np.random.default_rng(3).normal(size=(4, 6, 8)).astype(dtype)
    x, hz = sequence[:, 2], sequence[:, 4]
    c_prev, dh, dc = _inputs(dtype, (2, 2, 2), batch=4)
    h, c = rnn_gates.lstm_block_cell(x, hz, c_prev)
    _same(rnn_jit.lstm_block_cell(x, hz, c_prev), (h, c), dtype)
    _same(rnn_jit.lstm_block_cell_grad(x, hz, c_prev, c, dh, dc),
          rnn_gates.lstm_block_cell_grad(x, hz, c_prev, c, dh, dc), dtype)
    x, inner = sequence[:, 1, :6], sequence[:, 5, :6]
    _same(rnn_jit.gru_block_cell(x, inner, c_prev),
          rnn_gates.gru_block_cell(x, inner, c_prev), dtype)
    _same(rnn_jit.gru_block_cell_grad(x, inner, c_prev, dh),
          rnn_gates.gru_block_cell_grad(x, inner, c_prev, dh), dtype)


def test_saturated_gates_stay_finite():
    x, hz, c_prev = _inputs(np.float32, (8, 8, 2), scale=1e4)
    h, c = rnn_jit.lstm_block_cell(x, hz, c_prev)
    assert np.all(np.isfinite(h)) and np.all(np.isfinite(c))
    assert np.all(np.abs(h) <= 1)


@pytest.fixture
def restore_kernel_set():
    before = kernel_sets.active()
    yield
    kernel_sets.set_active(before)


def test_kernels_are_registered_for_the_ops():
    assert {"LSTMBlockCell", "LSTMBlockCellGrad", "GRUBlockCell", "GRUBlockCellGrad",
            "LSTMSequence", "LSTMSequenceGrad", "GRUSequence",
            "GRUSequenceGrad"} <= set(kernel_sets.registered())


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_in_place_step_kernels_match_numpy(dtype):
    """The kernels a sequence loop calls per step, writing into its buffers."""
    rng = np.random.default_rng(6)
    batch, steps, units = 3, 4, 2
    projected = rng.normal(size=(batch, steps, 4 * units)).astype(dtype)
    scale, bias = rng.normal(size=(2, 4 * units)).astype(dtype)
    t, c_prev, dh, dc = np.tanh(rng.normal(size=(4, batch, 4 * units))).astype(dtype)
    c_prev, dh, dc, tanh_c = c_prev[:, :units], dh[:, :units], dc[:, :units], t[:, :units]
    results = []
    for gates in (rnn_gates, rnn_jit):
        z = t.copy()
        gates.lstm_gate_input(z, projected, 2, scale)
        dz, dc_prev = np.zeros_like(projected), np.empty_like(dc)
        gates.lstm_grad_into(t, tanh_c, c_prev, dh, dc, dz, 1, dc_prev)
        inner, gate_t = z[:, :3 * units].copy(), np.empty((batch, 2 * units), dtype)
        gates.gru_gate_input(inner, bias[:3 * units], projected, 3, gate_t)
        dx, dinner = np.zeros_like(projected[..., :3 * units]), np.zeros_like(dz[..., :6])
        dh_prev = np.empty_like(dh)
        gates.gru_grad_into(gate_t, tanh_c, inner, c_prev, dh, dx, dinner, 0, dh_prev)
        results.append((z, dz, dc_prev, inner, gate_t, dx, dinner, dh_prev))
    _same(results[1], results[0], dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("masked", [False, True])
def test_sequence_kernels_match_numpy(dtype, masked):
    """The whole-sequence forwards and backward loops, numba against NumPy."""
    rng = np.random.default_rng(5)
    batch, steps, units = 4, 6, 3
    h0, c0, dh, dc = (rng.normal(size=(batch, units)).astype(dtype) for _ in range(4))
    mask = [(rng.uniform(size=(batch, units)) > 0.3).astype(dtype) * 1.5] if masked else []
    dh_seq = rng.normal(size=(batch, steps, units)).astype(dtype)
    projected = (2 * rng.normal(size=(batch, steps, 4 * units))).astype(dtype)
    kernel = rng.normal(size=(units, 4 * units)).astype(dtype)
    want = rnn_gates.lstm_sequence(projected, h0, c0, kernel, *mask)
    _same(rnn_jit.lstm_sequence(projected, h0, c0, kernel, *mask), want, dtype)
    h_seq, _, _, c_seq, t_seq = want
    _same(rnn_jit.lstm_sequence_grad(projected, h0, c0, kernel, h_seq, c_seq, t_seq, dh_seq,
                                     dh, dc, *mask),
          rnn_gates.lstm_sequence_grad(c0, kernel, h_seq, c_seq, t_seq, dh_seq, dh, dc, *mask),
          dtype)
    projected, kernel = projected[..., :3 * units], kernel[:, :3 * units]
    bias = rng.normal(size=3 * units).astype(dtype)
    want = rnn_gates.gru_sequence(projected, h0, kernel, bias, *mask)
    _same(rnn_jit.gru_sequence(projected, h0, kernel, bias, *mask), want, dtype)
    h_seq, _, inner_seq, t_seq, candidate_seq = want
    _same(rnn_jit.gru_sequence_grad(projected, h0, kernel, bias, h_seq, inner_seq, t_seq,
                                    candidate_seq, dh_seq, dh, *mask),
          rnn_gates.gru_sequence_grad(h0, kernel, h_seq, inner_seq, t_seq, candidate_seq,
                                      dh_seq, dh, *mask), dtype)


@pytest.mark.parametrize("layer", ["LSTM", "GRU"])
def test_layers_train_alike_on_both_kernel_sets(layer, restore_kernel_set):
    x = np.random.default_rng(4).normal(size=(3, 5, 4)).astype(np.float32)
    results = []
    for kernel_set in ("numpy", "numba"):
        kernel_sets.set_active(kernel_set)
        ef.random.set_seed(1)
        rnn = getattr(ef.layers, layer)(6, return_sequences=True)
        with ef.GradientTape() as tape:
            loss = ef.reduce_sum(ef.square(rnn(x)))
        grads = tape.gradient(loss, rnn.trainable_variables)
        results.append([loss.numpy(), *[g.numpy() for g in grads]])
    for numpy_value, numba_value in zip(*results, strict=True):
        np.testing.assert_allclose(numba_value, numpy_value, rtol=1e-5, atol=1e-6)
