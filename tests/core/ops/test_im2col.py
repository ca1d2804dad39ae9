"""im2col: the window matrix, and the forward-to-backward cache that reuses it."""

import gc

import numpy as np
import pytest

import eagerflow as ef
from eagerflow.core.ops import im2col


@pytest.fixture(autouse=True)
def _empty_cache():
    im2col._entries.clear()
    im2col._size[0] = 0
    yield
    im2col._entries.clear()
    im2col._size[0] = 0


@pytest.mark.parametrize("channels, groups", [(1, 1), (3, 1), (4, 2)])
def test_columns_rows_are_the_flattened_windows(channels, groups):
    x = np.random.default_rng(0).standard_normal((2, 5, 4, channels))
    cols = im2col.columns(x, (3, 2), (2, 1), (1, 1), ((1, 1), (0, 1)), (3, 4), groups)
    xp = np.pad(x, ((0, 0), (1, 1), (0, 1), (0, 0)))
    window = xp[1, 2:5, 3:5]  # batch 1, output row 1, output column 3
    row = 1 * 12 + 1 * 4 + 3
    if groups == 1:
        np.testing.assert_array_equal(cols[row], window.reshape(-1))
    else:
        per_group = channels // groups
        for g in range(groups):
            np.testing.assert_array_equal(
                cols[g, row], window[..., g * per_group:(g + 1) * per_group].reshape(-1))


def _conv_with_counted_columns(monkeypatch):
    calls = []
    original = im2col.columns
    monkeypatch.setattr(im2col, "columns", lambda *a: calls.append(1) or original(*a))
    x = ef.constant(np.random.default_rng(1).standard_normal((2, 6, 6, 3)))
    w = ef.Variable(np.random.default_rng(2).standard_normal((3, 3, 3, 4)))
    return calls, x, w


def test_the_filter_gradient_reuses_the_forward_matrix(monkeypatch):
    calls, x, w = _conv_with_counted_columns(monkeypatch)
    with ef.GradientTape() as tape:
        y = ef.nn.conv2d(x, w, 1, "SAME")
    cached = tape.gradient(y, w).numpy()
    assert len(calls) == 1 and not im2col._entries  # taken, not rebuilt
    im2col.CACHE_BYTES, saved = 0, im2col.CACHE_BYTES
    try:
        with ef.GradientTape() as tape:
            y = ef.nn.conv2d(x, w, 1, "SAME")
        rebuilt = tape.gradient(y, w).numpy()
    finally:
        im2col.CACHE_BYTES = saved
    assert len(calls) == 3  # too big for the cache: built again for the gradient
    np.testing.assert_array_equal(cached, rebuilt)


def test_nothing_is_cached_without_a_tape(monkeypatch):
    calls, x, w = _conv_with_counted_columns(monkeypatch)
    ef.nn.conv2d(x, w, 1, "SAME")
    assert not im2col._entries


def test_entries_die_with_their_input():
    x = np.ones((1, 4, 4, 2))
    im2col.remember(x, ("geometry",), np.zeros((16, 18)))
    assert len(im2col._entries) == 1
    assert im2col.take(x, ("other geometry",)) is None
    del x
    gc.collect()
    assert not im2col._entries and im2col._size[0] == 0


def test_oldest_entries_are_evicted_beyond_the_cap(monkeypatch):
    monkeypatch.setattr(im2col, "CACHE_BYTES", 3000)
    inputs = [np.ones((1, 2, 2, 1)) for _ in range(3)]
    for x in inputs:
        im2col.remember(x, ("g",), np.zeros(125))  # 1000 bytes each
    im2col.remember(np.ones(1), ("g",), np.zeros(10_000))  # over the cap: not kept
    assert im2col._size[0] == 3000
    extra = np.ones((1, 2, 2, 1))
    im2col.remember(extra, ("g",), np.zeros(125))
    assert im2col.take(inputs[0], ("g",)) is None
    assert im2col.take(extra, ("g",)) is not None
