"""The fused recurrent-cell ops (LSTMBlockCell, GRUBlockCell, SimpleRNNCellTanh) and the
whole-sequence ops (LSTMSequence, GRUSequence) against the per-gate formulas, and their
first and second gradients against finite differences."""

import numpy as np
import pytest

import eagerflow as ef
from eagerflow.ops import recurrent
from eagerflow.ops.kernels import rnn_gates
from tests.ops.opcase import OpCase, check_forward, check_forward_mode, check_gradient, parametrize


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def np_lstm(x, hz, c_prev):
    i, f, g, o = np.split(x + hz, 4, axis=-1)
    c = _sigmoid(f) * c_prev + _sigmoid(i) * np.tanh(g)
    return _sigmoid(o) * np.tanh(c), c


def np_gru(x, inner, h_prev):
    x_z, x_r, x_h = np.split(x, 3, axis=-1)
    i_z, i_r, i_h = np.split(inner, 3, axis=-1)
    z, r = _sigmoid(x_z + i_z), _sigmoid(x_r + i_r)
    return z * h_prev + (1 - z) * np.tanh(x_h + r * i_h)


def np_lstm_sequence(projected, h0, c0, kernel, mask=None):
    h, c, hs = h0, c0, []
    for step in range(projected.shape[1]):
        h, c = np_lstm(projected[:, step], (h if mask is None else h * mask) @ kernel, c)
        hs.append(h)
    return np.stack(hs, axis=1), h, c


def np_gru_sequence(projected, h0, kernel, bias, mask=None):
    h, hs = h0, []
    for step in range(projected.shape[1]):
        h = np_gru(projected[:, step], (h if mask is None else h * mask) @ kernel + bias, h)
        hs.append(h)
    return np.stack(hs, axis=1), h


# (batch 2, 3 steps, 2 units); the masked rows take a recurrent dropout mask.
_LSTM_SEQ = [(2, 3, 8), (2, 2), (2, 2), (2, 8)]
_GRU_SEQ = [(2, 3, 6), (2, 2), (2, 6), (6,)]

CASES = [
    OpCase("lstm_sequence", recurrent.lstm_sequence, np_lstm_sequence, shapes=_LSTM_SEQ),
    OpCase("lstm_sequence_masked", recurrent.lstm_sequence, np_lstm_sequence,
           shapes=[*_LSTM_SEQ, (2, 2)]),
    OpCase("gru_sequence", recurrent.gru_sequence, np_gru_sequence, shapes=_GRU_SEQ),
    OpCase("gru_sequence_masked", recurrent.gru_sequence, np_gru_sequence,
           shapes=[*_GRU_SEQ, (2, 2)]),
    OpCase("lstm_block_cell", recurrent.lstm_block_cell, np_lstm,
           shapes=[(3, 8), (3, 8), (3, 2)]),
    OpCase("gru_block_cell", recurrent.gru_block_cell, np_gru, shapes=[(3, 6), (3, 6), (3, 2)]),
    OpCase("simple_rnn_cell", recurrent.simple_rnn_cell, lambda x, hz: np.tanh(x + hz),
           shapes=[(3, 4), (3, 4)]),
    # Large pre-activations: the saturated gates stay finite.
    OpCase("lstm_block_cell_saturated", recurrent.lstm_block_cell, np_lstm,
           shapes=[(2, 4), (2, 4), (2, 1)], domain=(-40.0, 40.0), order=0),
]


@parametrize(CASES)
def test_forward(case):
    check_forward(case)


@parametrize(CASES)
def test_gradient(case):
    check_gradient(case)


@parametrize(CASES)
def test_jvp(case):
    check_forward_mode(case)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_numpy_kernels_match_the_per_gate_formulas(dtype):
    rng = np.random.default_rng(1)
    x, hz = rng.normal(size=(2, 5, 12)).astype(dtype)
    c_prev = rng.normal(size=(5, 3)).astype(dtype)
    tol = 1e-6 if dtype == np.float32 else 1e-13
    for got, want in zip(rnn_gates.lstm_block_cell(x, hz, c_prev),
                         np_lstm(x, hz, c_prev),
                         strict=True):
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
        assert got.dtype == dtype
    got = rnn_gates.gru_block_cell(x[:, :9], hz[:, :9], c_prev)
    np.testing.assert_allclose(got, np_gru(x[:, :9], hz[:, :9], c_prev), rtol=tol, atol=tol)


def _vjp(f, args, dy):
    tensors = [ef.constant(a) for a in args]
    with ef.GradientTape() as tape:
        tape.watch(tensors)
        out = f(*tensors)
    return [g.numpy() for g in tape.gradient(out, tensors, output_gradients=dy)]


def test_numpy_backward_kernels_are_the_tape_gradient_of_the_formulas():
    rng = np.random.default_rng(2)
    x, hz = rng.normal(size=(2, 4, 8))
    c_prev, dh, dc = rng.normal(size=(3, 4, 2))
    h, c = rnn_gates.lstm_block_cell(x, hz, c_prev)
    dz, dc_prev = rnn_gates.lstm_block_cell_grad(x, hz, c_prev, c, dh, dc)
    want = _vjp(lambda *a: list(np_lstm_tensor(*a)), (x, hz, c_prev),
                [ef.constant(dh), ef.constant(dc)])
    for got, expected in zip((dz, dz, dc_prev), want, strict=True):
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)
    x, inner = x[:, :6], hz[:, :6]
    grads = rnn_gates.gru_block_cell_grad(x, inner, c_prev, dh)
    want = _vjp(lambda *a: np_gru_tensor(*a), (x, inner, c_prev), ef.constant(dh))
    for got, expected in zip(grads, want, strict=True):
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)


def np_lstm_tensor(x, hz, c_prev):
    i, f, g, o = ef.split(x + hz, 4, axis=-1)
    c = ef.sigmoid(f) * c_prev + ef.sigmoid(i) * ef.tanh(g)
    return ef.sigmoid(o) * ef.tanh(c), c


def np_gru_tensor(x, inner, h_prev):
    x_z, x_r, x_h = ef.split(x, 3, axis=-1)
    i_z, i_r, i_h = ef.split(inner, 3, axis=-1)
    z, r = ef.sigmoid(x_z + i_z), ef.sigmoid(x_r + i_r)
    return z * h_prev + (1 - z) * ef.tanh(x_h + r * i_h)


def test_bad_shapes_and_dtypes_name_the_op():
    with pytest.raises(ef.errors.InvalidArgumentError, match=r"LSTMBlockCell expects 2-D"):
        recurrent.lstm_block_cell(ef.zeros([2, 8]), ef.zeros([2, 7]), ef.zeros([2, 2]))
    with pytest.raises(ef.errors.InvalidArgumentError, match=r"GRUBlockCell .*c_prev|h_prev"):
        recurrent.gru_block_cell(ef.zeros([2, 6]), ef.zeros([2, 6]), ef.zeros([3, 2]))
    with pytest.raises(ef.errors.InvalidArgumentError, match=r"one floating dtype"):
        recurrent.simple_rnn_cell(ef.zeros([2, 3]), ef.zeros([2, 3], dtype=ef.float64))


def test_sequence_ops_reject_bad_shapes_and_dtypes():
    seq, state = ef.zeros([2, 3, 8]), ef.zeros([2, 2])
    with pytest.raises(ef.errors.InvalidArgumentError,
                       match=r"LSTMSequence expects .*recurrent_kernel does not fit.*\(2, 6\)"):
        recurrent.lstm_sequence(seq, state, state, ef.zeros([2, 6]))
    with pytest.raises(ef.errors.InvalidArgumentError, match=r"c0 does not fit"):
        recurrent.lstm_sequence(seq, state, ef.zeros([3, 2]), ef.zeros([2, 8]))
    with pytest.raises(ef.errors.InvalidArgumentError, match=r"recurrent_mask does not fit"):
        recurrent.lstm_sequence(seq, state, state, ef.zeros([2, 8]), ef.ones([2, 3]))
    with pytest.raises(ef.errors.InvalidArgumentError, match=r"time >= 1.*projected does not"):
        recurrent.gru_sequence(ef.zeros([2, 0, 6]), state, ef.zeros([2, 6]), ef.zeros([6]))
    with pytest.raises(ef.errors.InvalidArgumentError, match=r"recurrent_bias does not fit"):
        recurrent.gru_sequence(ef.zeros([2, 3, 6]), state, ef.zeros([2, 6]), ef.zeros([5]))
    with pytest.raises(ef.errors.InvalidArgumentError,
                       match=r"GRUSequence expects inputs of one floating dtype.*h0: float64"):
        recurrent.gru_sequence(ef.zeros([2, 3, 6]), ef.zeros([2, 2], dtype=ef.float64),
                               ef.zeros([2, 6]), ef.zeros([6]))


@pytest.mark.parametrize("layer", ["LSTM", "GRU", "SimpleRNN"])
def test_layers_take_the_composite_path_for_other_activations(layer):
    """A relu cell is not fused: its output is the per-gate composite's, not tanh's."""
    x = np.random.default_rng(3).normal(size=(2, 3, 4)).astype(np.float32)
    ef.random.set_seed(0)
    fused = getattr(ef.layers, layer)(3, return_sequences=True)
    out = fused(x)
    ef.random.set_seed(0)
    other = getattr(ef.layers, layer)(3, activation="relu", return_sequences=True)
    other(x)
    other.set_weights(fused.get_weights())
    assert np.all(other(x).numpy() >= 0) and np.any(out.numpy() < 0)


@pytest.mark.parametrize("rows, inner, columns", [(70, 64, 256), (3, 1024, 768), (5, 4, 8)])
def test_sequence_products_in_blocks_of_rows_equal_one_product(rows, inner, columns):
    """The NumPy loops' recurrent products: blocks of 32 rows and a remainder of 6; one
    row a block (a kernel above the block size); one block; a strided operand."""
    rng = np.random.default_rng(7)
    a = rng.normal(size=(rows, 2, inner)).astype(np.float32)[:, 1]
    b = rng.normal(size=(inner, columns)).astype(np.float32)
    out = np.full((rows, columns), np.nan, np.float32)
    assert rnn_gates.matmul_in_blocks(a, b, out) is out
    np.testing.assert_allclose(out, a @ b, rtol=1e-5, atol=1e-4)
