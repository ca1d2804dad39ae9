"""Tiny files in the standard formats of the built-in data sets, and a fake network."""

import hashlib
import io
import os
import tarfile
import urllib.error

import numpy as np

from eagerflow.datasets import downloads, idx


def mnist_arrays(train=3, test=2, size=28):
    rng = np.random.default_rng(0)
    return {
        "x_train": rng.integers(0, 256, (train, size, size), dtype=np.uint8),
        "y_train": rng.integers(0, 10, train).astype(np.uint8),
        "x_test": rng.integers(0, 256, (test, size, size), dtype=np.uint8),
        "y_test": rng.integers(0, 10, test).astype(np.uint8),
    }


def write_idx_files(directory, arrays, compress=True):
    os.makedirs(directory, exist_ok=True)
    for role, name in idx.FILES.items():
        idx.write(os.path.join(directory, name + (".gz" if compress else "")), arrays[role],
                  compress=compress)


def cifar_records(count, seed=0):
    """`count` CIFAR-10 binary records and the (images, labels) they encode."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 10, count).astype(np.uint8)
    images = rng.integers(0, 256, (count, 32, 32, 3), dtype=np.uint8)
    planes = images.transpose(0, 3, 1, 2).reshape(count, 3072)  # R plane, G plane, B plane
    raw = np.concatenate([labels[:, None], planes], axis=1).tobytes()
    return raw, images, labels


def write_cifar_folder(folder, per_batch=2):
    os.makedirs(folder, exist_ok=True)
    parts = []
    for k, name in enumerate([f"data_batch_{i}.bin" for i in range(1, 6)] + ["test_batch.bin"]):
        raw, images, labels = cifar_records(per_batch, seed=k)
        with open(os.path.join(folder, name), "wb") as file:
            file.write(raw)
        parts.append((images, labels))
    return parts


def write_cifar_archive(path, per_batch=2, skip=None):
    parts = []
    with tarfile.open(path, "w:gz") as archive:
        for k, name in enumerate([f"data_batch_{i}.bin" for i in range(1, 6)] +
                                 ["test_batch.bin"]):
            raw, images, labels = cifar_records(per_batch, seed=k)
            parts.append((images, labels))
            if name == skip:
                continue
            info = tarfile.TarInfo(f"cifar-10-batches-bin/{name}")
            info.size = len(raw)
            archive.addfile(info, io.BytesIO(raw))
    return parts


def digest(path, algorithm):
    with open(path, "rb") as file:
        return f"{algorithm}:{hashlib.new(algorithm, file.read()).hexdigest()}"


class FakeResponse(io.BytesIO):
    def __init__(self, data):
        super().__init__(data)
        self.headers = {"Content-Length": str(len(data))}


class FakeNetwork:
    """Serves `files` (url -> bytes); any other address fails like a missing network."""

    def __init__(self, files=None):
        self.files = files or {}
        self.requests = []

    def __call__(self, url, timeout=None):
        self.requests.append(url)
        if url not in self.files:
            raise urllib.error.URLError("[Errno -3] Temporary failure in name resolution")
        return FakeResponse(self.files[url])


def install(monkeypatch, tmp_path, files=None):
    """Points the data directory at `tmp_path` and the network at a `FakeNetwork`."""
    network = FakeNetwork(files)
    monkeypatch.setenv(downloads.ENV_VAR, str(tmp_path))
    monkeypatch.setattr(downloads, "_urlopen", network)
    return network
