"""`ef.saved_model` files have the guarantees of every eagerflow HDF5 file (issue 31: one
writer, one reader): a changed byte in any dataset or graph, a file cut short, a dataset
swapped in from another file or a file of another kind is refused with an error naming
the file and what is wrong, and a refused file creates nothing (no half-load). Files of
format version 2 (before the one writer) still load, with their own checks."""

import os
import shutil

import h5py
import numpy as np
import pytest

import eagerflow as ef
from eagerflow.saving import h5format

V2 = os.path.join(os.path.dirname(__file__), "..", "graph", "data", "saved_model_v2.h5")


class _Affine:
    def __init__(self):
        self.w = ef.Variable([2.0, 3.0], name="w")
        self.b = ef.Variable(0.5, name="b", trainable=False)

    @ef.function(input_signature=[ef.TensorSpec([None, 2], ef.float32)])
    def __call__(self, x):
        return ef.reduce_sum(x * self.w, axis=1) + self.b


def _export(tmp_path, name="m.h5"):
    path = str(tmp_path / name)
    ef.saved_model.save(_Affine(), path)
    return path


def _flip_first_byte(path, key):
    """Changes one byte of dataset `key` on disk, as a bad disk or transfer would."""
    with h5py.File(path, "r") as f:
        offset = f[key].id.get_offset()
    with open(path, "r+b") as f:
        f.seek(offset)
        byte = f.read(1)
        f.seek(offset)
        f.write(bytes([byte[0] ^ 0x01]))


def _load_creating_nothing(path):
    """Loads `path`, failing the test if a variable was created before the error."""
    created = []

    def creator(next_creator, **kwargs):
        created.append(kwargs.get("name"))
        return next_creator(**kwargs)

    _load_creating_nothing.last = created
    with ef.variable_creator_scope(creator):
        return ef.saved_model.load(path)


def test_the_file_is_written_by_the_one_writer(tmp_path):
    path = _export(tmp_path)
    with h5format.Reader(path) as reader:  # the checkpoint reader verifies it as it is
        assert reader.kind == "saved_model"
        assert sorted(reader.entries) == ["variables/0", "variables/1"]
    with open(path, "rb") as f:  # HDF5 1.10's format: superblock version 3, checksummed
        assert f.read(9)[8] == 3
    loaded = ef.saved_model.load(path)
    assert loaded(np.array([[1.0, 1.0]], np.float32)).numpy().tolist() == [5.5]


@pytest.mark.parametrize("key", ["variables/0", "variables/1",
                                 f"{h5format.META}/saved_model",
                                 f"{h5format.META}/functions/serving_default/0"])
def test_a_changed_byte_anywhere_is_refused_and_nothing_is_created(tmp_path, key):
    path = _export(tmp_path)
    _flip_first_byte(path, key)
    name = key.split("/", 1)[1] if key.startswith(h5format.META) else key
    with pytest.raises(ef.saving.InvalidCheckpointError,
                       match=rf"Saved model file '.*m\.h5'.*'{name}' does not match its "
                             "checksum"):
        _load_creating_nothing(path)
    assert _load_creating_nothing.last == []


@pytest.mark.parametrize("fraction", [0.1, 0.5, 0.9, 0.99])
def test_a_file_cut_short_is_refused(tmp_path, fraction):
    path = _export(tmp_path)
    size = os.path.getsize(path)
    with open(path, "r+b") as f:
        f.truncate(int(size * fraction))
    with pytest.raises(ef.saving.InvalidCheckpointError,
                       match=r"m\.h5'.* (truncated|corrupted)"):
        _load_creating_nothing(path)
    assert _load_creating_nothing.last == []


def test_a_dataset_the_index_does_not_list_is_refused(tmp_path):
    path = _export(tmp_path)
    with h5py.File(path, "r+") as f:  # added, and not in the manifest
        added = f.create_dataset("variables/2", data=np.zeros(2, np.float32))
        added.attrs["dtype"], added.attrs["shape"] = b"float32", b"[2]"
    with pytest.raises(ef.saving.InvalidCheckpointError,
                       match=r"dataset 'variables/2' is not in the checksum manifest"):
        _load_creating_nothing(path)


def test_a_checkpoint_is_not_a_saved_model_and_the_reverse(tmp_path):
    checkpoint = ef.Checkpoint(w=ef.Variable([1.0])).write(str(tmp_path / "c.h5"))
    with pytest.raises(ef.saving.InvalidCheckpointError,
                       match=r"c\.h5' is an eagerflow checkpoint file, not a saved model"):
        ef.saved_model.load(checkpoint)
    export = _export(tmp_path)
    with pytest.raises(ef.saving.InvalidCheckpointError,
                       match=r"m\.h5' is a saved_model file, not a whole-model file"):
        ef.models.load_model(export)
    model = ef.Sequential([ef.Input((2,)), ef.layers.Dense(1)])
    for restore in (model.load_weights, ef.Checkpoint(model=model).read):
        with pytest.raises(ef.saving.InvalidCheckpointError,
                           match=r"m\.h5' is an ef.saved_model export, not a checkpoint"):
            restore(export)


# -- the compatibility path: files written before the one writer ---------------------------
def test_a_version_2_file_still_loads():
    # Written by eagerflow 18758f2 (format version 2, its own manifest).
    loaded = ef.saved_model.load(V2)
    assert sorted(loaded.signatures) == ["count", "serving_default"]
    assert loaded(np.array([[1.0, 1.0], [2.0, 0.0]], np.float32)).numpy().tolist() == [
        6.5, 5.5]
    assert loaded.count(ef.constant(3)).numpy().tolist() == [6.0, 9.0]
    assert [(v.name, v.trainable) for v in loaded.variables] == [("w", True), ("b", False)]


def test_a_changed_byte_in_a_version_2_file_is_still_refused(tmp_path):
    path = str(tmp_path / "v2.h5")
    shutil.copy(V2, path)
    _flip_first_byte(path, "variables/0")
    with pytest.raises(ef.saving.InvalidCheckpointError,
                       match=r"v2\.h5'.*variables/0 does not match the checksum manifest"):
        _load_creating_nothing(path)
    assert _load_creating_nothing.last == []
