"""`ef.while_loop`: loops that work eagerly and inside graphs.

Eagerly it is a plain Python ``while`` (the tape records every iteration). While
`ef.function` traces, the loop condition and body are traced once into subgraphs of a
``While`` node (see `control_flow.py` for how subgraphs capture tensors and variable
reads), and the executor runs the iterations when the graph runs. A loop variable whose
shape changes between iterations gets an unknown (None) dimension.

The ``While`` node also outputs the loop variables of every iteration, computed only when
a gradient uses them; the gradient is a ``While`` that runs the iterations backwards,
recomputing each body step from its saved inputs (so Python side effects of the body run
again while that gradient is traced, and random ops in the body are refused).

Example:
    >>> import eagerflow as ef
    >>> @ef.function
    ... def collatz_steps(n):
    ...     def body(n, steps):
    ...         n = ef.cond(ef.equal(n % 2, 0), lambda: n // 2, lambda: 3 * n + 1)
    ...         return n, steps + 1
    ...     return ef.while_loop(lambda n, steps: n != 1, body, [n, 0])[1]
    >>> int(collatz_steps(ef.constant(12))), int(collatz_steps(ef.constant(27)))
    (9, 111)
"""

from __future__ import annotations

import numpy as np

from eagerflow.core import context, dispatch, errors, nest, tensor
from eagerflow.core import tape as tape_lib
from eagerflow.graph import graph, trace
from eagerflow.graph.control_flow import (
    Branch,
    _check_pred,
    _hoisted_reads,
    _spec,
    _static_bool,
    _trace_subgraph,
    _union,
)

__all__ = ["run_while", "while_loop"]

_is_symbolic = graph.is_symbolic


def while_loop(cond, body, loop_vars, maximum_iterations=None, name=None):
    """Repeats ``loop_vars = body(*loop_vars)`` while ``cond(*loop_vars)`` is true.

    Args:
        cond: function of the loop variables returning a scalar bool tensor.
        body: function of the loop variables returning new values in the same structure,
            with the same dtypes (and shapes; a dimension that changes becomes None).
        loop_vars: a list or tuple (possibly nested) of tensors or numbers.
        maximum_iterations: stop after this many iterations (a Python int).

    Returns:
        The final loop variables, in the structure of `loop_vars`.

    Raises:
        TypeError: if the functions are not callable or `body` changes the structure or a
            dtype.
        InvalidArgumentError: if `cond` does not return a scalar bool.

    Example:
        >>> import eagerflow as ef
        >>> i, total = ef.while_loop(lambda i, t: i < 5, lambda i, t: (i + 1, t + i), [0, 0])
        >>> int(i), int(total)
        (5, 10)
    """
    return _while_loop(cond, body, loop_vars, maximum_iterations, name or "while")


def _check_loop_args(cond, body, loop_vars, maximum_iterations):
    for label, fn in (("cond", cond), ("body", body)):
        if not callable(fn):
            raise TypeError(
                f"ef.while_loop: {label} must be callable, got {type(fn).__name__}: {fn!r}"
            )
    if not isinstance(loop_vars, (list, tuple)):
        raise TypeError(
            f"ef.while_loop: loop_vars must be a list or tuple, got {type(loop_vars).__name__}"
        )
    if maximum_iterations is None:
        return None
    if _is_symbolic(maximum_iterations) and maximum_iterations._const is None:
        raise errors.InvalidArgumentError(
            "ef.while_loop: maximum_iterations must be a Python int or a constant"
        )
    count = int(_static_value(maximum_iterations))
    if count < 0:
        raise errors.InvalidArgumentError(
            f"ef.while_loop: maximum_iterations must be >= 0, got {count}"
        )
    return count


def _static_value(value):
    if _is_symbolic(value):
        return value._const
    if isinstance(value, tensor.Tensor):
        return value._value
    return value


def _while_loop(cond, body, loop_vars, maximum_iterations, name, recompute=False,
                overrides=None):
    limit = _check_loop_args(cond, body, loop_vars, maximum_iterations)
    flat = [dispatch.convert_input(v) for v in nest.flatten(loop_vars)]
    tracer = context.thread.tracer
    if tracer is None:
        return _eager_while(cond, body, loop_vars, flat, limit)
    refs = [tracer.ref(v) for v in flat]
    specs = [_spec(r) for r in refs]
    pack = lambda values: nest.pack_sequence_as(loop_vars, list(values))  # noqa: E731
    no_hoist: set = set()
    initial = [s[0] for s in specs]
    for _ in range(4):  # retrace when a loop variable's shape changes or a read is written
        g_cond, t_cond, r_cond = _trace_subgraph(lambda *v: cond(*pack(v)), specs,
                                                 f"{name}_cond", False, recompute or
                                                 tracer.recompute, no_hoist, overrides)
        g_body, t_body, r_body = _trace_subgraph(lambda *v: body(*pack(v)), specs,
                                                 f"{name}_body", False, recompute or
                                                 tracer.recompute, no_hoist, overrides)
        conflict = set(t_body.assigned) - no_hoist
        relaxed = _relax(specs, g_body.outputs, r_body, loop_vars)
        if not conflict and relaxed == specs:
            break
        no_hoist |= set(t_body.assigned)
        specs = relaxed
    else:
        raise errors.InternalError(f"ef.while_loop {name}: loop shapes do not settle")
    if len(g_cond.outputs) != 1:
        raise errors.InvalidArgumentError(f"ef.while_loop: cond must return one scalar bool, "
                                          f"got {r_cond!r}")
    _check_pred(g_cond.outputs[0], "ef.while_loop: cond")
    union = _union(g_cond, g_body)
    n = len(flat)
    attrs = {
        "cond": Branch(g_cond, g_cond.inputs[:n], union),
        "body": Branch(g_body, g_body.inputs[:n], union),
        "maximum_iterations": limit, "n_vars": n, "_body_fn": lambda *v: body(*pack(v)),
        "_union": union,
        # loop variables whose shape changes between iterations: no per-iteration stacks
        "varying": tuple(i for i, s in enumerate(specs) if s[0] != initial[i]),
    }
    inputs = refs + [tracer.ref(u) for u in union]
    values = None
    if tracer.executing and not tracer.recompute:  # run the loop for real: this is the call
        with trace.eager_scope():
            values = run_while(attrs, [r._shadow for r in inputs], accumulate=True)
    out_specs = _while_output_specs(specs, values)
    node = tracer.add_node(graph.WHILE, inputs, attrs, out_specs)
    outputs = tuple(node.outputs)
    tapes = context.thread.tapes
    if tapes and any(o.dtype.kind in "fc" for o in outputs[:n]):
        op = dispatch.Op("While", None, num_outputs=len(outputs))
        if recompute:  # this loop is itself a gradient: differentiating it is second order
            op.gradient(_second_order_rule(name))
        else:
            op.gradient(_while_rule(attrs["_body_fn"], n, union, name, attrs["varying"]))
        tape_lib.record(tapes, op, (*flat, *union), {}, outputs)
    return pack(outputs[:n])


def _relax(specs, outputs, result, loop_vars):
    if len(outputs) != len(specs):
        raise TypeError(
            f"ef.while_loop: body must return the structure of loop_vars {loop_vars!r}, got "
            f"{result!r}"
        )
    relaxed = []
    for i, ((shape, dtype, shadow, probe), out) in enumerate(zip(specs, outputs, strict=False)):
        if out.dtype != dtype or out.ndim != len(shape):
            raise TypeError(
                f"ef.while_loop: loop variable {i} is {graph.format_spec(shape, dtype)} before "
                f"the loop but {graph.format_spec(out.shape, out.dtype)} after one iteration; "
                "dtypes and ranks must stay the same (cast inside the body)"
            )
        new = tuple(a if a == b else None for a, b in zip(shape, out.shape, strict=False))
        if new != shape:
            probe = trace.dummy_value(new, dtype, size=4)
            shadow = trace.dummy_value(new, dtype)
        relaxed.append((new, dtype, shadow, probe))
    return relaxed


def _while_output_specs(specs, values=None):
    """Output specs of a While node: final variables, per-iteration stacks, count.

    `values` are the outputs of a real run (executing trace); probes of the stacks hold
    one more iteration than the shadows, at the probe sizes of the variables.
    """
    n = len(specs)
    out = [(s[0], s[1], s[2] if values is None else np.asarray(values[i]), s[3])
           for i, s in enumerate(specs)]
    for i, (shape, dtype, shadow, probe) in enumerate(specs):  # every iteration's variables
        stacked = np.stack([shadow]) if values is None else np.asarray(values[n + i])
        row = probe if probe is not None else shadow
        if stacked.shape[1:] != np.shape(shadow):  # a varying variable: no stack
            out.append(((None,), dtype, stacked, np.zeros((1,), dtype)))
            continue
        out.append(((None,) + tuple(shape), dtype, stacked,
                    np.stack([row] * (len(stacked) + 1))))
    count = np.asarray(1 if values is None else values[-1], np.int32)
    out.append(((), np.dtype(np.int32), count, None))
    return out


def _eager_while(cond, body, loop_vars, flat, limit):
    values = list(flat)
    count = 0
    while limit is None or count < limit:
        keep = cond(*nest.pack_sequence_as(loop_vars, values))
        if not _static_bool(keep, "ef.while_loop: cond"):
            break
        result = body(*nest.pack_sequence_as(loop_vars, values))
        new = nest.flatten(result)
        if len(new) != len(values):
            raise TypeError(
                f"ef.while_loop: body must return the structure of loop_vars {loop_vars!r}, "
                f"got {result!r}"
            )
        values = [dispatch.convert_input(v) for v in new]
        count += 1
    return nest.pack_sequence_as(loop_vars, values)


def run_while(attrs, values, accumulate=True) -> tuple:
    """Executor kernel of ``While``: final loop variables, per-iteration stacks, count."""
    n = attrs["n_vars"]
    loop = list(values[:n])
    captured = tuple(values[n:])
    cond_plan, body_plan = attrs["cond"].plan(), attrs["body"].plan()
    limit = attrs["maximum_iterations"]
    history: list = [[] for _ in range(n)]
    count = 0
    while (limit is None or count < limit) and bool(
            np.asarray(cond_plan(*loop, *captured)[0]).reshape(())):
        if accumulate:
            for h, v in zip(history, loop, strict=False):
                h.append(v)
        loop = list(body_plan(*loop, *captured))
        count += 1
    stacks = [None] * n
    if accumulate:
        varying = attrs.get("varying", ())
        for i, (h, v) in enumerate(zip(history, loop, strict=True)):
            shape = (0,) if i in varying else (0,) + np.shape(v)
            stacks[i] = np.stack(h) if h and i not in varying else np.zeros(
                shape, np.asarray(v).dtype)
    return (*loop, *stacks, np.asarray(count, np.int32))


def _while_rule(body_fn, n, union, name, varying):
    reads = _hoisted_reads(union)

    def rule(dy, y, *inputs):
        from eagerflow.ops import array, indexing

        initial, captured = inputs[:n], inputs[n:]
        stacks, count = y[n:2 * n], y[2 * n]
        floats = [i for i in range(n) if initial[i].dtype.kind in "fc"]
        changing = [i for i in floats if i in varying]
        if changing:
            raise errors.UnimplementedError(
                f"the gradient of ef.while_loop {name!r} needs loop variables of a fixed shape, "
                f"but loop variable {changing[0]} changes shape between iterations", "While"
            )
        caps = [k for k, c in enumerate(captured) if c.dtype.kind in "fc"]
        seeds = [dy[i] if dy[i] is not None else array.zeros_like(y[i]) for i in floats]
        wrt_caps = [captured[k] for k in caps]

        def back_body(i, *carried):
            dv, dc = carried[:len(floats)], carried[len(floats):]
            start = [indexing.gather(stacks[j], i) for j in range(n)]
            sources = [start[j] for j in floats] + wrt_caps
            with tape_lib.GradientTape(watch_accessed_variables=False) as t:
                t.watch(sources)
                new = [dispatch.convert_input(v) for v in nest.flatten(body_fn(*start))]
            grads = t.gradient([new[j] for j in floats], sources, output_gradients=list(dv),
                               unconnected_gradients="zero")
            summed = [a + b for a, b in zip(dc, grads[len(floats):], strict=False)]
            return (i - 1, *grads[:len(floats)], *summed)

        start_vars = (count - 1, *seeds, *[array.zeros_like(c) for c in wrt_caps])
        result = _while_loop(lambda i, *rest: i >= 0, back_body, list(start_vars), None,
                             f"{name}_grad", recompute=True, overrides=reads)
        d_vars = dict(zip(floats, result[1:1 + len(floats)], strict=False))
        d_caps = dict(zip(caps, result[1 + len(floats):], strict=False))
        return (*[d_vars.get(i) for i in range(n)], *[d_caps.get(k) for k in range(len(captured))])

    return rule


def _second_order_rule(name):
    def rule(dy, y, *inputs):
        raise errors.UnimplementedError(
            f"second-order gradients through ef.while_loop {name!r} inside a traced function "
            "are not supported (first-order gradients are). Run the loop eagerly, or unroll "
            "it with a Python for loop over a fixed count.", "While"
        )

    return rule
