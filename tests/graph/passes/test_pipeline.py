"""The whole pipeline's effect (eagerflow/graph/passes/pipeline.py)."""

import numpy as np

import eagerflow as ef
from tests.graph.passes.programs import X3, types


def test_the_full_pipeline_shrinks_a_redundant_graph():
    @ef.function
    def f(x):
        unused = ef.exp(x)  # noqa: F841
        a = x * 1.0 + ef.constant(2.0) * 3.0
        return ef.transpose(ef.transpose(a * a)) + ef.zeros_like(a)

    cf = f.get_concrete_function(X3)
    assert len(cf.graph.nodes) == 11
    assert types(cf.optimized_graph) == ["Placeholder", "Const", "AddV2", "Mul"]
    np.testing.assert_allclose(f(ef.constant([1.0, 2.0, 3.0])).numpy(), [49.0, 64.0, 81.0])
