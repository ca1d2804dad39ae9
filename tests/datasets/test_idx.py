"""The IDX reader and writer."""

import gzip

import numpy as np
import pytest

from eagerflow.core import errors
from eagerflow.datasets import idx


@pytest.mark.parametrize("dtype", [np.uint8, np.int8, np.int16, np.int32, np.float32,
                                   np.float64])
@pytest.mark.parametrize("compress", [False, True])
def test_round_trip(tmp_path, dtype, compress):
    array = (np.arange(24).reshape(2, 3, 4) - 5).astype(dtype)
    path = str(tmp_path / "a.idx")
    idx.write(path, array, compress=compress)
    back = idx.read(path)
    assert back.dtype == np.dtype(dtype) and back.dtype.isnative
    np.testing.assert_array_equal(back, array)


def test_header_is_big_endian(tmp_path):
    path = str(tmp_path / "labels")
    idx.write(path, np.array([1, 2, 3], np.uint8))
    assert open(path, "rb").read() == bytes([0, 0, 8, 1, 0, 0, 0, 3, 1, 2, 3])


@pytest.mark.parametrize("raw, message", [
    (b"\x01\x00\x08\x01", "must start with two zero bytes"),
    (b"\x00\x00\x07\x01\x00\x00\x00\x01\x05", "unknown type code 0x07"),
    (b"\x00\x00\x08\x02\x00\x00\x00\x01", "declares 2 dimensions but the file ends first"),
    (b"\x00\x00\x08\x01\x00\x00\x00\x03\x01\x02", r"shape \(3,\) needs 3 data bytes, found 2"),
    (b"\x1f\x8b\x00\x00garbage", "broken gzip data"),
])
def test_malformed_files_are_errors(tmp_path, raw, message):
    path = tmp_path / "bad"
    path.write_bytes(raw)
    with pytest.raises(errors.InvalidArgumentError, match=f"is not a valid IDX file: .*{message}"):
        idx.read(str(path))


def test_gzip_is_detected_from_the_content(tmp_path):
    path = tmp_path / "no-extension"
    path.write_bytes(gzip.compress(bytes([0, 0, 8, 1, 0, 0, 0, 1, 9])))
    assert idx.read(str(path)).tolist() == [9]


def test_write_rejects_other_dtypes(tmp_path):
    with pytest.raises(errors.InvalidArgumentError, match="IDX cannot store dtype int64"):
        idx.write(str(tmp_path / "x"), np.zeros(2, np.int64))
