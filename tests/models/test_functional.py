"""Functional models: graphs, multiple inputs/outputs, shared layers, nesting, configs."""

import json

import numpy as np
import pytest

import eagerflow as ef
from tests.layers.layer_contract import trackable_paths

RNG = np.random.default_rng(0)
A = RNG.standard_normal((4, 3)).astype("float32")
B = RNG.standard_normal((4, 2)).astype("float32")


def two_input_model():
    a = ef.layers.Input(shape=(3,), name="a")
    b = ef.layers.Input(shape=(2,), name="b")
    shared = ef.layers.Dense(4, name="shared", activation="tanh")
    hidden = ef.layers.Concatenate(name="concat")([shared(a), ef.layers.Dense(4)(b)])
    main = ef.layers.Dense(1, name="main")(hidden)
    aux = ef.layers.Dense(2, name="aux")(shared(a))
    return ef.models.Model(inputs=[a, b], outputs=[main, aux], name="two_heads")


def test_simple_functional_model_matches_numpy():
    x = ef.layers.Input(shape=(3,))
    y = ef.layers.Dense(2, activation="relu")(x)
    model = ef.models.Model(x, y)
    kernel, bias = model.layers[1].get_weights()
    np.testing.assert_allclose(model(A).numpy(), np.maximum(A @ kernel + bias, 0), rtol=1e-5)
    assert model.input_shape == (None, 3) and model.output_shape == (None, 2)
    assert len(model.weights) == 2 and model.built


def test_multiple_inputs_outputs_and_shared_layers():
    model = two_input_model()
    main, aux = model([A, B])
    assert main.shape == (4, 1) and aux.shape == (4, 2)
    main_dict, _ = model({"a": A, "b": B})
    np.testing.assert_allclose(main_dict.numpy(), main.numpy())
    assert [layer.name for layer in model.layers] == ["a", "b", "shared", "dense", "concat",
                                                      "main", "aux"]
    assert model.input_names == ["a", "b"] and model.output_names == ["main", "aux"]
    assert len(model.weights) == 8
    assert trackable_paths(model)["layers/0/kernel"] is model.get_layer("shared").kernel
    with ef.GradientTape() as tape:
        main, aux = model([A, B])
        loss = ef.reduce_sum(main) + ef.reduce_sum(aux)
    assert all(g is not None for g in tape.gradient(loss, model.trainable_variables))


def test_dict_inputs_and_outputs():
    a = ef.layers.Input(shape=(3,), name="a")
    model = ef.models.Model({"a": a}, {"out": ef.layers.Dense(1)(a)})
    assert model({"a": A})["out"].shape == (4, 1)


def test_input_errors():
    model = two_input_model()
    with pytest.raises(ValueError, match=r"expects inputs named \['a', 'b'\], got a dict with "
                                         r"keys \['a', 'c'\]"):
        model({"a": A, "c": B})
    with pytest.raises(ValueError, match="expects 2 input.s. .'a', 'b'., but it received 1"):
        model(A)
    with pytest.raises(ValueError, match=r"Input 1 \('b'\) of model 'two_heads' is incompatible"
                                         r".*expected shape=\(None, 2\), found shape=\(4, 3\)"):
        model([A, A])


def test_a_rank_off_by_a_trailing_axis_of_one_is_adjusted_as_keras_does():
    x = ef.layers.Input(shape=(1,))
    column = ef.models.Model(x, ef.layers.Dense(2)(x))
    np.testing.assert_allclose(column(np.arange(3.0)).numpy(),
                               column(np.arange(3.0)[:, None]).numpy())
    assert column.predict(np.arange(3.0), verbose=0).shape == (3, 2)
    x = ef.layers.Input(shape=(4,))
    flat = ef.models.Model(x, ef.layers.Dense(2)(x))
    assert flat(np.ones((3, 4, 1), "float32")).shape == (3, 2)
    with pytest.raises(ValueError, match=r"expected shape=\(None, 4\), found shape=\(3,\)"):
        flat(np.ones((3,), "float32"))
    with pytest.raises(ValueError, match=r"expected shape=\(None, 4\), found shape=\(3, 4, 2\)"):
        flat(np.ones((3, 4, 2), "float32"))
    strings = ef.layers.Input(shape=(1,), dtype="string")
    assert ef.models.Model(strings, strings)(ef.constant(["a", "b"])).shape == (2, 1)


def test_graph_errors():
    a = ef.layers.Input(shape=(3,), name="a")
    b = ef.layers.Input(shape=(3,), name="b")
    total = ef.layers.Add()([a, b])
    with pytest.raises(ValueError, match=r"Graph disconnected: cannot obtain value for tensor "
                                         r".*Input 'b'"):
        ef.models.Model(a, total)
    with pytest.raises(ValueError, match="must be symbolic tensors"):
        ef.models.Model(a, ef.ones([1]))
    hidden = ef.layers.Dense(2)(a)
    with pytest.raises(ValueError, match="inputs must come from ef.layers.Input"):
        ef.models.Model(hidden, ef.layers.Dense(1)(hidden))
    first = ef.layers.Dense(2, name="twin")(a)
    with pytest.raises(ValueError, match="'twin' is used 2 times"):
        ef.models.Model(a, ef.layers.Dense(2, name="twin")(first))


def test_models_nest_in_functional_and_sequential_models():
    inner_in = ef.layers.Input(shape=(3,))
    inner = ef.models.Model(inner_in, ef.layers.Dense(4)(inner_in), name="encoder")
    outer_in = ef.layers.Input(shape=(3,))
    outer = ef.models.Model(outer_in, ef.layers.Dense(1)(inner(outer_in)))
    assert outer(A).shape == (4, 1) and len(outer.weights) == 4
    stacked = ef.Sequential([inner, ef.layers.Dense(1)])
    assert stacked(A).shape == (4, 1)
    assert trackable_paths(outer)["layers/0/layers/0/kernel"] is inner.layers[1].kernel


def test_training_flag_in_the_graph():
    x = ef.layers.Input(shape=(3,))
    always = ef.layers.Dropout(0.5)(x, training=True)
    model = ef.models.Model(x, [ef.layers.Dropout(0.5)(x), always])
    inference, forced = model(np.ones((200, 3), "float32"))
    assert (inference.numpy() == 1).all() and (forced.numpy() == 0).any()
    trained, _ = model(np.ones((200, 3), "float32"), training=True)
    assert (trained.numpy() == 0).any()


def test_config_round_trip_through_json():
    model = two_input_model()
    config = json.loads(json.dumps(model.get_config()))
    clone = ef.models.Model.from_config(config)
    clone.set_weights(model.get_weights())
    for got, want in zip(clone([A, B]), model([A, B]), strict=True):
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)
    assert [layer.name for layer in clone.layers] == [layer.name for layer in model.layers]
    text = model.to_json()
    assert isinstance(ef.models.model_from_json(text), ef.models.Functional)


def test_config_with_masks_states_and_kwargs():
    tokens = ef.layers.Input(shape=(None,), dtype="int32", name="tokens")
    embedded = ef.layers.Embedding(10, 3, mask_zero=True)(tokens)
    sequence, h, c = ef.layers.LSTM(4, return_sequences=True, return_state=True)(embedded)
    second = ef.layers.LSTM(4)(sequence, initial_state=[h, c])
    model = ef.models.Model(tokens, second)
    ids = np.array([[1, 2, 0], [3, 0, 0]])
    clone = ef.models.Model.from_config(json.loads(json.dumps(model.get_config())))
    clone.set_weights(model.get_weights())
    np.testing.assert_allclose(clone(ids).numpy(), model(ids).numpy(), rtol=1e-6)
    bad = model.get_config()
    bad["layers"][-1]["inbound_nodes"][0]["args"][0] = {"__tensor__": ["missing", 0, 0]}
    with pytest.raises(ValueError, match="refer to tensors no layer produces"):
        ef.models.Model.from_config(bad)


def test_layer_order_is_keras_s_for_dict_inputs_and_outputs():
    # Keras 3.15's model.layers for these graphs (by depth, then first reached from the
    # outputs), so set_weights(keras_model.get_weights()) fills the same layers.
    a = ef.Input((3,), name="zeta")
    b = ef.Input((3,), name="alpha")
    c = ef.Input((2,), name="mid")
    da = ef.layers.Dense(4, name="d_zeta")(a)
    db = ef.layers.Dense(4, name="d_alpha")(b)
    dc = ef.layers.Dense(4, name="d_mid")(c)
    out = ef.layers.Dense(1, name="out")(ef.layers.Concatenate(name="cat")([db, da, dc]))
    model = ef.Model({"zeta": a, "alpha": b, "mid": c}, out)
    assert [layer.name for layer in model.layers] == [
        "alpha", "zeta", "mid", "d_alpha", "d_zeta", "d_mid", "cat", "out"]
    assert [t.name for t in model.inputs] == ["alpha", "mid", "zeta"]
    two = ef.Model(inputs={"zeta": a, "alpha": b, "mid": c}, outputs={"o2": out, "o1": da})
    assert [layer.name for layer in two.layers] == [
        "zeta", "alpha", "mid", "d_zeta", "d_alpha", "d_mid", "cat", "out"]
