"""Dead-code elimination (eagerflow/graph/passes/dead_code.py)."""

import eagerflow as ef
from eagerflow.graph.passes import dead_code
from tests.graph.passes.programs import X3, traced, types


def test_dce_drops_unused_ops_but_keeps_effects():
    v = ef.Variable(0.0)

    def fn(x):
        ef.exp(x)  # unused
        ef.random.normal([2])  # unused, but it advances the random stream
        v.assign_add(1.0)
        ef.print("effect")
        return x * 2.0

    program, _ = traced(fn, X3)
    kept = types(dead_code.eliminate_dead_code(program))
    assert "Exp" not in kept
    for effect in ("RandomStandardNormal", "AssignAddVariableOp", "PrintV2", "Mul"):
        assert effect in kept
