import numpy as np
import pytest

import eagerflow as ef


def test_functions_lists_and_plain_values_round_trip():
    @ef.saving.register_keras_serializable(package="tests")
    def halve(x):
        return x / 2

    config = ef.saving.serialize_keras_object(["accuracy", halve, None, 3])
    # Keras 3.15 writes a registered function in this form
    assert config[1] == {"module": "builtins", "class_name": "function",
                         "config": "tests>halve", "registered_name": "function"}
    assert ef.saving.deserialize_keras_object(config) == ["accuracy", halve, None, 3]
    assert ef.saving.deserialize_keras_object("SGD") == "SGD"  # as Keras: left to compile
    assert ef.utils.deserialize_keras_object is ef.saving.deserialize_keras_object


def test_an_unknown_function_is_refused():
    config = {"module": "builtins", "class_name": "function", "config": "nowhere>fn",
              "registered_name": "function"}
    with pytest.raises(ef.errors.InvalidArgumentError, match="Unknown function 'nowhere>fn'"):
        ef.saving.deserialize_keras_object(config)


def test_a_built_layer_carries_its_build_config():
    layer = ef.layers.Dense(2)
    layer.build((None, 3))
    config = ef.layers.serialize(layer)
    assert config["build_config"] == {"input_shape": (None, 3)}
    assert config["module"] == "eagerflow.layers.core" and config["registered_name"] is None
    rebuilt = ef.layers.deserialize(config)
    assert rebuilt.built and rebuilt.kernel.shape == (3, 2)


def test_clone_model_rebuilds_from_the_config_with_fresh_weights():
    model = ef.Sequential([ef.Input((3,)), ef.layers.Dense(2)])
    clone = ef.models.clone_model(model)
    clone.set_weights(model.get_weights())
    x = np.ones((1, 3), "float32")
    np.testing.assert_array_equal(clone(x).numpy(), model(x).numpy())
    with pytest.raises(TypeError, match="clone_model expects a model.*Received: int"):
        ef.models.clone_model(3)
