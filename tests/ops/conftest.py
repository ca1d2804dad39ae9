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
