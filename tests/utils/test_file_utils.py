"""`ef.utils.get_file`: offline origins, hashes, Keras 3's names, and hostile archives."""

import hashlib
import io
import os
import tarfile
import zipfile

import pytest

import eagerflow as ef


def _source(tmp_path, name="notes.txt", data=b"hello"):
    path = tmp_path / "src" / name
    path.parent.mkdir(exist_ok=True)
    path.write_bytes(data)
    return path


def test_local_path_and_file_url_are_copied_once(tmp_path):
    source = _source(tmp_path)
    cache = str(tmp_path / "cache")
    path = ef.utils.get_file(origin=str(source), cache_dir=cache)
    assert path == os.path.join(cache, "datasets", "notes.txt")
    assert open(path, "rb").read() == b"hello"
    source.write_bytes(b"changed")  # cached: not fetched again
    assert open(ef.utils.get_file(origin="file://" + str(source), cache_dir=cache),
                "rb").read() == b"hello"
    assert open(ef.utils.get_file(origin=str(source), cache_dir=cache, force_download=True),
                "rb").read() == b"changed"


def test_hashes_are_checked(tmp_path):
    source = _source(tmp_path)
    cache = str(tmp_path / "cache")
    good = hashlib.sha256(b"hello").hexdigest()
    assert ef.utils.get_file("n.txt", str(source), file_hash=good, cache_dir=cache)
    with pytest.raises(ValueError, match="does not match"):
        ef.utils.get_file("m.txt", str(source), file_hash="0" * 64, cache_dir=cache)
    assert not os.path.exists(os.path.join(cache, "datasets", "m.txt"))  # nothing kept
    md5 = hashlib.md5(b"hello").hexdigest()
    assert ef.utils.get_file("k.txt", str(source), md5_hash=md5, cache_dir=cache)


def test_missing_origin_and_no_network_are_clear_errors(tmp_path):
    cache = str(tmp_path / "cache")
    with pytest.raises(ValueError, match='specify the "origin"'):
        ef.utils.get_file("x")
    with pytest.raises(ef.errors.NotFoundError, match="no file at"):
        ef.utils.get_file(origin=str(tmp_path / "absent.txt"), cache_dir=cache)
    with pytest.raises(ef.errors.NotFoundError, match="local path"):  # port 9: refused at once
        ef.utils.get_file(origin="http://127.0.0.1:9/data.txt", cache_dir=cache)
    assert os.listdir(os.path.join(cache, "datasets")) == []
    with pytest.raises(ValueError, match="Paths are no longer accepted"):
        ef.utils.get_file("../x.txt", origin=str(_source(tmp_path)), cache_dir=cache)


def _tar(tmp_path, members):
    path = tmp_path / "src" / "archive.tar.gz"
    path.parent.mkdir(exist_ok=True)
    with tarfile.open(path, "w:gz") as archive:
        for name, data, kind in members:
            info = tarfile.TarInfo(name)
            if kind == "symlink":
                info.type, info.linkname = tarfile.SYMTYPE, data
                archive.addfile(info)
            else:
                info.size = len(data)
                archive.addfile(info, io.BytesIO(data))
    return path


def test_extract_uses_keras_names(tmp_path):
    archive = _tar(tmp_path, [("flowers/a.txt", b"rose", "file")])
    cache = str(tmp_path / "cache")
    directory = ef.utils.get_file(origin=str(archive), extract=True, cache_dir=cache)
    assert directory == os.path.join(cache, "datasets", "archive.tar.gz")
    assert open(os.path.join(directory, "flowers", "a.txt"), "rb").read() == b"rose"
    named = ef.utils.get_file("flowers.tgz", str(archive), extract=True, cache_dir=cache)
    assert named == os.path.join(cache, "datasets", "flowers_extracted")


@pytest.mark.parametrize("members", [
    [("../../escaped.txt", b"x", "file")],
    [("/tmp/absolute-escape.txt", b"x", "file")],
    [("link", "/etc/passwd", "symlink")],
    [("ok.txt", b"x", "file"), ("sub/../../escaped.txt", b"x", "file")],
])
def test_hostile_tar_archives_are_refused_whole(tmp_path, members):
    archive = _tar(tmp_path, members)
    cache = tmp_path / "cache"
    with pytest.raises(ef.errors.InvalidArgumentError, match="refuses to extract"):
        ef.utils.get_file(origin=str(archive), extract=True, cache_dir=str(cache))
    assert not (tmp_path / "escaped.txt").exists()
    assert not os.path.exists("/tmp/absolute-escape.txt")
    assert sorted(os.listdir(cache / "datasets")) == ["archive.tar.gz_archive"]


def test_hostile_zip_is_refused(tmp_path):
    path = tmp_path / "src" / "bad.zip"
    path.parent.mkdir()
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("../../escaped.txt", b"x")
    with pytest.raises(ef.errors.InvalidArgumentError, match="outside"):
        ef.utils.get_file(origin=str(path), extract=True, cache_dir=str(tmp_path / "c"))
    assert not (tmp_path / "escaped.txt").exists()


def test_set_random_seed_repeats_python_numpy_and_eagerflow():
    import random

    import numpy as np

    ef.utils.set_random_seed(11)
    first = (random.random(), np.random.rand(), float(ef.random.uniform([])))
    ef.utils.set_random_seed(11)
    assert (random.random(), np.random.rand(), float(ef.random.uniform([]))) == first
    with pytest.raises(ValueError, match="integer"):
        ef.utils.set_random_seed(1.5)
