"""Every ```python block of the README runs (each in a fresh namespace, in a temp dir)."""

import pathlib
import re

import numpy as np
import pytest

import eagerflow as ef

README = pathlib.Path(__file__).resolve().parents[1] / "README.md"
BLOCKS = re.findall(r"^```python\n(.*?)^```", README.read_text(), flags=re.S | re.M)


def _block_id(index_and_code):
    index, code = index_and_code
    first = code.strip().splitlines()[0] if code.strip() else ""
    return f"{index}-{first[:40]}"


@pytest.mark.parametrize("code", BLOCKS, ids=[_block_id(x) for x in enumerate(BLOCKS)])
def test_readme_block_runs(code, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    namespace = {"ef": ef, "np": np, "__name__": "__readme__"}
    exec(compile(code, str(README), "exec"), namespace)  # noqa: S102 - our own README


def test_readme_has_the_two_setup_commands():
    text = README.read_text()
    assert "pip install -e . && python -m eagerflow.examples" in text
    assert "pip install -e '.[test]' && python -m pytest" in text
