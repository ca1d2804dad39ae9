"""Isolation: a restore left pending by one test must not listen during the next."""

import pytest

from eagerflow.checkpoint import restore


@pytest.fixture(autouse=True)
def _no_pending_restores_between_tests():
    yield
    for status in list(restore._live):
        status._stop_listening()
