"""ef.saved_model: export traced graphs with weights to HDF5, load them without the code."""

import json
import os

import h5py
import numpy as np
import pytest

import eagerflow as ef
from tests.security import forge


def make_model():
    class TinyModel:
        def __init__(self):
            rng = np.random.default_rng(0)
            self.kernel = ef.Variable(rng.standard_normal((4, 3)).astype(np.float32),
                                      name="dense/kernel")
            self.bias = ef.Variable(np.zeros(3, np.float32), name="dense/bias")
            self.steps = ef.Variable(0, trainable=False, name="steps")

        @ef.function(input_signature=[ef.TensorSpec([None, 4], ef.float32)])
        def __call__(self, x):
            logits = ef.matmul(x, self.kernel) + self.bias
            scaled = ef.cond(ef.reduce_max(logits) > 1.0, lambda: logits * 0.5,
                             lambda: logits)
            _, total = ef.while_loop(lambda i, t: i < 3, lambda i, t: (i + 1, t + scaled),
                                     [0, ef.zeros_like(scaled)])
            return {"probs": ef.nn.softmax(total), "top": ef.argmax(total, axis=1)}

        @ef.function(input_signature=[ef.TensorSpec([], ef.int32)])
        def count(self, n):
            self.steps.assign_add(n)
            return self.steps.read_value()

    return TinyModel()


@pytest.fixture
def path(tmp_path):
    return str(tmp_path / "model.h5")


def test_round_trip_runs_without_the_class(path):
    model = make_model()
    x = ef.constant(np.random.default_rng(1).standard_normal((5, 4)).astype(np.float32))
    expected = model(x)
    ef.saved_model.save(model, path)
    loaded = ef.saved_model.load(path)
    assert sorted(loaded.signatures) == ["count", "serving_default"]
    for batch in (x, x[:2]):
        got, want = loaded(batch), model(batch)
        np.testing.assert_allclose(got["probs"].numpy(), want["probs"].numpy(), rtol=1e-6)
        np.testing.assert_array_equal(got["top"].numpy(), want["top"].numpy())
    np.testing.assert_allclose(loaded(x)["probs"].numpy(), expected["probs"].numpy(), rtol=1e-6)
    assert int(loaded.count(ef.constant(2))) == 2 and int(loaded.count(ef.constant(3))) == 5
    assert int(model.steps) == 0  # the loaded variables are new ones
    names = sorted(v.name for v in loaded.variables)
    assert names == ["dense/bias", "dense/kernel", "steps"]
    assert sorted(v.name for v in loaded.trainable_variables) == ["dense/bias", "dense/kernel"]


def test_the_file_is_plain_hdf5_with_named_weights(path):
    model = make_model()
    ef.saved_model.save(model, path)
    with h5py.File(path, "r") as f:
        # A file of the one HDF5 writer (see eagerflow.saving.h5format), kind saved_model.
        assert f.attrs["format"] == b"eagerflow-checkpoint"  # inline UTF-8 bytes
        assert f.attrs["kind"] == b"saved_model"
        index = json.loads(bytes(f[".eagerflow/saved_model"][()]).decode())
        assert index["format"] == "eagerflow.graph.saved_model" and index["version"] == 3
        names = {name: f[f"variables/{k}"][()]
                 for k, (name, _) in enumerate(index["variables"])}
        graph = json.loads(bytes(f[".eagerflow/functions/serving_default/0"][()]).decode())
    np.testing.assert_array_equal(names["dense/kernel"], model.kernel.numpy())
    ops = {node["op"] for node in graph["graph"]["nodes"]}
    assert {"BatchMatMulV2", "If", "While", "Softmax"} <= ops


def test_functions_and_concrete_functions_export(path):
    f = ef.function(lambda x, y: (x * y, "label", ef.constant(7)))
    f(ef.constant([1.0, 2.0]), ef.constant([3.0, 4.0]))
    f(ef.constant([[1]]), ef.constant([[2]]))  # a second traced signature
    ef.saved_model.save(f, path)
    loaded = ef.saved_model.load(path)
    product, label, seven = loaded(ef.constant([2.0, 2.0]), ef.constant([3.0, 5.0]))
    np.testing.assert_array_equal(product.numpy(), [6.0, 10.0])
    assert label == "label" and int(seven) == 7
    assert int(loaded(ef.constant([[3]]), ef.constant([[4]]))[0][0, 0]) == 12
    with pytest.raises(ef.errors.InvalidArgumentError, match="accepts"):
        loaded(ef.constant([1.0, 2.0, 3.0]), ef.constant([1.0, 2.0, 3.0]))
    cf = ef.function(lambda x: -x).get_concrete_function(ef.TensorSpec([2], ef.int32))
    ef.saved_model.save(object(), path, signatures={"negate": cf})
    assert ef.saved_model.load(path).negate(ef.constant([1, 2])).numpy().tolist() == [-1, -2]


def test_random_ops_export_their_generator_state(path):
    generator = ef.random.Generator.from_seed(11)
    f = ef.function(lambda: generator.normal([3]))
    f()
    ef.saved_model.save(f, path)
    loaded = ef.saved_model.load(path)
    np.testing.assert_array_equal(loaded().numpy(), f().numpy())  # both continue the stream


def test_gradients_through_a_loaded_function(path):
    model = make_model()
    ef.saved_model.save(model, path)
    loaded = ef.saved_model.load(path)
    x = ef.constant(np.ones((2, 4), np.float32))
    for m in (model, loaded):
        with ef.GradientTape() as tape:
            loss = ef.reduce_sum(m(x)["probs"][:, 0])
        kernel = m.kernel if m is model else next(v for v in m.variables if v.name ==
                                                   "dense/kernel")
        grads = tape.gradient(loss, kernel)
        if m is model:
            expected = grads.numpy()
    np.testing.assert_allclose(grads.numpy(), expected, rtol=1e-5, atol=1e-7)


def test_save_errors_are_clear_and_leave_no_file(path):
    with pytest.raises(ef.errors.InvalidArgumentError, match="has not been traced yet"):
        ef.saved_model.save(ef.function(lambda x: x), path)
    with pytest.raises(ef.errors.InvalidArgumentError, match="found no traced functions"):
        ef.saved_model.save(object(), path)
    with pytest.raises(TypeError, match="must be an ef.function or a ConcreteFunction"):
        ef.saved_model.save(object(), path, signatures={"f": len})
    uses_python = ef.function(lambda x: ef.py_function(np.sort, [x], ef.float32))
    uses_python(ef.constant([2.0, 1.0]))
    with pytest.raises(ef.errors.InvalidArgumentError, match=r"calls ef.py_function\(sort\)"):
        ef.saved_model.save(uses_python, path)
    assert os.listdir(os.path.dirname(path)) == []


def test_custom_gradients_are_refused_not_saved_with_other_gradients(path):
    @ef.custom_gradient
    def halve_gradient(x):
        return x * 1.0, lambda dy: dy * 0.5

    f = ef.function(halve_gradient, input_signature=[ef.TensorSpec([2])])
    plain = ef.function(lambda x: x * 1.0, input_signature=[ef.TensorSpec([2])])
    for flag in (True, False):
        with pytest.raises(ef.errors.InvalidArgumentError,
                           match=r"'serving_default' uses the @custom_gradient function\(s\) "
                                 r"\['halve_gradient'\]; eagerflow does not export"):
            ef.saved_model.save(f, path,
                                options=ef.saved_model.SaveOptions(
                                    experimental_custom_gradients=flag))
    assert os.listdir(os.path.dirname(path)) == []
    ef.saved_model.save(plain, path, options=ef.saved_model.SaveOptions())
    assert float(ef.saved_model.load(path)(ef.constant([1.0, 2.0]))[1]) == 2.0


def test_save_options_are_checked(path):
    assert repr(ef.saved_model.SaveOptions()) == "SaveOptions(experimental_custom_gradients=True)"
    with pytest.raises(TypeError, match="Received: experimental_custom_gradients=1"):
        ef.saved_model.SaveOptions(experimental_custom_gradients=1)
    f = ef.function(lambda x: x, input_signature=[ef.TensorSpec([])])
    with pytest.raises(TypeError, match="`options` must be an ef.saved_model.SaveOptions"):
        ef.saved_model.save(f, path, options={"experimental_custom_gradients": True})


def test_generators_other_than_pcg64_are_refused(path):
    generator = ef.random.Generator.from_seed(1)
    generator._rng = np.random.Generator(np.random.MT19937(1))
    f = ef.function(lambda: generator.uniform([2]))
    f()
    with pytest.raises(ef.errors.InvalidArgumentError, match="MT19937 is not PCG64"):
        ef.saved_model.save(f, path)


# -- hostile and broken files -------------------------------------------------------------
def _rewrite_graph(path, change):
    with h5py.File(path, "r+") as f:
        item = json.loads(bytes(f[".eagerflow/functions/serving_default/0"][()]).decode())
        change(item)
        del f[".eagerflow/functions/serving_default/0"]
        data = np.frombuffer(json.dumps(item).encode(), np.uint8)
        f[".eagerflow/functions/serving_default"].create_dataset("0", data=data)
    forge.reseal(path)  # a forged graph: past the checksums, to the decoder's checks


@pytest.fixture
def saved(path):
    f = ef.function(lambda x: ef.exp(x) + 1.0, input_signature=[ef.TensorSpec([None])])
    ef.saved_model.save(f, path)
    return path


def test_unknown_op_names_are_rejected(saved):
    def rename(item):
        item["graph"]["nodes"][1]["op"] = "os.system"

    _rewrite_graph(saved, rename)
    with pytest.raises(ef.errors.InvalidArgumentError,
                       match=r"node 1: unknown op 'os.system' \(not in eagerflow's op registry\)"):
        ef.saved_model.load(saved)


@pytest.mark.parametrize("name", ["EagerPyFunc", "PartitionedCall", "CustomGradient",
                                  "FusedElementwise"])
def test_py_function_and_per_call_op_families_are_rejected_on_load(saved, name):
    def smuggle(item):  # in the op registry, but no graph file may name them
        item["graph"]["nodes"][1]["op"] = name

    _rewrite_graph(saved, smuggle)
    with pytest.raises(ef.errors.InvalidArgumentError, match=f"unknown op '{name}'"):
        ef.saved_model.load(saved)


@pytest.mark.parametrize("change, match", [
    (lambda g: g["graph"]["nodes"][1]["inputs"].__setitem__(0, {"tensor": [9, 0]}),
     "invalid tensor reference"),
    (lambda g: g["graph"]["nodes"][1]["attrs"].__setitem__("x", {"pickle": "..."}),
     "unknown value tag 'pickle'"),
    (lambda g: g["graph"]["nodes"][1]["outputs"][0].__setitem__("dtype", "object"),
     "invalid dtype 'object'"),
    (lambda g: g["graph"]["nodes"][1]["attrs"].__setitem__("bad", {"float": "nope"}),
     "malformed 'float' value"),
    (lambda g: g["graph"]["nodes"][1]["attrs"].__setitem__("axis", 3),
     "does not run"),
    (lambda g: g.__setitem__("structure", {"output": 5}), "malformed output structure"),
    (lambda g: g["graph"].__setitem__("nodes", "x"), "list of nodes"),
])
def test_malformed_graphs_are_rejected(saved, change, match):
    _rewrite_graph(saved, change)
    with pytest.raises(ef.errors.InvalidArgumentError, match=match):
        ef.saved_model.load(saved)


def test_files_that_are_not_saved_models(tmp_path, saved):
    with pytest.raises(ef.errors.NotFoundError, match="not found"):
        ef.saved_model.load(str(tmp_path / "missing.h5"))
    text = tmp_path / "text.h5"
    text.write_text("hello")
    with pytest.raises(ef.errors.InvalidArgumentError, match="not an HDF5 file"):
        ef.saved_model.load(str(text))
    other = str(tmp_path / "other.h5")
    with h5py.File(other, "w") as f:
        f.attrs["format"] = "something else"
    with pytest.raises(ef.errors.InvalidArgumentError, match="not an eagerflow saved model"):
        ef.saved_model.load(other)
    with h5py.File(saved, "r+") as f:
        f[".eagerflow/functions/serving_default/0"].attrs["x"] = 1
        del f[".eagerflow/functions/serving_default/0"]
        f[".eagerflow/functions/serving_default"].create_dataset("0", data=np.frombuffer(b"{not json",
                                                                                 np.uint8))
    forge.reseal(saved)
    with pytest.raises(ef.errors.InvalidArgumentError, match="serving_default.*not valid JSON"):
        ef.saved_model.load(saved)


def test_non_numeric_datasets_are_rejected(saved):
    with h5py.File(saved, "r+") as f:
        f.create_dataset("arrays/0", data=np.array([b"code"], dtype=h5py.string_dtype()))
    with pytest.raises(ef.errors.InvalidArgumentError, match="arrays/0.* only numeric datasets are read"):
        ef.saved_model.load(saved)


def test_a_custom_gradient_inside_a_called_function_is_refused_too(path):
    @ef.custom_gradient
    def halve_gradient(x):
        return x * 1.0, lambda dy: dy * 0.5

    inner = ef.function(halve_gradient).get_concrete_function(ef.TensorSpec([2]))
    outer = ef.function(lambda x: inner(x) + 1.0, input_signature=[ef.TensorSpec([2])])
    with pytest.raises(ef.errors.InvalidArgumentError,
                       match=r"uses the @custom_gradient function\(s\) \['halve_gradient'\]"):
        ef.saved_model.save(outer, path)
