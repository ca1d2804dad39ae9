"""cache(): in memory and in a file."""

import collections
import os

import numpy as np
import pytest

import eagerflow as ef
from eagerflow.core import errors
from eagerflow.core.errors import EagerflowWarning
from eagerflow.data import caching

from .helpers import values

Dataset = ef.data.Dataset


def counting(calls):
    def fn(x):
        calls.append(int(x))
        return x * 10
    return fn


def test_memory_cache_runs_the_pipeline_once():
    calls = []
    ds = Dataset.range(4).map(counting(calls)).cache()
    assert values(ds) == [0, 10, 20, 30]
    assert values(ds) == [0, 10, 20, 30]
    assert calls == [0, 1, 2, 3]
    assert int(ds.cardinality()) == 4 and ds.element_spec == ef.TensorSpec((), ef.int64)


def test_partial_iteration_caches_nothing_and_warns():
    calls = []
    ds = Dataset.range(4).map(counting(calls)).cache()
    with pytest.warns(EagerflowWarning, match="partially cached elements were discarded"):
        assert values(ds.take(2)) == [0, 10]
    assert values(ds) == [0, 10, 20, 30]
    assert calls == [0, 1, 0, 1, 2, 3]


def test_element_spec_probe_does_not_warn():
    ds = Dataset.range(4).cache().map(lambda x: x + 1)
    assert ds.element_spec == ef.TensorSpec((), ef.int64)


def test_file_cache_is_written_once_and_read_back(tmp_path):
    path = str(tmp_path / "cache.bin")
    calls = []
    data = (np.arange(6.0, dtype=np.float32).reshape(3, 2), {"id": np.array([b"a", b"bc", b"d"])})
    mapped = Dataset.from_tensor_slices(data).map(lambda x, d: (x, counting(calls)(x[0]), d))
    ds = mapped.cache(path)
    expected = values(ds)
    assert os.path.exists(path) and len(calls) == 3
    assert values(ds) == expected and len(calls) == 3
    # another dataset with the same file (another process, say) reads the file
    again = Dataset.from_tensor_slices(data).map(lambda x, d: (x, x[0] * 0, d)).cache(path)
    assert values(again) == expected
    element = next(iter(again))
    assert element[0].dtype == ef.float32 and isinstance(element[2], dict)
    assert os.listdir(tmp_path) == ["cache.bin"]  # no temporary file left
    assert len(list(caching.read_cache(path))) == 3


def test_file_cache_streams_in_chunks(tmp_path):
    path = tmp_path / "big"
    ds = Dataset.range(3000).map(lambda x: (x, ef.fill([int(x) % 3], x))).cache(path)
    it = iter(ds)
    for _ in range(2100):  # two full chunks are on disk before the pass ends
        next(it)
    [temporary] = os.listdir(tmp_path)
    assert temporary.startswith("big.") and temporary.endswith(".tmp")
    assert os.path.getsize(tmp_path / temporary) > 2048 * 8
    rest = list(it)
    assert len(rest) == 900 and os.listdir(tmp_path) == ["big"]
    replay = values(ds)
    assert len(replay) == 3000 and replay[2999] == (2999, [2999, 2999])


def test_file_cache_of_ragged_elements_and_namedtuples(tmp_path):
    point = collections.namedtuple("Point", "x y")
    path = tmp_path / "ragged"
    ds = Dataset.range(1, 4).map(lambda n: point(ef.fill([n], n), ef.zeros([n, 2]))).cache(path)
    expected = values(ds)
    replay = list(ds)
    assert values(ds) == expected and type(replay[0]).__name__ == "Point"
    assert [int(p.x[0]) for p in replay] == [1, 2, 3] and replay[2].y.shape == (3, 2)
    empty = Dataset.range(0).cache(str(tmp_path / "empty"))
    assert values(empty) == [] and values(empty) == []


def test_file_cache_partial_iteration_writes_nothing(tmp_path):
    path = str(tmp_path / "partial")
    with pytest.warns(EagerflowWarning, match="partially cached"):
        list(Dataset.range(5).cache(path).take(2))
    assert not os.path.exists(path)


def test_file_cache_errors(tmp_path):
    with pytest.raises(errors.NotFoundError, match="directory .* does not exist"):
        list(Dataset.range(2).cache(str(tmp_path / "missing" / "cache")))
    path = str(tmp_path / "other")
    list(Dataset.range(2).cache(path))
    with pytest.raises(errors.InvalidArgumentError,
                       match="holds elements int64\\[\\], but this dataset's elements are "
                             ".*float32.*Delete the file"):
        list(Dataset.from_tensors(1.0).cache(path))
    junk = tmp_path / "junk"
    junk.write_bytes(b"not a zip file")
    with pytest.raises(errors.InvalidArgumentError, match="not a readable eagerflow cache"):
        list(Dataset.range(2).cache(str(junk)))
    np.save(tmp_path / "plain.npy", np.array('{"format": "other"}'))
    with pytest.raises(errors.InvalidArgumentError, match="not an eagerflow dataset cache"):
        list(Dataset.range(2).cache(str(tmp_path / "plain.npy")))
    complete = (tmp_path / "other").read_bytes()
    end_record = complete.rindex(b"\x93NUMPY")
    (tmp_path / "truncated").write_bytes(complete[:end_record])
    with pytest.raises(errors.InvalidArgumentError, match="truncated.*not a readable"):
        list(Dataset.range(2).cache(str(tmp_path / "truncated")))
    (tmp_path / "bad_chunk").write_bytes(complete[:end_record] + complete[:end_record])
    with pytest.raises(errors.InvalidArgumentError, match="is corrupt \\(bad chunk\\)"):
        list(Dataset.range(2).cache(str(tmp_path / "bad_chunk")))


def test_write_cache_rejects_unstorable_elements(tmp_path):
    with pytest.raises(errors.InvalidArgumentError, match="dict keys of type"):
        caching.write_cache(str(tmp_path / "c"), [{(1, 2): np.zeros(1)}])
    with pytest.raises(errors.InvalidArgumentError, match="component 0 of dtype object"):
        caching.write_cache(str(tmp_path / "c"), [np.array([None], dtype=object)])
    assert os.listdir(tmp_path) == []


def test_file_cache_checks_a_mapped_pipeline_against_the_file(tmp_path):
    # tf.data fails on a dtype mismatch; the file used to be replayed silently as int64
    path = str(tmp_path / "c")
    assert values(Dataset.range(3).cache(path)) == [0, 1, 2]
    floats = Dataset.range(3).map(lambda x: ef.cast(x, ef.float32)).cache(path)
    with pytest.raises(errors.InvalidArgumentError,
                       match="holds elements int64\\[\\], but .*float32.*Delete the file"):
        list(floats)
    pairs = Dataset.range(3).map(lambda x: (x, x)).cache(path)
    with pytest.raises(errors.InvalidArgumentError, match="holds elements int64\\[\\]"):
        list(pairs)
    assert values(Dataset.range(5).map(lambda x: x * 2).cache(path)) == [0, 1, 2]  # as tf.data


def test_file_cache_check_ignores_dict_key_order_and_namedtuple_classes(tmp_path):
    path, other = str(tmp_path / "d"), str(tmp_path / "p")
    second = str(tmp_path / "m")
    unsorted = Dataset.from_tensor_slices({"b": [1, 2], "a": [0.5, 1.5]})
    assert values(unsorted.cache(path)) == values(unsorted.cache(path))
    mapped = Dataset.range(2).map(lambda x: {"b": x, "a": ef.cast(x, ef.float32)})
    assert values(mapped.cache(second)) == values(mapped.cache(second))
    assert values(mapped.cache(second)) == [{"a": 0.0, "b": 0}, {"a": 1.0, "b": 1}]
    point = collections.namedtuple("Point", "x y")
    assert len(values(Dataset.range(2).map(lambda x: point(x, x)).cache(other))) == 2
    assert len(values(Dataset.range(2).map(lambda x: point(x, x)).cache(other))) == 2


def test_file_cache_replays_when_the_pipeline_cannot_run(tmp_path):
    path = str(tmp_path / "c")
    list(Dataset.range(2).cache(path))

    def gone(x):
        raise errors.NotFoundError("the raw files were deleted")
    assert values(Dataset.range(2).map(gone).cache(path)) == [0, 1]
