"""Layer configs: serialize/deserialize and custom objects."""

import json

import pytest

import eagerflow as ef


def test_every_builtin_layer_config_is_json():
    layers = [ef.layers.Dense(2), ef.layers.Conv2D(2, 3), ef.layers.LSTM(2),
              ef.layers.Bidirectional(ef.layers.GRU(2)), ef.layers.BatchNormalization(),
              ef.layers.Embedding(3, 2), ef.layers.Dropout(0.1), ef.layers.MaxPooling2D(),
              ef.layers.Concatenate(), ef.layers.Reshape((2,)), ef.layers.LayerNormalization()]
    for layer in layers:
        text = json.dumps(ef.layers.serialize(layer))
        clone = ef.layers.deserialize(json.loads(text))
        assert type(clone) is type(layer)
        assert json.loads(json.dumps(clone.get_config())) == json.loads(
            json.dumps(layer.get_config()))


def test_custom_objects_and_errors():
    class Unregistered(ef.layers.Layer):
        def call(self, x):
            return x

    config = {"class_name": "NotALayer", "config": {}}
    with pytest.raises(ValueError, match="Unknown layer class 'NotALayer'.*custom_objects"):
        ef.layers.deserialize(config)
    assert isinstance(ef.layers.deserialize(config, {"NotALayer": Unregistered}), Unregistered)
    with pytest.raises(ValueError, match="deserialize expects {'class_name'"):
        ef.layers.deserialize([1])
