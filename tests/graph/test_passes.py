"""Each graph optimisation pass on its own, and the whole pipeline's effect."""

import numpy as np
import pytest

import eagerflow as ef
from eagerflow.graph import passes
from eagerflow.graph.passes import Program


def traced(fn, *specs):
    """The traced graph of `fn` as a Program, plus its ConcreteFunction."""
    cf = ef.function(fn).get_concrete_function(*specs)
    return Program(cf.graph.nodes, cf.graph.outputs), cf


def types(program):
    return [node.type for node in program.nodes]


def run(program, cf, *arrays):
    from eagerflow.graph import executor

    return executor.compile_program(program, cf.graph.inputs)(*arrays)


X3 = ef.TensorSpec([3], ef.float32)


# -- constant folding ---------------------------------------------------------------------
def test_fold_constants_replaces_constant_subgraphs():
    program, cf = traced(lambda x: x + ef.exp(ef.constant(2.0)) * 3.0, X3)
    assert types(program) == ["Placeholder", "Const", "Exp", "Mul", "AddV2"]
    folded = passes.fold_constants(program)
    assert types(folded) == ["Placeholder", "Const", "Const", "Const", "AddV2"]
    live = passes.eliminate_dead_code(folded)
    assert types(live) == ["Placeholder", "Const", "AddV2"]
    np.testing.assert_allclose(live.nodes[1].attrs["value"], np.exp(2.0) * 3, rtol=1e-6)
    out, = run(live, cf, np.ones(3, np.float32))
    np.testing.assert_allclose(out, 1 + np.exp(2.0) * 3, rtol=1e-6)


def test_fold_constants_folds_shape_only_ops():
    program, _ = traced(lambda x: ef.zeros_like(x) + ef.cast(ef.size(x), ef.float32), X3)
    folded = passes.eliminate_dead_code(passes.fold_constants(program))
    assert types(folded) == ["Placeholder", "Const"]
    np.testing.assert_array_equal(folded.nodes[1].attrs["value"], [3.0, 3.0, 3.0])


def test_fold_constants_keeps_random_ops_and_failing_ops():
    program, _ = traced(lambda: ef.random.uniform([2]) + 1.0)
    assert "RandomUniform" in types(passes.fold_constants(program))
    program, cf = traced(lambda: ef.gather(ef.constant([1.0, 2.0]), ef.constant([0])))
    # the same op with an index that fails is left for run time, where it raises
    node = program.nodes[-1]
    node.inputs[1]._const = np.array([7], np.int32)
    assert "Gather" in types(passes.fold_constants(program))


# -- arithmetic simplification ------------------------------------------------------------
@pytest.mark.parametrize("fn", [
    lambda x: x * 1.0, lambda x: 1 * x, lambda x: x + 0.0, lambda x: 0 + x, lambda x: x - 0,
    lambda x: x / 1.0, lambda x: x ** 1, lambda x: ef.negative(ef.negative(x)),
    lambda x: ef.identity(x),
    lambda x: ef.stop_gradient(x), lambda x: ef.cast(x, ef.float32),
    lambda x: ef.reshape(x, [3]), lambda x: x * ef.ones([3]),
])
def test_simplify_removes_operations_that_return_their_input(fn):
    program, _ = traced(fn, X3)
    simplified = passes.simplify_arithmetic(program)
    assert simplified.outputs[0] is program.nodes[0].outputs[0]  # the placeholder itself


@pytest.mark.parametrize("fn, spec", [
    (lambda x: x * 1.0, ef.TensorSpec([3], ef.int32)),       # int * float is float64
    (lambda x: x * ef.ones([2, 3]), X3),                     # broadcasting grows the shape
    (lambda x: x + ef.constant([0.0, 1.0, 0.0]), X3),        # not all zeros
    (lambda x: x * 2.0, X3),
])
def test_simplify_keeps_operations_that_change_something(fn, spec):
    program, _ = traced(fn, spec)
    simplified = passes.simplify_arithmetic(program)
    assert simplified.outputs[0] is program.outputs[0]


def test_simplify_merges_and_cancels_transposes():
    program, cf = traced(lambda x: ef.transpose(ef.transpose(x)), ef.TensorSpec([2, 3]))
    assert passes.simplify_arithmetic(program).outputs[0] is cf.inputs[0]
    program, cf = traced(lambda x: ef.transpose(ef.transpose(x, [1, 2, 0]), [1, 2, 0]),
                         ef.TensorSpec([2, 3, 4]))
    simplified = passes.eliminate_dead_code(passes.simplify_arithmetic(program))
    assert types(simplified) == ["Placeholder", "Transpose"]
    assert simplified.nodes[1].attrs["perm"] == (2, 0, 1)
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    out, = run(simplified, cf, x)
    np.testing.assert_array_equal(out, x.transpose(1, 2, 0).transpose(1, 2, 0))


def test_simplify_merges_reshapes():
    program, cf = traced(lambda x: ef.reshape(ef.reshape(x, [6]), [3, 2]), ef.TensorSpec([2, 3]))
    simplified = passes.eliminate_dead_code(passes.simplify_arithmetic(program))
    assert types(simplified) == ["Placeholder", "Reshape"]
    out, = run(simplified, cf, np.arange(6, dtype=np.float32).reshape(2, 3))
    np.testing.assert_array_equal(out, np.arange(6).reshape(3, 2))


# -- common subexpressions ----------------------------------------------------------------
def test_cse_computes_equal_pure_ops_once():
    program, cf = traced(lambda x, y: ef.exp(x * y) + ef.exp(x * y) + ef.exp(y * x), X3, X3)
    merged = passes.eliminate_dead_code(
        passes.eliminate_common_subexpressions(program))
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
    merged = passes.eliminate_common_subexpressions(program)
    assert types(program).count("ReadVariableOp") == 3
    assert types(merged).count("ReadVariableOp") == 2
    out, = run(merged, cf)
    assert float(out) == 4.0 and float(v) == 2.0


def test_cse_never_merges_random_draws():
    program, _ = traced(lambda: ef.random.uniform([2], seed=1) - ef.random.uniform([2], seed=1))
    merged = passes.eliminate_common_subexpressions(program)
    assert types(merged).count("RandomUniform") == 2


# -- dead code ----------------------------------------------------------------------------
def test_dce_drops_unused_ops_but_keeps_effects():
    v = ef.Variable(0.0)

    def fn(x):
        ef.exp(x)  # unused
        ef.random.normal([2])  # unused, but it advances the random stream
        v.assign_add(1.0)
        ef.print("effect")
        return x * 2.0

    program, _ = traced(fn, X3)
    kept = types(passes.eliminate_dead_code(program))
    assert "Exp" not in kept
    for effect in ("RandomStandardNormal", "AssignAddVariableOp", "PrintV2", "Mul"):
        assert effect in kept


# -- buffer reuse -------------------------------------------------------------------------
# -- relu masks moved to the pooled side ---------------------------------------------------
def _relu_pool_grads(pool, extra_use=False):
    def step(z, dp):
        with ef.GradientTape() as tape:
            tape.watch(z)
            r = ef.nn.relu(z)
            y = pool(r)
            loss = ef.reduce_sum(y * dp)
            if extra_use:  # the relu output is read again: its mask has a second consumer
                loss = loss + ef.reduce_sum(r)
        return tape.gradient(loss, z)
    return step


@pytest.mark.parametrize("pool, shape", [
    (lambda r: ef.nn.max_pool2d(r, 2, 2, "VALID"), (2, 6, 7, 3)),
    (lambda r: ef.nn.max_pool2d(r, 3, 1, "SAME"), (2, 5, 5, 2)),  # overlapping windows
    (lambda r: ef.nn.max_pool2d(r, 2, 2, "SAME"), (1, 5, 5, 2)),  # padded windows
])
def test_relu_mask_behind_a_max_pool_moves_to_the_pooled_side(pool, shape):
    rng = np.random.default_rng(1)
    # Rounded values: many ties, and whole windows of relu zeros.
    z = np.round(rng.normal(size=shape) * 2).astype(np.float32)
    program, cf = traced(_relu_pool_grads(pool), ef.TensorSpec(shape),
                         ef.TensorSpec(cf_shape := pool(ef.zeros(shape)).shape))
    dp = rng.normal(size=cf_shape).astype(np.float32)
    rewritten = passes.optimize(program.nodes, program.outputs)
    pooled = {id(n.outputs[0]) for n in rewritten.nodes if n.type == "MaxPool"}
    masks = [n for n in rewritten.nodes if n.type == "Greater"]
    assert masks and all(id(n.inputs[0]) in pooled for n in masks)  # on the pooled side
    expected = _relu_pool_grads(pool)(ef.constant(z), ef.constant(dp)).numpy()
    np.testing.assert_array_equal(run(rewritten, cf, z, dp)[0], expected)


def test_relu_mask_stays_when_something_else_reads_it():
    shape = (1, 4, 4, 2)
    program, _ = traced(_relu_pool_grads(lambda r: ef.nn.max_pool2d(r, 2, 2, "VALID"), True),
                        ef.TensorSpec(shape), ef.TensorSpec([1, 2, 2, 2]))
    rewritten = passes.mask_pooled_gradients(program)
    assert types(rewritten) == types(program)


def test_buffer_reuse_runs_elementwise_chains_in_place():
    program, cf = traced(lambda x: ef.tanh(ef.exp(x) * 2.0 + 1.0) - x, X3)
    planned = passes.plan_buffer_reuse(program)
    marked = {node.type: index for node in planned.nodes
              if (index := planned.inplace.get(id(node))) is not None}
    # Exp writes a new buffer; Mul, AddV2, Tanh and Sub reuse it (never the input x)
    assert marked == {"Mul": 0, "AddV2": 0, "Tanh": 0, "Sub": 0}
    x = np.array([0.1, -0.4, 0.3], np.float32)
    before = x.copy()
    out, = run(planned, cf, x)
    np.testing.assert_allclose(out, np.tanh(np.exp(before) * 2 + 1) - before, rtol=1e-6)
    np.testing.assert_array_equal(x, before)  # the input was not written


def test_buffer_reuse_respects_later_uses_views_and_dtypes():
    def fn(x):
        e = ef.exp(x)
        view = ef.reshape(e, [3, 1])
        doubled = e * 2.0  # e's buffer is still needed by `view` below
        return doubled + ef.reshape(view, [3]), ef.cast(e > 1.0, ef.float32)

    program, cf = traced(fn, X3)
    planned = passes.plan_buffer_reuse(program)
    by_type = {node.type: planned.inplace.get(id(node)) for node in planned.nodes}
    assert by_type["Mul"] is None and by_type["AddV2"] == 0
    x = np.array([0.0, 1.0, -1.0], np.float32)
    out, flags = run(planned, cf, x)
    np.testing.assert_allclose(out, 3 * np.exp(x), rtol=1e-6)
    np.testing.assert_array_equal(flags, np.exp(x) > 1)


def test_buffer_reuse_never_grows_a_buffer_by_broadcasting():
    program, _ = traced(lambda x, y: ef.exp(x) + y, ef.TensorSpec([None, 3]),
                        ef.TensorSpec([None, 3]))
    planned = passes.plan_buffer_reuse(program)
    assert not planned.inplace  # the unknown dims may differ at run time (1 vs n)


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
