"""Every ```python block of the README runs (each in a fresh namespace, in a temp dir)."""

import pathlib
import re

import numpy as np
import pytest

import eagerflow as ef

README = pathlib.Path(__file__).resolve().parents[1] / "README.md"
_TEXT = README.read_text()
# (first line of the block in the README, code)
BLOCKS = [(_TEXT.count("\n", 0, m.start(1)) + 1, m.group(1))
          for m in re.finditer(r"^```python\n(.*?)^```", _TEXT, flags=re.S | re.M)]


def _block_id(index_and_block):
    index, (_, code) = index_and_block
    first = code.strip().splitlines()[0] if code.strip() else ""
    return f"{index}-{first[:40]}"


@pytest.mark.parametrize("block", BLOCKS, ids=[_block_id(x) for x in enumerate(BLOCKS)])
def test_readme_block_runs(block, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    line, code = block
    namespace = {"ef": ef, "np": np, "__name__": "__readme__"}
    # Compiled at its own lines of README.md: errors name them, and functions defined in the
    # block have their source (AutoGraph reads it, as from a file or a notebook cell).
    source = "\n" * (line - 1) + code
    exec(compile(source, str(README), "exec"), namespace)  # noqa: S102 - our own README


def test_readme_has_the_two_setup_commands():
    text = README.read_text()
    assert "pip install -e . && python -m eagerflow.examples" in text
    assert "pip install -e '.[test]' && python -m pytest" in text
