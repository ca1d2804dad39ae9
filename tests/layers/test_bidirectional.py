"""Bidirectional against two hand-run directions."""

import numpy as np
import pytest

import eagerflow as ef
from tests.layers.layer_contract import run_layer_test

X = np.random.default_rng(0).standard_normal((2, 4, 3)).astype("float32")


def test_bidirectional_contract():
    run_layer_test(ef.layers.Bidirectional, {"layer": ef.layers.GRU(2, return_sequences=True)},
                   input_data=X, expected_output_shape=(2, 4, 4),
                   expected_num_trainable_weights=6, gradient_order=1)


@pytest.mark.parametrize("mode", ["concat", "sum", "mul", "ave", None])
def test_merge_modes_match_forward_and_reversed_backward(mode):
    layer = ef.layers.Bidirectional(ef.layers.SimpleRNN(3, return_sequences=True),
                                    merge_mode=mode)
    out = layer(X)
    forward = layer.forward_layer(X).numpy()
    backward = layer.backward_layer(X).numpy()[:, ::-1]
    expected = {"concat": np.concatenate([forward, backward], -1), "sum": forward + backward,
                "mul": forward * backward, "ave": (forward + backward) / 2,
                None: None}[mode]
    if mode is None:
        np.testing.assert_allclose(out[0].numpy(), forward, rtol=1e-6)
        np.testing.assert_allclose(out[1].numpy(), backward, rtol=1e-6)
    else:
        np.testing.assert_allclose(out.numpy(), expected, rtol=1e-6)


def test_backward_copy_reads_the_sequence_in_reverse():
    layer = ef.layers.Bidirectional(ef.layers.LSTM(2), merge_mode=None)
    layer(X)
    layer.backward_layer.set_weights(layer.forward_layer.get_weights())
    forward, backward = layer(X)
    reversed_input = np.ascontiguousarray(X[:, ::-1])
    np.testing.assert_allclose(backward.numpy(), layer.forward_layer(reversed_input).numpy(),
                               rtol=1e-6)
    assert layer.backward_layer.go_backwards and not layer.forward_layer.go_backwards
    assert [v.name for v in layer.weights][0] == "forward_lstm_cell/kernel"
    assert [v.name for v in layer.weights][3] == "backward_lstm_cell/kernel"


def test_return_state_and_initial_state():
    layer = ef.layers.Bidirectional(ef.layers.LSTM(2, return_state=True))
    output, *states = layer(X)
    assert output.shape == (2, 4) and len(states) == 4
    again = layer(X, initial_state=states)
    assert again[0].shape == (2, 4)


def test_masked_bidirectional_ignores_padding():
    ids = np.array([[1, 2, 0, 0]])
    embedding = ef.layers.Embedding(5, 3, mask_zero=True)
    layer = ef.layers.Bidirectional(ef.layers.GRU(2))
    padded = layer(embedding(ids)).numpy()
    trimmed = layer(embedding(ids[:, :2])).numpy()
    np.testing.assert_allclose(padded, trimmed, rtol=1e-5)


def test_bidirectional_errors():
    with pytest.raises(ValueError, match="needs a recurrent layer"):
        ef.layers.Bidirectional(ef.layers.Dense(2))
    with pytest.raises(ValueError, match="Invalid merge mode"):
        ef.layers.Bidirectional(ef.layers.GRU(2), merge_mode="max")
    with pytest.raises(ValueError, match="backward_layer must process"):
        ef.layers.Bidirectional(ef.layers.GRU(2), backward_layer=ef.layers.GRU(2))
    with pytest.raises(ValueError, match="weights=.... is not supported"):
        ef.layers.Bidirectional(ef.layers.GRU(2), weights=[])
    explicit = ef.layers.Bidirectional(ef.layers.GRU(2),
                                       backward_layer=ef.layers.GRU(3, go_backwards=True))
    assert explicit(X).shape == (2, 5)


def test_bidirectional_against_numpy_step_loops():
    from tests.layers.test_rnn import simple_rnn_reference

    layer = ef.layers.Bidirectional(ef.layers.SimpleRNN(5, return_sequences=True))
    layer(X)
    forward_weights = layer.forward_layer.get_weights()
    backward_weights = layer.backward_layer.get_weights()
    forward, _ = simple_rnn_reference(X, *forward_weights)
    backward, _ = simple_rnn_reference(X, *backward_weights, backwards=True)
    expected = np.concatenate([forward, backward[:, ::-1]], -1)
    np.testing.assert_allclose(layer(X).numpy(), expected, rtol=1e-5, atol=1e-6)


def test_the_wrapped_layers_activity_regularizer_applies_to_both_directions():
    # The RNN layers left activity_regularizer out of their config, so the two copies made
    # from it (and any reloaded RNN) silently lost it.
    x = ef.constant(np.random.default_rng(2).standard_normal((2, 4, 3)))
    gru = ef.layers.GRU(2, activity_regularizer=ef.regularizers.L2(0.5), dtype="float64")
    config = gru.get_config()
    assert ef.layers.GRU.from_config(config).activity_regularizer.get_config() == {"l2": 0.5}
    layer = ef.layers.Bidirectional(gru, merge_mode=None, dtype="float64")
    forward, backward = layer(x)
    expected = sum(0.5 * float(ef.reduce_sum(ef.square(o))) / 2 for o in (forward, backward))
    assert len(layer.losses) == 2
    np.testing.assert_allclose(sum(float(v) for v in layer.losses), expected, rtol=1e-12)
