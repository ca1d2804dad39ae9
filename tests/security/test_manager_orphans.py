"""Issue 28: checkpoints rotated out by a save killed before it deleted them (and files a
killed save never recorded) stayed on disk forever. A manager starting on the directory
now deletes them, with leftover temporaries of its own files, and nothing else.

TensorFlow 2.21's `CheckpointManager.__init__` (checked) deletes nothing: it recovers the
kept list from the state file, and unrecorded ``ckpt-N`` files stay even after later saves.
"""

import os
import random
import re
import signal
import time

import numpy as np
import pytest

import eagerflow as ef
from eagerflow.saving import fileio, index

KEEP = 2
USER_FILES = ("notes.txt", "ckpt-1.h5.bak", "other-3.h5", "ckpt-x.h5",
              ".ckpt-7.h5.tmp-elsewhere-999999999-abcd")  # another host's writer


def _saver(directory, mode, ready):
    """The forked child: saves consistent states until it is killed (or kills itself)."""
    try:
        step = ef.Variable(np.int64(0))
        w = ef.Variable(np.zeros(4096, np.float32))
        manager = ef.CheckpointManager(ef.Checkpoint(step=step, w=w), directory,
                                       max_to_keep=KEEP)
        manager.restore_or_initialize()
        suicide = lambda *args, **kwargs: os.kill(os.getpid(), signal.SIGKILL)  # noqa: E731
        if mode == "after the index, before deleting":
            remove = os.remove
            os.remove = lambda path: (suicide() if re.fullmatch(r"ckpt-\d+\.h5",
                                                                os.path.basename(path))
                                      else remove(path))
        elif mode == "after the file, before the index":
            index.write = suicide
        os.write(ready, b"x")
        while True:
            step.assign_add(1)
            w.assign(np.full(4096, float(int(step)), np.float32))
            manager.save()
    finally:
        os._exit(1)


def _kill_a_saver(directory, mode, rng):
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        os.close(read_end)
        _saver(directory, mode, write_end)
    os.close(write_end)
    try:
        assert os.read(read_end, 1) == b"x", "the saver died before saving"
    finally:
        os.close(read_end)
    if mode == "random":
        time.sleep(rng.uniform(0.0, 0.04))
        os.kill(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL


def _check_after_restart(directory):
    step, w = ef.Variable(np.int64(0)), ef.Variable(np.zeros(4096, np.float32))
    manager = ef.CheckpointManager(ef.Checkpoint(step=step, w=w), directory, max_to_keep=KEEP)
    kept = [os.path.basename(p) for p in manager.checkpoints]
    assert 1 <= len(kept) <= KEEP
    assert sorted(os.listdir(directory)) == sorted([index.INDEX_NAME, *kept, *USER_FILES])
    for path in manager.checkpoints:  # each kept file is complete and one consistent step
        ef.Checkpoint(step=step, w=w).restore(path).assert_consumed()
        assert np.all(w.numpy() == float(int(step)))
    return kept


@pytest.fixture
def directory(tmp_path):
    for name in USER_FILES:
        (tmp_path / name).write_text("the user's")
    step, w = ef.Variable(np.int64(0)), ef.Variable(np.zeros(4096, np.float32))
    manager = ef.CheckpointManager(ef.Checkpoint(step=step, w=w), tmp_path, max_to_keep=KEEP)
    for _ in range(KEEP):
        step.assign_add(1)
        w.assign_add(np.ones(4096, np.float32))
        manager.save()
    return tmp_path


@pytest.mark.parametrize("mode", ["after the index, before deleting",
                                  "after the file, before the index"])
def test_files_a_killed_save_left_unnamed_are_deleted_at_the_next_start(directory, mode):
    _kill_a_saver(directory, mode, None)
    state = index.read(directory)
    named = {e.file for e in state.checkpoints}
    on_disk = {n for n in os.listdir(directory) if re.fullmatch(r"ckpt-\d+\.h5", n)}
    assert len(on_disk - named) == 1  # the orphan: rotated out, or never recorded
    _check_after_restart(directory)


def test_savers_killed_at_random_moments_leave_only_what_the_index_names(directory):
    rng = random.Random(28)
    for _ in range(6):  # 120 and more offline: same result
        _kill_a_saver(directory, "random", rng)
        _check_after_restart(directory)


def test_without_an_index_no_checkpoint_file_is_deleted(tmp_path):
    for name in ("ckpt-1.h5", "ckpt-2.h5"):
        (tmp_path / name).write_text("copied here by the user")
    ef.CheckpointManager(ef.Checkpoint(v=ef.Variable(1.0)), tmp_path)
    assert sorted(os.listdir(tmp_path)) == ["ckpt-1.h5", "ckpt-2.h5"]


def test_another_names_checkpoints_and_preserved_files_are_kept(tmp_path):
    v = ef.Variable(1.0)
    other = ef.CheckpointManager(ef.Checkpoint(v=v), tmp_path, checkpoint_name="other")
    other.save()
    state = index.read(tmp_path)
    state.preserved.append(index.IndexEntry("ckpt-1.h5", 0.0))
    index.write(tmp_path, state)
    (tmp_path / "ckpt-1.h5").write_bytes(open(other.latest_checkpoint, "rb").read())
    (tmp_path / "ckpt-2.h5").write_bytes(b"an orphan")
    ef.CheckpointManager(ef.Checkpoint(v=v), tmp_path)
    assert sorted(os.listdir(tmp_path)) == [index.INDEX_NAME, "ckpt-1.h5", "other-1.h5"]
