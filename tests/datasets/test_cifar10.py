"""cifar10.load_data: the binary format, from a folder or the archive."""

import os

import numpy as np
import pytest

from eagerflow.core import errors
from eagerflow.datasets import cifar10

from .datafiles import (
    cifar_records,
    digest,
    install,
    write_cifar_archive,
    write_cifar_folder,
)


def check(result, parts):
    (x_train, y_train), (x_test, y_test) = result
    np.testing.assert_array_equal(x_train, np.concatenate([p[0] for p in parts[:5]]))
    np.testing.assert_array_equal(y_train[:, 0], np.concatenate([p[1] for p in parts[:5]]))
    np.testing.assert_array_equal(x_test, parts[5][0])
    assert x_train.shape == (10, 32, 32, 3) and y_train.shape == (10, 1)
    assert x_test.dtype == y_test.dtype == np.uint8 and x_train.flags.c_contiguous


def test_channels_are_red_green_blue_planes():
    raw, images, labels = cifar_records(1)
    red_plane = np.frombuffer(raw, np.uint8)[1:1025].reshape(32, 32)
    np.testing.assert_array_equal(images[0, :, :, 0], red_plane)
    (x, y) = cifar10._records(raw, "test")
    np.testing.assert_array_equal(x, images) and np.testing.assert_array_equal(y[:, 0], labels)


def test_reads_the_folder_and_a_directory_holding_it(tmp_path):
    parts = write_cifar_folder(tmp_path / "cifar-10-batches-bin")
    check(cifar10.load_data(str(tmp_path / "cifar-10-batches-bin")), parts)
    check(cifar10.load_data(str(tmp_path)), parts)


def test_reads_the_archive_without_extracting(tmp_path):
    parts = write_cifar_archive(tmp_path / "cifar-10-binary.tar.gz")
    check(cifar10.load_data(str(tmp_path / "cifar-10-binary.tar.gz")), parts)
    check(cifar10.load_data(str(tmp_path)), parts)
    assert os.listdir(tmp_path) == ["cifar-10-binary.tar.gz"]


def test_cache_directory_and_download(monkeypatch, tmp_path):
    served = tmp_path / "served.tar.gz"
    parts = write_cifar_archive(served)
    monkeypatch.setattr(cifar10, "ARCHIVE", cifar10.ARCHIVE._replace(
        checksum=digest(served, "md5")))
    install(monkeypatch, tmp_path / "cache", {cifar10.ARCHIVE.urls[0]: served.read_bytes()})
    check(cifar10.load_data(), parts)
    assert os.listdir(tmp_path / "cache") == ["cifar-10-binary.tar.gz"]


def test_checksum_and_missing_messages(monkeypatch, tmp_path):
    network = install(monkeypatch, tmp_path)
    with pytest.raises(errors.NotFoundError) as info:
        cifar10.load_data()
    message = str(info.value)
    assert f"{tmp_path}/cifar-10-binary.tar.gz   <- https://www.cs.toronto.edu" in message
    assert f"{tmp_path}/cifar-10-batches-bin" in message
    network.files[cifar10.ARCHIVE.urls[0]] = b"not the archive"
    with pytest.raises(errors.InvalidArgumentError,
                       match="published one is c32a1d4ab5d03f1284b67883e8d87530"):
        cifar10.load_data()


def test_malformed_files_are_errors(tmp_path):
    folder = tmp_path / "cifar-10-batches-bin"
    write_cifar_folder(folder)
    (folder / "data_batch_3.bin").write_bytes(b"\x00" * 3074)
    with pytest.raises(errors.InvalidArgumentError,
                       match="data_batch_3.bin: a CIFAR-10 binary batch is a whole number of "
                             "3073-byte records, but it has 3074 bytes"):
        cifar10.load_data(str(folder))
    (folder / "data_batch_3.bin").write_bytes(bytes([11]) + b"\x00" * 3072)
    with pytest.raises(errors.InvalidArgumentError, match="labels must be 0-9, found 11"):
        cifar10.load_data(str(folder))
    write_cifar_folder(folder)
    os.remove(folder / "test_batch.bin")
    with pytest.raises(errors.NotFoundError, match="test_batch.bin is missing"):
        cifar10.load_data(str(folder))


def test_bad_archives_and_paths(tmp_path):
    write_cifar_archive(tmp_path / "partial.tar.gz", skip="data_batch_2.bin")
    with pytest.raises(errors.InvalidArgumentError,
                       match="has no member cifar-10-batches-bin/data_batch_2.bin"):
        cifar10.load_data(str(tmp_path / "partial.tar.gz"))
    (tmp_path / "junk.tar.gz").write_bytes(b"junk")
    with pytest.raises(errors.InvalidArgumentError, match="is not a readable .tar.gz"):
        cifar10.load_data(str(tmp_path / "junk.tar.gz"))
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(errors.NotFoundError, match="is neither cifar-10-binary.tar.gz"):
        cifar10.load_data(str(empty))
