"""Sequential: immediate and deferred build, add/pop, errors, configs."""

import numpy as np
import pytest

import eagerflow as ef
from tests.layers.layer_contract import trackable_paths

X = np.random.default_rng(0).standard_normal((4, 3)).astype("float32")


def test_built_immediately_with_an_input_shape():
    model = ef.Sequential([ef.layers.Dense(5, input_shape=(3,), activation="relu"),
                           ef.layers.Dense(2)])
    assert model.built and len(model.weights) == 4
    assert model.input_shape == (None, 3) and model.output_shape == (None, 2)
    expected = np.maximum(X @ model.layers[0].kernel.numpy(), 0) @ model.layers[1].kernel.numpy()
    np.testing.assert_allclose(model(X).numpy(), expected, rtol=1e-5)
    with_input = ef.Sequential([ef.layers.Input(shape=(3,)), ef.layers.Dense(2)])
    assert with_input.built and with_input.output_shape == (None, 2)
    assert [layer.name for layer in with_input.layers] == ["dense_2"]


def test_deferred_build():
    model = ef.Sequential()
    model.add(ef.layers.Dense(4))
    model.add(ef.layers.Dense(1))
    assert not model.built and model.weights == []
    with pytest.raises(AttributeError, match="no defined input shape yet"):
        model.input_shape  # noqa: B018
    with pytest.raises(AttributeError, match="no defined output shape yet"):
        model.output_shape  # noqa: B018
    assert model(X).shape == (4, 1) and model.built and len(model.weights) == 4
    built = ef.Sequential([ef.layers.Dense(4)])
    built.build((None, 3))
    assert built.count_params() == 16 and built.output_shape == (None, 4)
    with pytest.raises(ValueError, match="cannot be built without an input shape"):
        ef.Sequential([ef.layers.Dense(1)]).build()


def test_add_checks_compatibility_at_once_and_pop():
    model = ef.Sequential([ef.layers.Input(shape=(4, 4, 1)), ef.layers.Conv2D(2, 3)])
    model.add(ef.layers.Flatten())
    with pytest.raises(ValueError, match="expected ndim=4, found ndim=2"):
        model.add(ef.layers.Conv2D(1, 1))
    assert [type(layer).__name__ for layer in model.layers] == ["Conv2D", "Flatten"]
    popped = model.pop()
    assert isinstance(popped, ef.layers.Flatten) and model.output_shape == (None, 2, 2, 2)
    model.pop()
    with pytest.raises(TypeError, match="There are no layers"):
        model.pop()


def test_add_errors():
    model = ef.Sequential([ef.layers.Dense(2, name="same")])
    with pytest.raises(TypeError, match="must be an instance of class Layer"):
        model.add("dense")
    with pytest.raises(ValueError, match="Name 'same' is already the name of a layer"):
        model.add(ef.layers.Dense(2, name="same"))
    with pytest.raises(ValueError, match="An Input can only be the first element"):
        model.add(ef.layers.Input(shape=(2,)))
    with pytest.raises(ValueError, match="should have a single output tensor.*return_state"):
        ef.Sequential([ef.layers.Input(shape=(3, 2)), ef.layers.LSTM(2, return_state=True)])
    lazy = ef.Sequential([ef.layers.LSTM(2, return_state=True)])
    with pytest.raises(ValueError, match="should have a single output tensor"):
        lazy(np.ones((1, 3, 2), "float32"))


def test_checkpoint_keys_are_layer_positions_and_mask_argument():
    model = ef.Sequential([ef.layers.Dense(2, input_shape=(3,), name="hidden"),
                           ef.layers.Dense(1, name="out")])
    assert sorted(trackable_paths(model)) == ["layers/0/bias", "layers/0/kernel",
                                              "layers/1/bias", "layers/1/kernel"]
    rnn = ef.Sequential([ef.layers.SimpleRNN(2)])
    data = np.ones((1, 3, 1), "float32")
    masked = rnn(data, mask=ef.constant([[True, False, False]]))
    np.testing.assert_allclose(masked.numpy(), rnn(data[:, :1]).numpy(), rtol=1e-6)


def test_config_round_trip():
    model = ef.Sequential([ef.layers.Dense(2, input_shape=(3,)), ef.layers.Dropout(0.5),
                           ef.layers.Dense(1)], name="stack")
    clone = ef.Sequential.from_config(model.get_config())
    assert clone.name == "stack" and clone.built and clone.count_params() == model.count_params()
    lazy = ef.Sequential([ef.layers.Dense(2)])
    lazy(X)
    config = lazy.get_config()
    assert config["build_input_shape"] == [None, 3]
    assert ef.Sequential.from_config(config).count_params() == 8
