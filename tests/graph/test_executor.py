"""The compiled executor: kernels equal the ops' forwards, errors, buffers, numerics."""

import numpy as np
import pytest

import eagerflow as ef
from eagerflow.core import buffers, dispatch
from eagerflow.ops import logic, nn_ops as nn, unary  # noqa: F401 - registers the ops with a ufunc

_UFUNC_OPS = sorted(name for name, op in dispatch.OPS.items() if op.ufunc is not None)


@pytest.mark.parametrize("name", _UFUNC_OPS)
def test_every_direct_kernel_equals_the_registered_forward(name):
    op = dispatch.OPS[name]
    ufunc, *extra = op.ufunc if isinstance(op.ufunc, tuple) else (op.ufunc,)
    rng = np.random.default_rng(0)
    arity = 1 if ufunc.nin - len(extra) == 1 else 2
    for dtype in (np.float32, np.int32):
        if dtype == np.int32 and name in ("Sqrt", "Log", "Log1p", "Exp", "Expm1", "Sin", "Cos",
                                          "Tan", "Tanh", "Reciprocal", "RealDiv", "Floor",
                                          "Ceil", "Pow"):
            continue
        if dtype == np.float32 and name.startswith("Bitwise") or name == "Invert" and \
                dtype == np.float32:
            continue
        args = [rng.integers(1, 5, (3, 4)).astype(dtype) if dtype == np.int32 else
                rng.uniform(0.5, 2.0, (3, 4)).astype(dtype) for _ in range(arity)]
        expected = op.forward(*args)
        got = ufunc(*args, *extra)
        assert got.dtype == expected.dtype
        np.testing.assert_array_equal(got, expected)


def test_plan_source_is_straight_line_numpy():
    @ef.function
    def f(x, w):
        return ef.nn.relu(ef.matmul(x, w) + 1.0)

    source = f.get_concrete_function(ef.ones([2, 3]), ef.ones([3, 4])).plan_source()
    lines = source.splitlines()
    assert lines[0] == "def plan(s0, s1):" and lines[-1].strip() == "return (s4,)"
    assert all("=" in line for line in lines[1:-1])


def test_python_scalars_follow_the_dtype_table():
    f = ef.function(lambda x: (x * 2.5, x + 1))
    ints = ef.constant([1, 2], ef.int32)
    for _ in range(2):
        a, b = f(ints)  # a weak float meeting int32 gives float32, as eagerly
        assert a.dtype == np.float32 and b.dtype == np.int32
        np.testing.assert_array_equal(a.numpy(), [2.5, 5.0])
    halves = ef.constant([1.0], ef.float16)
    g = ef.function(lambda x: x * 1e5)
    with np.errstate(over="ignore"):
        assert np.isinf(g(halves).numpy()).all() and np.isinf(g(halves).numpy()).all()
    small = ef.constant(np.array([1], np.uint8))
    h = ef.function(lambda x: x + 300)
    with pytest.raises(ef.errors.InvalidArgumentError, match="out of bounds for uint8"):
        h(small)  # the eager error, at trace time


def test_errors_inside_branches_name_the_op():
    f = ef.function(lambda x, i: ef.cond(i >= 0, lambda: ef.gather(x, i), lambda: x[0]))
    x = ef.constant([1.0, 2.0])
    assert float(f(x, ef.constant(1))) == 2.0
    with pytest.raises(ef.errors.InvalidArgumentError, match=r"\[Op:Gather\]"):
        f(x, ef.constant(9))


def test_variable_updates_stay_in_place():
    w = ef.Variable(np.ones((64, 64), np.float32))

    @ef.function
    def step(g):
        w.assign_sub(0.5 * g * w)
        return ef.reduce_sum(w)

    step(ef.ones([64, 64]))
    address = buffers.read(w).ctypes.data  # no reference kept: that would force a copy
    step(ef.ones([64, 64]))
    assert buffers.read(w).ctypes.data == address  # no copy: no live tensor shared the buffer
    kept = w.read_value()
    step(ef.ones([64, 64]))
    assert buffers.read(w).ctypes.data != address  # copied before writing: `kept` keeps its value
    np.testing.assert_allclose(kept.numpy(), 0.25)


def test_assign_checks_unknown_shapes_at_run_time():
    v = ef.Variable([1.0, 2.0])
    f = ef.function(lambda x: v.assign(x), input_signature=[ef.TensorSpec([None])])
    f(ef.constant([3.0, 4.0]))
    with pytest.raises(ef.errors.InvalidArgumentError, match=r"shape \(3,\) to variable"):
        f(ef.constant([1.0, 2.0, 3.0]))


def test_check_numerics_applies_to_graphs():
    f = ef.function(lambda x: ef.log(x) + 1.0)
    with np.errstate(invalid="ignore"):
        f(ef.constant([1.0]))
        ef.debugging.enable_check_numerics()
        try:
            with pytest.raises(ef.errors.InvalidArgumentError,
                               match=r"output of Log .* NaN values.*\[Op:Log\]"):
                f(ef.constant([-1.0]))
        finally:
            ef.debugging.disable_check_numerics()
        assert np.isnan(f(ef.constant([-1.0])).numpy()).all()


def test_outputs_are_fresh_tensors_the_graph_never_writes_again():
    f = ef.function(lambda x: ef.exp(x) * 2.0)
    first = f(ef.constant([0.0]))
    f(ef.constant([1.0]))
    assert float(first[0]) == 2.0


def test_bias_add_writes_into_a_dead_input_buffer():
    f = ef.function(lambda x, b: ef.nn.relu(ef.nn.bias_add(x * 2.0, b)))
    x, b = np.arange(24.0).reshape(2, 3, 4) - 12, np.array([1.0, -2.0, 3.0, -4.0])
    for _ in range(2):
        np.testing.assert_allclose(f(ef.constant(x), ef.constant(b)).numpy(),
                                   np.maximum(x * 2.0 + b, 0), rtol=1e-6)
    plan = f.get_concrete_function(ef.constant(x), ef.constant(b))._plan()
    bias = next(n for n in plan.program.nodes if n.type == "BiasAdd")
    assert plan.program.inplace.get(id(bias)) == 0  # a non-ufunc forward, given `out=`
    assert any("out=" in line and "**a" in line for line in plan.source.splitlines())


def test_forward_results_saved_for_gradients_are_all_taken():
    from eagerflow.ops.kernels import saved

    rng = np.random.default_rng(0)
    w = ef.Variable(rng.normal(size=(3, 3, 2, 4)).astype(np.float32))

    def step(x):
        with ef.GradientTape() as tape:
            tape.watch(x)
            h = ef.nn.relu(ef.nn.conv2d(x, w, 1, "VALID"))
            loss = ef.reduce_sum(ef.nn.max_pool2d(h, 2, 2, "VALID") ** 2)
        return tape.gradient(loss, [x, w])

    x = ef.constant(rng.normal(size=(2, 8, 8, 2)).astype(np.float32))
    traced = ef.function(step)
    nodes = traced.get_concrete_function(x).graph.nodes
    marked = sorted(n.type for n in nodes if id(n) in saved.producers_to_save(nodes))
    assert marked == ["Conv2D", "MaxPool"]
    before = len(saved._entries)
    for _ in range(2):
        got = traced(x)
        assert len(saved._entries) == before  # every saved result was taken back
    for g, e in zip(got, step(x), strict=True):
        np.testing.assert_allclose(g.numpy(), e.numpy(), rtol=1e-5, atol=1e-5)


def _mlp_step():
    rng = np.random.default_rng(0)
    w1 = ef.Variable(rng.normal(size=(6, 8)).astype(np.float32))
    w2 = ef.Variable(rng.normal(size=(8, 3)).astype(np.float32))

    def step(x):
        with ef.GradientTape() as tape:
            h = ef.nn.relu(ef.matmul(x, w1))
            loss = ef.reduce_sum(ef.matmul(h, w2) ** 2)
        g1, g2 = tape.gradient(loss, [w1, w2])
        return loss, g1 * 1.0, h  # `h` is returned: it owns its memory too

    return step, rng


def test_memory_plan_buffers_stay_with_the_plan_and_outputs_own_theirs():
    step, rng = _mlp_step()
    traced = ef.function(step)
    xs = [ef.constant(rng.normal(size=(4, 6)).astype(np.float32)) for _ in range(3)]
    plan = traced.get_concrete_function(xs[0])._plan()
    assert plan.arena_bytes > 0 and "= m" in plan.source
    results = [traced(x) for x in xs]
    kept = [[t.numpy().copy() for t in r] for r in results]
    again = [traced(x) for x in reversed(xs)]  # later calls reuse the plan's buffers ...
    for result, copies in zip(results, kept, strict=True):  # ... never a returned one
        for tensor, copy in zip(result, copies, strict=True):
            np.testing.assert_array_equal(tensor.numpy(), copy)
    for result, expected in zip(again, reversed(kept), strict=True):
        for tensor, copy in zip(result, expected, strict=True):
            np.testing.assert_array_equal(tensor.numpy(), copy)
    arrays = [buffers.read(t) for r in results + again for t in r]
    assert not any(np.shares_memory(a, b) for i, a in enumerate(arrays) for b in arrays[i + 1:])
    for got, want in zip(results[0], step(xs[0]), strict=True):  # as eagerly, bit for bit
        np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_memory_plan_gives_each_running_call_its_own_buffers():
    import threading

    step, rng = _mlp_step()
    traced = ef.function(step)
    xs = [ef.constant(rng.normal(size=(4, 6)).astype(np.float32)) for _ in range(4)]
    expected = [[t.numpy() for t in traced(x)] for x in xs]
    failures = []

    def worker(index):
        for _ in range(30):
            got = traced(xs[index])
            if not all(np.array_equal(g.numpy(), e) for g, e in
                       zip(got, expected[index], strict=True)):
                failures.append(index)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []


def test_matmul_writes_into_a_given_buffer_bit_for_bit():
    forward = dispatch.OPS["BatchMatMulV2"].forward
    rng = np.random.default_rng(1)
    a, b = (rng.normal(size=(64, n)).astype(np.float32) for n in (33, 17))
    out = np.empty((33, 17), np.float32)
    assert forward(a, b, transpose_a=True, out=out) is out
    np.testing.assert_array_equal(out, forward(a, b, transpose_a=True))
    with pytest.raises(ef.errors.InvalidArgumentError, match="size-incompatible"):
        forward(a, a, out=np.empty((64, 33), np.float32))
