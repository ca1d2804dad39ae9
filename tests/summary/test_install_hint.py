"""Without tensorboardX, creating a writer says how to install it."""

import sys

import pytest

import eagerflow as ef


def test_missing_tensorboardx_says_how_to_install(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "tensorboardX", None)
    with pytest.raises(ImportError, match=r"pip install 'eagerflow\[tensorboard\]'"):
        ef.summary.create_file_writer(tmp_path)
