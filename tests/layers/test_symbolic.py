"""Input, symbolic tensors, nodes and shape probing."""

import numpy as np
import pytest

import eagerflow as ef
from eagerflow.layers import layer_info


def test_input_and_shapes_with_unknown_sizes():
    tokens = ef.layers.Input(shape=(None,), dtype="int32", name="tokens")
    assert tokens.shape == (None, None) and tokens.dtype == np.int32 and tokens.ndim == 2
    embedded = ef.layers.Embedding(10, 4, mask_zero=True)(tokens)
    assert embedded.shape == (None, None, 4) and embedded._mask_shape == (None, None)
    sequence = ef.layers.LSTM(3, return_sequences=True)(embedded)
    assert sequence.shape == (None, None, 3)
    fixed = ef.layers.Input(batch_shape=(4, 5))
    assert ef.layers.Dense(2)(fixed).shape == (4, 2)
    assert ef.layers.Input(shape=3).shape == (None, 3)
    assert ef.layers.Input(shape=(3,), batch_size=8).shape == (8, 3)


def test_nodes_record_each_call():
    x = ef.layers.Input(shape=(2,))
    dense = ef.layers.Dense(3)
    first, second = dense(x), dense(x)
    assert len(layer_info.inbound_nodes(dense)) == 2
    assert first.origin[:2] == (dense, 0) and second.origin[:2] == (dense, 1)
    assert layer_info.inbound_nodes(dense)[0].inbound_layers == [x.origin.layer]


def test_probe_does_not_change_state_or_draw_losses():
    bn = ef.layers.BatchNormalization()
    x = ef.layers.Input(shape=(3,))
    bn(x, training=True)
    np.testing.assert_array_equal(bn.moving_mean.numpy(), 0.0)
    penalized = ef.layers.Dense(2, activity_regularizer="l2")
    penalized(x)
    assert penalized.losses == []
    stateful = ef.layers.SimpleRNN(2, stateful=True)
    stateful(ef.layers.Input(batch_shape=(2, 3, 1)))
    assert stateful._stateful_states is None


def test_symbolic_tensors_refuse_values():
    x = ef.layers.Input(shape=(2,))
    with pytest.raises(ef.errors.InvalidArgumentError, match="symbolic placeholder.*Lambda"):
        ef.add(x, 1.0)
    with pytest.raises(TypeError, match="cannot be used as a Python bool"):
        bool(x)
    with pytest.raises(TypeError, match="cannot be iterated"):
        list(x)


def test_input_errors():
    with pytest.raises(ValueError, match="An Input needs a shape"):
        ef.layers.Input()
    with pytest.raises(ValueError, match="Sparse inputs are not supported"):
        ef.layers.Input(shape=(2,), sparse=True)
    with pytest.raises(ValueError, match="Input.tensor=.... is not supported"):
        ef.layers.Input(shape=(2,), tensor=ef.ones([1, 2]))


def test_probe_errors_explain_the_dummy_shapes():
    x = ef.layers.Input(shape=(4, 4, 1))
    with pytest.raises(ef.errors.InvalidArgumentError) as info:
        ef.layers.Lambda(lambda t: ef.reshape(t, [5]))(x)
    assert "dummy inputs of shapes [(2, 4, 4, 1)]" in "".join(info.value.__notes__)


def test_input_layer_config_and_call():
    layer = ef.layers.InputLayer(input_shape=(3,), name="features")
    assert layer.get_config() == {"batch_shape": [None, 3], "dtype": "float32",
                                  "sparse": False, "name": "features"}
    clone = ef.layers.InputLayer.from_config(layer.get_config())
    assert clone.output.shape == (None, 3)
    assert layer(ef.ones([1, 3])).shape == (1, 3)
