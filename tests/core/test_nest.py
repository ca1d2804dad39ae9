"""Nested structures (eagerflow/core/nest.py)."""

import collections

import pytest

from eagerflow.core import nest

Point = collections.namedtuple("Point", ["x", "y"])


class Pair(tuple):
    """A tuple subclass that is not a namedtuple."""


def test_is_nested():
    assert nest.is_nested([1]) and nest.is_nested((1,)) and nest.is_nested({"a": 1})
    assert nest.is_nested(Point(1, 2))
    assert not nest.is_nested(1) and not nest.is_nested("ab") and not nest.is_nested(None)


def test_flatten_leaves_and_order():
    assert nest.flatten(5) == [5]
    assert nest.flatten(None) == [None]
    assert nest.flatten([]) == []
    assert nest.flatten([1, (2, [3, 4]), {"b": 6, "a": 5}]) == [1, 2, 3, 4, 5, 6]
    assert nest.flatten({"b": [1, 2], "a": (3,)}) == [3, 1, 2]  # dicts in sorted key order
    assert nest.flatten(Point(x=[1], y=2)) == [1, 2]
    assert nest.flatten({1: "a", "b": "c"}) == ["a", "c"]  # unsortable keys: insertion order


def test_pack_sequence_as_round_trips():
    structures = [
        5,
        [1, (2, [3, 4])],
        {"b": [1, 2], "a": (3,)},
        Point(x=[1, 2], y={"k": 3}),
        Pair((1, 2)),
        {"z": [], "y": ()},
    ]
    for structure in structures:
        rebuilt = nest.pack_sequence_as(structure, nest.flatten(structure))
        assert rebuilt == structure
        assert type(rebuilt) is type(structure)


def test_pack_sequence_as_keeps_the_dict_key_order_of_the_structure():
    packed = nest.pack_sequence_as({"b": 0, "a": 0}, [1, 2])
    assert packed == {"a": 1, "b": 2}
    assert list(packed) == ["b", "a"]


def test_map_structure():
    assert nest.map_structure(lambda v: v * 10, {"a": [1, 2], "b": 3}) == {"a": [10, 20],
                                                                           "b": 30}
    assert nest.map_structure(lambda a, b: a + b, (1, [2]), (10, [20])) == (11, [22])
    point = nest.map_structure(str, Point(1, 2))
    assert point == Point("1", "2") and isinstance(point, Point)


def test_pack_sequence_as_with_too_many_values():
    with pytest.raises(ValueError, match=r"Structure has 2 leaves but 3 values were given to "
                                         r"pack into it"):
        nest.pack_sequence_as([0, 0], [1, 2, 3])


def test_pack_sequence_as_with_too_few_values():
    with pytest.raises(ValueError, match=r"Not enough values to pack: structure needs more than "
                                         r"1"):
        nest.pack_sequence_as([0, (0, 0)], [1])


def test_map_structure_with_different_leaf_counts():
    with pytest.raises(ValueError, match=r"Structures have different numbers of leaves: "
                                         r"\[2, 3\]"):
        nest.map_structure(lambda a, b: a, [1, 2], [1, 2, 3])
