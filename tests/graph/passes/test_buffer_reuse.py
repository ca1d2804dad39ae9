"""Buffer reuse (eagerflow/graph/passes/buffer_reuse.py)."""

import numpy as np

import eagerflow as ef
from eagerflow.graph.passes import buffer_reuse
from tests.graph.passes.programs import X3, run, traced


def test_buffer_reuse_runs_elementwise_chains_in_place():
    program, cf = traced(lambda x: ef.tanh(ef.exp(x) * 2.0 + 1.0) - x, X3)
    planned = buffer_reuse.plan_buffer_reuse(program)
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
    planned = buffer_reuse.plan_buffer_reuse(program)
    by_type = {node.type: planned.inplace.get(id(node)) for node in planned.nodes}
    assert by_type["Mul"] is None and by_type["AddV2"] == 0
    x = np.array([0.0, 1.0, -1.0], np.float32)
    out, flags = run(planned, cf, x)
    np.testing.assert_allclose(out, 3 * np.exp(x), rtol=1e-6)
    np.testing.assert_array_equal(flags, np.exp(x) > 1)


def test_buffer_reuse_never_grows_a_buffer_by_broadcasting():
    program, _ = traced(lambda x, y: ef.exp(x) + y, ef.TensorSpec([None, 3]),
                        ef.TensorSpec([None, 3]))
    planned = buffer_reuse.plan_buffer_reuse(program)
    assert not planned.inplace  # the unknown dims may differ at run time (1 vs n)


def test_dead_buffers_are_recycled_by_later_chains():
    # Two update chains, as an optimizer step has: the second writes into the first's
    # dead temporary instead of allocating.
    v, w = ef.Variable([1.0, 2.0, 3.0]), ef.Variable([0.0, 0.0, 0.0])

    def step(x):
        v.assign_add(ef.exp(x) * 2.0)
        w.assign_sub(ef.sqrt(x) * 3.0)
        return v.read_value() + 0.0

    program, cf = traced(step, X3)
    planned = buffer_reuse.plan_buffer_reuse(program)
    recycled = [node.type for node in planned.nodes if id(node) in planned.recycle]
    assert recycled == ["Sqrt", "AddV2"]  # the returned sum may take a dead buffer too
    x = np.array([0.25, 1.0, 4.0], np.float32)
    out, = run(planned, cf, x)
    np.testing.assert_allclose(out, [1.0, 2.0, 3.0] + 2 * np.exp(x), rtol=1e-6)
    np.testing.assert_allclose(w.numpy(), -3 * np.sqrt(x), rtol=1e-6)


def test_recycling_never_writes_a_buffer_still_read_or_returned():
    def fn(x):
        a = ef.exp(x) * 2.0  # returned: never recycled
        b = ef.sqrt(x) + 1.0
        return a, b * ef.tanh(x)

    program, cf = traced(fn, X3)
    planned = buffer_reuse.plan_buffer_reuse(program)
    assert not planned.recycle
    x = np.array([0.25, 1.0, 4.0], np.float32)
    a, b = run(planned, cf, x)
    np.testing.assert_allclose(a, 2 * np.exp(x), rtol=1e-6)
    np.testing.assert_allclose(b, (np.sqrt(x) + 1) * np.tanh(x), rtol=1e-6)


def test_a_view_keeps_its_buffer_from_being_recycled():
    """`a[1:]` is a view of `a`'s buffer: after `a` itself is last read, the buffer is still
    alive through the view, so `x * 2.0` must not be written into it (it was, and the view
    then read the product)."""
    @ef.function
    def f(x):
        a = ef.exp(x)
        view = a[1:]
        doubled = x * 2.0
        return view * doubled[1:]

    x = np.array([0.1, 0.2, 0.3, 0.4])
    f(x)  # the traced run
    np.testing.assert_allclose(f(x).numpy(), np.exp(x[1:]) * 2 * x[1:], rtol=1e-12)


def _arena_types(planned):
    return sorted(node.type for node in planned.nodes if id(node) in planned.arena)


def test_memory_plan_keeps_intermediates_but_never_returned_buffers():
    w = np.arange(12.0, dtype=np.float32).reshape(3, 4) / 10

    def fn(x):
        h = ef.matmul(x, w)  # dies inside the call: a buffer of the memory plan
        return ef.reduce_sum(ef.nn.relu(h) * 2.0, axis=1), ef.matmul(x, w) - 1.0

    program, _ = traced(fn, ef.TensorSpec([2, 3]))
    planned = buffer_reuse.plan_buffer_reuse(program)
    # the first product (relu and the multiply write into it in place) is kept; the second
    # is returned through the subtraction written into it, so it owns fresh memory
    assert _arena_types(planned) == ["BatchMatMulV2"]


def test_memory_plan_leaves_buffers_that_escape_the_call():
    def fn(x):
        kept = ef.exp(x) + 1.0
        shown = ef.exp(x * 3.0)
        ef.print(shown)
        view = ef.reshape(ef.sqrt(x + 4.0), [3, 1])  # a returned view of a planned buffer
        return ef.reduce_sum(kept), view

    program, _ = traced(fn, X3)
    planned = buffer_reuse.plan_buffer_reuse(program)
    assert _arena_types(planned) == ["Exp"]  # only `kept`: printed and viewed ones escape


def test_memory_plan_needs_known_shapes_and_a_writable_kernel():
    program, _ = traced(lambda x: ef.reduce_sum(ef.exp(x) + 1.0), ef.TensorSpec([None]))
    assert _arena_types(buffer_reuse.plan_buffer_reuse(program)) == []  # unknown size
    program, _ = traced(lambda x: ef.reduce_sum(ef.cast(x, ef.float64) * 2.0), X3)
    cast, mul = program.nodes[1:3]
    assert not buffer_reuse.writes_into(cast)  # Cast's forward takes no `out`
    planned = buffer_reuse.plan_buffer_reuse(program)
    # Mul writes into Cast's result in place, and that buffer comes from malloc each call
    assert planned.inplace.get(id(mul)) == 0 and _arena_types(planned) == []


def test_a_product_with_a_mask_gets_a_kept_or_recycled_buffer():
    # dy * (y > 0), as the ReLU gradient: the bool mask takes the float loop, so the
    # product may write into a buffer of the plan (and into a dead float one)
    def fn(x):
        h = ef.exp(x)
        masked = h * (h > 1.5)  # h is read again below: not in place
        total = ef.reduce_sum(masked) + ef.reduce_sum(h)
        again = x * (x > 0.0)  # into `masked`'s dead buffer (x is the caller's)
        return total + ef.reduce_sum(again)

    program, cf = traced(fn, X3)
    planned = buffer_reuse.plan_buffer_reuse(program)
    assert "Mul" in _arena_types(planned)
    muls = [node for node in planned.nodes if node.type == "Mul"]
    assert id(muls[1]) in planned.recycle
    x = np.array([0.0, 1.0, -1.0], np.float32)
    got, = run(planned, cf, x)
    e = np.exp(x)
    want = (e * (e > 1.5)).sum() + e.sum() + (x * (x > 0)).sum()
    np.testing.assert_allclose(got, want, rtol=1e-6)
