"""fashion_mnist.load_data."""

import os

import numpy as np
import pytest

from eagerflow.core import errors
from eagerflow.datasets import fashion_mnist, idx

from .datafiles import digest, install, mnist_arrays, write_idx_files


def test_reads_a_directory_of_idx_files(tmp_path):
    arrays = mnist_arrays()
    write_idx_files(tmp_path, arrays)
    (x_train, y_train), (x_test, y_test) = fashion_mnist.load_data(str(tmp_path))
    np.testing.assert_array_equal(x_train, arrays["x_train"])
    np.testing.assert_array_equal(y_test, arrays["y_test"])


def test_downloads_into_the_cache_directory(monkeypatch, tmp_path):
    arrays = mnist_arrays()
    served = tmp_path / "served"
    write_idx_files(served, arrays)
    files, remotes = {}, {}
    for role, remote in fashion_mnist.FILES.items():
        local = served / remote.name
        files[remote.urls[1]] = local.read_bytes()  # the first mirror is "down"
        remotes[role] = remote._replace(checksum=digest(local, "md5"))
    monkeypatch.setattr(fashion_mnist, "FILES", remotes)
    network = install(monkeypatch, tmp_path / "cache", files)
    (x_train, _), _ = fashion_mnist.load_data()
    np.testing.assert_array_equal(x_train, arrays["x_train"])
    assert sorted(os.listdir(tmp_path / "cache" / "fashion-mnist")) == sorted(
        r.name for r in remotes.values())
    assert len(network.requests) == 8


def test_checksums_are_the_published_ones(monkeypatch, tmp_path):
    install(monkeypatch, tmp_path, {fashion_mnist.FILES["x_train"].urls[0]: b"wrong"})
    with pytest.raises(errors.InvalidArgumentError,
                       match="md5 checksum of .*train-images-idx3-ubyte.gz is .*, but the "
                             "published one is 8d4fb7e6c68d591d4c3dfef9ec88bf0d"):
        fashion_mnist.load_data()


def test_missing_files_say_what_to_put_where(monkeypatch, tmp_path):
    install(monkeypatch, tmp_path)
    with pytest.raises(errors.NotFoundError) as info:
        fashion_mnist.load_data()
    for name in idx.FILES.values():
        assert f"{tmp_path}/fashion-mnist/{name}.gz   <- http" in str(info.value)
    with pytest.raises(errors.NotFoundError, match="must be a directory holding the IDX files"):
        fashion_mnist.load_data(str(tmp_path))
