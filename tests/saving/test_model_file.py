"""Weights files and whole-model files (what Model.save_weights/load_weights/save and
ef.models.load_model call)."""

import json

import h5py
import numpy as np
import pytest

import eagerflow as ef
from eagerflow.core.errors import EagerflowWarning
from eagerflow.core.trackable import Trackable
from eagerflow.saving import h5format, model_file, registry
from tests.saving import fakes


@registry.register_serializable(name="ModelIOTestDense")
class Dense(fakes.Dense):
    def get_config(self):
        return {"units": self.units, "seed": self.seed}


@registry.register_serializable(name="ModelIOTestMomentum")
class Momentum(fakes.Momentum):
    def get_config(self):
        return {"learning_rate": self.learning_rate, "momentum": np.float32(self.momentum)}


@registry.register_serializable(name="ModelIOTestSequential")
class Sequential(fakes.Sequential):
    """A model with config, build config and compile config (optimizer as an attribute)."""

    def __init__(self, layers, input_dim=None):
        super().__init__(layers)
        self.input_dim = input_dim

    def __call__(self, x):
        self.input_dim = x.shape[-1]
        return super().__call__(x)

    def get_config(self):
        return {"layers": [registry.serialize(layer) for layer in self.layers]}

    @classmethod
    def from_config(cls, config):
        return cls([registry.deserialize(c) for c in config["layers"]])

    def get_build_config(self):
        return {"input_dim": self.input_dim} if self.input_dim else None

    def build_from_config(self, config):
        self(ef.zeros((1, config["input_dim"])))

    def compile(self, optimizer):
        self.optimizer = optimizer

    def get_compile_config(self):
        optimizer = getattr(self, "optimizer", None)
        return {"optimizer": registry.serialize(optimizer)} if optimizer else None

    def compile_from_config(self, config):
        self.compile(registry.deserialize(config["optimizer"]))


def make_model(seed=0, compile=True):
    model = Sequential([Dense(5, seed=seed), Dense(3, seed=seed + 1)])
    if compile:
        model.compile(Momentum())
    return model


def fit(model, data):
    fakes.train(model, model.optimizer, fakes.Mean(), data)


# -- weights files ------------------------------------------------------------------------
def test_weights_round_trip_without_optimizer_state(tmp_path):
    model = make_model()
    fit(model, fakes.batches(2))
    path = model_file.save_weights(model, tmp_path / "m.weights.h5")
    with h5py.File(path, "r") as f:
        assert f.attrs["kind"] == b"weights"
        assert sorted(f["model/layers"]) == ["0", "1"]
        assert "optimizer" not in f["model"] and "optimizer" not in f
    fresh = make_model(seed=7)
    fresh(ef.zeros((1, 4)))
    status = model_file.load_weights(fresh, path)
    assert fakes.state(fresh.layers) == fakes.state(model.layers)
    status.assert_consumed()


def test_load_weights_into_an_unbuilt_model_is_deferred(tmp_path):
    model = make_model()
    fit(model, fakes.batches(1))
    path = model_file.save_weights(model, tmp_path / "w.h5")
    fresh = make_model(seed=3)
    status = model_file.load_weights(fresh, path)
    assert len(status.pending) == 4
    fresh(ef.zeros((1, 4)))
    assert fakes.state(fresh.layers) == fakes.state(model.layers)


def test_load_weights_reads_checkpoint_and_model_files(tmp_path):
    model = make_model()
    fit(model, fakes.batches(1))
    ckpt_path = ef.Checkpoint(model=model, optimizer=model.optimizer).save(tmp_path / "c")
    model_path = model_file.save_model(model, tmp_path / "whole.h5")
    for path in (ckpt_path, model_path):
        fresh = make_model(seed=3)
        fresh(ef.zeros((1, 4)))
        model_file.load_weights(fresh, path).assert_existing_objects_matched()
        assert fakes.state(fresh.layers) == fakes.state(model.layers)


def test_load_weights_missing_variables_is_an_error_with_a_table(tmp_path):
    small = Sequential([Dense(5)])
    small(ef.zeros((1, 4)))
    path = model_file.save_weights(small, tmp_path / "small.h5")
    big = make_model(seed=1)
    big(ef.zeros((1, 4)))
    before = big.layers[0].kernel.numpy()
    with pytest.raises(ef.errors.InvalidArgumentError,
                       match=r"(?s)\(nothing was restored\): 2 variable\(s\) have no value in the "
                             r"file: 'model/layers/1/kernel', 'model/layers/1/bias'.*\n"
                             r"! model/layers/1/bias +\(3,\) float32 +-"):
        model_file.load_weights(big, path)
    assert np.array_equal(big.layers[0].kernel.numpy(), before)
    with pytest.warns(EagerflowWarning, match=r"skipped 2 variable\(s\).*'model/layers/1/kernel'"
                      r": no value in the file"):
        status = model_file.load_weights(big, path, skip_mismatch=True)
    assert np.array_equal(big.layers[0].kernel.numpy(), small.layers[0].kernel.numpy())
    assert status.missing == ["model/layers/1/kernel", "model/layers/1/bias"]


def test_load_weights_shape_mismatch(tmp_path):
    model = make_model()
    model(ef.zeros((1, 4)))
    path = model_file.save_weights(model, tmp_path / "w.h5")
    other = Sequential([Dense(6), Dense(3)])
    other(ef.zeros((1, 4)))
    with pytest.raises(ef.errors.InvalidArgumentError,
                       match=r"'model/layers/0/kernel': file has shape \(4, 5\) float32, "
                             r"variable has shape \(4, 6\) float32"):
        model_file.load_weights(other, path)
    with pytest.warns(EagerflowWarning, match=r"skipped 3 variable\(s\)"):
        status = model_file.load_weights(other, path, skip_mismatch=True)
    assert [m.path for m in status.mismatched] == [
        "model/layers/0/kernel", "model/layers/0/bias", "model/layers/1/kernel"]
    assert np.array_equal(other.layers[1].bias.numpy(), model.layers[1].bias.numpy())


def test_load_weights_from_an_unrelated_file(tmp_path):
    path = ef.Checkpoint(net=ef.Variable(1.0)).write(tmp_path / "net.h5")
    model = make_model()
    model(ef.zeros((1, 4)))
    with pytest.raises(ef.errors.InvalidArgumentError,
                       match=r"matches nothing.*in the file: \['net'\]"):
        model_file.load_weights(model, path)


def test_weights_functions_need_a_built_trackable(tmp_path):
    with pytest.raises(ef.errors.InvalidArgumentError, match="has no variables yet"):
        model_file.save_weights(make_model(), tmp_path / "w.h5")
    for function in (model_file.save_weights, model_file.load_weights, model_file.save_model):
        with pytest.raises(ef.errors.InvalidArgumentError, match="expects a model"):
            function([ef.Variable(1.0)], tmp_path / "w.h5")


# -- whole-model files --------------------------------------------------------------------
def test_save_and_load_model_continues_training_exactly(tmp_path):
    data = fakes.batches(6, seed=5)
    straight = make_model()
    fit(straight, data)

    first = make_model()
    fit(first, data[:3])
    path = model_file.save_model(first, tmp_path / "model.h5")
    loaded = model_file.load_model(path)
    assert isinstance(loaded, Sequential) and isinstance(loaded.optimizer, Momentum)
    assert loaded.optimizer.momentum == pytest.approx(0.9)
    assert int(loaded.optimizer.iterations) == 3
    fit(loaded, data[3:])
    assert fakes.state(loaded) == fakes.state(straight)


def test_model_file_layout(tmp_path):
    model = make_model()
    fit(model, fakes.batches(1))
    path = model_file.save_model(model, tmp_path / "model.h5")
    with h5py.File(path, "r") as f:
        assert f.attrs["kind"] == b"model"
        document = json.loads(f[".eagerflow/model_config"][()].tobytes())
        assert "optimizer/slots/model/layers/0/kernel/momentum" in f
        assert "model/optimizer" not in f  # the optimizer is saved once, at its own root
    assert document["format"] == "eagerflow-model" and document["format_version"] == 1
    assert document["model"]["class_name"] == "ModelIOTestSequential"
    assert document["build_config"] == {"input_dim": 4}
    assert document["compile_config"]["optimizer"]["config"]["momentum"] == pytest.approx(0.9)


def test_include_optimizer_false(tmp_path):
    model = make_model()
    fit(model, fakes.batches(1))
    path = model_file.save_model(model, tmp_path / "m.h5", include_optimizer=False)
    assert not any(k.startswith("optimizer") for k, _, _ in ef.checkpoint.list_variables(path))
    loaded = model_file.load_model(path)
    assert int(loaded.optimizer.iterations) == 0
    assert fakes.state(loaded.layers) == fakes.state(model.layers)


def test_model_without_build_config_gets_weights_on_first_call(tmp_path):
    model = make_model()
    fit(model, fakes.batches(1))
    model.input_dim = None  # as if the model could not describe its build
    path = model_file.save_model(model, tmp_path / "m.h5")
    loaded = model_file.load_model(path)
    assert not loaded.layers[0].built
    loaded(ef.zeros((1, 4)))
    assert fakes.state(loaded.layers) == fakes.state(model.layers)


def test_unbuilt_model_round_trips_its_architecture(tmp_path):
    path = model_file.save_model(make_model(compile=False), tmp_path / "arch.h5")
    loaded = model_file.load_model(path)
    assert [layer.units for layer in loaded.layers] == [5, 3]


def test_load_model_with_compile_false_skips_the_optimizer(tmp_path):
    model = make_model()
    fit(model, fakes.batches(1))
    loaded = model_file.load_model(model_file.save_model(model, tmp_path / "m.h5"), compile=False)
    assert getattr(loaded, "optimizer", None) is None
    assert fakes.state(loaded.layers) == fakes.state(model.layers)


def test_optimizer_state_without_a_way_to_compile_warns(tmp_path):
    class NoCompile(Sequential):
        compile_from_config = None

    registry.register_serializable(NoCompile, name="ModelIOTestNoCompile")
    model = NoCompile([Dense(2)])
    model.compile(Momentum())
    fit(model, [(np.ones((2, 4), np.float32), np.ones((2, 2), np.float32))])
    path = model_file.save_model(model, tmp_path / "m.h5")
    with pytest.warns(EagerflowWarning, match="holds optimizer state, but the loaded NoCompile"):
        model_file.load_model(path)


def test_custom_objects_for_unregistered_classes(tmp_path):
    class LocalDense(Dense):
        pass

    model = Sequential([LocalDense(2, seed=4)])
    model(ef.zeros((1, 3)))
    path = model_file.save_model(model, tmp_path / "m.h5")
    with pytest.raises(ef.errors.InvalidArgumentError,
                       match=r"Unknown class 'LocalDense'.*custom_objects=\{'LocalDense'"):
        model_file.load_model(path)
    loaded = model_file.load_model(path, custom_objects={"LocalDense": LocalDense})
    assert isinstance(loaded.layers[0], LocalDense)
    assert fakes.state(loaded.layers) == fakes.state(model.layers)


def test_load_model_of_a_weights_file(tmp_path):
    model = make_model()
    model(ef.zeros((1, 4)))
    path = model_file.save_weights(model, tmp_path / "w.h5")
    with pytest.raises(ef.checkpoint.InvalidCheckpointError,
                       match=r"w.h5' is a weights file, not a whole-model file.*load_weights"):
        model_file.load_model(path)


def hostile_model_file(tmp_path, blob):
    return h5format.write(tmp_path / "bad.h5", {}, "model",
                          metadata={model_file.MODEL_CONFIG: blob} if blob is not None else None)


@pytest.mark.parametrize("blob, message", [
    (None, "has no /.eagerflow/model_config dataset"),
    (b"\xff\xfe", "not valid UTF-8"),
    (b"{oops", "not valid JSON"),
    (b"[1, 2]", "is not an 'eagerflow-model' document"),
    (json.dumps({"format": "eagerflow-model", "format_version": 7}).encode(),
     "format_version 7 is not supported"),
])
def test_broken_model_configs(tmp_path, blob, message):
    with pytest.raises(ef.checkpoint.InvalidCheckpointError, match=f"bad.h5'.*{message}"):
        model_file.load_model(hostile_model_file(tmp_path, blob))


def test_class_names_in_a_file_are_never_imported(tmp_path):
    blob = json.dumps({"format": "eagerflow-model", "format_version": 1,
                       "model": {"class_name": "os.system", "config": {"command": "touch x"}},
                       "build_config": None, "compile_config": None}).encode()
    with pytest.raises(ef.errors.InvalidArgumentError, match="Unknown layer class 'os.system'"):
        model_file.load_model(hostile_model_file(tmp_path, blob))


def test_a_registered_non_model_is_rejected(tmp_path):
    registry.register_serializable(dict, name="ModelIOTestDict")
    blob = json.dumps({"format": "eagerflow-model", "format_version": 1,
                       "model": {"class_name": "ModelIOTestDict", "config": {}}}).encode()
    with pytest.raises(ef.errors.InvalidArgumentError, match="load_model expects a model"):
        model_file.load_model(hostile_model_file(tmp_path, blob))


def test_config_must_be_json(tmp_path):
    class Weird(Sequential):
        def get_config(self):
            return {"layers": [], "callback": print}

    model = Weird([])
    model.w = ef.Variable(1.0)
    with pytest.raises(ef.errors.InvalidArgumentError,
                       match=r"config of Weird cannot be stored as JSON: a value of type "
                             r"builtin_function_or_method"):
        model_file.save_model(model, tmp_path / "w.h5")


def test_model_needs_get_config(tmp_path):
    holder = Trackable()
    holder.w = ef.Variable(1.0)
    with pytest.raises(ef.errors.InvalidArgumentError, match="Cannot serialize Trackable"):
        model_file.save_model(holder, tmp_path / "m.h5")
