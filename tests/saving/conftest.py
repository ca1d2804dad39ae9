"""Isolation: a restore left pending by one test must not listen during the next."""

import pytest

from eagerflow.saving import status as status_module


@pytest.fixture(autouse=True)
def _no_pending_restores_between_tests():
    yield
    for status in list(status_module._live):
        status._stop_listening()
