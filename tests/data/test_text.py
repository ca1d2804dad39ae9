"""TextLineDataset."""

import gzip
import zlib

import pytest

import eagerflow as ef
from eagerflow.core import errors

from .helpers import values

TextLineDataset = ef.data.TextLineDataset


@pytest.fixture
def files(tmp_path):
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_bytes(b"a1\na2\r\n\na4")
    b.write_bytes(b"b1\nb2\nb3\n")
    return str(a), str(b)


def test_lines_without_endings(files):
    ds = TextLineDataset(files[0])
    assert values(ds) == [b"a1", b"a2", b"", b"a4"]
    assert ds.element_spec == ef.TensorSpec((), ef.string) == ef.TensorSpec((), "string")
    assert int(ds.cardinality()) == ef.data.UNKNOWN_CARDINALITY
    line = next(iter(ds))
    assert line.dtype == "string" and line.numpy() == b"a1"  # bytes, as TensorFlow


def test_several_files_in_order_and_interleaved(files):
    assert values(TextLineDataset(list(files))) == [b"a1", b"a2", b"", b"a4", b"b1", b"b2", b"b3"]
    parallel = TextLineDataset(list(files), num_parallel_reads=2)
    assert values(parallel) == [b"a1", b"b1", b"a2", b"b2", b"", b"b3", b"a4"]
    assert values(TextLineDataset(ef.constant([files[1]]))) == [b"b1", b"b2", b"b3"]
    assert values(TextLineDataset([files[1].encode()])) == [b"b1", b"b2", b"b3"]


def test_compressed_files(tmp_path):
    gz, zl = tmp_path / "t.gz", tmp_path / "t.z"
    gz.write_bytes(gzip.compress(b"x\ny\n"))
    zl.write_bytes(zlib.compress(b"p\nq"))
    assert values(TextLineDataset(str(gz), compression_type="GZIP")) == [b"x", b"y"]
    assert values(TextLineDataset(str(zl), compression_type="ZLIB")) == [b"p", b"q"]
    with pytest.raises(errors.InvalidArgumentError, match="not ZLIB-compressed data"):
        list(TextLineDataset(str(gz), compression_type="ZLIB"))


def test_text_pipeline(files):
    ds = TextLineDataset(files[1]).map(lambda line: line).batch(2)
    assert values(ds) == [[b"b1", b"b2"], [b"b3"]]


def test_errors(tmp_path):
    with pytest.raises(errors.NotFoundError, match="nope.txt: No such file or directory"):
        list(TextLineDataset(str(tmp_path / "nope.txt")))
    with pytest.raises(errors.InvalidArgumentError, match="`compression_type` must be one of"):
        TextLineDataset("x", compression_type="BZ2")
    with pytest.raises(errors.InvalidArgumentError, match="needs at least one file name"):
        TextLineDataset([])
    with pytest.raises(TypeError, match="expects file names"):
        TextLineDataset([3])
