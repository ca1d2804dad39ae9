"""Shared helpers of the dataset tests."""

import threading

import numpy as np


def values(dataset):
    """The elements of `dataset` as nested Python/NumPy values (for comparisons)."""
    return [_plain(element) for element in dataset.as_numpy_iterator()]


def _plain(value):
    if isinstance(value, tuple):
        return tuple(_plain(v) for v in value)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    value = np.asarray(value)
    return value.tolist()


def pipeline_threads():
    """Names of the live threads the pipeline started."""
    return [t.name for t in threading.enumerate() if t.name.startswith("eagerflow-")]
