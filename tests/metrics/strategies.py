"""Hypothesis strategies for streaming-metric tests: a data set and a way to split it."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st


@st.composite
def batches(draw, max_size=40):
    """Sorted cut points splitting range(n) into consecutive, possibly empty, batches."""
    n = draw(st.integers(1, max_size))
    cuts = sorted(draw(st.lists(st.integers(0, n), max_size=5)))
    return n, [0, *cuts, n]


def split(arrays, cuts):
    """Yields tuples of consecutive slices of each array."""
    for start, stop in zip(cuts[:-1], cuts[1:], strict=True):
        yield tuple(None if a is None else a[start:stop] for a in arrays)


def seeded(seed: int) -> np.random.Generator:
    return np.random.default_rng(seed)


def weighted_mean(values, weights):
    """The mean of per-sample values as a metric reports it (0 when the weights sum to 0)."""
    total = np.sum(values * (1 if weights is None else weights))
    count = len(values) if weights is None else np.sum(weights)
    return total / count if count else 0.0
