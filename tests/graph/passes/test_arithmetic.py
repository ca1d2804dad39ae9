"""Arithmetic simplification (eagerflow/graph/passes/arithmetic.py)."""

import numpy as np
import pytest

import eagerflow as ef
from eagerflow.graph.passes import arithmetic, dead_code
from tests.graph.passes.programs import X3, run, traced, types


@pytest.mark.parametrize("fn", [
    lambda x: x * 1.0, lambda x: 1 * x, lambda x: x + 0.0, lambda x: 0 + x, lambda x: x - 0,
    lambda x: x / 1.0, lambda x: x ** 1, lambda x: ef.negative(ef.negative(x)),
    lambda x: ef.identity(x),
    lambda x: ef.stop_gradient(x), lambda x: ef.cast(x, ef.float32),
    lambda x: ef.reshape(x, [3]), lambda x: x * ef.ones([3]),
])
def test_simplify_removes_operations_that_return_their_input(fn):
    program, _ = traced(fn, X3)
    simplified = arithmetic.simplify_arithmetic(program)
    assert simplified.outputs[0] is program.nodes[0].outputs[0]  # the placeholder itself


@pytest.mark.parametrize("fn, spec", [
    (lambda x: x - 1.0, X3),                                 # not a neutral element
    (lambda x: x * ef.ones([2, 3]), X3),                     # broadcasting grows the shape
    (lambda x: x + ef.constant([0.0, 1.0, 0.0]), X3),        # not all zeros
    (lambda x: x * 2.0, X3),
])
def test_simplify_keeps_operations_that_change_something(fn, spec):
    program, _ = traced(fn, spec)
    simplified = arithmetic.simplify_arithmetic(program)
    assert simplified.outputs[0] is program.outputs[0]


def test_simplify_merges_and_cancels_transposes():
    program, cf = traced(lambda x: ef.transpose(ef.transpose(x)), ef.TensorSpec([2, 3]))
    assert arithmetic.simplify_arithmetic(program).outputs[0] is cf.inputs[0]
    program, cf = traced(lambda x: ef.transpose(ef.transpose(x, [1, 2, 0]), [1, 2, 0]),
                         ef.TensorSpec([2, 3, 4]))
    simplified = dead_code.eliminate_dead_code(arithmetic.simplify_arithmetic(program))
    assert types(simplified) == ["Placeholder", "Transpose"]
    assert simplified.nodes[1].attrs["perm"] == (2, 0, 1)
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    out, = run(simplified, cf, x)
    np.testing.assert_array_equal(out, x.transpose(1, 2, 0).transpose(1, 2, 0))


def test_simplify_merges_reshapes():
    program, cf = traced(lambda x: ef.reshape(ef.reshape(x, [6]), [3, 2]), ef.TensorSpec([2, 3]))
    simplified = dead_code.eliminate_dead_code(arithmetic.simplify_arithmetic(program))
    assert types(simplified) == ["Placeholder", "Reshape"]
    out, = run(simplified, cf, np.arange(6, dtype=np.float32).reshape(2, 3))
    np.testing.assert_array_equal(out, np.arange(6).reshape(3, 2))
