"""CheckpointManager: rotation, restart, preservation, restore_or_initialize."""

import json
import os

import h5py
import pytest

import eagerflow as ef
from eagerflow.core.errors import EagerflowWarning
from eagerflow.saving import fileio, index
from eagerflow.saving import manager as manager_module


def names(paths):
    return [os.path.basename(p) for p in paths]


def make(directory, value=0.0, **kwargs):
    v = ef.Variable(value)
    return v, ef.CheckpointManager(ef.Checkpoint(v=v), directory, **kwargs)


def test_keeps_the_newest_max_to_keep(tmp_path):
    v, manager = make(tmp_path, max_to_keep=3)
    assert manager.latest_checkpoint is None and manager.checkpoints == []
    for step in range(1, 6):
        v.assign(float(step))
        path = manager.save()
    assert path == str(tmp_path / "ckpt-5.h5")
    assert names(manager.checkpoints) == ["ckpt-3.h5", "ckpt-4.h5", "ckpt-5.h5"]
    assert manager.latest_checkpoint == path
    assert sorted(os.listdir(tmp_path)) == ["checkpoint.json", "ckpt-3.h5", "ckpt-4.h5",
                                            "ckpt-5.h5"]
    assert manager.directory == str(tmp_path) and manager.checkpoint.v is v


def test_max_to_keep_none_keeps_everything(tmp_path):
    _, manager = make(tmp_path, max_to_keep=None)
    for _ in range(7):
        manager.save()
    assert len(manager.checkpoints) == 7


def test_state_survives_a_restart(tmp_path):
    v, manager = make(tmp_path, max_to_keep=2)
    for step in range(3):
        v.assign(float(step))
        manager.save()
    v2, restarted = make(tmp_path, max_to_keep=2)
    assert names(restarted.checkpoints) == ["ckpt-2.h5", "ckpt-3.h5"]
    assert restarted.restore_or_initialize() == str(tmp_path / "ckpt-3.h5")
    assert float(v2) == 2.0
    restarted.save()  # counter restored: continues at 4, and rotates the old run's files
    assert names(restarted.checkpoints) == ["ckpt-3.h5", "ckpt-4.h5"]
    assert not (tmp_path / "ckpt-2.h5").exists()


def test_explicit_checkpoint_numbers(tmp_path):
    step = ef.Variable(1000)
    _, manager = make(tmp_path)
    assert manager.save(checkpoint_number=step).endswith("ckpt-1000.h5")
    assert manager.save(checkpoint_number=7).endswith("ckpt-7.h5")
    assert names(manager.checkpoints) == ["ckpt-1000.h5", "ckpt-7.h5"]  # by save order
    manager.save(checkpoint_number=1000)  # overwritten, and now the newest
    assert names(manager.checkpoints) == ["ckpt-7.h5", "ckpt-1000.h5"]
    for bad in (-1, 2.5, "3"):
        with pytest.raises(ef.errors.InvalidArgumentError, match="non-negative integer"):
            manager.save(checkpoint_number=bad)


def test_two_names_in_one_directory_do_not_rotate_each_other(tmp_path):
    _, a = make(tmp_path, max_to_keep=1, checkpoint_name="a")
    _, b = make(tmp_path, max_to_keep=1, checkpoint_name="b")
    a.save()
    b.save()
    a.save()
    assert names(a.checkpoints) == ["a-2.h5"] and names(b.checkpoints) == ["b-1.h5"]
    assert ef.checkpoint.latest_checkpoint(tmp_path).endswith("a-2.h5")


def test_keep_checkpoint_every_n_hours(tmp_path, monkeypatch):
    clock = [0.0]
    monkeypatch.setattr(manager_module, "_clock", lambda: clock[0])
    _, manager = make(tmp_path, max_to_keep=1, keep_checkpoint_every_n_hours=1)
    for minutes in (0, 30, 70, 80, 150):
        clock[0] = minutes * 60.0
        manager.save()
    # ckpt-1 (t=0) and ckpt-2 (30 min) are less than an hour after the start: deleted;
    # ckpt-3 (70 min) is preserved; ckpt-4 (80 min) is within the hour after it: deleted.
    assert names(manager.checkpoints) == ["ckpt-5.h5"]
    assert sorted(os.listdir(tmp_path)) == ["checkpoint.json", "ckpt-3.h5", "ckpt-5.h5"]
    state = index.read(tmp_path)
    assert [e.file for e in state.preserved] == ["ckpt-3.h5"]
    assert state.last_preserved_time == {"ckpt": 70 * 60.0}


def test_restore_or_initialize_calls_init_fn_on_a_first_run(tmp_path):
    calls = []
    v = ef.Variable(0.0)
    manager = ef.CheckpointManager(ef.Checkpoint(v=v), tmp_path,
                                   init_fn=lambda: calls.append(v.assign(5.0)))
    assert manager.restore_or_initialize() is None and len(calls) == 1
    manager.save()
    v.assign(0.0)
    assert manager.restore_or_initialize().endswith("ckpt-1.h5")
    assert float(v) == 5.0 and len(calls) == 1


def test_restore_or_initialize_falls_back_past_a_corrupted_latest(tmp_path):
    v, manager = make(tmp_path)
    v.assign(1.0)
    manager.save()
    v.assign(2.0)
    latest = manager.save()
    with open(latest, "r+b") as f:  # damaged by something outside eagerflow
        f.truncate(100)
    v.assign(0.0)
    with pytest.warns(EagerflowWarning, match=r"Skipping unreadable checkpoint.*ckpt-2.h5"):
        assert manager.restore_or_initialize().endswith("ckpt-1.h5")
    assert float(v) == 1.0
    with open(manager.checkpoints[0], "r+b") as f:
        f.truncate(100)
    with pytest.warns(EagerflowWarning, match="Skipping"):
        with pytest.raises(ef.checkpoint.InvalidCheckpointError, match="ckpt-2.h5"):
            manager.restore_or_initialize()


def test_structural_mismatch_is_not_hidden_by_fallback(tmp_path):
    _, manager = make(tmp_path)
    manager.save()
    other = ef.CheckpointManager(ef.Checkpoint(v=ef.Variable([1.0, 2.0])), tmp_path)
    with pytest.raises(ef.errors.InvalidArgumentError, match="'v': file has shape"):
        other.restore_or_initialize()


def test_a_manager_removes_temporaries_of_dead_writers_only(tmp_path):
    dead = tmp_path / f".ckpt-3.h5.tmp-{fileio._HOST}-999999999-abcd"
    alive = tmp_path / f".ckpt-4.h5.tmp-{fileio._HOST}-{os.getpid()}-abcd"
    other_host = tmp_path / ".ckpt-5.h5.tmp-elsewhere-999999999-abcd"
    for path in (dead, alive, other_host):
        path.write_bytes(b"partial")
    make(tmp_path)
    assert not dead.exists() and alive.exists() and other_host.exists()


def test_index_with_paths_outside_the_directory_is_rejected(tmp_path):
    (tmp_path / "checkpoint.json").write_text(json.dumps({
        "format": "eagerflow-checkpoint-index", "format_version": 1, "latest": None,
        "checkpoints": [{"file": "../victim.h5", "time": 0}]}))
    with pytest.raises(ef.errors.InvalidArgumentError,
                       match=r"checkpoint.json' is corrupted: '../victim.h5' is not a plain"):
        make(tmp_path)


def test_bad_arguments(tmp_path):
    ckpt = ef.Checkpoint(v=ef.Variable(1.0))
    with pytest.raises(ef.errors.InvalidArgumentError, match="expects an ef.Checkpoint"):
        ef.CheckpointManager(ef.Variable(1.0), tmp_path)
    for bad in (0, -1, 1.5, True):
        with pytest.raises(ef.errors.InvalidArgumentError, match="`max_to_keep` must be"):
            ef.CheckpointManager(ckpt, tmp_path, max_to_keep=bad)
    with pytest.raises(ef.errors.InvalidArgumentError, match="keep_checkpoint_every_n_hours"):
        ef.CheckpointManager(ckpt, tmp_path, keep_checkpoint_every_n_hours=0)
    for bad in ("", "sub/ckpt", None):
        with pytest.raises(ef.errors.InvalidArgumentError, match="`checkpoint_name` must be"):
            ef.CheckpointManager(ckpt, tmp_path, checkpoint_name=bad)


def test_saved_files_are_plain_checkpoints(tmp_path):
    _, manager = make(tmp_path, value=4.0)
    with h5py.File(manager.save(), "r") as f:
        assert float(f["v"][()]) == 4.0 and int(f["save_counter"][()]) == 1
