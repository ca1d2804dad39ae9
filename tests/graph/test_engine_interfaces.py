"""The compiler meets the engine through what the engine declares: the tracer protocol, the
tape hooks and the one op registry (docs/architecture.md, "Where the engine meets the
compiler")."""

import eagerflow as ef
from eagerflow.core import autodiff, context, dispatch
from eagerflow.core import tape as tape_lib
from eagerflow.graph import graph, trace
from eagerflow.graph.passes import fusion


def test_the_graph_tracer_implements_the_engine_tracer_protocol():
    declared = [n for n in vars(context.Tracer) if not n.startswith("_")]
    assert sorted(declared) == ["assign_variable", "execute", "holds_tensor", "initial_value",
                                "pack", "read_variable", "writable_buffer"]
    for name in declared:
        assert callable(getattr(trace.Tracer, name)), name
    assert "tapes" in context.Tracer.__annotations__
    seen = []

    @ef.function
    def f(x):
        seen.append(trace.current())
        return x * 2.0

    f(ef.constant(1.0))
    assert isinstance(seen[0], trace.Tracer) and isinstance(seen[0].tapes, list)
    assert trace.current() is None


def test_graph_only_ops_and_per_call_families_are_in_the_one_registry():
    for op in graph.NODE_OPS + (graph.CALL, autodiff.CUSTOM_GRADIENT, fusion.FUSED):
        assert dispatch.OPS[op.name] is op
        assert op.family is None and not op.differentiable
    without_forward = {op for op in dispatch.OPS.values() if op.forward is None}
    assert without_forward == set(graph.NODE_OPS) | {graph.CALL, autodiff.CUSTOM_GRADIENT,
                                                     fusion.FUSED}


def test_a_recorded_cond_is_an_instance_of_the_registered_if():
    x = ef.constant(2.0)
    ops = []

    @ef.function
    def f(x):
        with ef.GradientTape() as tape:
            tape.watch(x)
            y = ef.cond(x > 0.0, lambda: x * x, lambda: -x)
        ops.extend(record[0] for record in tape_lib.recorded(tape)[0])
        return tape.gradient(y, x)

    assert float(f(x)) == 4.0
    (cond,) = [op for op in ops if op.family is graph.COND]
    assert cond.name == "If" and cond.differentiable and cond is not graph.COND


def test_a_custom_gradient_call_names_its_function_as_origin():
    @ef.custom_gradient
    def clipped(x):
        return x * 1.0, lambda dy: ef.clip_by_value(dy, -1.0, 1.0)

    x = ef.constant(3.0)
    with ef.GradientTape() as tape:
        tape.watch(x)
        y = clipped(x) * 5.0
    (op,) = [r[0] for r in tape_lib.recorded(tape)[0] if r[0].family is not None]
    assert op.family is autodiff.CUSTOM_GRADIENT and op.origin.__name__ == "clipped"
    assert float(tape.gradient(y, x)) == 1.0


def test_the_tape_hooks_tell_every_recording_tape():
    v = ef.Variable(2.0)
    with ef.GradientTape() as outer, ef.GradientTape() as inner:
        assert context.thread.tapes[-2:] == [outer, inner]
        snapshot = v.read_value()  # record_read
        y = snapshot * 3.0  # record_op
        assert context.on_tape([outer], y) and context.on_tape([inner], snapshot)
        assert not context.on_tape([inner], ef.constant(1.0))
    assert outer not in context.thread.tapes and inner not in context.thread.tapes
    assert float(inner.gradient(y, v)) == 3.0 and float(outer.gradient(y, v)) == 3.0
