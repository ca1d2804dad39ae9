"""Every registered differentiable primitive must be reached by some op-table row."""

from eagerflow.core import dispatch
from tests.ops.opcase import all_cases, ops_reached


def test_every_differentiable_primitive_has_a_row():
    reached = set()
    for case in all_cases():
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
