"""Fixtures shared by the op tests."""

import pytest

from eagerflow.ops.kernels import saved


@pytest.fixture
def empty_saved_cache():
    """Empties the cache of forward results kept for gradients (`ops/kernels/saved.py`)."""
    saved._entries.clear()
    saved._size[0] = 0
    yield
    saved._entries.clear()
    saved._size[0] = 0


def _kernel_set(name):
    from eagerflow.ops.kernels import kernel_sets

    before = kernel_sets.active()
    kernel_sets.set_active(name)
    yield
    kernel_sets.set_active(before)


@pytest.fixture
def numpy_kernels():
    """Runs the test on the NumPy kernel set (tests of the NumPy kernels' own machinery,
    such as the im2col matrix a convolution saves for its gradient)."""
    yield from _kernel_set("numpy")


@pytest.fixture
def numba_kernels():
    """Runs the test on the numba kernel set (skipped without numba)."""
    pytest.importorskip("numba")
    yield from _kernel_set("numba")
