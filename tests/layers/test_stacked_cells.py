"""StackedRNNCells and RNN([cells]): two stacked cells equal the two RNN layers they
stand for, flat states, masks, the layer contract, config and errors."""

import numpy as np
import pytest

import eagerflow as ef
from eagerflow.testing import check_gradients
from tests.layers.layer_contract import run_layer_test

L = ef.layers
X = np.random.default_rng(0).normal(size=(2, 5, 3)).astype(np.float32)


def _stack():
    return [L.SimpleRNNCell(4), L.LSTMCell(2)]


def test_equals_two_stacked_rnn_layers():
    stacked = L.RNN(_stack(), return_sequences=True, return_state=True)
    outputs, h1, h2, c2 = stacked(X)
    assert type(stacked.cell).__name__ == "StackedRNNCells"
    assert stacked.cell.state_size == [4, 2, 2] and stacked.cell.output_size == 2
    first = L.SimpleRNN(4, return_sequences=True, return_state=True)
    second = L.LSTM(2, return_sequences=True, return_state=True)
    middle, h1_ref = first(X)
    expected, h2_ref, c2_ref = second(middle)
    first.set_weights(stacked.get_weights()[:3])
    second.set_weights(stacked.get_weights()[3:])
    middle, h1_ref = first(X)
    expected, h2_ref, c2_ref = second(middle)
    for got, want in ((outputs, expected), (h1, h1_ref), (h2, h2_ref), (c2, c2_ref)):
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-6)
    mask = np.array([[True] * 5, [True, True, True, False, False]])
    masked = stacked(X, mask=mask)[0].numpy()
    np.testing.assert_allclose(masked[1, 3:], np.broadcast_to(masked[1, 2], (2, 2)), rtol=1e-6)


def test_contract_config_and_initial_state():
    run_layer_test(L.RNN, {"cell": _stack()}, input_data=X, expected_output_shape=(2, 2),
                   expected_num_trainable_weights=6, check_gradients=False)
    # The contract's float64 copy would share the float32 cells: check a float64 stack.
    layer64 = L.RNN([L.SimpleRNNCell(4, dtype="float64"), L.LSTMCell(2, dtype="float64")],
                    dtype="float64")
    check_gradients(layer64, X.astype(np.float64), order=1)
    cells = L.StackedRNNCells(_stack())
    config = cells.get_config()
    assert [c["class_name"] for c in config["cells"]] == ["SimpleRNNCell", "LSTMCell"]
    clone = L.StackedRNNCells.from_config(config)
    assert clone.state_size == [4, 2, 2]
    layer = L.RNN(cells)
    states = [np.ones((2, 4), np.float32), np.ones((2, 2), np.float32),
              np.ones((2, 2), np.float32)]
    assert layer(X, initial_state=states).shape == (2, 2)
    with pytest.raises(ValueError, match="expects 3 initial state"):
        layer(X, initial_state=states[:2])


def test_errors():
    with pytest.raises(ValueError, match="at least one cell"):
        L.StackedRNNCells([])
    with pytest.raises(ValueError, match="state_size"):
        L.StackedRNNCells([L.Dense(2)])
