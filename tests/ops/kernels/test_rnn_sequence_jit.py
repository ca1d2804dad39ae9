"""The compiled whole-sequence loops (rnn_sequence_jit.py) against the NumPy kernels' loops
(rnn_gates.py), and their float32 tanh against float64's."""

import numpy as np
import pytest

numba = pytest.importorskip("numba")
pytest.importorskip("scipy")

import eagerflow as ef  # noqa: E402
from eagerflow.ops import recurrent  # noqa: E402
from eagerflow.ops.kernels import jit, kernel_sets, rnn_gates, rnn_jit  # noqa: E402
from eagerflow.ops.kernels import rnn_sequence_jit as sequences  # noqa: E402


@numba.njit
def _tanh_all(x, out):
    for i in range(x.size):
        out[i] = sequences.tanh_float32(x[i])


def test_tanh_float32_is_within_8_ulp_of_tanh():
    x = np.concatenate([np.linspace(-12, 12, 400_001, dtype=np.float32),
                        np.logspace(-30, 1, 20_000, dtype=np.float32),
                        -np.logspace(-30, 1, 20_000, dtype=np.float32)])
    got = np.empty_like(x)
    _tanh_all(x, got)
    want = np.tanh(x.astype(np.float64))
    ulp = np.spacing(np.abs(want).astype(np.float32)).astype(np.float64)
    error = np.abs(got - want) / ulp
    assert error.max() <= 8 and error.mean() < 0.6


def test_tanh_float32_special_values():
    x = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e30, -9.5, 1e-40], np.float32)
    got = np.empty_like(x)
    _tanh_all(x, got)
    assert np.isnan(got[0])
    np.testing.assert_array_equal(got[1:7], [1, -1, 0, -0.0, 1, -1])
    # Subnormals lose bits in the scaling by 1/32: a few of their steps, absolutely.
    assert abs(float(got[7]) - 1e-40) < 1e-44
    assert np.signbit(got[4]) and not np.signbit(got[3])


@pytest.mark.parametrize("rows, inner, columns", [(70, 64, 256), (3, 1024, 768), (5, 4, 8)])
def test_products_in_blocks_of_rows_equal_one_product(rows, inner, columns):
    """Blocks of 32 rows and a remainder of 6; one row a block (a kernel above the
    block size); one block."""
    rng = np.random.default_rng(7)
    a = rng.normal(size=(rows, inner)).astype(np.float32)
    b = rng.normal(size=(inner, columns)).astype(np.float32)
    out = np.full((rows, columns), np.nan, np.float32)
    sequences.dot_in_blocks(a, b, out)
    np.testing.assert_allclose(out, a @ b, rtol=1e-5, atol=1e-4)


def _sequence_inputs(dtype, batch, steps, units, masked, seed=0):
    rng = np.random.default_rng(seed)
    projected = (2 * rng.normal(size=(batch, steps, 4 * units))).astype(dtype)
    h0, c0, dh, dc = (rng.normal(size=(batch, units)).astype(dtype) for _ in range(4))
    kernel = (rng.normal(size=(units, 4 * units)) / np.sqrt(units)).astype(dtype)
    mask = (rng.uniform(size=(batch, units)) > 0.3).astype(dtype) * 1.5 if masked else None
    dh_seq = rng.normal(size=(batch, steps, units)).astype(dtype)
    return projected, h0, c0, kernel, mask, dh_seq, dh, dc


def _close(got, want, rtol, atol):
    for g, w in zip(got, want, strict=True):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)


# Batch 1 and 7: a range too small to split, and halves of unequal size; 67 units: the
# vectorized loops' remainders.
SHAPES = [(1, 4, 5), (7, 9, 3), (6, 30, 67), (64, 50, 16)]


@pytest.mark.parametrize("masked", [False, True])
@pytest.mark.parametrize("shape", SHAPES)
def test_lstm_forward_matches_numpy_loop(shape, masked):
    projected, h0, c0, kernel, mask, *_ = _sequence_inputs(np.float32, *shape, masked)
    want = rnn_gates.lstm_sequence(projected, h0, c0, kernel, mask)
    # The float32 tanh (<= 8 ulp) and another BLAS library: rounding-level differences,
    # carried through the steps.
    _close(sequences.lstm_sequence(projected, h0, c0, kernel, mask), want, 1e-5, 3e-6)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("masked", [False, True])
@pytest.mark.parametrize("shape", SHAPES)
def test_lstm_backward_matches_numpy_loop(shape, masked, dtype):
    projected, h0, c0, kernel, mask, dh_seq, dh, dc = _sequence_inputs(dtype, *shape, masked)
    _, _, _, c_seq, t_seq = forward = rnn_gates.lstm_sequence(projected, h0, c0, kernel, mask)
    args = (c0, kernel, forward[0], c_seq, t_seq, dh_seq, dh, dc, mask)
    tol = 2e-6 if dtype == np.float32 else 1e-13
    _close(sequences.lstm_sequence_grad(*args), rnn_gates.lstm_sequence_grad(*args), tol,
           tol)


def _gru_inputs(dtype, batch, steps, units, masked):
    projected, h0, _, kernel, mask, dh_seq, dh, _ = _sequence_inputs(dtype, batch, steps, units,
                                                                     masked, seed=1)
    bias = np.random.default_rng(2).normal(size=3 * units).astype(dtype)
    return projected[..., :3 * units], h0, kernel[:, :3 * units], bias, mask, dh_seq, dh


@pytest.mark.parametrize("masked", [False, True])
@pytest.mark.parametrize("shape", SHAPES)
def test_gru_forward_matches_numpy_loop(shape, masked):
    projected, h0, kernel, bias, mask, *_ = _gru_inputs(np.float32, *shape, masked)
    _close(sequences.gru_sequence(projected, h0, kernel, bias, mask),
           rnn_gates.gru_sequence(projected, h0, kernel, bias, mask), 1e-5, 3e-6)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("masked", [False, True])
@pytest.mark.parametrize("shape", SHAPES)
def test_gru_backward_matches_numpy_loop(shape, masked, dtype):
    projected, h0, kernel, bias, mask, dh_seq, dh = _gru_inputs(dtype, *shape, masked)
    h_seq, _, inner_seq, t_seq, candidate_seq = rnn_gates.gru_sequence(projected, h0, kernel,
                                                                       bias, mask)
    args = (h0, kernel, h_seq, inner_seq, t_seq, candidate_seq, dh_seq, dh, mask)
    tol = 2e-6 if dtype == np.float32 else 1e-13
    _close(sequences.gru_sequence_grad(*args), rnn_gates.gru_sequence_grad(*args), tol, tol)


def test_split_rows_equal_one_range():
    """Each range of rows is computed alone: two ranges give one range's values."""
    projected, h0, c0, kernel, *_ = _sequence_inputs(np.float32, 9, 6, 4, False)
    scale = np.full(16, 0.5, np.float32)
    scale[8:12] = 1
    kernel = kernel * scale
    outputs = []
    for ranges in ([(0, 9)], [(0, 4), (4, 9)]):
        h_seq = np.empty((9, 6, 4), np.float32)
        c_seq, t_seq = np.empty((6, 9, 4), np.float32), np.empty((6, 9, 16), np.float32)
        for lo, hi in ranges:
            sequences.lstm_forward_rows(projected, h0, c0, kernel, scale, None, h_seq, c_seq,
                                        t_seq, lo, hi)
        outputs.append((h_seq, c_seq, t_seq))
    _close(outputs[1], outputs[0], 1e-6, 1e-7)


@pytest.mark.parametrize("parts", [1, 2, 3, 9])
def test_any_number_of_parts_gives_one_parts_values(parts):
    """The pool's parts (`jit.run_parts` passes one per thread): forward and gradient alike
    for 1 to 9 parts of a 9-row batch, LSTM and GRU."""
    projected, h0, c0, kernel, mask, dh_seq, dh, dc = _sequence_inputs(np.float32, 9, 6, 4,
                                                                      True)
    scale = np.full(16, 0.5, np.float32)

    def lstm(count):
        h_seq = np.empty((9, 6, 4), np.float32)
        c_seq, t_seq = np.empty((6, 9, 4), np.float32), np.empty((6, 9, 16), np.float32)
        sequences._lstm_forward_parts(count, projected, h0, c0, kernel, scale, mask, h_seq,
                                      c_seq, t_seq)
        grads = (np.empty((9, 6, 16), np.float32), np.empty_like(h0), np.empty_like(c0))
        sequences._lstm_backward_parts(count, kernel.T.copy(), c0, c_seq, t_seq,
                                       np.tanh(c_seq), dh_seq, dh, dc, mask, *grads)
        return (h_seq, c_seq, t_seq) + grads

    def gru(count):
        projected3, kernel3 = projected[:, :, :12].copy(), kernel[:, :12].copy()
        bias = np.linspace(-1, 1, 12).astype(np.float32)
        outs = (np.empty((9, 6, 4), np.float32), np.empty((6, 9, 12), np.float32),
                np.empty((6, 9, 8), np.float32), np.empty((6, 9, 4), np.float32))
        sequences._gru_forward_parts(count, projected3, h0, kernel3, bias, mask, *outs)
        grads = (np.empty((9, 6, 12), np.float32), np.empty((9, 6, 12), np.float32),
                 np.empty_like(h0))
        sequences._gru_backward_parts(count, kernel3.T.copy(), h0, *outs, dh_seq, dh, mask,
                                      *grads)
        return outs + grads

    for run in (lstm, gru):  # (BLAS may round a one-row product otherwise)
        _close(run(parts), run(1), 1e-5, 1e-6)


def test_which_dtypes_take_the_loops():
    assert sequences.usable(np.dtype(np.float32), forward=True)
    assert not sequences.usable(np.dtype(np.float64), forward=True)
    assert sequences.usable(np.dtype(np.float64), forward=False)
    assert not sequences.usable(np.dtype(np.float16), forward=False)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_numba_set_kernels_take_the_loops_where_they_apply(dtype, monkeypatch):
    """float32 sequences run the compiled loops both ways, float64 ones only backwards
    (their forward keeps NumPy's tanh in `rnn_gates`'s loop): the same values either way."""
    calls = []
    run_parts = jit.run_parts
    monkeypatch.setattr(jit, "run_parts", lambda kernel, n, *args: calls.append(n) or run_parts(
        kernel, n, *args))
    projected, h0, c0, kernel, mask, dh_seq, dh, dc = _sequence_inputs(dtype, 3, 5, 4, True)
    got = rnn_jit.lstm_sequence(projected, h0, c0, kernel, mask)
    want = rnn_gates.lstm_sequence(projected, h0, c0, kernel, mask)
    _close(got, want, 1e-5, 3e-6)
    args = (want[0], want[3], want[4], dh_seq, dh, dc, mask)
    _close(rnn_jit.lstm_sequence_grad(projected, h0, c0, kernel, *args),
           rnn_gates.lstm_sequence_grad(c0, kernel, *args), 2e-6, 2e-6)
    assert calls == ([3, 3] if dtype == np.float32 else [3])


@pytest.fixture
def restore_kernel_set():
    before = kernel_sets.active()
    yield
    kernel_sets.set_active(before)


@pytest.mark.parametrize("layer", ["LSTM", "GRU"])
def test_layers_fit_alike_on_both_kernel_sets(layer, restore_kernel_set):
    """A few Adam steps of a recurrent model: the loops' rounding stays at rounding level."""
    rng = np.random.default_rng(2)
    x = rng.normal(size=(10, 12, 5)).astype(np.float32)
    y = rng.integers(0, 3, 10)
    weights = []
    for kernel_set in ("numpy", "numba"):
        kernel_sets.set_active(kernel_set)
        ef.random.set_seed(3)
        model = ef.Sequential([ef.Input((12, 5)), getattr(ef.layers, layer)(8),
                               ef.layers.Dense(3)])
        model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
        model.fit(x, y, batch_size=5, epochs=2, verbose=0, shuffle=False)
        weights.append(model.get_weights())
    for numpy_weight, numba_weight in zip(*weights, strict=True):
        np.testing.assert_allclose(numba_weight, numpy_weight, rtol=1e-4, atol=1e-5)


def test_float64_gradients_through_the_loops_match_finite_differences(restore_kernel_set):
    """float64 sequences take the compiled gradient loops (the forward keeps NumPy's tanh)."""
    kernel_sets.set_active("numba")
    projected, h0, c0, kernel, mask, *_ = _sequence_inputs(np.float64, 3, 4, 2, True)

    def lstm(projected, h0, c0, kernel):
        h_seq, h, c = recurrent.lstm_sequence(projected, h0, c0, kernel, mask)
        return ef.reduce_sum(h_seq * h_seq) + ef.reduce_sum(c)

    ef.testing.check_gradients(lstm, projected, h0, c0, kernel, order=2)
    projected, h0, kernel, bias, mask, *_ = _gru_inputs(np.float64, 3, 4, 2, True)

    def gru(projected, h0, kernel, bias):
        h_seq, h = recurrent.gru_sequence(projected, h0, kernel, bias, mask)
        return ef.reduce_sum(h_seq * h_seq) + ef.reduce_sum(h)

    ef.testing.check_gradients(gru, projected, h0, kernel, bias, order=2)
