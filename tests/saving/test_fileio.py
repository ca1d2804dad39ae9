"""Atomic writes and stale-temporary clean-up."""

import os
import stat

import pytest

from eagerflow.saving import fileio


def write_text(text):
    def write(tmp):
        with open(tmp, "w") as f:
            f.write(text)
    return write


def test_atomic_write_replaces_and_creates_directories(tmp_path):
    target = tmp_path / "a" / "b" / "file.txt"
    assert fileio.atomic_write(target, write_text("one")) == str(target)
    fileio.atomic_write(target, write_text("two"))
    assert target.read_text() == "two"
    assert os.listdir(target.parent) == ["file.txt"]


def test_failure_leaves_the_old_file_and_no_temporary(tmp_path):
    target = tmp_path / "file.txt"
    fileio.atomic_write(target, write_text("old"))

    def failing(tmp):
        with open(tmp, "w") as f:
            f.write("half")
        raise KeyboardInterrupt  # even an interrupt cleans up

    with pytest.raises(KeyboardInterrupt):
        fileio.atomic_write(target, failing)
    assert target.read_text() == "old"
    assert os.listdir(tmp_path) == ["file.txt"]


def test_files_get_the_usual_permissions(tmp_path):
    umask = os.umask(0o022)
    os.umask(umask)
    target = tmp_path / "file.txt"
    fileio.atomic_write(target, write_text("x"))
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o666 & ~umask


def test_remove_stale_temporaries(tmp_path):
    dead = tmp_path / f".ckpt-1.h5.tmp-{fileio._HOST}-999999999-00"
    mine = tmp_path / f".ckpt-2.h5.tmp-{fileio._HOST}-{os.getpid()}-00"
    other_prefix = tmp_path / f".model.h5.tmp-{fileio._HOST}-999999999-00"
    for path in (dead, mine, other_prefix):
        path.write_text("partial")
    assert fileio.remove_stale_temporaries(str(tmp_path), r"ckpt-\d+\.h5") == [str(dead)]
    assert mine.exists() and other_prefix.exists()
    assert fileio.remove_stale_temporaries(str(tmp_path / "absent"), "ckpt-.*") == []
