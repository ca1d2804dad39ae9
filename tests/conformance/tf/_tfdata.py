"""Shared helpers for the tf.data kernel-test ports (`test_<transformation>.py`).

Every expected value, cardinality, element spec and exception class in those files was
recorded from TensorFlow 2.21's `tf.data` in the reference environment.
"""

import numpy as np

import eagerflow as ef

Dataset = ef.data.Dataset


def py(value):
    """An element as Python data: lists for tensors, dicts and lists for structures."""
    if isinstance(value, dict):
        return {k: py(v) for k, v in sorted(value.items())}
    if isinstance(value, (list, tuple)):
        return [py(v) for v in value]
    return np.asarray(value).tolist()


def spec(dataset):
    """The element spec as (shape or None, dtype name) leaves in the element's structure."""

    def walk(s):
        if isinstance(s, dict):
            return {k: walk(v) for k, v in sorted(s.items())}
        if isinstance(s, (list, tuple)):
            return [walk(v) for v in s]
        return (None if s.shape is None else tuple(s.shape), np.dtype(s.dtype).name)

    return walk(dataset.element_spec)


def check(dataset, values, cardinality, element_spec):
    """Asserts a dataset's elements, `cardinality()` and element spec."""
    assert [py(e) for e in dataset] == values
    assert int(dataset.cardinality()) == cardinality
    assert spec(dataset) == element_spec
