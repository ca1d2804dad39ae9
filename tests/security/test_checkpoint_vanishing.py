"""Issue 28: a checkpoint deleted between the existence check and the open was reported
as corrupted; it is a missing file (`NotFoundError` naming the path)."""

import os

import pytest

import eagerflow as ef
from eagerflow.saving import h5format, h5safe


@pytest.fixture
def saved(tmp_path):
    return ef.Checkpoint(v=ef.Variable(1.0)).write(tmp_path / "gone.h5")


def test_checkpoint_deleted_while_opening_is_not_found(saved, monkeypatch):
    original = h5safe.open_file

    def delete_then_open(path, *args, **kwargs):
        os.remove(path)  # what a rotating manager in another process may do right now
        return original(path, *args, **kwargs)

    monkeypatch.setattr(h5safe, "open_file", delete_then_open)
    with pytest.raises(ef.errors.NotFoundError,
                       match=r"gone\.h5' does not exist \(it was deleted while being opened"):
        ef.Checkpoint(v=ef.Variable(0.0)).restore(saved)
    assert not os.path.exists(saved)


def test_corrupted_file_is_still_reported_as_corrupted(saved):
    with open(saved, "r+b") as f:  # keep the signature, destroy the superblock after it
        f.seek(8)
        f.write(b"\xff" * 64)
    with pytest.raises(h5format.InvalidCheckpointError, match=r"gone\.h5' is truncated or"):
        ef.Checkpoint(v=ef.Variable(0.0)).restore(saved)
