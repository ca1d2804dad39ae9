"""scratch: recycled buffers for large temporaries."""

import numpy as np
import pytest

from eagerflow.core.ops import scratch


@pytest.fixture(autouse=True)
def _empty_pool():
    scratch._free.clear()
    scratch._kept[0] = 0
    yield
    scratch._free.clear()
    scratch._kept[0] = 0


def test_released_buffers_are_reused_for_the_same_byte_size():
    a = scratch.empty((512, 1024), np.float32)
    assert a.shape == (512, 1024) and a.dtype == np.float32 and a.flags.c_contiguous
    scratch.release(a)
    b = scratch.empty((1024, 256), np.float64)
    assert np.shares_memory(a, b)
    c = scratch.empty((1024, 256), np.float64)  # the pool is empty again: new memory
    assert not np.shares_memory(b, c)


def test_small_and_foreign_arrays_are_not_pooled():
    small = scratch.empty((10,), np.float32)
    scratch.release(small, np.ones((1 << 20,), np.uint8), np.ones(300_000), None)
    assert scratch._kept[0] == 0


def test_double_release_keeps_one_copy_and_the_cap_holds(monkeypatch):
    a = scratch.empty((1 << 20,), np.uint8)
    scratch.release(a)
    scratch.release(a)
    assert scratch._kept[0] == 1 << 20
    monkeypatch.setattr(scratch, "CAP_BYTES", 1 << 20)
    scratch.release(scratch.empty((1 << 18,), np.float64))  # 2 MiB: over the cap
    assert scratch._kept[0] == 1 << 20
