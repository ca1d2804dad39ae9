"""The README's ```python blocks run as a reader copies them: in order, in one fresh
namespace with nothing injected, in a temp dir."""

import pathlib
import re

import pytest

README = pathlib.Path(__file__).resolve().parents[1] / "README.md"
_TEXT = README.read_text()
# (first line of the block in the README, code)
BLOCKS = [(_TEXT.count("\n", 0, m.start(1)) + 1, m.group(1))
          for m in re.finditer(r"^```python\n(.*?)^```", _TEXT, flags=re.S | re.M)]


@pytest.mark.skipif(not BLOCKS, reason="the README has no ```python block")
def test_readme_blocks_run_as_copied(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    namespace = {"__name__": "__main__"}
    for line, code in BLOCKS:
        # Compiled at its own lines of README.md: errors name them, and functions defined
        # in a block have their source (AutoGraph reads it, as from a file or a notebook).
        source = "\n" * (line - 1) + code
        exec(compile(source, str(README), "exec"), namespace)  # noqa: S102 - our own README


def test_readme_has_the_two_setup_commands():
    text = README.read_text()
    assert "pip install -e '.[fast]' && python -m eagerflow.examples" in text
    assert "pip install -e '.[test]' && python -m pytest" in text
