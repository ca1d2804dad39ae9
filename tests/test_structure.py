"""Package structure: the core's dependency direction and the module size limit."""

import json
import pathlib
import subprocess
import sys

import eagerflow

_PACKAGE = pathlib.Path(eagerflow.__file__).parent
_HIGH_LEVEL = ["eagerflow.layers", "eagerflow.models", "eagerflow.optim", "eagerflow.metrics",
               "eagerflow.losses", "eagerflow.datasets", "eagerflow.checkpoint"]
_MAX_LINES = 800


def test_importing_the_core_loads_no_high_level_package():
    # A fresh interpreter: this process has probably imported everything already.
    code = ("import json, sys; import eagerflow.core; "
            "print(json.dumps(sorted(m for m in sys.modules if m.startswith('eagerflow'))))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True, cwd=_PACKAGE.parent, timeout=60)
    loaded = json.loads(result.stdout)
    assert "eagerflow.core" in loaded
    offending = [m for m in loaded if any(m == p or m.startswith(p + ".") for p in _HIGH_LEVEL)]
    assert not offending, f"importing eagerflow.core loaded {offending}"


def test_no_module_exceeds_the_line_limit():
    sizes = {str(path.relative_to(_PACKAGE.parent)): len(path.read_text().splitlines())
             for path in _PACKAGE.rglob("*.py")}
    assert sizes, "no modules found"
    too_long = {path: n for path, n in sorted(sizes.items()) if n > _MAX_LINES}
    assert not too_long, f"modules over {_MAX_LINES} lines (split them by concept): {too_long}"
