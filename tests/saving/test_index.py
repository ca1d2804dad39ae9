"""The directory index and latest_checkpoint."""

import json
import os

import pytest

import eagerflow as ef
from eagerflow.saving import index


def write_raw(directory, data):
    (directory / index.INDEX_NAME).write_text(
        data if isinstance(data, str) else json.dumps(data))


def test_no_index_means_no_checkpoint(tmp_path):
    assert ef.checkpoint.latest_checkpoint(tmp_path) is None
    assert ef.checkpoint.latest_checkpoint(tmp_path / "absent") is None
    assert index.read(tmp_path) is None


def test_round_trip(tmp_path):
    state = index.Index()
    state.add("a-1.h5", 1.0)
    state.add("a-2.h5", 2.0)
    state.add("a-1.h5", 3.0)  # re-saved: moves to the end
    state.last_preserved_time["a"] = 0.5
    index.write(tmp_path, state)
    back = index.read(tmp_path)
    assert back.latest == "a-1.h5"
    assert back.checkpoints == [index.IndexEntry("a-2.h5", 2.0), index.IndexEntry("a-1.h5", 3.0)]
    assert back.last_preserved_time == {"a": 0.5}
    assert os.listdir(tmp_path) == [index.INDEX_NAME]


def test_latest_falls_back_to_the_newest_existing_file(tmp_path):
    ckpt = ef.Checkpoint(v=ef.Variable(1.0))
    first = ckpt.save(tmp_path / "c")
    second = ckpt.save(tmp_path / "c")
    os.remove(second)
    assert ef.checkpoint.latest_checkpoint(tmp_path) == first
    os.remove(first)
    assert ef.checkpoint.latest_checkpoint(tmp_path) is None


@pytest.mark.parametrize("data, message", [
    ("{not json", "not valid JSON"),
    ({"format": "something-else"}, "'format' is not"),
    ({"format": "eagerflow-checkpoint-index", "format_version": 9}, "unknown format_version 9"),
    ({"format": "eagerflow-checkpoint-index", "format_version": 1, "latest": "/etc/passwd"},
     "'/etc/passwd' is not a plain file name"),
    ({"format": "eagerflow-checkpoint-index", "format_version": 1, "checkpoints": {}},
     "not a list"),
    ({"format": "eagerflow-checkpoint-index", "format_version": 1,
      "checkpoints": [{"file": "a.h5", "time": "noon"}]}, "numeric 'time'"),
    ({"format": "eagerflow-checkpoint-index", "format_version": 1,
      "checkpoints": [{"file": "..", "time": 1}]}, "'..' is not a plain"),
    ({"format": "eagerflow-checkpoint-index", "format_version": 1,
      "last_preserved_time": {"a": "x"}}, "'last_preserved_time' must map"),
])
def test_corrupted_index_is_a_clear_error(tmp_path, data, message):
    write_raw(tmp_path, data)
    with pytest.raises(ef.errors.InvalidArgumentError,
                       match=rf"checkpoint.json' is corrupted: .*{message}.*Delete it"):
        ef.checkpoint.latest_checkpoint(tmp_path)
