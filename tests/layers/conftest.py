"""Each test starts automatic layer names afresh (``dense``, ``dense_1``, ...)."""

import pytest

from eagerflow.layers import base


@pytest.fixture(autouse=True)
def _fresh_layer_names():
    base.reset_name_uids()
    yield
