"""Attacks on the text entries of a checkpoint (`ef.string` variables, packed as uint8 with
a sealed ``text_entries`` record of their shapes): a forger who edits the file and reseals
its checksums gets a clear refusal, and nothing is restored."""

import json
import os

import h5py
import numpy as np
import pytest

import eagerflow as ef
from eagerflow.saving import h5format
from tests.security import forge

RECORD = f"{h5format.META}/{h5format.STRINGS}"


def _saved(tmp_path):
    return ef.train.Checkpoint(v=ef.Variable([b"ab", b"cde"]), n=ef.Variable(1.0)).save(
        os.path.join(tmp_path, "ckpt"))


def _edit(path, record=None, data=None):
    with h5py.File(path, "r+") as f:
        if record is not None:
            del f[RECORD]
            f.create_dataset(RECORD, data=np.frombuffer(record, np.uint8))
        if data is not None:
            del f["v"]
            f.create_dataset("v", data=data)
            f["v"].attrs["dtype"] = h5format.text_attr(data.dtype.name)
            f["v"].attrs["shape"] = h5format.text_attr(json.dumps(list(data.shape)))
    forge.reseal(path)


def _refused(path, match):
    loaded = ef.train.Checkpoint(v=ef.Variable([b"", b""]), n=ef.Variable(0.0))
    with pytest.raises(ef.saving.InvalidCheckpointError, match=match):
        loaded.restore(path)
    assert loaded.v.numpy().tolist() == [b"", b""] and float(loaded.n) == 0.0


def test_an_unsealed_edit_is_refused(tmp_path):
    path = _saved(tmp_path)
    with h5py.File(path, "r+") as f:
        data = f[RECORD][()]
        data[-2] ^= 1
        f[RECORD][...] = data
    _refused(path, "checksum")


@pytest.mark.parametrize("record, match", [
    (b"[1, 2]", "JSON object"),
    (b"{not json", "JSON object"),
    (json.dumps({"v": [10**9]}).encode(), "cannot hold"),
    (json.dumps({"v": [-1]}).encode(), "cannot hold"),
    (json.dumps({"v": "2"}).encode(), "cannot hold"),
    (json.dumps({"v": [1] * 40}).encode(), "cannot hold"),
    (json.dumps({"missing": [2]}).encode(), "not a 1-D uint8 entry"),
    (json.dumps({"n": []}).encode(), "not a 1-D uint8 entry"),
])
def test_a_forged_record_is_refused(tmp_path, record, match):
    path = _saved(tmp_path)
    _edit(path, record=record)
    _refused(path, match)


@pytest.mark.parametrize("lengths, data, match", [
    ([2, 99], b"abcde", "do not add up"),
    ([-3, 8], b"abcde", "do not add up"),
    ([2, 3], b"abcdef", "do not add up"),
])
def test_forged_lengths_are_refused(tmp_path, lengths, data, match):
    path = _saved(tmp_path)
    packed = np.concatenate([np.array(lengths, "<i8").view(np.uint8),
                             np.frombuffer(data, np.uint8)])
    _edit(path, data=packed)
    _refused(path, match)


def test_a_shape_whose_size_overflows_int64_is_refused(tmp_path):
    # 10**32 elements: an int64 product wraps around; the check multiplies Python ints.
    path = ef.train.Checkpoint(v=ef.Variable([b"abc"] * 10)).save(os.path.join(tmp_path, "c"))
    _edit(path, record=json.dumps({"v": [10] * 32}).encode())
    loaded = ef.train.Checkpoint(v=ef.Variable([b""] * 10))
    with pytest.raises(ef.saving.InvalidCheckpointError, match="cannot hold"):
        loaded.restore(path)
    assert loaded.v.numpy().tolist() == [b""] * 10
