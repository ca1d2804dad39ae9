"""Keras guide "Save, serialize, and export models", ported section by section with
`keras.` turned into `ef.` (`.h5` where the guide writes `.keras`: eagerflow saves whole
models as one HDF5 file; `ops.matmul` is `ef.matmul`; 64 features instead of 784)."""

import json

import numpy as np
import pytest

import eagerflow as ef

_registered = []


@pytest.fixture(autouse=True)
def _restore_registry():
    saved = dict(ef.saving.get_custom_objects())
    yield
    ef.saving.get_custom_objects().clear()
    ef.saving.get_custom_objects().update(saved)


def _simple_model():
    inputs = ef.Input(shape=(32,))
    outputs = ef.layers.Dense(1)(inputs)
    model = ef.Model(inputs, outputs)
    model.compile(optimizer=ef.optimizers.Adam(), loss="mean_squared_error")
    return model


def test_saving(tmp_path):
    model = _simple_model()
    test_input = np.random.random((128, 32))
    test_target = np.random.random((128, 1))
    model.fit(test_input, test_target, verbose=0)
    model.save(tmp_path / "my_model.h5")
    reconstructed_model = ef.models.load_model(tmp_path / "my_model.h5")
    np.testing.assert_allclose(model.predict(test_input, verbose=0),
                               reconstructed_model.predict(test_input, verbose=0))
    # the optimizer state came back too: one more step gives the same weights
    model.fit(test_input, test_target, verbose=0, shuffle=False)
    reconstructed_model.fit(test_input, test_target, verbose=0, shuffle=False)
    for a, b in zip(model.weights, reconstructed_model.weights, strict=True):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-6)
    with pytest.raises(ef.errors.InvalidArgumentError, match=r"\.keras format.*Use a \.h5"):
        model.save(tmp_path / "my_model.keras")


def _define_custom_objects():
    ef.saving.get_custom_objects().clear()

    @ef.saving.register_keras_serializable(package="MyLayers")
    class CustomLayer(ef.layers.Layer):
        def __init__(self, factor):
            super().__init__()
            self.factor = factor

        def call(self, x):
            return x * self.factor

        def get_config(self):
            return {"factor": self.factor}

    @ef.saving.register_keras_serializable(package="my_package", name="custom_fn")
    def custom_fn(x):
        return x**2

    def get_model():
        inputs = ef.Input(shape=(4,))
        mid = CustomLayer(0.5)(inputs)
        outputs = ef.layers.Dense(1, activation=custom_fn)(mid)
        model = ef.Model(inputs, outputs)
        model.compile(optimizer="rmsprop", loss="mean_squared_error")
        return model

    def train_model(model):
        input = np.random.random((4, 4))
        target = np.random.random((4, 1))
        model.fit(input, target, verbose=0)
        return model

    return CustomLayer, custom_fn, get_model, train_model


def test_custom_objects_registering(tmp_path):
    CustomLayer, custom_fn, get_model, train_model = _define_custom_objects()
    assert ef.saving.get_custom_objects() == {"MyLayers>CustomLayer": CustomLayer,
                                              "my_package>custom_fn": custom_fn}
    test_input = np.random.random((4, 4))
    model = train_model(get_model())
    model.save(tmp_path / "custom_model.h5")
    reconstructed_model = ef.models.load_model(tmp_path / "custom_model.h5")
    np.testing.assert_allclose(model.predict(test_input, verbose=0),
                               reconstructed_model.predict(test_input, verbose=0))
    assert type(reconstructed_model.layers[1]) is CustomLayer
    assert reconstructed_model.layers[2].activation is custom_fn


def test_custom_objects_passed_to_load_model(tmp_path):
    CustomLayer, custom_fn, get_model, train_model = _define_custom_objects()
    test_input = np.random.random((4, 4))
    model = train_model(get_model())
    model.save(tmp_path / "custom_model.h5")
    ef.saving.get_custom_objects().clear()  # only custom_objects can find them now
    with pytest.raises(ef.errors.InvalidArgumentError, match="Unknown .*custom_fn"):
        ef.models.load_model(tmp_path / "custom_model.h5")
    reconstructed_model = ef.models.load_model(
        tmp_path / "custom_model.h5",
        custom_objects={"CustomLayer": CustomLayer, "custom_fn": custom_fn},
    )
    np.testing.assert_allclose(model.predict(test_input, verbose=0),
                               reconstructed_model.predict(test_input, verbose=0))


def test_custom_objects_scope(tmp_path):
    CustomLayer, custom_fn, get_model, train_model = _define_custom_objects()
    test_input = np.random.random((4, 4))
    model = train_model(get_model())
    model.save(tmp_path / "custom_model.h5")
    ef.saving.get_custom_objects().clear()
    custom_objects = {"CustomLayer": CustomLayer, "custom_fn": custom_fn}
    with ef.saving.custom_object_scope(custom_objects):
        reconstructed_model = ef.models.load_model(tmp_path / "custom_model.h5")
    np.testing.assert_allclose(model.predict(test_input, verbose=0),
                               reconstructed_model.predict(test_input, verbose=0))


def test_in_memory_model_cloning():
    model = _simple_model()
    model.fit(np.random.random((8, 32)), np.random.random((8, 1)), verbose=0)
    new_model = ef.models.clone_model(model)
    assert new_model is not model and new_model.get_config() == model.get_config()
    assert [type(layer) for layer in new_model.layers] == [type(layer)
                                                           for layer in model.layers]
    assert all(a is not b for a, b in zip(new_model.weights, model.weights, strict=True))
    assert new_model.optimizer is None  # compile information is not copied
    assert not np.array_equal(new_model.weights[0].numpy(), model.weights[0].numpy())


def test_get_config_and_from_config():
    layer = ef.layers.Dense(3, activation="relu")
    layer_config = layer.get_config()
    assert layer_config["units"] == 3 and layer_config["activation"] == "relu"
    new_layer = ef.layers.Dense.from_config(layer_config)
    assert new_layer.get_config() == layer_config

    model = ef.Sequential([ef.Input((32,)), ef.layers.Dense(1)])
    config = model.get_config()
    new_model = ef.Sequential.from_config(config)
    assert new_model.get_config() == config and new_model.built

    inputs = ef.Input((32,))
    outputs = ef.layers.Dense(1)(inputs)
    model = ef.Model(inputs, outputs)
    config = model.get_config()
    new_model = ef.Model.from_config(config)
    assert new_model.get_config() == config
    assert new_model(np.ones((2, 32))).shape == (2, 1)


def test_to_json_and_model_from_json():
    model = ef.Sequential([ef.Input((32,)), ef.layers.Dense(1)])
    json_config = model.to_json()
    assert json.loads(json_config)["class_name"] == "Sequential"
    new_model = ef.models.model_from_json(json_config)
    assert new_model.to_json() == json_config


def test_arbitrary_object_serialization():
    my_reg = ef.regularizers.L1(0.005)
    config = ef.saving.serialize_keras_object(my_reg)
    assert config["class_name"] == "L1" and config["module"].startswith("eagerflow.")
    assert config["registered_name"] is None
    np.testing.assert_allclose(config["config"]["l1"], 0.005)
    new_reg = ef.saving.deserialize_keras_object(config)
    assert type(new_reg) is ef.regularizers.L1
    np.testing.assert_allclose(float(new_reg(ef.ones((2, 2)))), 0.02, rtol=1e-6)


def _functional_mlp():
    inputs = ef.Input(shape=(64,), name="digits")
    x = ef.layers.Dense(64, activation="relu", name="dense_1")(inputs)
    x = ef.layers.Dense(64, activation="relu", name="dense_2")(x)
    outputs = ef.layers.Dense(10, name="predictions")(x)
    return ef.Model(inputs=inputs, outputs=outputs, name="3_layer_mlp")


def test_in_memory_weight_transfer():
    def create_layer():
        layer = ef.layers.Dense(64, activation="relu", name="dense_2")
        layer.build((None, 64))
        return layer

    layer_1 = create_layer()
    layer_2 = create_layer()
    layer_2.set_weights(layer_1.get_weights())
    for a, b in zip(layer_1.weights, layer_2.weights, strict=True):
        np.testing.assert_array_equal(a.numpy(), b.numpy())

    functional_model = _functional_mlp()

    class SubclassedModel(ef.Model):
        def __init__(self, output_dim, name=None):
            super().__init__(name=name)
            self.output_dim = output_dim
            self.dense_1 = ef.layers.Dense(64, activation="relu", name="dense_1")
            self.dense_2 = ef.layers.Dense(64, activation="relu", name="dense_2")
            self.dense_3 = ef.layers.Dense(output_dim, name="predictions")

        def call(self, inputs):
            x = self.dense_1(inputs)
            x = self.dense_2(x)
            x = self.dense_3(x)
            return x

        def get_config(self):
            return {"output_dim": self.output_dim, "name": self.name}

    subclassed_model = SubclassedModel(10)
    subclassed_model(np.ones((1, 64)))
    subclassed_model.set_weights(functional_model.get_weights())
    assert len(functional_model.weights) == len(subclassed_model.weights)
    for a, b in zip(functional_model.weights, subclassed_model.weights, strict=True):
        np.testing.assert_allclose(a.numpy(), b.numpy())
    x = np.random.random((3, 64))
    np.testing.assert_allclose(subclassed_model(x).numpy(), functional_model(x).numpy(),
                               rtol=1e-6)

    # the case of stateless layers
    functional_model = _functional_mlp()
    inputs = ef.Input(shape=(64,), name="digits")
    x = ef.layers.Dense(64, activation="relu", name="dense_1")(inputs)
    x = ef.layers.Dense(64, activation="relu", name="dense_2")(x)
    x = ef.layers.Dropout(0.5)(x)
    outputs = ef.layers.Dense(10, name="predictions")(x)
    functional_model_with_dropout = ef.Model(inputs=inputs, outputs=outputs,
                                             name="3_layer_mlp")
    functional_model_with_dropout.set_weights(functional_model.get_weights())
    x = np.random.random((3, 64))
    np.testing.assert_allclose(functional_model_with_dropout.predict(x, verbose=0),
                               functional_model.predict(x, verbose=0), rtol=1e-6)


def test_saving_weights_to_disk(tmp_path):
    sequential_model = ef.Sequential([
        ef.Input(shape=(64,), name="digits"),
        ef.layers.Dense(64, activation="relu", name="dense_1"),
        ef.layers.Dense(64, activation="relu", name="dense_2"),
        ef.layers.Dense(10, name="predictions"),
    ])
    saved = [w.numpy() for w in sequential_model.weights]
    sequential_model.save_weights(tmp_path / "my_model.weights.h5")
    for w in sequential_model.weights:
        w.assign(np.zeros(w.shape))
    sequential_model.load_weights(tmp_path / "my_model.weights.h5")
    for w, value in zip(sequential_model.weights, saved, strict=True):
        np.testing.assert_array_equal(w.numpy(), value)

    class NestedDenseLayer(ef.layers.Layer):
        def __init__(self, units, name=None):
            super().__init__(name=name)
            self.dense_1 = ef.layers.Dense(units, name="dense_1")
            self.dense_2 = ef.layers.Dense(units, name="dense_2")

        def call(self, inputs):
            return self.dense_2(self.dense_1(inputs))

    nested_model = ef.Sequential([ef.Input((64,)), NestedDenseLayer(10, "nested")])
    variable_names = [v.name for v in nested_model.weights]
    nested_model.get_layer("nested").dense_1.trainable = False
    variable_names_2 = [v.name for v in nested_model.weights]
    # Keras 3.15 prints "variable ordering changed: False" here, and so does eagerflow
    assert variable_names == variable_names_2
    assert nested_model.weights[0] is nested_model.get_layer("nested").dense_1.kernel


def test_transfer_learning(tmp_path):
    functional_model = _functional_mlp()
    functional_model.save_weights(tmp_path / "pretrained.weights.h5")
    pretrained_model = _functional_mlp()
    pretrained_model.load_weights(tmp_path / "pretrained.weights.h5")
    for a, b in zip(functional_model.weights, pretrained_model.weights, strict=True):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    extracted_layers = pretrained_model.layers[:-1]
    extracted_layers.append(ef.layers.Dense(5, name="dense_3"))
    model = ef.Sequential(extracted_layers)
    lines = []
    model.summary(print_fn=lines.append)
    assert any("Total params: 8,645" in line for line in lines), lines
    assert model.layers[0] is pretrained_model.layers[1]


def _define_my_dense():
    @ef.saving.register_keras_serializable(package="MyLayers", name="KernelMult")
    class MyDense(ef.layers.Layer):
        def __init__(self, units, *, kernel_regularizer=None, kernel_initializer=None,
                     nested_model=None, **kwargs):
            super().__init__(**kwargs)
            self.hidden_units = units
            self.kernel_regularizer = kernel_regularizer
            self.kernel_initializer = kernel_initializer
            self.nested_model = nested_model

        def get_config(self):
            config = super().get_config()
            config.update({
                "units": self.hidden_units,
                "kernel_regularizer": self.kernel_regularizer,
                "kernel_initializer": self.kernel_initializer,
                "nested_model": self.nested_model,
            })
            return config

        def build(self, input_shape):
            input_units = input_shape[-1]
            self.kernel = self.add_weight(
                name="kernel",
                shape=(input_units, self.hidden_units),
                regularizer=self.kernel_regularizer,
                initializer=self.kernel_initializer,
            )

        def call(self, inputs):
            return ef.matmul(inputs, self.kernel)

    return MyDense


def test_defining_the_config_methods():
    MyDense = _define_my_dense()
    layer = MyDense(units=16, kernel_regularizer="l1", kernel_initializer="ones")
    layer3 = MyDense(units=64, nested_model=layer)
    config = ef.layers.serialize(layer3)
    assert config["registered_name"] == "MyLayers>KernelMult"
    assert config["config"]["nested_model"]["config"]["units"] == 16
    new_layer = ef.layers.deserialize(config)
    assert type(new_layer) is MyDense and new_layer.hidden_units == 64

    @ef.saving.register_keras_serializable(package="ComplexModels")
    class CustomModel(ef.layers.Layer):
        def __init__(self, first_layer, second_layer=None, **kwargs):
            super().__init__(**kwargs)
            self.first_layer = first_layer
            if second_layer is not None:
                self.second_layer = second_layer
            else:
                self.second_layer = ef.layers.Dense(8)

        def get_config(self):
            config = super().get_config()
            config.update({"first_layer": self.first_layer,
                           "second_layer": self.second_layer})
            return config

        @classmethod
        def from_config(cls, config):
            config["first_layer"] = ef.layers.deserialize(config["first_layer"])
            config["second_layer"] = ef.layers.deserialize(config["second_layer"])
            return cls(**config)

        def call(self, inputs):
            return self.first_layer(self.second_layer(inputs))

    inputs = ef.Input((32,))
    outputs = CustomModel(first_layer=layer)(inputs)
    model = ef.Model(inputs, outputs)
    config = model.get_config()
    new_model = ef.Model.from_config(config)
    restored = new_model.layers[1]
    assert type(restored) is CustomModel and type(restored.first_layer) is MyDense
    assert restored.first_layer.hidden_units == 16
    assert type(restored.second_layer) is ef.layers.Dense
    x = np.random.random((2, 32))
    new_model.set_weights(model.get_weights())
    np.testing.assert_allclose(new_model(x).numpy(), model(x).numpy(), rtol=1e-6)


def test_how_custom_objects_are_serialized():
    MyDense = _define_my_dense()
    layer = MyDense(units=16, kernel_regularizer=ef.regularizers.L1L2(l1=1e-5, l2=1e-4),
                    kernel_initializer="ones")
    config = ef.layers.serialize(layer)
    assert config["module"] is None and config["class_name"] == "MyDense"
    assert config["registered_name"] == "MyLayers>KernelMult"
    regularizer = config["config"]["kernel_regularizer"]
    assert regularizer["class_name"] == "L1L2"
    assert type(ef.layers.deserialize(config)) is MyDense
