"""Checkpoint: save/write/read/restore, numbering, index, round trips of every kind."""

import json
import os

import numpy as np
import pytest

import eagerflow as ef
from eagerflow.core.errors import EagerflowWarning
from eagerflow.core.trackable import Trackable
from eagerflow.saving import h5format, index
from tests.saving import fakes


def trained(seed=0, steps=2):
    model, optimizer, metric = fakes.SubclassedModel(seed), fakes.Momentum(), fakes.Mean()
    fakes.train(model, optimizer, metric, fakes.batches(steps, seed))
    return model, optimizer, metric


def test_save_numbers_files_creates_directories_and_records_the_index(tmp_path):
    step = ef.Variable(0)
    ckpt = ef.Checkpoint(step=step)
    prefix = tmp_path / "deep" / "er" / "ckpt"
    first = ckpt.save(prefix)
    second = ckpt.save(str(prefix))
    assert first == f"{prefix}-1.h5" and second == f"{prefix}-2.h5"
    assert int(ckpt.save_counter) == 2
    state = json.loads((tmp_path / "deep" / "er" / "checkpoint.json").read_text())
    assert state["latest"] == "ckpt-2.h5"
    assert [e["file"] for e in state["checkpoints"]] == ["ckpt-1.h5", "ckpt-2.h5"]
    assert ef.checkpoint.latest_checkpoint(tmp_path / "deep" / "er") == second


def test_save_counter_is_saved_and_restored(tmp_path):
    ckpt = ef.Checkpoint(v=ef.Variable(1.0))
    ckpt.save(tmp_path / "c")
    path = ckpt.save(tmp_path / "c")
    fresh = ef.Checkpoint(v=ef.Variable(0.0))
    fresh.restore(path).assert_consumed()
    assert int(fresh.save_counter) == 2
    assert fresh.save(tmp_path / "c").endswith("c-3.h5")


def test_write_and_read_skip_counter_and_index(tmp_path):
    v = ef.Variable([1.0, 2.0])
    ckpt = ef.Checkpoint(v=v)
    path = ckpt.write(tmp_path / "exact.h5")
    assert path == str(tmp_path / "exact.h5")
    assert int(ckpt.save_counter) == 0
    assert sorted(os.listdir(tmp_path)) == ["exact.h5"]
    assert [k for k, _, _ in ef.checkpoint.list_variables(path)] == ["v"]
    saved = ckpt.save(tmp_path / "s")
    v.assign([0.0, 0.0])
    status = ckpt.read(saved)  # the file's save_counter is neither used nor reported
    status.assert_consumed()
    assert int(ckpt.save_counter) == 1 and v.numpy().tolist() == [1.0, 2.0]


def test_restore_of_a_written_file_does_not_require_a_counter(tmp_path):
    path = ef.Checkpoint(v=ef.Variable(5.0)).write(tmp_path / "w.h5")
    ckpt = ef.Checkpoint(v=ef.Variable(0.0))
    ckpt.restore(path).assert_consumed()
    assert float(ckpt.v) == 5.0 and int(ckpt.save_counter) == 0


def test_round_trip_of_every_trackable_kind(tmp_path):
    model, optimizer, metric = trained()
    nested = ef.Checkpoint(inner=ef.Variable(np.int64(7)))
    objects = dict(
        model=model, optimizer=optimizer, metric=metric, step=ef.Variable(np.int64(42)),
        flags=(ef.Variable(np.array([True, False])), ef.Variable(np.int32(3))),
        table={"a": [ef.Variable(np.float64(1.5))], "b": {"c": ef.Variable([1, 2])}},
        nested=nested,
    )
    saved = fakes.state(*objects.values())
    path = ef.Checkpoint(**objects).save(tmp_path / "all")

    fresh_model, fresh_opt, fresh_metric = trained(seed=5)
    fresh_nested = ef.Checkpoint(inner=ef.Variable(np.int64(0)))
    fresh = dict(
        model=fresh_model, optimizer=fresh_opt, metric=fresh_metric,
        step=ef.Variable(np.int64(0)),
        flags=(ef.Variable(np.array([False, False])), ef.Variable(np.int32(0))),
        table={"a": [ef.Variable(np.float64(0))], "b": {"c": ef.Variable([0, 0])}},
        nested=fresh_nested,
    )
    ef.Checkpoint(**fresh).restore(path).assert_consumed()
    assert fakes.state(*fresh.values()) == saved
    assert fresh_metric.result() == metric.result()


def test_restore_accepts_a_directory_or_a_path_without_suffix(tmp_path):
    v = ef.Variable(1.0)
    ckpt = ef.Checkpoint(v=v)
    ckpt.save(tmp_path / "ckpt")
    v.assign(2.0)
    ckpt.save(tmp_path / "ckpt")
    v.assign(0.0)
    assert ckpt.restore(tmp_path).save_path.endswith("ckpt-2.h5")
    assert float(v) == 2.0
    ckpt.restore(tmp_path / "ckpt-1")
    assert float(v) == 1.0


def test_restore_none_restores_nothing():
    v = ef.Variable(3.0)
    status = ef.Checkpoint(v=v).restore(None)
    assert float(v) == 3.0
    assert str(status).startswith("CheckpointLoadStatus(None): nothing restored")
    assert status.missing == [] and status.matched == []
    status.expect_partial()
    with pytest.raises(AssertionError, match="No checkpoint was restored"):
        status.assert_consumed()
    with pytest.raises(AssertionError, match="No checkpoint was restored"):
        status.assert_existing_objects_matched()


def test_missing_checkpoint_errors_name_the_path_and_what_exists(tmp_path):
    ckpt = ef.Checkpoint(v=ef.Variable(1.0))
    ckpt.save(tmp_path / "ckpt")
    with pytest.raises(ef.errors.NotFoundError,
                       match=r"ckpt-9.h5' does not exist .*\['ckpt-1.h5'\]"):
        ckpt.restore(tmp_path / "ckpt-9.h5")
    with pytest.raises(ef.errors.NotFoundError, match="directory .* does not exist"):
        ckpt.restore(tmp_path / "absent" / "ckpt-1.h5")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ef.errors.NotFoundError, match="holds no .h5 files"):
        ckpt.restore(tmp_path / "empty" / "x.h5")
    with pytest.raises(ef.errors.NotFoundError, match="No checkpoint found in directory"):
        ckpt.restore(tmp_path / "empty")


def test_bad_constructor_arguments():
    with pytest.raises(ef.errors.InvalidArgumentError, match="'save' is an attribute"):
        ef.Checkpoint(save=ef.Variable(1.0))
    with pytest.raises(ef.errors.InvalidArgumentError, match="'save_counter' is an attribute"):
        ef.Checkpoint(save_counter=ef.Variable(1.0))
    with pytest.raises(ef.errors.InvalidArgumentError, match="got float, which holds no var"):
        ef.Checkpoint(lr=0.1)


def test_named_objects_are_attributes():
    model, v = fakes.Sequential([fakes.Dense(1)]), ef.Variable(1)
    ckpt = ef.Checkpoint(model=model, v=v)
    assert ckpt.model is model and ckpt.v is v


def test_failed_save_keeps_the_counter_the_index_and_the_previous_file(tmp_path, monkeypatch):
    v = ef.Variable([1.0, 2.0])
    ckpt = ef.Checkpoint(v=v)
    first = ckpt.save(tmp_path / "ckpt")

    def failing(h5file, key, array, *checksums):
        raise OSError("device error (injected)")

    monkeypatch.setattr(h5format, "_write_dataset", failing)
    with pytest.raises(OSError, match="injected"):
        ckpt.save(tmp_path / "ckpt")
    monkeypatch.undo()
    assert int(ckpt.save_counter) == 1
    assert ef.checkpoint.latest_checkpoint(tmp_path) == first
    assert sorted(os.listdir(tmp_path)) == ["checkpoint.json", "ckpt-1.h5"]
    assert ckpt.save(tmp_path / "ckpt").endswith("ckpt-2.h5")


def test_index_names_only_existing_files(tmp_path):
    ckpt = ef.Checkpoint(v=ef.Variable(1.0))
    first = ckpt.save(tmp_path / "a")
    os.remove(first)
    ckpt.save(tmp_path / "a")
    assert [e.file for e in index.read(tmp_path).checkpoints] == ["a-2.h5"]


def test_string_variables_are_saved(tmp_path):  # more in test_text_variables.py
    path = ef.Checkpoint(names=ef.Variable(np.array(["a", "b"], dtype=object))).write(
        tmp_path / "s.h5")
    names = ef.Variable([b"", b""])
    ef.Checkpoint(names=names).read(path).assert_consumed()
    assert names.numpy().tolist() == [b"a", b"b"]


def test_slots_of_variables_outside_the_checkpoint_warn(tmp_path):
    optimizer = fakes.Momentum()
    optimizer.apply_gradients([(ef.constant([1.0]), ef.Variable([1.0], name="lonely"))])
    with pytest.warns(EagerflowWarning, match=r"1 optimizer slot.*lonely:momentum"):
        ef.Checkpoint(optimizer=optimizer).write(tmp_path / "o.h5")


def test_trackable_with_python_state_only_is_skipped(tmp_path):
    class Config(Trackable):
        def __init__(self):
            self.rate = 0.1

    holder = fakes.Sequential([Config()])
    holder.w = ef.Variable(1.0)
    path = ef.Checkpoint(model=holder).write(tmp_path / "c.h5")
    assert ef.checkpoint.list_variables(path) == [("model/w", (), "float32")]


def test_objects_assigned_after_construction_are_saved_and_restored(tmp_path):
    # The TensorFlow checkpoint guide's pattern: attributes set on the Checkpoint later.
    layers = [ef.layers.Dense(2, input_shape=(3,)) for _ in range(2)]
    for layer in layers:
        layer.build((None, 3))
    ckpt = ef.Checkpoint()
    ckpt.listed = layers
    ckpt.step = ef.Variable(7)
    path = ckpt.write(str(tmp_path / "late.h5"))
    assert {name for name, _, _ in ef.saving.list_variables(path)} >= {
        "listed/0/kernel", "listed/1/bias", "step"}
    fresh = [ef.layers.Dense(2, input_shape=(3,)) for _ in range(2)]
    for layer in fresh:
        layer.build((None, 3))
    restored = ef.Checkpoint()
    restored.listed = fresh
    restored.step = ef.Variable(0)
    restored.read(path).assert_consumed()
    np.testing.assert_array_equal(fresh[1].kernel.numpy(), layers[1].kernel.numpy())
    assert int(restored.step) == 7
    with pytest.raises(ef.errors.InvalidArgumentError, match="attribute of Checkpoint"):
        restored.save_counter = ef.Variable(1)


def test_nested_checkpoints_bring_no_second_save_counter(tmp_path):
    a, b = ef.Variable(1.0), ef.Variable(2.0)
    outer = ef.Checkpoint(inner=ef.Checkpoint(a=a), b=b)
    path = outer.save(str(tmp_path / "ckpt"))
    names = [name for name, _, _ in ef.saving.list_variables(path)]
    assert sorted(names) == ["b", "inner/a", "save_counter"]
    a.assign(0.0)
    partial = ef.Checkpoint(inner=ef.Checkpoint(a=a))  # restores only part of the file
    partial.restore(path).assert_existing_objects_matched()
    assert float(a) == 1.0
