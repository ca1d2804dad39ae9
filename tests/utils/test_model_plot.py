"""ef.utils.plot_model: the layer graph drawn with matplotlib (no Graphviz)."""

import builtins
import os

import numpy as np
import pytest

import eagerflow as ef
from eagerflow.utils import model_plot


def _svg(model, tmp_path, **kwargs):
    path = str(tmp_path / "m.svg")
    ef.utils.plot_model(model, path, **kwargs)
    assert os.listdir(tmp_path) == ["m.svg"]
    return open(path).read()


def _two_branch_model():
    a = ef.Input((4,), name="a")
    b = ef.Input((3,), name="b")
    h = ef.layers.Dense(5, activation="relu", name="hidden")(a)
    merged = ef.layers.concatenate([h, b], name="merge")
    return ef.Model([a, b], [ef.layers.Dense(1, name="out")(merged),
                             ef.layers.Dense(2, name="aux")(merged)])


def test_a_functional_graph_with_shapes_dtypes_and_activations(tmp_path):
    svg = _svg(_two_branch_model(), tmp_path, show_shapes=True, show_dtype=True,
               show_layer_activations=True, show_trainable=True)
    for text in ["a (InputLayer)", "hidden (Dense)", "merge (Concatenate)", "out (Dense)",
                 "Input shape: [(None, 5), (None, 3)]", "Output shape: (None, 8)",
                 "Activation: relu", "Output dtype: float32", "Trainable"]:
        assert text in svg, text


def test_ranks_put_side_inputs_beside_their_consumer():
    # a -> hidden -> merge <- b ; merge -> out, aux
    layers, edges, _ = model_plot._graph(_two_branch_model())
    names = [layer.name for layer in layers]
    rank = dict(zip(names, model_plot._ranks(len(layers), edges), strict=True))
    assert rank == {"a": 0, "b": 1, "hidden": 1, "merge": 2, "out": 3, "aux": 3}
    assert {(names[s], names[t]) for s, t in edges} == {
        ("a", "hidden"), ("hidden", "merge"), ("b", "merge"), ("merge", "out"),
        ("merge", "aux")}


def test_sequential_models_with_and_without_an_input(tmp_path):
    model = ef.Sequential([ef.Input((3,)), ef.layers.Dense(2, name="d1"),
                           ef.layers.Dense(1, name="d2")])
    svg = _svg(model, tmp_path, show_shapes=True, show_layer_names=False)
    # Keras 3 draws no Input box for a Sequential model: the first layer shows the shape.
    assert "InputLayer" not in svg and "Input shape: (None, 3)" in svg
    assert "Output shape: (None, 1)" in svg
    # Labels are SVG comments; matplotlib's random element ids may contain "d1" anywhere.
    assert "<!-- Dense -->" in svg and "<!-- d1" not in svg
    os.remove(tmp_path / "m.svg")
    model = ef.Sequential([ef.layers.Dense(2, name="d1"), ef.layers.Dense(1, name="d2")])
    model(np.ones((2, 3), "float32"))
    svg = _svg(model, tmp_path, show_shapes=True)
    assert "d1 (Dense)" in svg and "d2 (Dense)" in svg


def test_shared_layers_and_nested_models_are_one_box(tmp_path):
    inner = ef.Sequential([ef.Input((3,)), ef.layers.Dense(2)], name="inner")
    shared = ef.layers.Dense(3, name="shared")
    x, y = ef.Input((3,), name="x"), ef.Input((3,), name="y")
    model = ef.Model([x, y], ef.layers.add([inner(shared(x)), inner(shared(y))]))
    svg = _svg(model, tmp_path, show_shapes=True)
    assert svg.count("shared (Dense)") == 1 and "Input shape: multiple" in svg
    assert "inner (Sequential)" in svg


def test_a_subclassed_model_is_one_box(tmp_path):
    class Net(ef.Model):
        def __init__(self):
            super().__init__(name="net")
            self.dense = ef.layers.Dense(2)

        def call(self, inputs):
            return self.dense(inputs)

    model = Net()
    with pytest.raises(ValueError, match="'net' has not been built yet"):
        ef.utils.plot_model(model, str(tmp_path / "m.png"))
    model(np.ones((1, 3), "float32"))
    assert "net (Net)" in _svg(model, tmp_path)


def test_png_is_the_default_and_bad_options_are_refused(tmp_path):
    model = _two_branch_model()
    path = str(tmp_path / "model")
    ef.utils.plot_model(model, path, rankdir="LR", dpi=50)
    assert open(path, "rb").read(4) == b"\x89PNG"
    with pytest.raises(ValueError, match="rankdir must be 'TB' or 'LR'"):
        ef.utils.plot_model(model, path, rankdir="BT")
    with pytest.raises(ValueError, match="cannot write 'gif'"):
        ef.utils.plot_model(model, str(tmp_path / "m.gif"))
    with pytest.raises(ValueError, match="expand_nested=True is not supported"):
        ef.utils.plot_model(model, path, expand_nested=True)
    with pytest.raises(ValueError, match="unrecognized keyword arguments"):
        ef.utils.plot_model(model, path, layer_range=["a", "b"])


def test_missing_matplotlib_is_named(monkeypatch, tmp_path):
    real_import = builtins.__import__

    def no_matplotlib(name, *args, **kwargs):
        if name.startswith("matplotlib"):
            raise ImportError("No module named 'matplotlib'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    with pytest.raises(ImportError, match=r"plot_model needs matplotlib.*no system Graphviz"):
        ef.utils.plot_model(_two_branch_model(), str(tmp_path / "m.png"))


def test_the_graph_has_keras_nodes_and_edges_on_three_models():
    # The nodes and edges of Keras 3.15's `keras.utils.model_to_dot` for the same models
    # (recorded with pydot in a TensorFlow 2.21 / Keras 3.15 install).
    from tests.models.test_summary_table import _three_models

    keras_graphs = {
        "seq": [("conv1", "pool1"), ("pool1", "flatten"), ("flatten", "drop"),
                ("drop", "hidden"), ("hidden", "bn"), ("bn", "logits")],
        "branches": [("features", "branch_a"), ("features", "branch_b"),
                     ("branch_a", "add"), ("branch_b", "add"), ("add", "concat"),
                     ("extra", "concat"), ("concat", "score"), ("concat", "klass")],
        "sub": [],
    }
    keras_nodes = {"seq": {"conv1", "pool1", "flatten", "drop", "hidden", "bn", "logits"},
                   "branches": {"features", "extra", "branch_a", "branch_b", "add", "concat",
                                "score", "klass"},
                   "sub": {"sub"}}
    for model in _three_models():
        layers, edges, _ = model_plot._graph(model)
        names = [layer.name for layer in layers]
        assert set(names) == keras_nodes[model.name]
        assert sorted((names[a], names[b]) for a, b in edges) == sorted(keras_graphs[model.name])
