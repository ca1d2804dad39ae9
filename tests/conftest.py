"""Shared test fixtures."""

import pytest

from eagerflow.core import errors
from eagerflow.ops.kernels import kernel_sets


@pytest.fixture(autouse=True)
def _fresh_warnings():
    """Each test sees eagerflow's warn-once warnings afresh."""
    errors._warned.clear()
    yield
    errors._warned.clear()


@pytest.fixture(params=["numpy", "numba"])
def kernel_set(request):
    """Runs the test on each kernel set (numba's skipped when numba is missing), then
    restores the one it found."""
    if request.param == "numba":
        pytest.importorskip("numba")
    before = kernel_sets.active()
    kernel_sets.set_active(request.param)
    yield request.param
    kernel_sets.set_active(before)
