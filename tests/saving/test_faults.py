"""Faults during loads and saves: nothing half-done, every error names the file (issue 18)."""

import os
import threading

import h5py
import numpy as np
import pytest

import eagerflow as ef
from eagerflow.saving import fileio, h5format
from tests.security import forge


def _model(seed):
    ef.random.set_seed(seed)
    model = ef.Sequential([ef.layers.Dense(3, input_shape=(2,)), ef.layers.Dense(1)])
    model.compile(optimizer="adam", loss="mse")
    model.train_on_batch(np.ones((4, 2)), np.ones((4, 1)))  # the optimizer has slots
    return model


@pytest.mark.parametrize("load", ["load_weights", "checkpoint"])
def test_a_failed_load_changes_nothing(tmp_path, monkeypatch, load):
    source, target = _model(0), _model(1)
    path = str(tmp_path / "ckpt.h5")
    if load == "load_weights":
        source.save_weights(path)
    else:
        ef.Checkpoint(model=source, optimizer=source.optimizer).write(path)
    before = [v.numpy() for v in target.variables + target.optimizer.variables]
    calls = []
    original = h5format.Reader._read_checked

    lock = threading.Lock()

    def failing(self, key, out, *how):
        with lock:  # entries are read on two threads
            calls.append(key)
            third = len(calls) == 3
        if third:  # after two values were read successfully
            self._fail(f"dataset {key!r} cannot be read; the file is corrupted (simulated).")
        return original(self, key, out, *how)

    monkeypatch.setattr(h5format.Reader, "_read_checked", failing)
    with pytest.raises(ef.saving.InvalidCheckpointError, match="ckpt.h5.*cannot be read"):
        if load == "load_weights":
            target.load_weights(path)
        else:
            ef.Checkpoint(model=target, optimizer=target.optimizer).read(path)
    after = [v.numpy() for v in target.variables + target.optimizer.variables]
    for b, a in zip(before, after, strict=True):
        np.testing.assert_array_equal(a, b)


_DISK_FULL = r"""
import resource, signal, sys
import numpy as np
import eagerflow as ef
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # writes past the limit fail with EFBIG
model = ef.Sequential([ef.layers.Dense(512, input_shape=(512,))])
model.save_weights(sys.argv[1])  # a first complete file
resource.setrlimit(resource.RLIMIT_FSIZE, (200_000, 200_000))
try:
    model.save_weights(sys.argv[1])
except OSError as e:
    print("OSError", e.errno, e)
"""


def test_a_save_that_hits_a_full_disk_raises_an_oserror_naming_the_file(tmp_path):
    import subprocess
    import sys

    path = tmp_path / "w.h5"
    out = subprocess.run([sys.executable, "-c", _DISK_FULL, str(path)], capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("OSError")
    assert "w.h5" in out.stdout and "disk is full" in out.stdout
    clone = ef.Sequential([ef.layers.Dense(512, input_shape=(512,))])
    assert len(clone.load_weights(str(path)).matched) == 2  # the first file is intact
    assert [p.name for p in tmp_path.iterdir()] == ["w.h5"]  # no temporary left


def test_stale_temporaries_of_killed_saves_are_removed_by_the_next_save(tmp_path):
    import socket

    host = fileio._HOST if hasattr(fileio, "_HOST") else socket.gethostname()
    dead = 2 ** 22 + 12345  # no such process
    for name in (f".w.h5.tmp-{host}-{dead}-ab12cd34", f".checkpoint.json.tmp-{host}-{dead}-x"):
        (tmp_path / name).write_bytes(b"partial")
    alive = tmp_path / f".other.h5.tmp-{host}-{os.getpid()}-ffff0000"  # a live writer's
    alive.write_bytes(b"in progress")
    model = ef.Sequential([ef.layers.Dense(2, input_shape=(2,))])
    model.save_weights(str(tmp_path / "w.h5"))
    assert sorted(p.name for p in tmp_path.iterdir()) == [alive.name, "w.h5"]


def test_a_null_dataspace_is_an_invalid_checkpoint_naming_file_and_dataset(tmp_path):


    model = ef.Sequential([ef.layers.Dense(2, input_shape=(2,))])
    path = str(tmp_path / "w.h5")
    model.save_weights(path)
    with h5py.File(path, "r+") as f:
        name = next(k for k in _dataset_names(f) if k.endswith("kernel"))
        attrs = dict(f[name].attrs)
        del f[name]
        f.create_dataset(name, data=h5py.Empty("f4"))
        f[name].attrs.update(attrs)
    with pytest.raises(ef.saving.InvalidCheckpointError, match=r"w\.h5.*kernel.*null dataspace"):
        model.load_weights(path)


def test_restore_or_initialize_falls_back_past_a_corrupt_latest(tmp_path):


    w = ef.Variable([1.0, 2.0], name="w")
    manager = ef.CheckpointManager(ef.Checkpoint(w=w), str(tmp_path), max_to_keep=3)
    first = manager.save()
    w.assign([5.0, 6.0])
    latest = manager.save()
    with h5py.File(latest, "r+") as f:
        del f["w"]
        f.create_dataset("w", data=h5py.Empty("f4"))
    w.assign([0.0, 0.0])
    with pytest.warns(ef.errors.EagerflowWarning, match="null dataspace"):
        restored = manager.restore_or_initialize()
    assert restored == first
    np.testing.assert_array_equal(w.numpy(), [1.0, 2.0])


def _dataset_names(h5file):
    names = []
    h5file.visititems(lambda k, v: names.append(k) if hasattr(v, "shape") else None)
    return names


def _model_file(tmp_path):
    model = ef.Sequential([ef.layers.Dense(3, input_shape=(4,))])
    return model, model.save(str(tmp_path / "model.h5"))


def _rewrite_config(path, edit):


    with h5py.File(path, "r+") as f:
        name = ".eagerflow/model_config"
        text = bytes(f[name][()]).decode("utf-8")
        del f[name]
        f.create_dataset(name, data=np.frombuffer(edit(text).encode("utf-8"), np.uint8))
    forge.reseal(path)  # a forged config: past the checksums, to the loader's checks


def test_a_config_asking_for_huge_weights_is_refused_before_allocating(tmp_path):
    _, path = _model_file(tmp_path)
    # 3 units -> 100 million: a 1.6 GB kernel from a file of a few KB, beyond the default
    # budget (twice the file plus 1 GiB; see tests/security/test_load_budget.py)
    _rewrite_config(path, lambda text: text.replace('"units": 3', '"units": 100000000'))
    with pytest.raises(ef.errors.ResourceExhaustedError,
                       match=r"model\.h5'\): layer .*weight 'kernel' of shape \(4, 100000000\)"):
        ef.models.load_model(path)


def test_a_deeply_nested_config_is_a_clear_error(tmp_path):
    _, path = _model_file(tmp_path)
    _rewrite_config(path, lambda text: text[:-1] + ', "x": ' + "[" * 100000 + "]" * 100000
                    + "}")
    with pytest.raises(ef.saving.InvalidCheckpointError, match="nested 100001 levels deep"):
        ef.models.load_model(path)
    with pytest.raises(ValueError, match="nested"):
        ef.models.model_from_json("[" * 5000 + "]" * 5000)


def _flip_a_bit_of(path, key):


    with h5py.File(path, "r") as f:
        offset = f[key].id.get_offset()
    with open(path, "r+b") as f:
        f.seek(offset + 5)
        byte = f.read(1)[0]
        f.seek(offset + 5)
        f.write(bytes([byte ^ 0x10]))


@pytest.mark.parametrize("load", ["load_weights", "checkpoint", "load_model"])
def test_a_flipped_bit_in_tensor_data_is_refused_by_name(tmp_path, load):
    model = _model(0)
    path = str(tmp_path / "m.h5")
    if load == "load_weights":
        model.save_weights(path)
    elif load == "checkpoint":
        ef.Checkpoint(model=model).write(path)
    else:
        model.save(path)
    key = next(k for k in _keys(path) if k.endswith("kernel"))
    _flip_a_bit_of(path, key)
    target = _model(1)
    before = [v.numpy() for v in target.variables]
    with pytest.raises(ef.saving.InvalidCheckpointError,
                       match=rf"m\.h5.*{key}.*does not match its checksum"):
        if load == "load_weights":
            target.load_weights(path)
        elif load == "checkpoint":
            ef.Checkpoint(model=target).read(path)
        else:
            ef.models.load_model(path)
    for b, v in zip(before, target.variables, strict=True):
        np.testing.assert_array_equal(v.numpy(), b)


@pytest.mark.parametrize("fast", [True, False], ids=["crc32c", "zlib"])
@pytest.mark.parametrize("storage", ["contiguous", "chunked"])
def test_both_checksums_catch_a_flipped_bit(tmp_path, monkeypatch, fast, storage):
    """Files carry zlib's CRC-32 and, with the fast extra, a CRC-32C; either catches a flip,
    whether the data is read by eagerflow (contiguous) or by HDF5 (chunked)."""
    if fast and not h5format.has_crc32c():
        pytest.skip("the 'crc32c' package (extra 'fast') is not installed")
    if not fast:
        monkeypatch.setattr(h5format, "_crc32c", None)
    values = {"w": np.arange(300_000, dtype=np.float32)}  # more than one read piece
    path = h5format.write(str(tmp_path / "c.h5"), values, kind="checkpoint")
    if storage == "chunked":  # rewrite the dataset chunked, with the same attributes
        with h5py.File(path, "r+") as f:
            attrs = dict(f["w"].attrs)
            del f["w"]
            f.create_dataset("w", data=values["w"], chunks=(1000,))
            f["w"].attrs.update(attrs)
    with h5format.Reader(path) as reader:
        np.testing.assert_array_equal(reader.read_all(["w"])["w"], values["w"])
    with h5py.File(path, "r") as f:
        if storage == "contiguous":  # a byte in the second piece eagerflow reads
            offset = f["w"].id.get_offset() + (1 << 20) + 3
        else:  # a byte of the first chunk
            offset = f["w"].id.get_chunk_info(0).byte_offset + 3
    with open(path, "r+b") as f:
        f.seek(offset)
        byte = f.read(1)[0]
        f.seek(f.tell() - 1)
        f.write(bytes([byte ^ 0x01]))
    with h5format.Reader(path) as reader, pytest.raises(
            ef.saving.InvalidCheckpointError, match=r"c\.h5.*'w' does not match its checksum"):
        reader.read_all(["w"])


@pytest.mark.parametrize("strip", ["digest", "manifest", "both"])
def test_a_file_stripped_of_its_checksums_is_refused(tmp_path, strip):
    path = h5format.write(str(tmp_path / "s.h5"), {"w": np.ones(3, np.float32)},
                          kind="checkpoint")
    with h5py.File(path, "r+") as f:
        if strip in ("digest", "both"):
            del f.attrs[h5format.MANIFEST_DIGEST]
        if strip in ("manifest", "both"):
            del f[f"{h5format.META}/{h5format.MANIFEST}"]
    with pytest.raises(ef.saving.InvalidCheckpointError,
                       match=r"s\.h5.*(manifest|digest).* is missing.*removed"):
        ef.Checkpoint(w=ef.Variable(np.zeros(3, np.float32))).read(path)


def _keys(path):


    with h5py.File(path, "r") as f:
        return [k for k in _dataset_names(f) if not k.startswith(".eagerflow")]


def test_an_io_error_during_a_read_names_the_file_and_variable(tmp_path, monkeypatch):
    path = h5format.write(str(tmp_path / "io.h5"), {"w": np.ones(3, np.float32)},
                          kind="checkpoint")

    def failing_read(fd, buffers, offset):
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(os, "preadv", failing_read)
    with h5format.Reader(path) as reader, pytest.raises(
            ef.saving.InvalidCheckpointError, match=r"io\.h5.*'w' cannot be read.*Input/output"):
        reader.read_all(["w"])
