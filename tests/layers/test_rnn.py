"""SimpleRNN, LSTM, GRU and RNN(cell) against hand-written NumPy step loops."""

import numpy as np
import pytest

import eagerflow as ef
from tests.layers.layer_contract import run_layer_test

RNG = np.random.default_rng(0)
X = RNG.standard_normal((2, 4, 3)).astype("float32")
UNITS = 5


def sigmoid(z):
    return 1 / (1 + np.exp(-z))


def weights(gates, bias_shape=None):
    kernel = RNG.standard_normal((3, gates * UNITS)).astype("float32") * 0.5
    recurrent = RNG.standard_normal((UNITS, gates * UNITS)).astype("float32") * 0.5
    bias = RNG.standard_normal(bias_shape or gates * UNITS).astype("float32") * 0.5
    return [kernel, recurrent, bias]


def simple_rnn_reference(x, kernel, recurrent, bias, mask=None, backwards=False):
    h = np.zeros((x.shape[0], UNITS))
    outputs = []
    steps = range(x.shape[1] - 1, -1, -1) if backwards else range(x.shape[1])
    for t in steps:
        new = np.tanh(x[:, t] @ kernel + h @ recurrent + bias)
        h = new if mask is None else np.where(mask[:, t:t + 1], new, h)
        outputs.append(h)
    return np.stack(outputs, 1), h


def lstm_reference(x, kernel, recurrent, bias, mask=None):
    h = c = np.zeros((x.shape[0], UNITS))
    outputs = []
    for t in range(x.shape[1]):
        z = x[:, t] @ kernel + h @ recurrent + bias
        i, f, g, o = np.split(z, 4, axis=-1)
        new_c = sigmoid(f) * c + sigmoid(i) * np.tanh(g)
        new_h = sigmoid(o) * np.tanh(new_c)
        if mask is not None:
            keep = mask[:, t:t + 1]
            new_c, new_h = np.where(keep, new_c, c), np.where(keep, new_h, h)
        h, c = new_h, new_c
        outputs.append(h)
    return np.stack(outputs, 1), h, c


def gru_reference(x, kernel, recurrent, bias, reset_after=True):
    h = np.zeros((x.shape[0], UNITS))
    outputs = []
    input_bias, recurrent_bias = (bias[0], bias[1]) if reset_after else (bias, 0.0)
    for t in range(x.shape[1]):
        x_z, x_r, x_h = np.split(x[:, t] @ kernel + input_bias, 3, axis=-1)
        if reset_after:
            r_z, r_r, r_h = np.split(h @ recurrent + recurrent_bias, 3, axis=-1)
            z, r = sigmoid(x_z + r_z), sigmoid(x_r + r_r)
            candidate = np.tanh(x_h + r * r_h)
        else:
            r_z, r_r = np.split(h @ recurrent[:, :2 * UNITS], 2, axis=-1)
            z, r = sigmoid(x_z + r_z), sigmoid(x_r + r_r)
            candidate = np.tanh(x_h + (r * h) @ recurrent[:, 2 * UNITS:])
        h = z * h + (1 - z) * candidate
        outputs.append(h)
    return np.stack(outputs, 1), h


def test_simple_rnn_contract_and_reference():
    w = weights(1)
    sequence, last = simple_rnn_reference(X, *w)
    run_layer_test(ef.layers.SimpleRNN, {"units": UNITS, "return_sequences": True},
                   input_data=X, expected_output_shape=(2, 4, UNITS),
                   expected_num_trainable_weights=3, weights=w, expected_output=sequence,
                   rtol=1e-4)
    run_layer_test(ef.layers.SimpleRNN, {"units": UNITS, "go_backwards": True}, input_data=X,
                   expected_output_shape=(2, UNITS), expected_num_trainable_weights=3,
                   weights=w, expected_output=simple_rnn_reference(X, *w, backwards=True)[1],
                   rtol=1e-4, gradient_order=1)


def test_lstm_contract_and_reference_with_states():
    w = weights(4)
    sequence, h, c = lstm_reference(X, *w)
    run_layer_test(ef.layers.LSTM, {"units": UNITS, "return_sequences": True,
                                    "return_state": True},
                   input_data=X, expected_output_shape=[(2, 4, UNITS), (2, UNITS), (2, UNITS)],
                   expected_num_trainable_weights=3, weights=w, expected_output=[sequence, h, c],
                   rtol=1e-4)


@pytest.mark.parametrize("reset_after", [True, False])
def test_gru_contract_and_reference(reset_after):
    w = weights(3, (2, 3 * UNITS) if reset_after else None)
    sequence, h = gru_reference(X, *w, reset_after=reset_after)
    run_layer_test(ef.layers.GRU, {"units": UNITS, "reset_after": reset_after}, input_data=X,
                   expected_output_shape=(2, UNITS), expected_num_trainable_weights=3,
                   weights=w, expected_output=h, rtol=1e-4, gradient_order=1)


def test_keras_defaults_and_layouts():
    lstm = ef.layers.LSTM(UNITS)
    lstm(X)
    assert [v.shape for v in lstm.weights] == [(3, 20), (5, 20), (20,)]
    np.testing.assert_array_equal(lstm.cell.bias.numpy()[UNITS:2 * UNITS], 1.0)
    recurrent = lstm.cell.recurrent_kernel.numpy()
    np.testing.assert_allclose(recurrent @ recurrent.T, np.eye(UNITS), atol=1e-5)
    assert lstm.units == UNITS and lstm.recurrent_activation is ef.activations.sigmoid
    gru = ef.layers.GRU(UNITS)
    gru(X)
    assert [v.shape for v in gru.weights] == [(3, 15), (5, 15), (2, 15)]
    assert lstm.get_config()["unit_forget_bias"] is True
    assert gru.get_config()["reset_after"] is True


def test_masking_keeps_states_and_repeats_outputs():
    w = weights(4)
    mask = np.array([[True, True, False, False], [True, True, True, True]])
    lstm = ef.layers.LSTM(UNITS, return_sequences=True)
    lstm(X)
    lstm.set_weights(w)
    out = lstm(X, mask=ef.constant(mask)).numpy()
    expected, _, _ = lstm_reference(X, *w, mask=mask)
    np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-6)
    zeros = ef.layers.LSTM(UNITS, return_sequences=True, zero_output_for_mask=True)
    zeros(X)
    zeros.set_weights(w)
    np.testing.assert_allclose(zeros(X, mask=ef.constant(mask)).numpy()[0, 2:], 0.0)


def test_embedding_mask_zero_reaches_the_lstm_in_every_kind_of_model():
    ids = np.array([[3, 4, 0, 0], [1, 2, 3, 4]])
    ef.random.set_seed(0)
    embedding = ef.layers.Embedding(6, 3, mask_zero=True)
    lstm = ef.layers.LSTM(UNITS)
    sequential = ef.Sequential([embedding, lstm])
    out = sequential(ids).numpy()
    truncated = sequential(ids[:, :2]).numpy()
    np.testing.assert_allclose(out[0], truncated[0], rtol=1e-5)
    inputs = ef.layers.Input(shape=(None,), dtype="int32")
    functional = ef.models.Model(inputs, lstm(embedding(inputs)))
    np.testing.assert_allclose(functional(ids).numpy(), out, rtol=1e-6)


def test_initial_state_and_stateful():
    w = weights(1)
    layer = ef.layers.SimpleRNN(UNITS, return_state=True)
    layer(X)
    layer.set_weights(w)
    first, state = layer(X[:, :2])
    resumed, _ = layer(X[:, 2:], initial_state=[state])
    full, _ = layer(X)
    np.testing.assert_allclose(resumed.numpy(), full.numpy(), rtol=1e-5)
    stateful = ef.layers.SimpleRNN(UNITS, stateful=True)
    stateful(X[:, :2])
    stateful.set_weights(w)
    stateful.reset_states()
    stateful(X[:, :2])
    np.testing.assert_allclose(stateful(X[:, 2:]).numpy(), full.numpy(), rtol=1e-5)
    with pytest.raises(ValueError, match="carries states for batch size 2"):
        stateful(X[:1])
    stateful.reset_states()
    assert stateful(X[:1]).shape == (1, UNITS)


def test_states_of_a_stateful_layer_as_keras_exposes_them():
    lstm = ef.layers.LSTM(UNITS, stateful=True, return_state=True)
    assert lstm.states is None  # never called
    _, h, c = lstm(X)
    states = lstm.states
    assert [s.shape for s in states] == [(2, UNITS), (2, UNITS)]
    np.testing.assert_array_equal(states[0].numpy(), h.numpy())
    np.testing.assert_array_equal(states[1].numpy(), c.numpy())
    assert all(s is not w for s in states for w in lstm.weights)
    # They start another layer where this one stopped.
    resumed = ef.layers.LSTM(UNITS)
    resumed(X)
    resumed.set_weights(lstm.get_weights())
    np.testing.assert_allclose(resumed(X, initial_state=states).numpy(), lstm(X)[0].numpy(),
                               rtol=1e-5, atol=1e-6)
    lstm.reset_states()
    assert [s.shape for s in lstm.states] == [(2, UNITS), (2, UNITS)]
    assert all(not np.any(s.numpy()) for s in lstm.states)
    assert ef.layers.GRU(UNITS).states is None  # not stateful


def test_gradients_through_the_initial_state_a_stateful_layer_hands_on():
    source = ef.layers.LSTM(3, stateful=True, dtype="float64")
    source(X.astype("float64"))
    h0, c0 = source.states
    resumed = ef.layers.LSTM(3, dtype="float64")
    resumed(X.astype("float64"))
    ef.testing.check_gradients(lambda x, h, c: resumed(x, initial_state=[h, c]),
                               ef.constant(X.astype("float64")), h0, c0, order=1)


def test_nested_inputs_are_refused_clearly():
    rnn = ef.layers.RNN(ef.layers.SimpleRNNCell(UNITS))
    message = "nested inputs and multi-dimensional cell states are not supported"
    with pytest.raises(ValueError, match=message):
        rnn((X, X))
    with pytest.raises(ValueError, match=message):
        rnn({"a": X})
    with pytest.raises(ValueError, match=message):
        rnn([ef.layers.Input((None, 3)), ef.layers.Input((None, 2))])
    assert rnn(X.tolist()).shape == (2, UNITS)  # nested numbers are data


def test_rnn_errors():
    layer = ef.layers.LSTM(UNITS)
    with pytest.raises(ValueError, match="expects 2 initial state"):
        layer(X, initial_state=[ef.zeros([2, UNITS])])
    with pytest.raises(ValueError, match=r"has shape \(2, 4\); expected \(2, 5\)"):
        layer(X, initial_state=[ef.zeros([2, 4]), ef.zeros([2, 4])])
    with pytest.raises(ValueError, match="expected ndim=3, found ndim=2"):
        ef.layers.GRU(2)(ef.ones([2, 3]))
    with pytest.raises(ValueError, match="no time steps"):
        ef.layers.GRU(2)(ef.ones([2, 0, 3]))
    with pytest.raises(ValueError, match=r"`dropout` of LSTMCell must be a float in \[0, 1\)"):
        ef.layers.LSTM(2, dropout=1.5)
    with pytest.raises(ValueError, match="`cell` of an RNN must be a layer"):
        ef.layers.RNN(3)
    with pytest.raises(AttributeError, match="has no attribute 'nonsense'"):
        ef.layers.LSTM(2).nonsense  # noqa: B018


def test_dropout_in_training_only():
    layer = ef.layers.LSTM(UNITS, dropout=0.5, recurrent_dropout=0.5, seed=1)
    inference = layer(X).numpy()
    np.testing.assert_allclose(layer(X).numpy(), inference)
    assert not np.allclose(layer(X, training=True).numpy(), inference)
    with ef.GradientTape() as tape:
        loss = ef.reduce_sum(layer(X, training=True))
    assert all(g is not None for g in tape.gradient(loss, layer.trainable_weights))


class MinimalCell(ef.layers.Layer):
    """A user cell: h = tanh(x W + h)."""

    def __init__(self, units, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.state_size = units

    def build(self, input_shape):
        self.kernel = self.add_weight("kernel", (input_shape[-1], self.units))

    def call(self, inputs, states):
        h = ef.tanh(ef.matmul(inputs, self.kernel) + states)
        return h, h


def test_rnn_with_a_user_cell():
    layer = ef.layers.RNN(MinimalCell(UNITS), return_sequences=True)
    out = layer(X)
    kernel = layer.cell.kernel.numpy()
    h = np.zeros((2, UNITS))
    for t in range(4):
        h = np.tanh(X[:, t] @ kernel + h)
    np.testing.assert_allclose(out.numpy()[:, -1], h, rtol=1e-5)
    config = layer.get_config()
    assert config["cell"]["class_name"] == "MinimalCell"
    clone = ef.layers.RNN.from_config(config)
    assert clone(X).shape == (2, 4, UNITS)


def test_cells_called_directly():
    cell = ef.layers.GRUCell(UNITS)
    out, state = cell(X[:, 0], ef.zeros([2, UNITS]))
    assert out.shape == (2, UNITS) and state.shape == (2, UNITS)
    run_layer_test(ef.layers.SimpleRNNCell, {"units": 2}, input_data=X[:, 0],
                   call_kwargs={"states": np.zeros((2, 2), "float32")},
                   expected_output_shape=[(2, 2), (2, 2)], expected_num_trainable_weights=3)
