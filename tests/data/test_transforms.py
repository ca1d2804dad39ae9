"""map, filter, enumerate, repeat, take, skip, shard, concatenate."""

import collections

import numpy as np
import pytest

import eagerflow as ef
from eagerflow.core import errors

from .helpers import values

Dataset = ef.data.Dataset


def test_map_unpacks_tuples_but_not_dicts_or_namedtuples():
    pairs = Dataset.from_tensor_slices(([1, 2], [10, 20]))
    assert values(pairs.map(lambda a, b: a + b)) == [11, 22]
    dicts = Dataset.from_tensor_slices({"a": [1, 2]})
    assert values(dicts.map(lambda d: d["a"] * 3)) == [3, 6]
    point = collections.namedtuple("Point", "x y")
    named = Dataset.from_tensor_slices(point([1, 2], [3, 4]))
    assert values(named.map(lambda p: p.x - p.y)) == [-2, -2]


def test_map_receives_tensors_and_accepts_arrays_numbers_and_lists():
    seen = []
    ds = Dataset.range(2).map(lambda x: seen.append(type(x)) or [x, np.float64(1.5), 7])
    assert values(ds) == [(0, 1.5, 7), (1, 1.5, 7)]
    assert seen[0] is ef.Tensor
    assert next(iter(ds))[2].dtype == ef.int32


def test_map_element_spec_from_the_first_element():
    ds = Dataset.range(3).map(lambda x: (ef.cast(x, ef.float32), ef.fill([2], x)))
    assert ds.element_spec == (ef.TensorSpec((), ef.float32), ef.TensorSpec((2,), ef.int64))
    assert int(ds.cardinality()) == 3
    with pytest.raises(errors.InvalidArgumentError, match="input dataset is empty"):
        _ = Dataset.range(0).map(lambda x: x).element_spec


def test_map_rejects_a_structure_that_changes():
    ds = Dataset.range(4).map(lambda x: (x, x) if int(x) < 2 else x)
    with pytest.raises(errors.InvalidArgumentError,
                       match=r"map function returned int64\[\] for element 2, but "
                             r"\(int64\[\], int64\[\]\) for element 0"):
        list(ds)


def test_map_rejects_a_dtype_that_changes():
    ds = Dataset.range(3).map(lambda x: x if int(x) == 0 else ef.cast(x, ef.float32))
    with pytest.raises(errors.InvalidArgumentError, match=r"float32\[\] for element 1"):
        list(ds)


def test_map_shapes_may_change():
    ds = Dataset.range(1, 4).map(lambda n: ef.zeros([n]))
    assert [len(v) for v in values(ds)] == [1, 2, 3]


def test_map_returning_none_says_so():
    with pytest.raises(errors.InvalidArgumentError,
                       match="map function at element 0 produced None.*forget to `return`"):
        list(Dataset.range(2).map(lambda x: None))


def test_map_argument_errors():
    with pytest.raises(TypeError, match="map expects a function"):
        Dataset.range(2).map(3)
    with pytest.raises(errors.InvalidArgumentError, match="`num_parallel_calls` must be"):
        Dataset.range(2).map(lambda x: x, num_parallel_calls=0)


def test_filter():
    ds = Dataset.range(10).filter(lambda x: x % 3 == 0)
    assert values(ds) == [0, 3, 6, 9]
    assert ds.element_spec == ef.TensorSpec((), ef.int64)
    pairs = Dataset.from_tensor_slices(([1, 2, 3], [3, 2, 1])).filter(lambda a, b: a > b)
    assert values(pairs) == [(3, 1)]
    assert values(Dataset.range(3).filter(lambda x: True)) == [0, 1, 2]
    assert values(Dataset.range(3).filter(lambda x: np.bool_(False))) == []


def test_filter_predicate_must_return_a_scalar_bool():
    with pytest.raises(errors.InvalidArgumentError,
                       match=r"scalar bool, but returned int64\[\] for element 0"):
        list(Dataset.range(3).filter(lambda x: x))
    with pytest.raises(errors.InvalidArgumentError, match=r"returned bool\[2\] for element 0"):
        list(Dataset.range(3).filter(lambda x: ef.stack([x > 0, x > 1])))
    with pytest.raises(TypeError, match="filter expects a function"):
        Dataset.range(3).filter(None)


def test_enumerate():
    ds = Dataset.range(5, 8).enumerate(start=2)
    assert values(ds) == [(2, 5), (3, 6), (4, 7)]
    assert ds.element_spec == (ef.TensorSpec((), ef.int64), ef.TensorSpec((), ef.int64))
    assert int(ds.cardinality()) == 3


def test_repeat():
    assert values(Dataset.range(2).repeat(3)) == [0, 1] * 3
    assert values(Dataset.range(2).repeat(0)) == []
    assert values(Dataset.range(2).repeat().take(5)) == [0, 1, 0, 1, 0]
    assert values(Dataset.range(2).repeat(-1).take(3)) == [0, 1, 0]
    assert values(Dataset.range(0).repeat()) == []  # an empty input ends the repetition
    assert int(Dataset.range(2).repeat(3).cardinality()) == 6
    assert int(Dataset.range(2).repeat().cardinality()) == -1
    assert int(Dataset.range(0).repeat().cardinality()) == 0
    assert int(Dataset.range(2).repeat(0).cardinality()) == 0
    assert int(Dataset.range(2).filter(lambda x: True).repeat(2).cardinality()) == -2
    with pytest.raises(errors.InvalidArgumentError, match="`count` must be an int >= -1"):
        Dataset.range(2).repeat(-2)


def test_take_and_skip():
    ds = Dataset.range(6)
    assert values(ds.take(2)) == [0, 1]
    assert values(ds.take(-1)) == list(range(6))
    assert values(ds.take(100)) == list(range(6))
    assert values(ds.skip(4)) == [4, 5]
    assert values(ds.skip(-1)) == []
    assert values(ds.skip(100)) == []
    assert [int(d.cardinality()) for d in (ds.take(2), ds.take(-1), ds.take(9))] == [2, 6, 6]
    assert int(ds.repeat().take(4).cardinality()) == 4
    assert int(ds.filter(lambda x: True).take(4).cardinality()) == -2
    assert [int(d.cardinality()) for d in (ds.skip(2), ds.skip(-1), ds.skip(9))] == [4, 0, 0]
    assert int(ds.repeat().skip(4).cardinality()) == -1
    with pytest.raises(errors.InvalidArgumentError, match="`count` must be an int >= -1"):
        ds.take(-3)


def test_shard():
    ds = Dataset.range(10)
    assert values(ds.shard(3, 0)) == [0, 3, 6, 9]
    assert values(ds.shard(3, 2)) == [2, 5, 8]
    assert [int(ds.shard(3, i).cardinality()) for i in range(3)] == [4, 3, 3]
    assert int(ds.repeat().shard(2, 0).cardinality()) == -1
    with pytest.raises(errors.InvalidArgumentError, match=r"`index` must be in \[0, num_shards\)"):
        ds.shard(2, 2)
    with pytest.raises(errors.InvalidArgumentError, match="`num_shards` must be an int >= 1"):
        ds.shard(0, 0)


def test_concatenate():
    ds = Dataset.range(2).concatenate(Dataset.range(5, 7))
    assert values(ds) == [0, 1, 5, 6]
    assert int(ds.cardinality()) == 4
    assert int(ds.repeat().concatenate(ds).cardinality()) == -1
    assert int(ds.filter(lambda x: True).concatenate(ds).cardinality()) == -2
    shapes = Dataset.from_tensors([1, 2]).concatenate(Dataset.from_tensors([1, 2, 3]))
    assert shapes.element_spec == ef.TensorSpec((None,), ef.int32)
    assert values(shapes) == [[1, 2], [1, 2, 3]]


def test_concatenate_rejects_incompatible_datasets():
    with pytest.raises(TypeError, match="concatenate: incompatible dataset elements"):
        Dataset.range(2).concatenate(Dataset.from_tensors(1.0))
    with pytest.raises(TypeError, match="concatenate expects a Dataset. Received: list"):
        Dataset.range(2).concatenate([1])
    lazy = Dataset.range(2).concatenate(Dataset.range(2).map(lambda x: ef.cast(x, ef.float32)))
    with pytest.raises(errors.InvalidArgumentError,
                       match=r"second dataset's elements are float32\[\] but the first "
                             r"dataset's are int64\[\]"):
        list(lazy)
    with pytest.raises(TypeError, match="incompatible dataset elements"):
        _ = lazy.element_spec


def test_dict_key_order_is_no_part_of_the_structure():
    # as in tf.data: concatenate/map/interleave refused dicts with the keys in another order
    first = Dataset.from_tensor_slices({"a": [1], "b": [2]})
    both = first.concatenate(Dataset.from_tensor_slices({"b": [3], "a": [4]}))
    assert values(both) == [{"a": 1, "b": 2}, {"a": 4, "b": 3}]
    mapped = Dataset.range(1).map(lambda x: {"a": x, "b": x + 1}).concatenate(
        Dataset.range(1).map(lambda x: {"b": x + 5, "a": x + 6}))
    assert values(mapped) == [{"a": 0, "b": 1}, {"a": 6, "b": 5}]
    mixed = Dataset.range(4).map(
        lambda x: {"a": x, "b": 10 * x} if int(x) % 2 else {"b": 10 * x, "a": x})
    assert values(mixed.batch(4)) == [{"a": [0, 1, 2, 3], "b": [0, 10, 20, 30]}]
