"""saved: forward results kept for the gradient, weakly keyed by an array."""

import gc

import numpy as np
import pytest

from eagerflow.ops.kernels import saved

pytestmark = pytest.mark.usefixtures("empty_saved_cache")


def test_entries_die_with_their_array():
    x = np.ones((1, 4, 4, 2))
    saved.remember(x, ("im2col", 3), np.zeros((16, 18)))
    assert len(saved._entries) == 1
    assert saved.take(x, ("im2col", 4)) is None  # other parameters: no match
    del x
    gc.collect()
    assert not saved._entries and saved._size[0] == 0


def test_kinds_saved_for_one_array_do_not_collide():
    x = np.ones(3)
    saved.remember(x, ("a",), np.zeros(1))
    saved.remember(x, ("b",), np.ones(1))
    assert saved.take(x, ("a",))[0] == 0.0 and saved.take(x, ("b",))[0] == 1.0


def test_oldest_entries_are_evicted_beyond_the_cap(monkeypatch):
    monkeypatch.setattr(saved, "CAP_BYTES", 3000)
    arrays = [np.ones((1, 2, 2, 1)) for _ in range(3)]
    for x in arrays:
        saved.remember(x, ("g",), np.zeros(125))  # 1000 bytes each
    saved.remember(np.ones(1), ("g",), np.zeros(10_000))  # over the cap: not kept
    assert saved._size[0] == 3000
    extra = np.ones((1, 2, 2, 1))
    saved.remember(extra, ("g",), np.zeros(125))
    assert saved.take(arrays[0], ("g",)) is None
    assert saved.take(extra, ("g",)) is not None


@pytest.mark.parametrize("key", [("g", 1), ("g", 2)])
def test_remembering_again_replaces_the_entry(key):
    x = np.ones(2)
    saved.remember(x, ("g", 1), np.zeros(1))
    saved.remember(x, key, np.ones(1))
    assert len(saved._entries) == 1 and saved._size[0] == 8
    assert saved.take(x, key)[0] == 1.0
