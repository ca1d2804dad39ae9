"""scratch: pooled buffers, reused only once no array refers to them."""

import numpy as np
import pytest

import eagerflow as ef
from eagerflow.ops.kernels import scratch

_MIB = 1 << 20


@pytest.fixture(autouse=True)
def _empty_pool():
    scratch._pool.clear()
    scratch._pooled[0] = 0
    yield
    scratch._pool.clear()
    scratch._pooled[0] = 0


def test_a_buffer_is_reused_only_after_its_arrays_died():
    a = scratch.empty((512, 1024), np.float32)
    assert a.shape == (512, 1024) and a.dtype == np.float32 and a.flags.c_contiguous
    address = a.ctypes.data
    view = a[10:]  # any view keeps the buffer in use
    del a
    b = scratch.empty((1024, 256), np.float64)
    assert b.ctypes.data != address
    del view
    c = scratch.empty((2048, 128), np.float64)
    assert c.ctypes.data == address


def test_small_arrays_bypass_the_pool():
    scratch.empty((100,), np.float32)
    assert scratch._pooled[0] == 0


def test_the_cap_drops_unused_buffers_first(monkeypatch):
    monkeypatch.setattr(scratch, "CAP_BYTES", 3 * _MIB)
    kept = scratch.empty((_MIB,), np.uint8)
    for _ in range(2):
        scratch.empty((2 * _MIB,), np.uint8)  # dies at once: pooled, then free
    assert scratch._pooled[0] == 3 * _MIB
    scratch.empty((_MIB + 8,), np.uint8)  # room is made by dropping the free 2 MiB one
    assert scratch._pooled[0] == 2 * _MIB + 8
    big = scratch.empty((4 * _MIB,), np.uint8)  # larger than the cap: never pooled
    assert big.base is not None and scratch._pooled[0] == 2 * _MIB + 8
    assert kept.base is scratch._pool[_MIB][0]


def test_op_outputs_are_never_overwritten_while_alive():
    rng = np.random.default_rng(0)
    x = ef.constant(rng.standard_normal((64, 16, 16, 8), dtype=np.float32))
    w = ef.constant(rng.standard_normal((3, 3, 8, 16), dtype=np.float32))
    first = ef.nn.conv2d(x, w, 1, "SAME")
    kept = first.numpy().copy()
    view = first.numpy()
    del first
    for _ in range(3):
        ef.nn.conv2d(x * 2.0, w, 1, "SAME")
        ef.nn.max_pool2d(x, 2, 1, "SAME")
    np.testing.assert_array_equal(view, kept)
