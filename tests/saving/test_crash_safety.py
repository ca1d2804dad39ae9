"""A save killed part-way never damages the previous checkpoint nor becomes 'latest'."""

import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import eagerflow as ef
from tests.saving.fakes import REPO

CHILD = textwrap.dedent("""
    import os, sys, time
    import numpy as np
    import eagerflow as ef
    from eagerflow.saving import h5format

    directory, marker, mode = sys.argv[1:4]
    w = ef.Variable(np.full((256, 1024), 1.0, np.float32))
    b = ef.Variable(np.full((1024,), 1.0, np.float32))
    manager = ef.CheckpointManager(ef.Checkpoint(w=w, b=b), directory, max_to_keep=3)
    manager.save()
    if mode == "hang":  # stop for good in the middle of the second save
        original = h5format._write_dataset
        def write_then_hang(h5file, key, array, *checksums):
            original(h5file, key, array, *checksums)
            open(marker, "w").close()
            time.sleep(120)
        h5format._write_dataset = write_then_hang
    else:
        open(marker, "w").close()
    for step in range(2, 10_000):
        w.assign(np.full((256, 1024), float(step), np.float32))
        b.assign(np.full((1024,), float(step), np.float32))
        manager.save()
""")


def run_and_kill(directory, mode, delay=0.0):
    marker = directory / "marker"
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(directory), str(marker), mode],
        env={**os.environ, "PYTHONPATH": REPO}, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while not marker.exists():
        if child.poll() is not None:
            pytest.fail(f"child exited early: {child.stderr.read().decode()}")
        if time.monotonic() > deadline:
            child.kill()
            pytest.fail("child never reached the save")
        time.sleep(0.01)
    time.sleep(delay)
    child.send_signal(signal.SIGKILL)
    child.wait()
    child.stderr.close()
    marker.unlink()


def check_consistent(directory):
    """Every checkpoint the index names loads, and holds one consistent step."""
    latest = ef.checkpoint.latest_checkpoint(directory)
    assert latest is not None
    manager = ef.CheckpointManager(ef.Checkpoint(w=ef.Variable(np.zeros((256, 1024), np.float32)),
                                                 b=ef.Variable(np.zeros(1024, np.float32))),
                                   directory, max_to_keep=3)
    assert manager.latest_checkpoint == latest
    for path in manager.checkpoints:
        w = ef.Variable(np.zeros((256, 1024), np.float32))
        b = ef.Variable(np.zeros(1024, np.float32))
        ef.Checkpoint(w=w, b=b).restore(path).assert_consumed()
        assert len(np.unique(w.numpy())) == 1 and float(b.numpy()[0]) == float(w.numpy()[0, 0])
    return manager


def test_kill_in_the_middle_of_writing_a_checkpoint(tmp_path):
    run_and_kill(tmp_path, "hang")
    names = sorted(os.listdir(tmp_path))
    temporaries = [n for n in names if ".tmp-" in n]
    assert len(temporaries) == 1  # the half-written file, under its temporary name
    manager = check_consistent(tmp_path)  # a new manager also removes the dead temporary
    assert [os.path.basename(p) for p in manager.checkpoints] == ["ckpt-1.h5"]
    assert not any(".tmp-" in n for n in os.listdir(tmp_path))
    w = ef.Variable(np.zeros((256, 1024), np.float32))
    ckpt = ef.Checkpoint(w=w, b=ef.Variable(np.zeros(1024, np.float32)))
    assert float(w.numpy()[0, 0]) == 0.0
    manager = ef.CheckpointManager(ckpt, tmp_path, max_to_keep=3)
    assert manager.restore_or_initialize().endswith("ckpt-1.h5")
    assert float(w.numpy()[0, 0]) == 1.0
    assert manager.save().endswith("ckpt-2.h5")  # numbering continues from the restore


@pytest.mark.parametrize("delay", [0.05, 0.23])
def test_kill_at_an_arbitrary_moment_of_repeated_saves(tmp_path, delay):
    run_and_kill(tmp_path, "loop", delay)
    check_consistent(tmp_path)
