"""Element structures: conversion, signatures, descriptions, leaf names."""

import collections

import numpy as np
import pytest

import eagerflow as ef
from eagerflow.core import errors
from eagerflow.data import structure

Pair = collections.namedtuple("Pair", "a b")


def test_from_user_converts_leaves_and_keeps_structure():
    element = structure.from_user({"x": [1, 2], "y": (ef.constant(1.0), Pair(3, 4.0))}, "t")
    assert isinstance(element["x"], np.ndarray) and element["x"].dtype == np.int32
    assert isinstance(element["y"][1], Pair) and element["y"][1].b.dtype == np.float32


def test_from_user_copies_writeable_arrays_only():
    array = np.zeros(2)
    assert structure.from_user(array, "t") is not array
    frozen = np.zeros(2)
    frozen.flags.writeable = False
    assert structure.from_user(frozen, "t") is frozen


def test_from_function_reads_a_top_level_list_as_a_tuple():
    assert isinstance(structure.from_function([1, 2], "f"), tuple)
    assert isinstance(structure.from_user([1, 2], "f"), np.ndarray)


def test_bad_leaves_name_their_source():
    with pytest.raises(errors.InvalidArgumentError, match="fn produced None"):
        structure.from_user((1, None), "fn")
    with pytest.raises(errors.InvalidArgumentError, match="^fn: Cannot convert"):
        structure.from_user(object(), "fn")


def test_signature_ignores_shapes_and_string_lengths():
    a = structure.from_user((np.zeros(2), np.array(b"ab")), "t")
    b = structure.from_user((np.zeros(5), np.array(b"abcd")), "t")
    c = structure.from_user((np.zeros(2, np.float32), np.array(b"ab")), "t")
    assert structure.signature(a) == structure.signature(b) != structure.signature(c)
    assert structure.signature(Pair(np.zeros(1), np.zeros(1))) != structure.signature(
        (np.zeros(1), np.zeros(1)))


def test_describe_and_leaf_paths():
    element = {"b": (np.zeros((2, 3), np.float32),), "a": np.array(b"x")}
    assert structure.describe(element) == "{'b': (float32[2, 3],), 'a': string[]}"
    assert structure.leaf_paths(element) == ["['a']", "['b'][0]"]
    assert structure.leaf_paths(np.zeros(1)) == ["element"]
    assert structure.describe(Pair(np.zeros(1), np.zeros(()))) == "Pair(float64[1], float64[])"


def test_flattener_and_packer_are_inverse():
    for example in (np.zeros(1), (np.zeros(1), np.ones(2)), {"k": (np.zeros(1),)}):
        flat = structure.flattener(example)(example)
        rebuilt = structure.packer(example)(flat)
        assert structure.signature(rebuilt) == structure.signature(example)


def test_to_numpy_and_spec_of():
    element = (np.arange(3), np.array(5))
    arrays = structure.to_numpy(element)
    assert not arrays[0].flags.writeable and isinstance(arrays[1], np.int64)
    assert structure.spec_of(element) == (ef.TensorSpec((3,), np.int64),
                                          ef.TensorSpec((), np.int64))
    assert structure.spec_of(np.array(b"abc")).dtype == np.dtype("S")
    assert structure.is_string(object) and not structure.is_string(np.float32)
