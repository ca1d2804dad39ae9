"""Every registered differentiable primitive must be reached by some op-table row, and
have a JVP rule that some row's forward-mode check runs."""

import pytest

from eagerflow.core import dispatch, forwardprop
from tests.ops.opcase import all_cases, check_forward_mode, ops_reached

# Ops with no gradient-check row of their own, and why.
_EXEMPT = {
    "CheckNumerics",  # identity; tested in tests/core/test_debugging.py
    "Lu",  # no gradient in TensorFlow either: its rules raise (tests/ops/test_factorizations.py)
}


def test_every_differentiable_primitive_has_a_row():
    reached = set()
    for case in all_cases():
        reached |= ops_reached(case)
    missing = sorted(
        name for name, op in dispatch.OPS.items()
        if op.differentiable and name not in reached and name not in _EXEMPT
    )
    assert not missing, f"differentiable ops without an op-table row: {missing}"


def test_every_differentiable_primitive_has_a_checked_jvp_rule(monkeypatch):
    cases = all_cases()  # imports every op family
    without = sorted(name for name, op in dispatch.OPS.items()
                     if op.differentiable and op.jvp_rule is None)
    assert not without, f"differentiable ops without a JVP rule: {without}"
    reached = set()
    original = forwardprop._jvp

    def spy(op, *args):
        reached.add(op.name)
        return original(op, *args)

    monkeypatch.setattr(forwardprop, "_jvp", spy)
    for case in cases:
        if case.order:
            try:
                check_forward_mode(case)
            except pytest.skip.Exception:
                pass
    missing = sorted(name for name, op in dispatch.OPS.items()
                     if op.differentiable and name not in reached and name not in _EXEMPT)
    assert not missing, f"differentiable ops whose JVP no op-table row checks: {missing}"
