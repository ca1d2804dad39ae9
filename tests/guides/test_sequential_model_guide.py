"""Keras guide "The Sequential model", ported section by section with `tf.`/`keras.`
turned into `ef.` (image sizes kept; the runs are single forward passes)."""

import numpy as np
import pytest

import eagerflow as ef
from eagerflow import layers


def _summary(model) -> str:
    lines = []
    model.summary(print_fn=lines.append)
    return "\n".join(lines)


def test_when_to_use_a_sequential_model():
    model = ef.Sequential(
        [
            layers.Dense(2, activation="relu", name="layer1"),
            layers.Dense(3, activation="relu", name="layer2"),
            layers.Dense(4, name="layer3"),
        ]
    )
    x = ef.ones((3, 3))
    y = model(x)
    layer1, layer2, layer3 = model.layers
    np.testing.assert_allclose(y.numpy(), layer3(layer2(layer1(x))).numpy(), rtol=1e-6)


def test_creating_a_sequential_model(capsys):
    model = ef.Sequential([layers.Dense(2, activation="relu"),
                           layers.Dense(3, activation="relu"), layers.Dense(4)])
    assert len(model.layers) == 3
    model = ef.Sequential()
    model.add(layers.Dense(2, activation="relu"))
    model.add(layers.Dense(3, activation="relu"))
    model.add(layers.Dense(4))
    model.pop()
    print(len(model.layers))  # 2
    assert capsys.readouterr().out == "2\n"
    model = ef.Sequential(name="my_sequential")
    model.add(layers.Dense(2, activation="relu", name="layer1"))
    model.add(layers.Dense(3, activation="relu", name="layer2"))
    model.add(layers.Dense(4, name="layer3"))
    assert model.name == "my_sequential"
    assert [layer.name for layer in model.layers] == ["layer1", "layer2", "layer3"]


def test_specifying_the_input_shape_in_advance():
    layer = layers.Dense(3)
    assert layer.weights == []
    x = ef.ones((1, 4))
    layer(x)
    assert [w.shape for w in layer.weights] == [(4, 3), (3,)]

    model = ef.Sequential([layers.Dense(2, activation="relu"),
                           layers.Dense(3, activation="relu"), layers.Dense(4)])
    with pytest.raises(ValueError, match="(?i)not.*built|no weights"):
        model.summary()
    y = model(ef.ones((1, 4)))
    assert y.shape == (1, 4)
    assert len(model.weights) == 6
    assert "Total params: 35" in _summary(model)

    model = ef.Sequential()
    model.add(ef.Input(shape=(4,)))
    model.add(layers.Dense(2, activation="relu"))
    assert "(None, 2)" in _summary(model)
    assert len(model.layers) == 1  # the Input is not a layer

    model = ef.Sequential()
    model.add(layers.Dense(2, activation="relu", input_shape=(4,)))
    assert "(None, 2)" in _summary(model)
    assert len(model.weights) == 2


def test_a_common_debugging_workflow_add_and_summary():
    model = ef.Sequential()
    model.add(ef.Input(shape=(250, 250, 3)))
    model.add(layers.Conv2D(32, 5, strides=2, activation="relu"))
    model.add(layers.Conv2D(32, 3, activation="relu"))
    model.add(layers.MaxPooling2D(3))
    assert "(None, 40, 40, 32)" in _summary(model)
    model.add(layers.Conv2D(32, 3, activation="relu"))
    model.add(layers.Conv2D(32, 3, activation="relu"))
    model.add(layers.MaxPooling2D(3))
    model.add(layers.Conv2D(32, 3, activation="relu"))
    model.add(layers.Conv2D(32, 3, activation="relu"))
    model.add(layers.MaxPooling2D(2))
    assert "(None, 4, 4, 32)" in _summary(model)
    model.add(layers.GlobalMaxPooling2D())
    model.add(layers.Dense(10))
    assert model.output_shape == (None, 10)


def test_feature_extraction_with_a_sequential_model():
    initial_model = ef.Sequential(
        [
            ef.Input(shape=(250, 250, 3)),
            layers.Conv2D(4, 5, strides=2, activation="relu"),
            layers.Conv2D(4, 3, activation="relu"),
            layers.Conv2D(4, 3, activation="relu"),
        ]
    )
    feature_extractor = ef.Model(
        inputs=initial_model.inputs,
        outputs=[layer.output for layer in initial_model.layers],
    )
    x = ef.ones((1, 250, 250, 3))
    features = feature_extractor(x)
    assert [f.shape for f in features] == [(1, 123, 123, 4), (1, 121, 121, 4),
                                           (1, 119, 119, 4)]
    np.testing.assert_allclose(features[-1].numpy(), initial_model(x).numpy(), rtol=1e-5)

    initial_model = ef.Sequential(
        [
            ef.Input(shape=(250, 250, 3)),
            layers.Conv2D(4, 5, strides=2, activation="relu"),
            layers.Conv2D(4, 3, activation="relu", name="my_intermediate_layer"),
            layers.Conv2D(4, 3, activation="relu"),
        ]
    )
    feature_extractor = ef.Model(
        inputs=initial_model.inputs,
        outputs=initial_model.get_layer(name="my_intermediate_layer").output,
    )
    features = feature_extractor(x)
    assert features.shape == (1, 121, 121, 4)


def test_transfer_learning_with_a_sequential_model(tmp_path):
    model = ef.Sequential([
        ef.Input(shape=(16,)),
        layers.Dense(8, activation="relu"),
        layers.Dense(8, activation="relu"),
        layers.Dense(8, activation="relu"),
        layers.Dense(3),
    ])
    path = str(tmp_path / "pretrained.weights.h5")
    model.save_weights(path)
    model.load_weights(path)
    for layer in model.layers[:-1]:
        layer.trainable = False
    model.compile(optimizer="adam", loss="mse")
    frozen = [w.numpy() for layer in model.layers[:-1] for w in layer.weights]
    x, y = np.random.random((32, 16)), np.random.random((32, 3))
    model.fit(x, y, epochs=2, verbose=0)
    after = [w.numpy() for layer in model.layers[:-1] for w in layer.weights]
    for b, a in zip(frozen, after, strict=True):
        np.testing.assert_array_equal(a, b)

    base_model = ef.Sequential([ef.Input(shape=(16,)), layers.Dense(8)], name="base")
    base_model.trainable = False
    model = ef.Sequential([base_model, layers.Dense(4)])
    model.compile(optimizer="adam", loss="mse")
    model.fit(x, np.random.random((32, 4)), verbose=0)
    assert len(model.trainable_weights) == 2
