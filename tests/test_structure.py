"""Package structure: the core's dependency direction and the module size limit."""

import json
import re
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


def test_doctests_print_no_machine_dependent_float_digits():
    # The last float32 digit of exp/log/erf depends on NumPy's SIMD kernels, so an example
    # printing all of them passes on one CPU and fails on another. Doctests run with
    # NUMBER (pyproject.toml): an expected value with four decimals is compared to four.
    digits = re.compile(r"(?<![\w.])-?\d+\.\d{6,}(?![\de])")
    offending = []
    for path in sorted(_PACKAGE.rglob("*.py")):
        in_output = False
        for number, line in enumerate(path.read_text().splitlines(), 1):
            text = line.strip()
            if text.startswith((">>>", "...")):
                in_output = True
            elif not text or text.startswith('"""'):
                in_output = False
            elif in_output and digits.search(text):
                offending.append(f"{path.relative_to(_PACKAGE.parent)}:{number}: {text}")
    assert not offending, "doctest output with 6+ decimals:\n" + "\n".join(offending)
