"""TensorBoard callback, read back with TensorBoard's event reader."""

import numpy as np
import pytest

import eagerflow as ef
from eagerflow.callbacks import tensorboard
from eagerflow.core.errors import EagerflowWarning

from .fakes import FakeModel, run_epochs

event_accumulator = pytest.importorskip("tensorboard.backend.event_processing.event_accumulator")


def _read(logdir):
    acc = event_accumulator.EventAccumulator(
        str(logdir), size_guidance={event_accumulator.SCALARS: 0,
                                    event_accumulator.HISTOGRAMS: 0,
                                    event_accumulator.IMAGES: 0})
    acc.Reload()
    return acc


def _series(acc, tag):
    return [(e.step, round(e.value, 6)) for e in acc.Scalars(tag)]


def test_epoch_scalars_go_to_train_and_validation(tmp_path):
    logs = [{"loss": 1.0, "accuracy": 0.5, "val_loss": 2.0},
            {"loss": 0.5, "accuracy": 0.75, "val_loss": 1.0}]
    run_epochs([ef.callbacks.TensorBoard(tmp_path, write_steps_per_second=True)],
               FakeModel(), logs, steps=3)
    train, validation = _read(tmp_path / "train"), _read(tmp_path / "validation")
    assert _series(train, "epoch_loss") == [(0, 1.0), (1, 0.5)]
    assert _series(train, "epoch_accuracy") == [(0, 0.5), (1, 0.75)]
    assert _series(train, "epoch_learning_rate") == [(0, 0.1), (1, 0.1)]
    assert len(train.Scalars("epoch_steps_per_second")) == 2
    assert _series(validation, "epoch_loss") == [(0, 2.0), (1, 1.0)]
    assert _series(validation, "evaluation_loss_vs_iterations") == [(3, 2.0), (6, 1.0)]


def test_batch_level_updates(tmp_path):
    run_epochs([ef.callbacks.TensorBoard(tmp_path, update_freq=2)], FakeModel(),
               [{"loss": 1.0}, {"loss": 0.5}], steps=3)
    assert [s for s, _ in _series(_read(tmp_path / "train"), "batch_loss")] == [2, 4, 6]
    run_epochs([ef.callbacks.TensorBoard(tmp_path / "b", update_freq="batch")], FakeModel(),
               [{"loss": 1.0}], steps=3)
    assert len(_read(tmp_path / "b" / "train").Scalars("batch_loss")) == 3


def test_weight_histograms_and_images(tmp_path):
    model = FakeModel()
    model.kernel = ef.Variable(np.arange(6.0).reshape(2, 3), name="dense/kernel")
    model.conv = ef.Variable(np.ones((3, 3, 1, 2)), name="conv/kernel")
    model.odd = ef.Variable(np.ones((2, 2, 2)), name="odd")
    model.__class__ = type("WithKernel", (FakeModel,), {
        "weights": property(lambda self: [self.w, self.b, self.kernel, self.conv, self.odd,
                                          self.b])})
    run_epochs([ef.callbacks.TensorBoard(tmp_path, histogram_freq=2, write_images=True)],
               model, [{"loss": 1.0}] * 3)
    acc = _read(tmp_path / "train")
    assert "dense/kernel" in acc.Tags()["histograms"]
    assert [e.step for e in acc.Histograms("dense/kernel")] == [0, 2]
    assert {"dense/kernel/image", "conv/kernel/image"} <= set(acc.Tags()["images"])
    assert "odd/image" not in acc.Tags()["images"]
    names = acc.Tags()["histograms"]
    assert len([n for n in names if n.startswith("Variable")]) == 3  # duplicates kept apart


def test_weight_image_forms():
    assert tensorboard._weight_image(np.arange(3.0)).shape == (1, 1, 3, 1)
    assert tensorboard._weight_image(np.ones((2, 2))).max() == 0.0
    assert tensorboard._weight_image(np.zeros((2, 2, 2))) is None


def _mlp(**compile_kwargs):
    model = ef.Sequential([ef.layers.Dense(4, activation="relu", input_shape=(3,), name="hidden"),
                           ef.layers.Dense(2, name="out")])
    model.compile(optimizer="sgd", loss="mse", **compile_kwargs)
    return model


def test_write_graph_writes_the_traced_train_step(tmp_path):
    x, y = np.ones((8, 3), np.float32), np.zeros((8, 2), np.float32)
    _mlp().fit(x, y, batch_size=4, epochs=2, verbose=0,
               callbacks=[ef.callbacks.TensorBoard(tmp_path, write_graph=True)])
    graph = _read(tmp_path / "train").Graph()
    nodes = {node.name: node for node in graph.node}
    ops = [node.op for node in graph.node]
    assert ops.count("Placeholder") == 2 and "Relu" in ops and "AssignAddVariableOp" in ops
    assert nodes["hidden/kernel"].op == "VarHandleOp"
    reads = [n for n in graph.node if n.op == "ReadVariableOp" and n.input == ["hidden/kernel"]]
    assert reads, "the kernel's reads take its handle as input"
    relu = next(n for n in graph.node if n.op == "Relu")
    assert [d.size for d in relu.attr["_output_shapes"].list.shape[0].dim] == [4, 4]
    assert relu.attr["T"].type == 1  # DT_FLOAT
    assert all(i.split(":")[0] in nodes for n in graph.node for i in n.input)
    assert ops.count("Placeholder") == 2, "written once, not once per epoch"


def test_write_graph_off_writes_no_graph(tmp_path):
    _mlp().fit(np.ones((4, 3)), np.zeros((4, 2)), verbose=0,
               callbacks=[ef.callbacks.TensorBoard(tmp_path)])
    assert not _read(tmp_path / "train").Tags()["graph"]


def test_write_graph_of_an_eager_model_warns_once(tmp_path):
    with pytest.warns(EagerflowWarning, match=r"run_eagerly=True.*no traced graph"):
        callback = ef.callbacks.TensorBoard(tmp_path, write_graph=True)
        _mlp(run_eagerly=True).fit(np.ones((4, 3)), np.zeros((4, 2)), verbose=0, epochs=2,
                                   callbacks=[callback])
    assert not _read(tmp_path / "train").Tags()["graph"]


@pytest.mark.parametrize("kwargs, match", [
    ({"histogram_freq": -1}, r"histogram_freq must be a non-negative int"),
    ({"update_freq": 0}, r"update_freq must be 'epoch', 'batch' or a positive int"),
    ({"update_freq": "step"}, r"update_freq must be"),
])
def test_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        ef.callbacks.TensorBoard("logs", **kwargs)


def test_model_without_optimizer_logs_no_learning_rate(tmp_path):
    model = FakeModel()
    model.optimizer = None
    run_epochs([ef.callbacks.TensorBoard(tmp_path)], model, [{"loss": 1.0}])
    assert "epoch_learning_rate" not in _read(tmp_path / "train").Tags()["scalars"]
