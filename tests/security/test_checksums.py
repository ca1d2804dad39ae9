"""Issue 28, item 6: configs and metadata are checksummed, every checksum is bound to its
key, and a file that lost its checksums is refused; for checkpoints, weights and model
files, and for `ef.saved_model` exports."""

import os
import shutil

import h5py
import numpy as np
import pytest

import eagerflow as ef
from eagerflow.saving import h5format
from tests.security import forge

CONFIG = f"{h5format.META}/model_config"


def _model():
    return ef.Sequential([ef.Input((3,)), ef.layers.Dense(2), ef.layers.LeakyReLU(0.3),
                          ef.layers.Dropout(0.5)])


def _replace_in_place(path, key, old: bytes, new: bytes):
    """Overwrites bytes of dataset `key` on disk, as a bad disk or transfer would: no
    HDF5 call, the same length."""
    with h5py.File(path, "r") as f:
        offset = f[key].id.get_offset()
        position = bytes(f[key][()]).index(old)
    with open(path, "r+b") as f:
        f.seek(offset + position)
        f.write(new)


@pytest.mark.parametrize("old, new", [(b'"negative_slope": 0.3', b'"negative_slope": 0.2'),
                                      (b'"rate": 0.5', b'"rate": 0.4')])
def test_a_changed_value_in_a_model_config_is_refused(tmp_path, old, new):
    path = _model().save(str(tmp_path / "m.h5"))
    _replace_in_place(path, CONFIG, old, new)
    with pytest.raises(ef.saving.InvalidCheckpointError,
                       match=r"m\.h5.*metadata 'model_config' does not match its checksum"):
        ef.models.load_model(path)


def _checkpoint(tmp_path, name, values):
    variables = {k: ef.Variable(np.asarray(v, np.float32)) for k, v in values.items()}
    return ef.Checkpoint(**variables).write(str(tmp_path / name))


def test_a_dataset_copied_with_its_attributes_from_another_checkpoint_is_refused(tmp_path):
    path = _checkpoint(tmp_path, "a.h5", {"w": [1.0, 2.0], "b": [3.0]})
    other = _checkpoint(tmp_path, "b.h5", {"w": [9.0, 9.0], "b": [9.0]})
    with h5py.File(path, "r+") as f, h5py.File(other, "r") as g:
        del f["w"]
        g.copy(g["w"], f, "w")  # data and every attribute
    w, b = ef.Variable([0.0, 0.0]), ef.Variable([0.0])
    with pytest.raises(ef.saving.InvalidCheckpointError,
                       match=r"a\.h5.*'w' does not match its checksum"):
        ef.Checkpoint(w=w, b=b).restore(path)
    assert w.numpy().tolist() == [0.0, 0.0] and b.numpy().tolist() == [0.0]  # nothing mixed


def test_a_renamed_or_added_dataset_is_refused(tmp_path):
    path = _checkpoint(tmp_path, "r.h5", {"w": [1.0, 2.0], "v": [3.0, 4.0]})
    with h5py.File(path, "r+") as f:
        f.move("v", "u")
    with pytest.raises(ef.saving.InvalidCheckpointError,
                       match=r"r\.h5.*dataset 'u' is not in the checksum manifest"):
        ef.Checkpoint(w=ef.Variable([0.0, 0.0])).restore(path)
    with h5py.File(path, "r+") as f:
        del f["u"]
    with pytest.raises(ef.saving.InvalidCheckpointError,
                       match=r"r\.h5.*manifest lists dataset 'v', which the file does not"):
        ef.Checkpoint(w=ef.Variable([0.0, 0.0])).restore(path)


def test_the_same_bytes_declared_in_another_byte_order_are_refused(tmp_path):
    path = _checkpoint(tmp_path, "e.h5", {"w": [1.0, 2.0]})
    with h5py.File(path, "r+") as f:
        attrs, raw = dict(f["w"].attrs), f["w"][()]
        del f["w"]
        f.create_dataset("w", data=raw.view(">f4"))  # same bytes (same CRC), other values
        f["w"].attrs.update(attrs)
    with pytest.raises(ef.saving.InvalidCheckpointError,
                       match=r"e\.h5.*'w' holds >f4 data.*manifest records"):
        ef.Checkpoint(w=ef.Variable([0.0, 0.0])).restore(path)


@pytest.mark.parametrize("attribute, value", [("kind", "weights"),
                                              ("eagerflow_version", "9.9")])
def test_a_changed_root_attribute_is_refused(tmp_path, attribute, value):
    path = _checkpoint(tmp_path, "h.h5", {"w": [1.0]})
    with h5py.File(path, "r+") as f:
        f.attrs[attribute] = value
    with pytest.raises(ef.saving.InvalidCheckpointError,
                       match=rf"h\.h5.*'{attribute}' is '{value}'.*manifest records"):
        ef.Checkpoint(w=ef.Variable([0.0])).restore(path)


def test_a_changed_manifest_is_refused_even_with_a_matching_file(tmp_path):
    path = _checkpoint(tmp_path, "d.h5", {"w": [1.0]})
    with h5py.File(path, "r+") as f:
        f.attrs[h5format.MANIFEST_DIGEST] = "0" * 64
    with pytest.raises(ef.saving.InvalidCheckpointError,
                       match=r"d\.h5.*manifest does not match its SHA-256 digest"):
        ef.Checkpoint(w=ef.Variable([0.0])).restore(path)


@pytest.mark.parametrize("load", ["load_model", "load_weights"])
def test_a_model_file_stripped_of_its_checksums_is_refused(tmp_path, load):
    model = _model()
    path = model.save(str(tmp_path / "s.h5"))
    with h5py.File(path, "r+") as f:
        del f.attrs[h5format.MANIFEST_DIGEST]
        del f[f"{h5format.META}/{h5format.MANIFEST}"]
    with pytest.raises(ef.saving.InvalidCheckpointError, match=r"s\.h5.*is missing.*removed"):
        ef.models.load_model(path) if load == "load_model" else _model().load_weights(path)


def test_a_forged_file_passes_the_checksums(tmp_path):
    """Checksums detect corruption and mixing, not forgery (see the security guide): a
    file whose manifest was recomputed loads, and the loader's other checks are what
    stand between it and the user."""
    path = _checkpoint(tmp_path, "f.h5", {"w": [1.0]})
    with h5py.File(path, "r+") as f:
        f["w"][0] = 5.0
    forge.reseal(path)
    w = ef.Variable([0.0])
    ef.Checkpoint(w=w).read(path)
    assert w.numpy().tolist() == [5.0]


# -- ef.saved_model exports -----------------------------------------------------------------
class _Scale:
    def __init__(self, value):
        self.w = ef.Variable(value, name="w")

    @ef.function(input_signature=[ef.TensorSpec([None, 2], ef.float32)])
    def __call__(self, x):
        return x * self.w * 3.0


def _export(tmp_path, name, value=(2.0, 3.0)):
    path = str(tmp_path / name)
    ef.saved_model.save(_Scale(list(value)), path)
    return path


def test_a_changed_byte_in_an_exported_graph_is_refused(tmp_path):
    path = _export(tmp_path, "g.h5")
    _replace_in_place(path, f"{h5format.META}/functions/serving_default/0", b'"Mul"',
                      b'"Add"')
    with pytest.raises(ef.saving.InvalidCheckpointError,
                       match=r"g\.h5.*metadata 'functions/serving_default/0' does not match "
                             "its checksum"):
        ef.saved_model.load(path)


def test_an_exported_variable_copied_from_another_export_is_refused(tmp_path):
    path = _export(tmp_path, "a.h5")
    other = _export(tmp_path, "b.h5", value=(7.0, 7.0))
    with h5py.File(path, "r+") as f, h5py.File(other, "r") as g:
        del f["variables/0"]
        g.copy(g["variables/0"], f["variables"], "0")
    with pytest.raises(ef.saving.InvalidCheckpointError,
                       match=r"a\.h5.*the data of variable 'variables/0' does not match its "
                             "checksum"):
        ef.saved_model.load(path)


@pytest.mark.parametrize("strip", ["digest", "manifest"])
def test_an_export_stripped_of_its_checksums_is_refused(tmp_path, strip):
    path = _export(tmp_path, "s.h5")
    with h5py.File(path, "r+") as f:
        if strip == "digest":
            del f.attrs[h5format.MANIFEST_DIGEST]
        else:
            del f[f"{h5format.META}/{h5format.MANIFEST}"]
    with pytest.raises(ef.saving.InvalidCheckpointError, match=r"s\.h5.*is missing.*removed"):
        ef.saved_model.load(path)


def test_a_version_1_export_is_refused_with_a_clear_message(tmp_path):
    path = str(tmp_path / "v1.h5")  # a version 2 export (see tests/graph/data), made version 1
    shutil.copy(os.path.join(os.path.dirname(__file__), "..", "graph", "data",
                             "saved_model_v2.h5"), path)
    with h5py.File(path, "r+") as f:
        f.attrs["version"] = 1
    with pytest.raises(ef.saving.InvalidCheckpointError,
                       match=r"v1\.h5.*format version 1.*no longer loaded"):
        ef.saved_model.load(path)


def test_restore_or_initialize_falls_back_past_a_latest_with_a_corrupted_manifest(tmp_path):
    w = ef.Variable([1.0, 2.0])
    manager = ef.CheckpointManager(ef.Checkpoint(w=w), str(tmp_path), max_to_keep=3)
    first = manager.save()
    w.assign([5.0, 6.0])
    latest = manager.save()
    _replace_in_place(latest, f"{h5format.META}/{h5format.MANIFEST}", b'"entries"',
                      b'"entrieS"')
    w.assign([0.0, 0.0])
    with pytest.warns(ef.errors.EagerflowWarning,
                      match=r"ckpt-2\.h5.*manifest does not match its SHA-256 digest"):
        assert manager.restore_or_initialize() == first
    assert w.numpy().tolist() == [1.0, 2.0]


@pytest.mark.parametrize("kind", ["checkpoint", "export"])
@pytest.mark.parametrize("change", ["append", "end address"])
def test_a_file_whose_size_differs_from_its_superblock_is_refused_before_hdf5_reads_it(
        tmp_path, kind, change):
    path = (_checkpoint(tmp_path, "x.h5", {"w": [1.0]}) if kind == "checkpoint"
            else _export(tmp_path, "x.h5"))
    with open(path, "r+b") as f:
        if change == "append":
            f.seek(0, 2)
            f.write(b"\0" * 100)
        else:  # the end-of-file address (version 3 superblock, 8-byte addresses)
            f.seek(28)
            end = int.from_bytes(f.read(8), "little")
            f.seek(28)
            f.write((end - 512).to_bytes(8, "little"))
    with pytest.raises(ef.saving.InvalidCheckpointError,
                       match=r"x\.h5' is truncated or corrupted: its HDF5 superblock says"):
        (ef.Checkpoint(w=ef.Variable([0.0])).read(path) if kind == "checkpoint"
         else ef.saved_model.load(path))
