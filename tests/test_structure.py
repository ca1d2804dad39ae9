"""Package structure: the layout's dependency direction, the engine's size and the
module size limit (see the README's Architecture section)."""

import ast
import functools
import json
import pathlib
import re
import subprocess
import sys
import token
import tokenize

import eagerflow

_PACKAGE = pathlib.Path(eagerflow.__file__).parent
# What importing the engine must not load: the compiler, the heavy op families, and
# everything built on top.
_NOT_FROM_CORE = ["eagerflow.graph", "eagerflow.ops.conv_ops", "eagerflow.ops.pooling",
                  "eagerflow.layers", "eagerflow.models", "eagerflow.optim", "eagerflow.metrics",
                  "eagerflow.losses", "eagerflow.data", "eagerflow.datasets", "eagerflow.saving",
                  "eagerflow.callbacks", "eagerflow.summary"]
_MAX_LINES = 1000
# DESIGN.md: the engine is "<= 2,000 lines of code counted on tokens"; docstrings,
# comments and blank lines are free (CONVENTIONS: budgets count code, not text).
_MAX_CORE_CODE_LINES = 2000


@functools.cache
def _imports():
    """Maps each module of the package to the package modules it imports (anywhere)."""
    modules = {}
    for path in _PACKAGE.rglob("*.py"):
        parts = path.relative_to(_PACKAGE.parent).with_suffix("").parts
        modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    edges = {}
    for name, path in modules.items():
        found = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                for alias in node.names:
                    full = f"{node.module}.{alias.name}"
                    found.add(full if full in modules else node.module)
            elif isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
        edges[name] = {m for m in found if m in modules and m != name}
    return modules, edges


def test_importing_the_core_loads_no_high_level_package():
    # A fresh interpreter: this process has probably imported everything already.
    code = ("import json, sys; import eagerflow.core; "
            "print(json.dumps(sorted(m for m in sys.modules if m.startswith('eagerflow'))))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True, cwd=_PACKAGE.parent, timeout=60)
    loaded = json.loads(result.stdout)
    assert "eagerflow.core" in loaded
    offending = [m for m in loaded
                 if any(m == p or m.startswith(p + ".") for p in _NOT_FROM_CORE)]
    assert not offending, f"importing eagerflow.core loaded {offending}"


def test_core_and_ops_never_import_graph():
    _, edges = _imports()
    upward = sorted((a, b) for a, targets in edges.items() for b in targets
                    if a.startswith(("eagerflow.core", "eagerflow.ops"))
                    and b.startswith("eagerflow.graph"))
    assert not upward, f"core/ops import the compiler: {upward}"


def test_nothing_below_models_imports_models():
    _, edges = _imports()
    below = ("eagerflow.core", "eagerflow.ops", "eagerflow.graph", "eagerflow.layers",
             "eagerflow.optim", "eagerflow.losses", "eagerflow.metrics", "eagerflow.data",
             "eagerflow.saving", "eagerflow.summary", "eagerflow.callbacks")
    upward = sorted((a, b) for a, targets in edges.items() if a.startswith(below)
                    for b in targets if b.startswith("eagerflow.models"))
    assert not upward, f"imports of models/ from below it: {upward}"


def test_the_pipeline_never_imports_the_built_in_data_sets():
    _, edges = _imports()
    pipeline = {a: targets for a, targets in edges.items()
                if a == "eagerflow.data" or a.startswith("eagerflow.data.")}
    upward = sorted((a, b) for a, targets in pipeline.items()
                    for b in targets if b.startswith("eagerflow.datasets"))
    assert not upward, f"data/ imports datasets/: {upward}"


def test_core_imports_only_core():
    _, edges = _imports()
    outside = sorted((a, b) for a, targets in edges.items() if a.startswith("eagerflow.core")
                     for b in targets if not b.startswith("eagerflow.core"))
    assert not outside, f"the engine imports outside core/: {outside}"


def test_core_has_no_import_cycle():
    _, edges = _imports()
    core = {m: {t for t in targets if t.startswith("eagerflow.core.")}
            for m, targets in edges.items() if m.startswith("eagerflow.core.")}
    done, cycles = set(), []

    def visit(module, stack):
        if module in stack:
            cycles.append(stack[stack.index(module):] + [module])
            return
        if module in done:
            return
        for target in sorted(core[module]):
            visit(target, stack + [module])
        done.add(module)

    for module in sorted(core):
        visit(module, [])
    assert not cycles, f"import cycles in core/: {cycles}"


def _code_lines(path) -> int:
    """Lines holding code tokens, as tinygrad's sz.py counts them: names, operators,
    numbers and strings other than docstrings."""
    lines = set()
    with tokenize.open(path) as f:
        for tok in tokenize.generate_tokens(f.readline):
            docstring = tok.type == token.STRING and tok.line.lstrip().startswith(
                ('"""', 'r"""', "'''"))
            if tok.type in (token.NAME, token.OP, token.NUMBER, token.STRING) and not docstring:
                lines.update(range(tok.start[0], tok.end[0] + 1))
    return len(lines)


def test_the_engine_stays_small():
    lines = sum(_code_lines(p) for p in (_PACKAGE / "core").rglob("*.py"))
    assert lines <= _MAX_CORE_CODE_LINES, (
        f"core/ has {lines} lines of code (> {_MAX_CORE_CODE_LINES})")


def test_code_lines_skip_docstrings_comments_and_blank_lines(tmp_path):
    path = tmp_path / "m.py"
    path.write_text('"""Doc\n\nstring."""\n\n# note\nx = """a\nb"""\ndef f():\n'
                    '    r"""Doc."""\n    return 1\n')
    assert _code_lines(path) == 4  # x = (2 lines), def, return


def test_no_import_at_the_foot_of_a_file():
    offending = [str(p.relative_to(_PACKAGE.parent)) for p in _PACKAGE.rglob("*.py")
                 if "noqa: E402" in p.read_text()]
    assert not offending, f"imports below code (a cycle held by import order): {offending}"


def test_no_two_modules_share_a_misleading_name():
    # A file name that occurs twice must name the same concept in two layers (ops/pooling
    # and layers/pooling), never two different things (loops of fit vs while-loops).
    names = {}
    for path in _PACKAGE.rglob("*.py"):
        if path.name != "__init__.py":
            names.setdefault(path.name, []).append(str(path.parent.relative_to(_PACKAGE)))
    allowed = {
        "activations.py": ["layers", "ops"], "pooling.py": ["layers", "ops"],
        "normalization.py": ["layers", "ops"], "base.py": ["callbacks", "layers"],
        "regression.py": ["losses", "metrics"], "probabilistic.py": ["losses", "metrics"],
        "digits.py": ["datasets", "examples"],
        "math.py": [".", "ops"], "linalg.py": [".", "ops"], "nn.py": [".", "ops"],
        "image.py": [".", "ops"], "dtypes.py": [".", "core"], "strings.py": [".", "ops"],
        "autodiff.py": [".", "core"],
    }
    shared = {name: sorted(dirs) for name, dirs in names.items() if len(dirs) > 1}
    unexpected = {name: dirs for name, dirs in shared.items() if allowed.get(name) != dirs}
    assert not unexpected, f"file names in several folders: {unexpected}"


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


# Modules that are themselves public namespaces (ef.math, ef.random, ef.activations, ...).
_NAMESPACE_MODULES = {
    "math.py", "dtypes.py", "nn.py", "image.py", "linalg.py", "config.py", "train.py", "backend.py",
    "autodiff.py", "testing.py", "strings.py",
    "core/errors.py", "ops/debugging.py", "ops/random.py", "layers/activations.py",
    "ops/numpy.py", "ops/nn.py", "ops/image.py", "ops/linalg.py",  # keras.ops.numpy, ...
    "layers/initializers.py",
    "layers/regularizers.py", "layers/constraints.py", "optim/schedules.py",
    "datasets/digits.py", "datasets/mnist.py", "datasets/fashion_mnist.py",
    "datasets/cifar10.py", "data/experimental.py",
}


def test_public_names_are_listed_only_by_namespaces():
    # A name is public where a namespace (a package's __init__ or a namespace module) lists
    # it; an implementation module listing it too would be a second declaration to keep
    # in step.
    listed = sorted(str(p.relative_to(_PACKAGE)) for p in _PACKAGE.rglob("*.py")
                    if p.name != "__init__.py" and re.search(r"^__all__\b", p.read_text(), re.M))
    extra = [p for p in listed if p not in _NAMESPACE_MODULES]
    assert not extra, f"__all__ outside the public namespaces: {extra}"
