"""Shared test fixtures."""

import pytest

from eagerflow.core import errors


@pytest.fixture(autouse=True)
def _fresh_warnings():
    """Each test sees eagerflow's warn-once warnings afresh."""
    errors._warned.clear()
    yield
    errors._warned.clear()
