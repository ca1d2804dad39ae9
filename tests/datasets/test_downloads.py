"""The data directory, downloads with checksums, and the missing-file message."""

import os

import pytest

from eagerflow.core import errors
from eagerflow.datasets import downloads

from .datafiles import install


def test_data_dir_default_and_override(monkeypatch, tmp_path):
    monkeypatch.delenv(downloads.ENV_VAR, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert downloads.data_dir() == os.path.join(str(tmp_path), ".eagerflow", "datasets")
    monkeypatch.setenv(downloads.ENV_VAR, "/somewhere/else")
    assert downloads.data_dir() == "/somewhere/else"


def test_fetch_downloads_verifies_and_places_the_file(monkeypatch, tmp_path):
    payload = b"hello data"
    remote = downloads.RemoteFile(
        "hello.bin", ("https://example.org/hello.bin",),
        "sha256:" + __import__("hashlib").sha256(payload).hexdigest())
    network = install(monkeypatch, tmp_path, {"https://example.org/hello.bin": payload})
    target = tmp_path / "sub"
    [path] = downloads.fetch([remote], str(target), "Hello")
    assert open(path, "rb").read() == payload
    assert os.listdir(target) == ["hello.bin"]
    downloads.fetch([remote], str(target), "Hello")  # present: no second download
    assert network.requests == ["https://example.org/hello.bin"]


def test_fetch_tries_mirrors_in_order(monkeypatch, tmp_path):
    payload = b"x" * 100_000
    remote = downloads.RemoteFile(
        "x.bin", ("https://down.example/x.bin", "https://up.example/x.bin"),
        "md5:" + __import__("hashlib").md5(payload).hexdigest())
    network = install(monkeypatch, tmp_path, {"https://up.example/x.bin": payload})
    [path] = downloads.fetch([remote], str(tmp_path), "X")
    assert os.path.getsize(path) == 100_000
    assert network.requests == ["https://down.example/x.bin", "https://up.example/x.bin"]


def test_checksum_failure_keeps_nothing(monkeypatch, tmp_path):
    remote = downloads.RemoteFile("bad.bin", ("https://example.org/bad.bin",), "md5:" + "0" * 32)
    install(monkeypatch, tmp_path, {"https://example.org/bad.bin": b"corrupt"})
    with pytest.raises(errors.InvalidArgumentError,
                       match=r"(?s)md5 checksum of https://example.org/bad.bin is [0-9a-f]{32}, "
                             r"but the published one is 0{32}.*save them exactly as"):
        downloads.fetch([remote], str(tmp_path), "Bad")
    assert os.listdir(tmp_path) == []


def test_missing_file_says_what_to_put_where(monkeypatch, tmp_path):
    remotes = [downloads.RemoteFile(f"part{i}.gz", (f"https://example.org/part{i}.gz",),
                                    "md5:" + "1" * 32) for i in range(2)]
    install(monkeypatch, tmp_path)
    with pytest.raises(errors.NotFoundError) as info:
        downloads.fetch(remotes, str(tmp_path), "Parts", "or something else")
    message = str(info.value)
    assert "Parts is not in" in message and "Temporary failure in name resolution" in message
    for i in range(2):
        assert f"{tmp_path}/part{i}.gz   <- https://example.org/part{i}.gz" in message
    assert "or something else" in message and downloads.ENV_VAR in message
    assert os.listdir(tmp_path) == []
