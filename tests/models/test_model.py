"""Subclassed models: owned sublayers, get_layer, build, nesting, configs."""

import numpy as np
import pytest

import eagerflow as ef
from eagerflow.layers import layer_info
from tests.layers.layer_contract import trackable_paths


class MNISTModel(ef.Model):
    """The eager guide's model: dense2 is used twice, so it has 4 variables."""

    def __init__(self):
        super().__init__()
        self.dense1 = ef.layers.Dense(units=10)
        self.dense2 = ef.layers.Dense(units=10)

    def call(self, inputs):
        result = self.dense1(inputs)
        result = self.dense2(result)
        return self.dense2(result)


def test_mnist_model_has_four_variables():
    model = MNISTModel()
    result = model(ef.zeros([1, 1, 784]))
    assert result.shape == (1, 1, 10)
    assert len(model.variables) == 4
    assert [v.name for v in model.trainable_variables] == [
        "dense/kernel", "dense/bias", "dense_1/kernel", "dense_1/bias"]
    assert sorted(trackable_paths(model)) == ["dense1/bias", "dense1/kernel", "dense2/bias",
                                              "dense2/kernel"]
    assert model.name == "mnist_model"


def test_layers_and_get_layer():
    model = MNISTModel()
    assert [layer.name for layer in model.layers] == ["dense", "dense_1"]
    assert model.get_layer("dense_1") is model.dense2
    assert model.get_layer(index=-1) is model.dense2
    with pytest.raises(ValueError, match=r"No such layer: 'head'. Existing layers of model "
                                         r"'mnist_model' are: \['dense', 'dense_1'\]"):
        model.get_layer("head")
    with pytest.raises(ValueError, match="only has 2 layers"):
        model.get_layer(index=5)
    with pytest.raises(ValueError, match="exactly one of `name` or `index`"):
        model.get_layer()


def test_build_creates_every_weight_and_records_shapes():
    model = MNISTModel()
    model.build((None, 784))
    assert model.built and model.count_params() == 784 * 10 + 10 + 110
    record = {(layer.name, out) for layer, _, out in layer_info.call_shapes(model)}
    assert ("dense_1", (None, 10)) in record
    assert model.dense1.built and model.dense2.built


def test_models_nest_and_train_together():
    inner = MNISTModel()

    class Outer(ef.Model):
        def __init__(self):
            super().__init__()
            self.body = inner
            self.head = ef.layers.Dense(2)

        def call(self, x, training=None):
            return self.head(self.body(x))

    outer = Outer()
    x = ef.ones([3, 5])
    with ef.GradientTape() as tape:
        loss = ef.reduce_sum(outer(x, training=True))
    grads = tape.gradient(loss, outer.trainable_variables)
    assert len(grads) == 6 and all(g is not None for g in grads)
    assert "body/dense2/kernel" in trackable_paths(outer)


def test_subclass_config_round_trip_and_functional_args_refused():
    class Configurable(ef.Model):
        def __init__(self, units=3, **kwargs):
            super().__init__(**kwargs)
            self.units = units
            self.dense = ef.layers.Dense(units)

        def call(self, x):
            return self.dense(x)

    model = Configurable(units=5, name="configurable_net")
    clone = Configurable.from_config(model.get_config())
    assert clone.units == 5 and clone.name == "configurable_net"

    class BuiltInInit(ef.Model):  # functional from its own __init__, as Keras allows
        def __init__(self):
            x = ef.layers.Input(shape=(2,))
            super().__init__(x, ef.layers.Dense(1)(x))

    built = BuiltInInit()
    assert isinstance(built, BuiltInInit) and built(ef.ones([3, 2])).shape == (3, 1)

    class Wrong(ef.Model):
        def __init__(self):
            x = ef.layers.Input(shape=(2,))
            super().__init__(x, ef.layers.Dense(1)(x))

        def call(self, x):
            return x

    with pytest.raises(TypeError, match="defines its own call"):
        Wrong()


def test_to_json_and_model_from_json():
    model = ef.Sequential([ef.layers.Dense(3, input_shape=(2,), activation="relu"),
                           ef.layers.Dense(1)])
    clone = ef.models.model_from_json(model.to_json())
    clone.set_weights(model.get_weights())
    x = np.ones((2, 2), "float32")
    np.testing.assert_allclose(clone(x).numpy(), model(x).numpy())
    assert isinstance(ef.models.model_from_config(ef.layers.serialize(model)), ef.Sequential)


def test_top_level_names():
    assert ef.Model is ef.models.Model and ef.Sequential is ef.models.Sequential
    for name in ("layers", "models", "Model", "Sequential", "initializers", "regularizers",
                 "constraints", "activations"):
        assert name in ef.__all__ and hasattr(ef, name)
