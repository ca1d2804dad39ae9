"""Common-subexpression elimination (eagerflow/graph/passes/common_subexpressions.py)."""

import numpy as np

import eagerflow as ef
from eagerflow.graph.passes import common_subexpressions, dead_code
from tests.graph.passes.programs import X3, run, traced, types


def test_cse_computes_equal_pure_ops_once():
    program, cf = traced(lambda x, y: ef.exp(x * y) + ef.exp(x * y) + ef.exp(y * x), X3, X3)
    merged = dead_code.eliminate_dead_code(
        common_subexpressions.eliminate_common_subexpressions(program))
    assert types(merged).count("Mul") == 2 and types(merged).count("Exp") == 2
    out, = run(merged, cf, np.ones(3, np.float32), np.full(3, 2.0, np.float32))
    np.testing.assert_allclose(out, 3 * np.exp(2.0), rtol=1e-6)


def test_cse_merges_variable_reads_only_between_writes():
    v = ef.Variable(1.0)

    def fn():
        a = v.read_value() + v.read_value()
        v.assign_add(1.0)
        return a + v.read_value()

    program, cf = traced(fn)
    merged = common_subexpressions.eliminate_common_subexpressions(program)
    assert types(program).count("ReadVariableOp") == 3
    assert types(merged).count("ReadVariableOp") == 2
    out, = run(merged, cf)
    assert float(out) == 4.0 and float(v) == 2.0


def test_cse_never_merges_random_draws():
    program, _ = traced(lambda: ef.random.uniform([2], seed=1) - ef.random.uniform([2], seed=1))
    merged = common_subexpressions.eliminate_common_subexpressions(program)
    assert types(merged).count("RandomUniform") == 2
