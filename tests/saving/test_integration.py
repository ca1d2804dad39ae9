"""Checkpoints with the real layers, models and optimizers."""

import h5py
import numpy as np
import pytest

import eagerflow as ef
from eagerflow.saving import model_file, object_graph


def batches(n, seed=0):
    rng = np.random.default_rng(seed)
    return [(rng.standard_normal((16, 4)).astype(np.float32),
             rng.standard_normal((16, 2)).astype(np.float32)) for _ in range(n)]


def train(model, optimizer, data):
    for x, y in data:
        with ef.GradientTape() as tape:
            loss = ef.reduce_mean(ef.square(model(x) - y))
        variables = model.trainable_variables
        optimizer.apply_gradients(zip(tape.gradient(loss, variables), variables, strict=True))


def sequential(seed, prefix="seq"):
    ef.random.set_seed(seed)
    return ef.Sequential([ef.layers.Dense(8, activation="tanh", name=f"{prefix}_hidden"),
                          ef.layers.Dense(2, name=f"{prefix}_out")], name=prefix)


class Subclassed(ef.Model):
    def __init__(self, seed):
        super().__init__()
        ef.random.set_seed(seed)
        self.encoder = ef.layers.Dense(8, activation="relu")
        self.heads = [ef.layers.Dense(2), ef.layers.Dense(2)]

    def call(self, x):
        hidden = self.encoder(x)
        return self.heads[0](hidden) + self.heads[1](hidden)


def state(*objects):
    named = {f"r{i}": obj for i, obj in enumerate(objects)}
    return {p: v.numpy().tobytes() for p, v in object_graph.walk(named).all_variables().items()}


@pytest.mark.parametrize("make", [sequential, Subclassed], ids=["sequential", "subclassed"])
def test_adam_training_resumes_bitwise_from_a_checkpoint(tmp_path, make):
    data = batches(6)
    straight = (make(1), ef.optim.Adam(0.01))
    train(*straight, data)

    first = (make(1), ef.optim.Adam(0.01))
    train(*first, data[:3])
    path = ef.Checkpoint(model=first[0], optimizer=first[1]).save(tmp_path / "ckpt")

    resumed = (make(2), ef.optim.Adam(0.01))  # unbuilt, other initial weights, no slots
    status = ef.Checkpoint(model=resumed[0], optimizer=resumed[1]).restore(path)
    assert status.pending and not any(p.startswith("model/") for p in status.matched)
    train(*resumed, data[3:])
    status.assert_consumed()
    assert state(*resumed) == state(*straight)
    assert int(resumed[1].iterations) == 6


def test_file_layout_of_a_real_model(tmp_path):
    model, optimizer = Subclassed(0), ef.optim.Adam()
    train(model, optimizer, batches(1))
    path = ef.Checkpoint(model=model, optimizer=optimizer).write(tmp_path / "m.h5")
    with h5py.File(path, "r") as f:
        assert f["model/encoder/kernel"].shape == (4, 8)
        assert f["model/heads/1/bias"].shape == (2,)
        assert f["optimizer/slots/model/heads/0/kernel/velocity"].shape == (8, 2)
        assert int(f["optimizer/iterations"][()]) == 1


def test_auto_named_sequential_restores_into_a_fresh_model(tmp_path):
    def make():
        return ef.Sequential([ef.layers.Dense(3), ef.layers.Dense(2)])

    source = make()
    source(np.ones((1, 4), np.float32))
    path = ef.Checkpoint(model=source).write(tmp_path / "s.h5")
    fresh = make()
    ef.Checkpoint(model=fresh).read(path)
    fresh(np.ones((1, 4), np.float32))
    assert state(fresh) == state(source)


def test_weights_file_round_trip_and_deferred_load(tmp_path):
    model = sequential(3)
    train(model, ef.optim.SGD(0.1), batches(1))
    path = model_file.save_weights(model, tmp_path / "w.weights.h5")
    fresh = sequential(4)
    status = model_file.load_weights(fresh, path)
    assert len(status.pending) == 4
    fresh(np.ones((1, 4), np.float32))
    assert state(fresh) == state(model)


def test_whole_sequential_model_round_trip(tmp_path):
    model = sequential(5, prefix="whole")
    model(np.ones((1, 4), np.float32))
    path = model_file.save_model(model, tmp_path / "model.h5")
    loaded = model_file.load_model(path)
    assert isinstance(loaded, ef.Sequential)
    assert [layer.name for layer in loaded.layers] == ["whole_hidden", "whole_out"]
    x = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
    assert np.array_equal(loaded(x).numpy(), model(x).numpy())


def test_optimizer_hyperparameters_and_slots_restore(tmp_path):
    w = ef.Variable([1.0, 2.0])
    optimizer = ef.optim.Adam(0.5)
    optimizer.apply_gradients([(ef.constant([0.1, 0.2]), w)])
    path = ef.Checkpoint(w=w, optimizer=optimizer).write(tmp_path / "o.h5")
    fresh_w, fresh_opt = ef.Variable([0.0, 0.0]), ef.optim.Adam(0.01)
    status = ef.Checkpoint(w=fresh_w, optimizer=fresh_opt).read(path)
    assert float(fresh_opt.learning_rate) == 0.5  # hyperparameters are variables
    fresh_opt.build([fresh_w])  # slots created now receive their saved values
    status.assert_consumed()
    assert state(fresh_w, fresh_opt) == state(w, optimizer)
