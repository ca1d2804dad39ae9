"""save_weights / load_weights / save / load_model through the checkpoint module."""

import json

import numpy as np
import pytest

import eagerflow as ef

from .helpers import classification_data, compiled_mlp, mlp, weights_of


def test_save_and_load_weights(tmp_path):
    x, y = classification_data(16)
    model = compiled_mlp()
    model.fit(x, y, verbose=0)
    path = model.save_weights(tmp_path / "w.h5")
    clone = mlp()
    status = clone.load_weights(path)
    assert "matched" in str(status) or status.matched
    np.testing.assert_array_equal(clone.predict(x, verbose=0), model.predict(x, verbose=0))
    with pytest.raises(FileExistsError, match=r"exists and overwrite=False"):
        model.save_weights(path, overwrite=False)
    with pytest.raises(FileExistsError, match=r"save: .* exists and overwrite=False"):
        model.save(path, overwrite=False)


def test_saved_model_continues_training_identically(tmp_path):
    ef.random.set_seed(3)
    x, y = classification_data(32)
    model = compiled_mlp(optimizer=ef.optim.Adam(0.01), metrics=["accuracy", "ce"])
    model.fit(x, y, epochs=2, batch_size=8, verbose=0)
    path = model.save(tmp_path / "model.h5")
    restored = ef.models.load_model(path)
    assert restored.compiled and restored.optimizer.name == "adam"
    assert int(restored.optimizer.iterations) == 8
    ef.random.set_seed(9)
    model.fit(x, y, epochs=1, batch_size=8, verbose=0)
    ef.random.set_seed(9)
    history = restored.fit(x, y, epochs=1, batch_size=8, verbose=0)
    assert list(history.history) == ["loss", "accuracy", "ce"]
    # The restored model's first step is its traced run (NumPy kernels); the original's
    # runs the compiled plan, where elementwise fusion (numba kernel set) may round
    # exp/pow/tanh differently in the last bit. Restored state shows as far larger errors.
    for actual, expected in zip(weights_of(restored), weights_of(model), strict=True):
        np.testing.assert_allclose(actual, expected, rtol=1e-5, atol=1e-7)


def test_compile_config_is_json_and_round_trips():
    model = mlp()
    assert model.get_compile_config() is None
    model.compile(optimizer=ef.optim.SGD(0.5, momentum=0.9),
                  loss=ef.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy", ef.metrics.SparseCategoricalAccuracy(name="sca")],
                  weighted_metrics=["accuracy"], steps_per_execution=2)
    config = json.loads(json.dumps(model.get_compile_config()))
    clone = mlp()
    clone.compile_from_config(config)
    assert clone.optimizer.get_config() == model.optimizer.get_config()
    assert clone._compile_arguments["loss"].from_logits
    assert clone._steps_per_execution == 2
    x, y = classification_data(8)
    assert list(clone.evaluate(x, y, verbose=0, return_dict=True)) == [
        "loss", "accuracy", "sca", "weighted_accuracy"]


def _halved_mse(y_true, y_pred):
    return ef.reduce_mean(ef.square(y_true - y_pred), axis=-1) / 2


def test_custom_loss_function_needs_custom_objects(tmp_path):
    model = ef.Sequential([ef.layers.Dense(1, input_shape=(2,), name="out")])
    model.compile(optimizer="sgd", loss=_halved_mse)
    path = model.save(tmp_path / "m.h5")
    with pytest.raises(ValueError, match=r"compiled with the loss function '_halved_mse'; "
                                         r"pass custom_objects"):
        ef.models.load_model(path)
    restored = ef.models.load_model(path, custom_objects={"_halved_mse": _halved_mse})
    assert restored._compile_arguments["loss"] is _halved_mse
    uncompiled = ef.models.load_model(path, compile=False)
    assert not uncompiled.compiled


def test_compile_config_of_unsaveable_arguments():
    from eagerflow.saving import compile_config

    with pytest.raises(TypeError, match=r"cannot be saved with the model"):
        compile_config.serialize_spec([object()])


def test_a_metric_and_a_loss_of_the_same_class_name_come_back_as_what_they_were(tmp_path):
    model = ef.Sequential([ef.layers.Dense(1, input_shape=(2,))])
    model.compile("sgd", loss=ef.losses.MeanSquaredError(),
                  metrics=[ef.metrics.MeanSquaredError(name="m")])
    model.fit(np.ones((4, 2)), np.ones((4, 1)), verbose=0)
    model.save(tmp_path / "m.h5")
    arguments = ef.models.load_model(tmp_path / "m.h5")._compile_arguments
    assert isinstance(arguments["loss"], ef.losses.MeanSquaredError)
    assert isinstance(arguments["metrics"][0], ef.metrics.MeanSquaredError)
    assert arguments["metrics"][0].name == "m"
