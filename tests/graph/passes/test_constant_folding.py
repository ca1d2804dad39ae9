"""Constant folding (eagerflow/graph/passes/constant_folding.py)."""

import numpy as np

import eagerflow as ef
from eagerflow.graph.passes import constant_folding, dead_code
from tests.graph.passes.programs import X3, run, traced, types


def test_fold_constants_replaces_constant_subgraphs():
    program, cf = traced(lambda x: x + ef.exp(ef.constant(2.0)) * 3.0, X3)
    assert types(program) == ["Placeholder", "Const", "Exp", "Mul", "AddV2"]
    folded = constant_folding.fold_constants(program)
    assert types(folded) == ["Placeholder", "Const", "Const", "Const", "AddV2"]
    live = dead_code.eliminate_dead_code(folded)
    assert types(live) == ["Placeholder", "Const", "AddV2"]
    np.testing.assert_allclose(live.nodes[1].attrs["value"], np.exp(2.0) * 3, rtol=1e-6)
    out, = run(live, cf, np.ones(3, np.float32))
    np.testing.assert_allclose(out, 1 + np.exp(2.0) * 3, rtol=1e-6)


def test_fold_constants_folds_shape_only_ops():
    program, _ = traced(lambda x: ef.zeros_like(x) + ef.cast(ef.size(x), ef.float32), X3)
    folded = dead_code.eliminate_dead_code(constant_folding.fold_constants(program))
    assert types(folded) == ["Placeholder", "Const"]
    np.testing.assert_array_equal(folded.nodes[1].attrs["value"], [3.0, 3.0, 3.0])


def test_fold_constants_keeps_random_ops_and_failing_ops():
    program, _ = traced(lambda: ef.random.uniform([2]) + 1.0)
    assert "RandomUniform" in types(constant_folding.fold_constants(program))
    program, cf = traced(lambda: ef.gather(ef.constant([1.0, 2.0]), ef.constant([0])))
    # the same op with an index that fails is left for run time, where it raises
    node = program.nodes[-1]
    node.inputs[1]._const = np.array([7], np.int32)
    assert "Gather" in types(constant_folding.fold_constants(program))
