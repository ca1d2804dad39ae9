"""Attacks on a checkpoint's object alias record (`eagerflow.saving.binding`).

The record says which saved paths are further names of one object. A hostile file may
carry a record that escapes the object graph, chains or loops, names unknown targets,
shadows saved values or is oversized: every such record is refused with an error naming
the file and the alias, before anything is restored. A record edited without resealing
fails its checksum."""

import os

import h5py
import numpy as np
import pytest

import eagerflow as ef
from eagerflow.saving import binding, h5format
from tests.security import forge


def _file_with_record(tmp_path, record):
    """A sealed checkpoint holding ``a/v`` = 3.0 with `record` as its alias record (the
    writer seals whatever it is given, as a forger who recomputes the manifest does)."""
    blob = record if isinstance(record, bytes) else (
        __import__("json").dumps(record).encode("utf-8"))
    return h5format.write(os.path.join(tmp_path, "forged.h5"),
                          {"a/v": np.float32(3.0), "a/w": np.float32(4.0)}, kind="checkpoint",
                          metadata={binding.ALIASES: blob})


def _loader():
    loaded = ef.train.Checkpoint()
    loaded.b = ef.Module()
    loaded.b.v = ef.Variable(0.0)
    return loaded


@pytest.mark.parametrize("record, reason", [
    ({"b": "../a"}, "empty, '.', '..' or holds NUL"),
    ({"b/../c": "a"}, "empty, '.', '..' or holds NUL"),
    ({"/b": "a"}, "empty, '.', '..' or holds NUL"),
    ({"b": "a//v"}, "empty, '.', '..' or holds NUL"),
    ({"b": "a/v\x00"}, "empty, '.', '..' or holds NUL"),
    ({"b": "nowhere"}, "the target holds no saved values"),
    ({"b": ""}, "non-empty strings"),
    ({"b": 7}, "non-empty strings"),
    ({"a": "a/v"}, "the alias is itself a saved path"),
    ({"a/v/up": "a"}, "ancestor of the alias \\(a cycle\\)"),
    ({"b": "c", "c": "a"}, "never another alias"),
    ({"b": "c", "c": "b"}, "never another alias"),
    ({"b": "c/v", "c": "b/v"}, "the target holds no saved values"),
    ({"b": "a", "b/x": "a/v"}, "its parent passes through alias 'b'"),
    ([["b", "a"]], "must be a JSON object"),
    (b"\xff\xfe", "not JSON"),
    (b"{" * 100_000, "not JSON"),
])
def test_hostile_alias_records_are_refused(tmp_path, record, reason):
    path = _file_with_record(tmp_path, record)
    loaded = _loader()
    with pytest.raises(h5format.InvalidCheckpointError,
                       match=f"forged.h5'.*refusing its object alias record: .*{reason}"):
        loaded.restore(path)
    assert float(loaded.b.v) == 0.0  # nothing was restored


def test_alias_records_past_the_size_bound_are_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(binding, "MAX_ALIASES", 2)
    path = _file_with_record(tmp_path, {"b": "a", "c": "a", "d": "a"})
    with pytest.raises(h5format.InvalidCheckpointError, match="holds 3 aliases \\(at most 2"):
        _loader().restore(path)
    monkeypatch.setattr(binding, "MAX_PATH", 8)
    path = _file_with_record(tmp_path, {"b" * 9: "a"})
    with pytest.raises(h5format.InvalidCheckpointError, match="at most 8 characters"):
        _loader().restore(path)


def test_a_valid_record_restores_through_the_alias(tmp_path):
    loaded = _loader()
    loaded.restore(_file_with_record(tmp_path, {"b": "a"}))
    assert float(loaded.b.v) == 3.0


def test_a_tampered_record_fails_its_checksum_and_a_resealed_one_is_validated(tmp_path):
    original = ef.train.Checkpoint()
    original.a = ef.Module()
    original.a.v = ef.Variable(3.0)
    original.b = original.a
    path = original.write(os.path.join(tmp_path, "forged.h5"))
    key = f"{h5format.META}/{binding.ALIASES}"
    with h5py.File(path, "r+") as f:
        assert bytes(f[key][()]) == b'{"b":"a"}'
        blob = b'{"b":"..", "c":"a"}'
        del f[key]
        f.create_dataset(key, data=np.frombuffer(blob, np.uint8))
    with pytest.raises(h5format.InvalidCheckpointError, match="checksum"):
        _loader().restore(path)
    forge.reseal(path)
    with pytest.raises(h5format.InvalidCheckpointError, match="alias '.*' -> '\\.\\.'"):
        _loader().restore(path)
