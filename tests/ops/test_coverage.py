"""Every registered differentiable primitive must be reached by some op-table row."""

import importlib
import pkgutil

import tests.ops as ops_tests
from eagerflow.core import dispatch
from tests.ops.opcase import ops_reached


def _all_cases():
    cases = []
    for info in pkgutil.iter_modules(ops_tests.__path__):
        if info.name.startswith("test_"):
            module = importlib.import_module(f"tests.ops.{info.name}")
            cases += getattr(module, "CASES", [])
    return cases


def test_every_differentiable_primitive_has_a_row():
    reached = set()
    for case in _all_cases():
        reached |= ops_reached(case)
    # Ops with no gradient-check row of their own, and why.
    exempt = {
        "CheckNumerics",  # identity; tested in tests/core/test_debugging.py
    }
    missing = sorted(
        name for name, op in dispatch.OPS.items()
        if op.differentiable and name not in reached and name not in exempt
    )
    assert not missing, f"differentiable ops without an op-table row: {missing}"
