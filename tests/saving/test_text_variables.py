"""Text variables (`ef.string`) in checkpoints: saved as packed bytes plus a sealed record
of their shapes, restored at once, deferred or on attachment (TensorFlow checkpoints
string variables too)."""

import os

import numpy as np
import pytest

import eagerflow as ef
from eagerflow.saving import h5format

VALUES = [b"a", b"bc", "é".encode(), b"", b"\x00nul\x00"]


def _saved(tmp_path):
    ckpt = ef.train.Checkpoint(v=ef.Variable(VALUES),
                               grid=ef.Variable([[b"x", b""], [b"yy", b"z"]]),
                               n=ef.Variable(3.0), scalar=ef.Variable(b"one"))
    return ckpt.save(os.path.join(tmp_path, "ckpt"))


def test_text_round_trips_exactly(tmp_path):
    path = _saved(tmp_path)
    loaded = ef.train.Checkpoint(v=ef.Variable([b""] * 5), grid=ef.Variable([[b"", b""]] * 2),
                                 n=ef.Variable(0.0), scalar=ef.Variable(b""))
    loaded.restore(path).assert_consumed()
    assert loaded.v.numpy().tolist() == VALUES
    assert loaded.grid.numpy().tolist() == [[b"x", b""], [b"yy", b"z"]]
    assert loaded.scalar.numpy() == b"one" and float(loaded.n) == 3.0
    assert dict(ef.train.list_variables(path))["grid"] == [2, 2]
    assert ef.train.load_variable(path, "v").tolist() == VALUES


def test_text_is_restored_deferred_and_on_attachment(tmp_path):
    path = _saved(tmp_path)
    loaded = ef.train.Checkpoint()
    loaded.restore(path)
    loaded.v = ef.Variable([b""] * 5)
    assert loaded.v.numpy().tolist() == VALUES


def test_text_into_a_number_variable_is_a_clear_mismatch(tmp_path):
    path = _saved(tmp_path)
    loaded = ef.train.Checkpoint(v=ef.Variable(np.zeros(5, np.float32)))
    with pytest.raises(Exception, match=r"(?s)v.*string.*float32|v.*float32.*string"):
        loaded.restore(path)


def test_pack_and_unpack_are_inverse():
    array = np.array(VALUES, dtype=object).reshape(5, 1)
    packed = h5format.pack_strings(array)
    assert packed.dtype == np.uint8
    np.testing.assert_array_equal(h5format.unpack_strings(packed, (5, 1), "x"), array)
    with pytest.raises(ef.errors.InvalidArgumentError, match="must hold bytes"):
        h5format.pack_strings(np.array(["text"], dtype=object))
