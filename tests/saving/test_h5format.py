"""The HDF5 format: round trips, h5py interoperability, and hostile or broken files."""

import json
import os
import pickle

import h5py
import numpy as np
import pytest

import eagerflow as ef
from eagerflow.saving import h5format
from eagerflow.saving.h5format import InvalidCheckpointError
from tests.security import forge

SENTINEL_NAME = "pwned.txt"


class Evil:
    """Unpickling this would create a file: the proof that nothing was unpickled."""

    def __init__(self, path):
        self.path = path

    def __reduce__(self):
        return (open, (self.path, "w"))


def make_file(path, build, version="2", fmt=h5format.FORMAT, kind="checkpoint", seal=False):
    """A file written by another tool; `seal` adds the checksum manifest a forger would."""
    with h5py.File(path, "w") as f:
        if fmt is not None:
            f.attrs["format"] = fmt
        if version is not None:
            f.attrs["format_version"] = version
        f.attrs["kind"] = kind
        f.attrs["eagerflow_version"] = ef.__version__
        build(f)
    if seal:
        forge.reseal(path)
    return str(path)


def good_dataset(f, key, array):
    ds = f.create_dataset(key, data=array)
    ds.attrs["dtype"] = array.dtype.name
    ds.attrs["shape"] = json.dumps(list(array.shape))
    return ds


def test_round_trip_every_numeric_dtype(tmp_path):
    arrays = {
        "a/f32": np.arange(6, dtype=np.float32).reshape(2, 3),
        "a/f16": np.array([1.5], np.float16),
        "a/f64": np.float64(2.5) * np.ones((), np.float64),
        "b/i64": np.array(7, np.int64),
        "b/i8": np.array([-1, 2], np.int8),
        "b/u8": np.array([255], np.uint8),
        "c/bool": np.array([True, False]),
        "c/c64": np.array([1 + 2j], np.complex64),
        "empty": np.zeros((0, 3), np.float32),
    }
    path = h5format.write(tmp_path / "all.h5", arrays, kind="checkpoint")
    with h5format.Reader(path) as reader:
        assert reader.kind == "checkpoint"
        assert reader.eagerflow_version == ef.__version__
        for key, array in arrays.items():
            assert reader.entries[key] == (array.shape, array.dtype)
            out = reader.read(key)
            assert out.dtype == array.dtype and np.array_equal(out, array)


def test_plain_h5py_reads_the_saved_weights(tmp_path):
    kernel = ef.Variable(np.arange(12, dtype=np.float32).reshape(3, 4))
    path = ef.Checkpoint(model={"dense1": {"kernel": kernel}}).write(tmp_path / "w.h5")
    with h5py.File(path, "r") as f:
        assert f.attrs["format"] == b"eagerflow-checkpoint"  # inline UTF-8 bytes
        assert f.attrs["format_version"] == b"2"
        dataset = f["model/dense1/kernel"]
        assert np.array_equal(dataset[()], kernel.numpy())
        assert dataset.attrs["dtype"] == b"float32"
        assert json.loads(dataset.attrs["shape"]) == [3, 4]
        assert dataset.compression is None and dataset.chunks is None  # contiguous


def test_big_endian_data_from_another_tool_loads(tmp_path):
    array = np.array([1.0, 2.0], dtype=">f4")
    path = make_file(tmp_path / "be.h5", lambda f: good_dataset(f, "w", array), seal=True)
    with h5format.Reader(path) as reader:
        assert reader.entries["w"].dtype == np.float32
        assert np.array_equal(reader.read("w"), [1.0, 2.0])


def test_missing_file(tmp_path):
    with pytest.raises(ef.errors.NotFoundError, match="nope.h5' does not exist"):
        h5format.Reader(tmp_path / "nope.h5")


def test_not_hdf5(tmp_path):
    path = tmp_path / "junk.h5"
    path.write_bytes(b"definitely not HDF5")
    with pytest.raises(InvalidCheckpointError, match=r"junk.h5' is not an HDF5 file"):
        h5format.Reader(path)


def test_truncated_file(tmp_path):
    path = h5format.write(tmp_path / "t.h5", {"w": np.ones(1000, np.float32)}, "checkpoint")
    data = open(path, "rb").read()
    with open(path, "wb") as f:
        f.write(data[: len(data) // 2])
    with pytest.raises(InvalidCheckpointError, match=r"t.h5' is truncated or corrupted"):
        h5format.Reader(path)


def test_hdf5_that_is_not_a_checkpoint(tmp_path):
    path = make_file(tmp_path / "other.h5", lambda f: None, fmt=None)
    with pytest.raises(InvalidCheckpointError, match=r"other.h5'.*not an eagerflow checkpoint"):
        h5format.Reader(path)


def test_unknown_format_version(tmp_path):
    path = make_file(tmp_path / "v3.h5", lambda f: None, version="3")
    with pytest.raises(InvalidCheckpointError,
                       match=r"v3.h5'.*format version 3 is not supported.*Upgrade"):
        h5format.Reader(path)
    path = make_file(tmp_path / "vx.h5", lambda f: None, version="one")
    with pytest.raises(InvalidCheckpointError, match="expected an integer"):
        h5format.Reader(path)


def test_version_1_files_without_file_level_checksums_are_refused(tmp_path):
    path = make_file(tmp_path / "v1.h5", lambda f: good_dataset(f, "w", np.ones(2, np.float32)),
                     version="1")
    with pytest.raises(InvalidCheckpointError,
                       match=r"v1.h5'.*format version 1 .*no longer loaded.*no checksums"):
        h5format.Reader(path)


def test_unknown_kind(tmp_path):
    path = make_file(tmp_path / "k.h5", lambda f: None, kind="bundle")
    with pytest.raises(InvalidCheckpointError, match="'kind' is 'bundle'"):
        h5format.Reader(path)


def test_pickled_attributes_are_rejected_and_never_unpickled(tmp_path):
    sentinel = tmp_path / SENTINEL_NAME
    payload = np.void(pickle.dumps(Evil(str(sentinel))))

    def dataset_attr(f):
        good_dataset(f, "w", np.ones(2, np.float32)).attrs["dtype"] = payload

    path = make_file(tmp_path / "evil1.h5", dataset_attr)
    with pytest.raises(InvalidCheckpointError, match="'dtype' of dataset 'w' must be a string"):
        h5format.Reader(path)
    path = make_file(tmp_path / "evil2.h5", lambda f: None, fmt=payload)
    with pytest.raises(InvalidCheckpointError, match="'format' of the root group must be a"):
        h5format.Reader(path)
    assert not sentinel.exists()


def test_binary_bytes_attribute_is_rejected(tmp_path):
    def build(f):
        good_dataset(f, "w", np.ones(2, np.float32)).attrs["shape"] = np.bytes_(b"\xff\xfe")

    with pytest.raises(InvalidCheckpointError, match="not UTF-8"):
        h5format.Reader(make_file(tmp_path / "b.h5", build))


@pytest.mark.parametrize("build, message", [
    (lambda f: f.create_dataset("s", data=np.array(["a", "b"], dtype=h5py.string_dtype())),
     "only numeric datasets"),
    (lambda f: f.create_dataset("c", data=np.zeros(2, [("a", "f4"), ("b", "i4")])),
     "only numeric datasets"),
    (lambda f: f.create_dataset("o", data=np.void(pickle.dumps([1, 2]))),
     "only numeric datasets"),
])
def test_non_numeric_datasets_are_rejected(tmp_path, build, message):
    with pytest.raises(InvalidCheckpointError, match=message):
        h5format.Reader(make_file(tmp_path / "n.h5", build))


def test_absurd_shape_is_rejected_before_any_allocation(tmp_path):
    def build(f):
        ds = f.create_dataset("huge", shape=(10**6, 10**6), dtype="f4", chunks=(1, 1024))
        ds.attrs["dtype"], ds.attrs["shape"] = "float32", "[1000000, 1000000]"

    with pytest.raises(InvalidCheckpointError, match=r"'huge' claims shape \(1000000, 1000000\)"):
        h5format.Reader(make_file(tmp_path / "huge.h5", build))


def test_unwritten_data_is_rejected(tmp_path):
    def build(f):
        ds = f.create_dataset("w", shape=(100,), dtype="f4")  # never written
        ds.attrs["dtype"], ds.attrs["shape"] = "float32", "[100]"
        good_dataset(f, "pad", np.zeros(1000, np.float64))

    with pytest.raises(InvalidCheckpointError, match="'w' with shape .100,. is incompletely"):
        h5format.Reader(make_file(tmp_path / "u.h5", build))


def test_compressed_data_is_rejected(tmp_path):
    def build(f):
        ds = f.create_dataset("w", data=np.zeros(100, np.float32), compression="gzip")
        ds.attrs["dtype"], ds.attrs["shape"] = "float32", "[100]"

    with pytest.raises(InvalidCheckpointError, match="compressed or filtered"):
        h5format.Reader(make_file(tmp_path / "z.h5", build))


def test_external_storage_is_rejected(tmp_path):
    secret = tmp_path / "secret.bin"
    secret.write_bytes(b"\x00" * 16)

    def build(f):
        ds = f.create_dataset("w", shape=(4,), dtype="f4", external=[(str(secret), 0, 16)])
        ds.attrs["dtype"], ds.attrs["shape"] = "float32", "[4]"

    with pytest.raises(InvalidCheckpointError, match="outside the file"):
        h5format.Reader(make_file(tmp_path / "ext.h5", build))


def test_virtual_dataset_is_rejected(tmp_path):
    source = tmp_path / "src.h5"
    with h5py.File(source, "w") as f:
        f.create_dataset("data", data=np.ones(4, np.float32))

    def build(f):
        layout = h5py.VirtualLayout(shape=(4,), dtype="f4")
        layout[:] = h5py.VirtualSource(str(source), "data", shape=(4,))
        ds = f.create_virtual_dataset("w", layout)
        ds.attrs["dtype"], ds.attrs["shape"] = "float32", "[4]"

    with pytest.raises(InvalidCheckpointError, match="outside the file"):
        h5format.Reader(make_file(tmp_path / "vds.h5", build))


def test_links_are_refused(tmp_path):
    other = tmp_path / "other.h5"
    with h5py.File(other, "w") as f:
        good_dataset(f, "x", np.ones(2, np.float32))

    def build(f):
        good_dataset(f, "w", np.ones(2, np.float32))
        f["external"] = h5py.ExternalLink(str(other), "/x")
        f["soft"] = h5py.SoftLink("/w")

    # Refused, not skipped: a link is how a file serves another file's bytes (see also
    # tests/security/test_hdf5_safe_open.py).
    with pytest.raises(InvalidCheckpointError, match="'external' is an external link"):
        h5format.Reader(make_file(tmp_path / "links.h5", build, seal=True))


@pytest.mark.parametrize("attr, value, message", [
    ("dtype", "float64", "holds float32 data but its 'dtype' attribute says 'float64'"),
    ("shape", "[3]", r"has shape \(2,\) but its 'shape' attribute says '\[3\]'"),
    ("shape", "not json", "attribute says 'not json'"),
    ("shape", "[-2]", "attribute says"),
])
def test_attributes_must_describe_the_data(tmp_path, attr, value, message):
    def build(f):
        good_dataset(f, "w", np.ones(2, np.float32)).attrs[attr] = value

    with pytest.raises(InvalidCheckpointError, match=message):
        h5format.Reader(make_file(tmp_path / "a.h5", build))


def test_metadata_must_be_uint8_text(tmp_path):
    def build(f):
        f.create_dataset(f"{h5format.META}/model_config", data=np.ones(3, np.float32))

    with pytest.raises(InvalidCheckpointError, match="must be 1-D uint8 text"):
        h5format.Reader(make_file(tmp_path / "m.h5", build))


def test_metadata_round_trip(tmp_path):
    path = h5format.write(tmp_path / "m.h5", {}, "model", metadata={"note": b"hello"})
    with h5format.Reader(path) as reader:
        assert reader.metadata("note") == b"hello"
        assert reader.metadata("absent") is None
        assert reader.entries == {}


def test_write_is_atomic_when_a_dataset_fails(tmp_path, monkeypatch):
    path = h5format.write(tmp_path / "w.h5", {"w": np.ones(3, np.float32)}, "checkpoint")
    before = open(path, "rb").read()

    def failing(h5file, key, array, *checksums):
        raise OSError("disk full (injected)")

    monkeypatch.setattr(h5format, "_write_dataset", failing)
    with pytest.raises(OSError, match="injected"):
        h5format.write(path, {"w": np.zeros(3, np.float32)}, "checkpoint")
    assert open(path, "rb").read() == before
    assert os.listdir(tmp_path) == ["w.h5"]


def test_files_open_without_hdf5_locking(tmp_path, monkeypatch):
    calls = []
    real_file = h5py.File

    def recording(path, mode, **kwargs):
        calls.append(kwargs)
        return real_file(path, mode, **kwargs)

    monkeypatch.setattr(h5format.h5py, "File", recording)
    path = h5format.write(tmp_path / "l.h5", {"w": np.ones(2, np.float32)}, "checkpoint")
    h5format.Reader(path).close()
    assert calls == [{"locking": False, "libver": h5format.LIBVER}, {"locking": False}]


def test_old_hdf5_without_the_locking_option(tmp_path, monkeypatch):
    real_file = h5py.File

    def old(path, mode, **kwargs):
        if "locking" in kwargs:
            raise ValueError("HDF5 >= 1.12.1 or 1.10.x >= 1.10.7 required for file locking")
        return real_file(path, mode)

    monkeypatch.setattr(h5format.h5py, "File", old)
    path = h5format.write(tmp_path / "o.h5", {"w": np.ones(2, np.float32)}, "checkpoint")
    with h5format.Reader(path) as reader:
        assert list(reader.entries) == ["w"]

    def other_error(path, mode, **kwargs):
        raise ValueError("Invalid mode")

    monkeypatch.setattr(h5format.h5py, "File", other_error)
    with pytest.raises(ValueError, match="Invalid mode"):
        h5format.write(tmp_path / "x.h5", {}, "checkpoint")


def test_signature_after_a_user_block_is_found(tmp_path):
    path = tmp_path / "ub.h5"
    with h5py.File(path, "w", userblock_size=1024) as f:
        f.attrs["format"], f.attrs["format_version"] = h5format.FORMAT, "2"
        f.attrs["kind"], f.attrs["eagerflow_version"] = "weights", ef.__version__
        good_dataset(f, "w", np.ones(2, np.float32))
    forge.reseal(path)
    with h5format.Reader(path) as reader:
        assert reader.kind == "weights"
