"""Replaying a finished graph op by op, through the dispatcher.

A `ConcreteFunction` called while another function is traced is inlined this way: each
node runs again through `dispatch.execute` (or the variable, control-flow and Python
ops), so the enclosing trace records it like any other op, with the ops' own gradients.
Loaded (exported) graphs use the same path when a tape needs their gradients.

Examples:
    >>> import eagerflow as ef
    >>> inner = ef.function(lambda x: x * 3.0).get_concrete_function(ef.TensorSpec([]))
    >>> outer = ef.function(lambda x: inner(x) + 1.0)
    >>> outer(ef.constant(2.0))
    ef.Tensor(7.0, shape=(), dtype=float32)
"""

from __future__ import annotations

from typing import Any

from eagerflow.core import context, dispatch, tensor
from eagerflow.graph import graph, trace

_is_symbolic = graph.is_symbolic


def call_in_trace(function, tensors) -> list:
    """Runs `function`'s graph inside the current trace; returns its output tensors."""
    from eagerflow.graph import concrete

    tapes = context.thread.tapes
    if tapes and concrete.custom_gradient_names(function.graph):
        # Replayed ops would record their own gradients instead of the custom one.
        return function.call_recorded_in_trace(tensors, tapes)
    return replay(function.graph, list(tensors), function.graph.outputs)


def replay(graph_, inputs, outputs) -> list:
    """Re-runs the nodes of `graph_` on `inputs` (one per placeholder); returns `outputs`."""
    from eagerflow.graph import control_flow, python_ops

    values: dict[int, object] = {id(p): x for p, x in zip(graph_.inputs, inputs, strict=False)}

    def get(x):
        return values[id(x)] if _is_symbolic(x) else x

    for node in graph_.nodes:
        op = node.op
        if op is graph.PLACEHOLDER:
            continue
        args = [get(x) for x in node.inputs]
        if op is graph.CONST:
            result: tuple[Any, ...] = (tensor.new_tensor(node.attrs["value"]),)
        elif op is graph.READ:
            result = (node.attrs["variable"].read_value(),)
        elif op in graph.ASSIGN_MODES:
            node.attrs["variable"]._assign(args[0], graph.ASSIGN_MODES[op])
            result = ()
        elif op is graph.PRINT:
            attrs = node.attrs
            parts = [_rebuild(part, args) for part in attrs["template"]]
            python_ops.print(*parts, output_stream=python_ops._stream(attrs["stream"]),
                             summarize=attrs["summarize"], sep=attrs["sep"], end=attrs["end"])
            result = ()
        elif op is graph.PY_FUNCTION:
            attrs = node.attrs
            out = python_ops.py_function(attrs["func"], args, attrs["Tout"] if not
                                         attrs["single"] else attrs["Tout"][0])
            result = () if out is None else (out,) if attrs["single"] else tuple(out)
        elif op is graph.COND:
            result = _replay_cond(node, args, control_flow)
        elif op is graph.WHILE:
            result = _replay_while(node, args, control_flow)
        else:
            attrs = trace.resolve_generators(graph.map_attr_tensors(node.attrs, get))
            out = dispatch.execute(op, tuple(args), attrs)
            result = (out,) if op.num_outputs == 1 else tuple(out)
        for symbolic, value in zip(node.outputs, result, strict=False):
            values[id(symbolic)] = value
    return [values[id(o)] for o in outputs]


def _rebuild(part, args):
    kind, content = part
    if kind == "tensor":
        return args[content]
    if kind == "text":
        return content
    if kind == "dict":
        return {k: _rebuild(v, args) for k, v in content}
    items = [_rebuild(v, args) for v in content]
    return items if kind == "list" else tuple(items)


def replay_inputs(branch, explicit, captured):
    """Replays a `control_flow.Branch` with its explicit inputs and capture values."""
    values = list(explicit) + list(captured)
    return replay_with(branch.graph, branch.inputs, values, branch.graph.outputs)


def replay_with(graph_, placeholders, values, outputs):
    """Like `replay`, with an explicit placeholder order."""
    mapping = dict(zip([id(p) for p in placeholders], values, strict=False))
    ordered = [mapping.get(id(p)) for p in graph_.inputs]
    return replay(graph_, ordered, outputs)


def _replay_cond(node, args, control_flow):
    pred, captured = args[0], args[1:]
    then_branch, else_branch = node.attrs["then_branch"], node.attrs["else_branch"]
    result = control_flow.cond(
        pred,
        lambda: replay_inputs(then_branch, (), captured),
        lambda: replay_inputs(else_branch, (), captured),
    )
    return tuple(result)


def _replay_while(node, args, control_flow):
    n = node.attrs["n_vars"]
    loop, captured = list(args[:n]), args[n:]
    cond_branch, body_branch = node.attrs["cond"], node.attrs["body"]
    final = control_flow.while_loop(
        lambda *v: replay_inputs(cond_branch, v, captured)[0],
        lambda *v: replay_inputs(body_branch, v, captured),
        loop, maximum_iterations=node.attrs["maximum_iterations"],
    )
    # The per-iteration outputs of a replayed loop are not available: only the finals are.
    return tuple(final) + (None,) * (len(node.outputs) - n)
