"""mnist.load_data: the .npz and IDX layouts, the cache directory and the download."""

import hashlib
import os

import numpy as np
import pytest

from eagerflow.core import errors
from eagerflow.datasets import downloads, mnist

from .datafiles import install, mnist_arrays, write_idx_files


def check(result, arrays):
    (x_train, y_train), (x_test, y_test) = result
    for name, value in (("x_train", x_train), ("y_train", y_train), ("x_test", x_test),
                        ("y_test", y_test)):
        np.testing.assert_array_equal(value, arrays[name])
        assert value.dtype == np.uint8


def test_reads_an_npz_file_and_a_directory_holding_it(tmp_path):
    arrays = mnist_arrays()
    np.savez(tmp_path / "mnist.npz", **arrays)
    check(mnist.load_data(str(tmp_path / "mnist.npz")), arrays)
    check(mnist.load_data(tmp_path), arrays)


@pytest.mark.parametrize("compress", [True, False])
def test_reads_the_idx_files(tmp_path, compress):
    arrays = mnist_arrays()
    write_idx_files(tmp_path, arrays, compress)
    check(mnist.load_data(str(tmp_path)), arrays)


def test_reads_the_cache_directory(monkeypatch, tmp_path):
    network = install(monkeypatch, tmp_path)
    arrays = mnist_arrays()
    write_idx_files(tmp_path / "mnist", arrays)
    check(mnist.load_data(), arrays)
    np.savez(tmp_path / "mnist.npz", **mnist_arrays(train=1, test=1))
    assert mnist.load_data()[0][0].shape == (1, 28, 28)  # mnist.npz comes first
    assert network.requests == []


def test_downloads_into_the_cache_directory(monkeypatch, tmp_path):
    arrays = mnist_arrays()
    np.savez(tmp_path / "served.npz", **arrays)
    payload = (tmp_path / "served.npz").read_bytes()
    url = mnist.NPZ.urls[0]
    monkeypatch.setattr(mnist, "NPZ", mnist.NPZ._replace(
        checksum="sha256:" + hashlib.sha256(payload).hexdigest()))
    data_dir = tmp_path / "cache"
    install(monkeypatch, data_dir, {url: payload})
    check(mnist.load_data(), arrays)
    assert os.listdir(data_dir) == ["mnist.npz"]


def test_wrong_checksum_of_the_download(monkeypatch, tmp_path):
    install(monkeypatch, tmp_path, {mnist.NPZ.urls[0]: b"not mnist"})
    with pytest.raises(errors.InvalidArgumentError,
                       match="sha256 checksum of .*mnist.npz is .* but the published one is "
                             "731c5ac6"):
        mnist.load_data()
    assert os.listdir(tmp_path) == []


def test_missing_files_say_what_to_put_where(monkeypatch, tmp_path):
    install(monkeypatch, tmp_path)
    with pytest.raises(errors.NotFoundError) as info:
        mnist.load_data()
    message = str(info.value)
    assert f"{tmp_path}/mnist.npz   <- {mnist.NPZ.urls[0]}" in message
    assert "train-images-idx3-ubyte.gz" in message and f"{tmp_path}/mnist" in message
    assert downloads.ENV_VAR in message


def test_path_errors(tmp_path):
    with pytest.raises(errors.NotFoundError, match="is neither an mnist.npz file nor a directory"):
        mnist.load_data(str(tmp_path / "nothing"))
    with pytest.raises(errors.NotFoundError, match="is neither"):
        mnist.load_data(str(tmp_path))


@pytest.mark.parametrize("change, message", [
    (lambda a: a.pop("y_test"), r"missing \['y_test'\]"),
    (lambda a: a.update(x_train=a["x_train"][:, :27]), r"x_train must be uint8 images of shape "
                                                       r"\(n, 28, 28\), got uint8 \(3, 27, 28\)"),
    (lambda a: a.update(x_test=a["x_test"].astype(np.float32)), "got float32"),
    (lambda a: a.update(y_train=a["y_train"][:2]), r"y_train must be 3 uint8 labels"),
    (lambda a: a.update(y_test=np.array([3, 12], np.uint8)), "labels 0-9, found 12"),
])
def test_malformed_npz_files_are_errors(tmp_path, change, message):
    arrays = mnist_arrays()
    change(arrays)
    np.savez(tmp_path / "mnist.npz", **arrays)
    with pytest.raises(errors.InvalidArgumentError, match=message):
        mnist.load_data(str(tmp_path / "mnist.npz"))


def test_unreadable_npz_and_pickled_content(tmp_path):
    (tmp_path / "junk.npz").write_bytes(b"junk")
    with pytest.raises(errors.InvalidArgumentError, match="is not a readable .npz file"):
        mnist.load_data(str(tmp_path / "junk.npz"))
    arrays = mnist_arrays()
    arrays["x_train"] = np.array([object()], dtype=object)
    np.savez(tmp_path / "pickled.npz", **arrays)
    with pytest.raises(errors.InvalidArgumentError, match="is not a readable .npz file"):
        mnist.load_data(str(tmp_path / "pickled.npz"))
