"""im2col: the window matrix, and its reuse by the filter gradient."""

import numpy as np
import pytest

import eagerflow as ef
from eagerflow.ops.kernels import im2col, saved

pytestmark = pytest.mark.usefixtures("empty_saved_cache")


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


@pytest.mark.usefixtures("numpy_kernels")  # the NumPy Conv2D builds and saves the matrix
def test_the_filter_gradient_reuses_the_forward_matrix(monkeypatch):
    calls, x, w = _conv_with_counted_columns(monkeypatch)
    with ef.GradientTape() as tape:
        y = ef.nn.conv2d(x, w, 1, "SAME")
    cached = tape.gradient(y, w).numpy()
    assert len(calls) == 1 and not saved._entries  # taken, not rebuilt
    cap = saved.CAP_BYTES
    saved.CAP_BYTES = 0
    try:
        with ef.GradientTape() as tape:
            y = ef.nn.conv2d(x, w, 1, "SAME")
        rebuilt = tape.gradient(y, w).numpy()
    finally:
        saved.CAP_BYTES = cap
    assert len(calls) == 3  # too big for the cache: built again for the gradient
    np.testing.assert_array_equal(cached, rebuilt)


@pytest.mark.usefixtures("numpy_kernels")
def test_nothing_is_cached_without_a_tape(monkeypatch):
    calls, x, w = _conv_with_counted_columns(monkeypatch)
    ef.nn.conv2d(x, w, 1, "SAME")
    assert not saved._entries
