"""`ef.cond` and `ef.while_loop`: control flow that works eagerly and inside graphs.

Eagerly they are plain Python ``if`` and ``while`` (the tape records whatever runs).
While `ef.function` traces, a tensor predicate makes them graph nodes: both branches
(or the loop condition and body) are traced into subgraphs (`Branch`) once, and the
executor runs the right one (or the iterations) when the graph runs. Tensors and
variable reads a branch uses from outside become inputs of the node. A loop variable
whose shape changes between iterations gets an unknown (None) dimension.

Gradients inside graphs re-run the branch or loop body for the backward pass (Python
side effects in them happen again at that trace; random ops in them are refused):

* ``If``: the gradient is an ``If`` on the same predicate over the two branch gradients.
* ``While``: the forward loop also outputs the loop variables of every iteration
  (computed only when a gradient uses them); the gradient is a ``While`` running the
  iterations backwards, recomputing each body step from its saved inputs.

Examples:
    >>> import eagerflow as ef
    >>> @ef.function
    ... def absolute(x):
    ...     return ef.cond(x >= 0.0, lambda: x, lambda: -x)
    >>> float(absolute(ef.constant(-3.0))), float(absolute(ef.constant(2.0)))
    (3.0, 2.0)
    >>> [op.type for op in absolute.get_concrete_function(ef.constant(1.0)).graph.operations]
    ['Placeholder', 'GreaterEqual', 'If']
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

from collections.abc import Callable
from typing import Any

import numpy as np

from eagerflow.core import context, dispatch, errors, forwardprop, nest, tensor
from eagerflow.core import tape as tape_lib
from eagerflow.graph import executor, graph, shape_probe, trace
from eagerflow.graph.passes import fusion, pipeline

_is_symbolic = graph.is_symbolic


class Branch:
    """A traced subgraph (a branch, loop condition or body) and its compiled plan.

    Its plan takes the explicit inputs (loop variables) then one value per entry of the
    node's capture list (the union over the node's subgraphs).
    """

    def __init__(self, graph_, explicit, union, structure=None):  # noqa: D107
        self.graph = graph_
        self.structure = structure
        self.inputs = list(explicit)
        for u in union:  # a capture this subgraph does not use gets an unused input
            inner = graph_.capture_map.get(id(u))
            self.inputs.append(graph.SymbolicTensor(u.shape, u.dtype, graph_) if inner is None
                               else inner)
        self._plan = None

    @classmethod
    def from_inputs(cls, graph_, inputs):
        """A branch whose plan inputs are given directly (a decoded exported graph)."""
        branch = cls.__new__(cls)
        branch.graph, branch.structure, branch.inputs, branch._plan = graph_, None, inputs, None
        return branch

    def plan(self):
        """The compiled plan (built on first use)."""
        if self._plan is None:
            program = pipeline.optimize(self.graph.nodes, self.graph.outputs,
                                        fusion.wanted(self.graph.jit_compile))
            self._plan = executor.compile_program(program, self.inputs, self.graph.name)
        return self._plan


def _trace_subgraph(fn, specs, name, executing, recompute=False, no_hoist=(), overrides=None):
    """Traces `fn(*placeholders)` into a new graph under the current tracer."""
    parent = trace.current()
    sub = graph.Graph(name)
    if parent is not None:
        sub.jit_compile = parent.graph.jit_compile
    tracer = trace.Tracer(sub, executing=executing, parent=parent, recompute=recompute,
                            no_hoist=no_hoist)
    tracer.read_overrides.update(overrides or {})
    with trace.active(tracer):
        placeholders = [tracer.placeholder(shape, dtype, f"{name}_{i}", shadow=shadow,
                                           probe=probe)
                        for i, (shape, dtype, shadow, probe) in enumerate(specs)]
        result = fn(*placeholders)
        flat = nest.flatten(result)
        outputs = []
        for value in flat:
            if value is None or not _is_value(value):
                raise TypeError(
                    f"{name} must return tensors (or numbers), got {type(value).__name__}: "
                    f"{value!r}"
                )
            outputs.append(tracer.ref(dispatch.convert_input(value)))
    sub.outputs = outputs
    return sub, tracer, result


def _is_value(value) -> bool:
    return isinstance(value, (tensor.Tensor, int, float, bool, np.ndarray, np.generic)) or \
        hasattr(value, "_read")


def _spec(t):
    return (t.shape, t.dtype, t._shadow, t._probe)


def _union(*graphs) -> list:
    seen, union = set(), []
    for g in graphs:
        for outer, _ in g.captures:
            if id(outer) not in seen:
                seen.add(id(outer))
                union.append(outer)
    return union


def _hoisted_reads(union) -> dict:
    """id(variable) -> its read, for captured tensors that are variable reads."""
    reads = {}
    for t in union:
        node = t._node
        if node is not None and node.op is graph.READ:
            reads[id(node.attrs["variable"])] = t
    return reads


# -- cond ---------------------------------------------------------------------------------
def cond(pred: Any, true_fn: Callable[..., Any] | None = None,
         false_fn: Callable[..., Any] | None = None, name: str | None = None) -> Any:
    """Returns ``true_fn()`` if `pred` is true, else ``false_fn()``; works inside graphs.

    Args:
        pred: a scalar bool tensor (or Python bool).
        true_fn, false_fn: functions of no arguments returning the same structure of
            tensors with the same dtypes (shapes may differ: the result's unknown
            dimensions become None).

    Returns:
        The result of the chosen function.

    Raises:
        TypeError: if a branch is not callable or the branches return different structures.
        InvalidArgumentError: if `pred` is not a scalar bool.

    Examples:
        >>> import eagerflow as ef
        >>> x = ef.constant(3.0)
        >>> ef.cond(x > 0.0, lambda: x * 2.0, lambda: -x)
        ef.Tensor(6.0, shape=(), dtype=float32)
    """
    return _cond(pred, _converted(true_fn), _converted(false_fn), name or "cond")


def _converted(fn):
    """The user's `fn` converted by AutoGraph when it is on for the trace in progress
    (branches and bodies written with `if`/`while` on tensors), as TensorFlow does."""
    if not trace.options.autograph or context.thread.tracer is None:
        return fn
    from eagerflow.graph import autograph

    return autograph.convert(fn) if callable(fn) else fn


def _cond(pred, true_fn, false_fn, name, recompute=False, overrides=None):
    for label, fn in (("true_fn", true_fn), ("false_fn", false_fn)):
        if not callable(fn):
            raise TypeError(f"ef.cond: {label} must be callable, got {type(fn).__name__}: {fn!r}")
    if not _is_symbolic(pred) or pred._const is not None:
        return true_fn() if _static_bool(pred, "ef.cond") else false_fn()
    _check_pred(pred, "ef.cond")
    tracer: Any = context.thread.tracer
    pred_ref = tracer.ref(pred)
    graph.raise_deferred([pred_ref])  # before a branch runs for real on a wrong predicate
    taken = bool(np.asarray(pred_ref._shadow).reshape(()))
    real = tracer.executing and not tracer.recompute
    recompute = recompute or tracer.recompute
    g_true, _, r_true = _trace_subgraph(true_fn, [], f"{name}_true", real and taken, recompute,
                                        overrides=overrides)
    g_false, _, r_false = _trace_subgraph(false_fn, [], f"{name}_false", real and not taken,
                                          recompute, overrides=overrides)
    _check_same_structure(r_true, r_false, g_true.outputs, g_false.outputs)
    graph.raise_deferred(g_true.outputs + g_false.outputs)  # the taken branch's result failed
    union = _union(g_true, g_false)
    specs = []
    for a, b in zip(g_true.outputs, g_false.outputs, strict=False):
        shape = shape_probe.merge(a.shape, b.shape)  # as two probes: sizes that differ
        first, second = (a, b) if taken else (b, a)
        probe = first._probe if None in first.shape else (
            second._shadow if first.shape != second.shape else None)
        specs.append((shape, a.dtype, first._shadow, probe))
    attrs = {
        "then_branch": Branch(g_true, [], union), "else_branch": Branch(g_false, [], union),
        "_true_fn": true_fn, "_false_fn": false_fn, "_union": union,
    }
    refs = [pred_ref] + [tracer.ref(u) for u in union]
    node = tracer.add_node(graph.COND, refs, attrs, specs)
    outputs = tuple(node.outputs)
    tapes = context.thread.tapes
    if tapes and any(o.dtype.kind in "fc" for o in outputs):
        op = graph.COND.instance(len(outputs), _cond_rule(true_fn, false_fn, union,
                                                           len(outputs), name))
        op.jvp(_cond_jvp(true_fn, false_fn, union, outputs, name))
        context.record_op(tapes, op, (pred, *union), {}, outputs)
    return nest.pack_sequence_as(r_true, list(outputs))


def _static_bool(pred, where) -> bool:
    value = pred._const if _is_symbolic(pred) else pred
    try:
        array = np.asarray(value._value if isinstance(value, tensor.Tensor) else value)
    except Exception:  # noqa: BLE001 - e.g. a Variable: read it
        array = np.asarray(dispatch.convert_input(value)._value)
    if array.size != 1:
        raise errors.InvalidArgumentError(
            f"{where}: the predicate must be a scalar, got shape {array.shape}"
        )
    return bool(array.reshape(()))


def _check_pred(pred, where):
    if pred.dtype != np.bool_ or any(d != 1 for d in pred.shape):
        raise errors.InvalidArgumentError(
            f"{where}: the predicate must be a scalar bool tensor, got "
            f"{graph.format_spec(pred.shape, pred.dtype)}"
        )


def _check_same_structure(a, b, outs_a, outs_b, what=("true_fn", "false_fn")):
    try:
        nest.map_structure(lambda x, y: None, a, b)
        same = len(nest.flatten(a)) == len(nest.flatten(b)) and _skeleton(a) == _skeleton(b)
    except ValueError:
        same = False
    if not same:
        raise TypeError(
            f"ef.cond: {what[0]} and {what[1]} must return the same structure; got {a!r} and {b!r}"
        )
    for i, (x, y) in enumerate(zip(outs_a, outs_b, strict=False)):
        if x.dtype != y.dtype or x.ndim != y.ndim:
            raise TypeError(
                f"ef.cond: output {i} is {graph.format_spec(x.shape, x.dtype)} in {what[0]} but "
                f"{graph.format_spec(y.shape, y.dtype)} in {what[1]}; the dtypes and ranks "
                "must agree"
            )


def _skeleton(value):
    if isinstance(value, dict):
        return ("dict", tuple((k, _skeleton(value[k])) for k in nest.sorted_keys(value)))
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, tuple(_skeleton(v) for v in value))
    return "leaf"


def _jvp_of(fn, primals, tangents, like):
    """`fn` run under an accumulator: its flat outputs, and the tangents of those whose
    counterpart in `like` is floating-point."""
    with forwardprop.ForwardAccumulator(list(primals), list(tangents)) as accumulator:
        flat = [dispatch.convert_input(o) for o in nest.flatten(fn())]
    return flat, [accumulator.jvp(o, unconnected_gradients="zero")
                  for o, ref in zip(flat, like, strict=True) if ref.dtype.kind in "fc"]


def _cond_jvp(true_fn, false_fn, union, outputs, name):
    """JVP of a traced cond: a cond of the branches' JVPs (each branch run under an
    accumulator of the captured tensors' tangents), as TensorFlow does."""
    reads = _hoisted_reads(union)

    def rule(tangents, y, pred, *captured):
        pairs = [(c, t) for c, t in zip(captured, tangents[1:], strict=True) if t is not None]
        primals, tangent_list = [c for c, _ in pairs], [t for _, t in pairs]
        jvps = iter(list(_cond(
            pred, lambda: _jvp_of(true_fn, primals, tangent_list, outputs)[1],
            lambda: _jvp_of(false_fn, primals, tangent_list, outputs)[1], f"{name}_jvp",
            recompute=True, overrides=reads)))
        found = tuple(next(jvps) if o.dtype.kind in "fc" else None for o in outputs)
        return found if len(outputs) > 1 else found[0]

    return rule


def _cond_rule(true_fn, false_fn, union, num_outputs, name):
    reads = _hoisted_reads(union)

    def rule(dy, y, pred, *captured):
        dys = list(dy) if num_outputs > 1 else [dy]
        outs = list(y) if num_outputs > 1 else [y]
        wrt = [c for c in captured if c.dtype.kind in "fc"]
        if not wrt:
            return (None,) * (1 + len(captured))

        def gradient_of(fn):
            def branch():
                with tape_lib.GradientTape(watch_accessed_variables=False) as t:
                    t.watch(wrt)
                    flat = nest.flatten(fn())
                targets = [dispatch.convert_input(o) for o, ref in zip(flat, outs, strict=False)
                           if ref.dtype.kind in "fc"]
                seeds = [d for d, ref in zip(dys, outs, strict=False) if ref.dtype.kind in "fc"]
                return t.gradient(targets, wrt, output_gradients=seeds,
                                  unconnected_gradients="zero")
            return branch

        grads = _cond(pred, gradient_of(true_fn), gradient_of(false_fn), f"{name}_grad",
                      recompute=True, overrides=reads)
        grads = iter(grads)
        return (None, *[next(grads) if c.dtype.kind in "fc" else None for c in captured])

    return rule


def run_cond(attrs, values) -> tuple:
    """Executor kernel of ``If``: runs the branch the predicate selects."""
    branch = attrs["then_branch"] if bool(np.asarray(values[0]).reshape(())) else \
        attrs["else_branch"]
    return branch.plan()(*values[1:])


# -- while_loop ---------------------------------------------------------------------------
def while_loop(cond: Any, body: Any, loop_vars: Any, maximum_iterations: Any = None,
               name: str | None = None) -> Any:
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

    Examples:
        >>> import eagerflow as ef
        >>> i, total = ef.while_loop(lambda i, t: i < 5, lambda i, t: (i + 1, t + i), [0, 0])
        >>> int(i), int(total)
        (5, 10)
    """
    return _while_loop(_converted(cond), _converted(body), loop_vars, maximum_iterations,
                       name or "while")


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
    tracer = trace.current()
    if tracer is None:
        return _eager_while(cond, body, loop_vars, flat, limit)
    refs = [tracer.ref(v) for v in flat]
    graph.raise_deferred(refs)
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
        with context.init_scope():
            values = run_while(attrs, [r._shadow for r in inputs], accumulate=True)
    out_specs = _while_output_specs(specs, values)
    node = tracer.add_node(graph.WHILE, inputs, attrs, out_specs)
    outputs = tuple(node.outputs)
    tapes = context.thread.tapes
    if tapes and any(o.dtype.kind in "fc" for o in outputs[:n]):
        if recompute:  # this loop is itself a gradient: differentiating it is second order
            op = graph.WHILE.instance(len(outputs), _second_order_rule(name))
        else:
            op = graph.WHILE.instance(len(outputs), _while_rule(attrs["_body_fn"], n, union,
                                                                name, attrs["varying"]))
            op.jvp(_while_jvp(lambda *v: cond(*pack(v)), attrs["_body_fn"], n, limit, name))
        context.record_op(tapes, op, (*flat, *union), {}, outputs)
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
        new = shape_probe.merge(shape, out.shape)
        if new != shape:
            probe = shape_probe.dummy(new, dtype, size=shape_probe.TRACE_SIZES[1])
            shadow = shape_probe.dummy(new, dtype)
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


def _while_jvp(cond_fn, body_fn, n, limit, name):
    """JVP of a traced loop: the loop run again carrying the float loop variables'
    tangents beside them, its body under an accumulator (TensorFlow does the same). The
    per-iteration stacks get no tangent: only the loop's gradient reads them, and
    differentiating that gradient inside a trace is refused (`_second_order_rule`)."""

    def rule(tangents, y, *inputs):
        initial, captured = list(inputs[:n]), inputs[n:]
        floats = [i for i in range(n) if initial[i].dtype.kind in "fc"]
        pairs = [(c, t) for c, t in zip(captured, tangents[n:], strict=True) if t is not None]
        start = [tangents[i] if tangents[i] is not None else _zeros_like(initial[i])
                 for i in floats]

        def body(*carried):
            loop, carried_tangents = carried[:n], carried[n:]
            new, jvps = _jvp_of(lambda: body_fn(*loop),
                                [loop[i] for i in floats] + [c for c, _ in pairs],
                                list(carried_tangents) + [t for _, t in pairs], loop)
            return (*new, *jvps)

        result = _while_loop(lambda *carried: cond_fn(*carried[:n]), body,
                             (*initial, *start), limit, f"{name}_jvp")
        found = dict(zip(floats, result[n:], strict=True))
        return tuple(found.get(i) for i in range(len(y)))

    return rule


def _zeros_like(x):
    return dispatch.execute(dispatch.OPS["ZerosLike"], (x,), {"dtype": None})


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
    stacks: list[Any] = [None] * n
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
        from eagerflow.ops import creation, indexing

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
        seeds = [dy[i] if dy[i] is not None else creation.zeros_like(y[i]) for i in floats]
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

        start_vars = (count - 1, *seeds, *[creation.zeros_like(c) for c in wrt_caps])
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


def case(pred_fn_pairs: Any, default: Callable[[], Any] | None = None, exclusive: bool = False,
         strict: bool = False, name: str | None = None) -> Any:
    """Runs the function of the first true predicate (TensorFlow's ``tf.case``).

    Built from nested `cond`s, so it works eagerly and inside graphs, with gradients.

    Args:
        pred_fn_pairs: a list of ``(pred, fn)`` pairs: scalar bool tensors (or Python
            bools) and functions of no argument returning the same structure.
        default: the function to run when no predicate is true. Without it, the last
            pair's function runs then, and it is an error when its predicate is false.
        exclusive: also check that at most one predicate is true.
        strict: accepted for TensorFlow compatibility (structures are always strict).
        name: unused.

    Returns:
        What the chosen function returns.

    Raises:
        TypeError: if `pred_fn_pairs` is not a list of pairs with callable functions.
        InvalidArgumentError: when it runs, if `exclusive` and several predicates are
            true, or if there is no `default` and no predicate is true (as TensorFlow).

    Examples:
        >>> import eagerflow as ef
        >>> x = ef.constant(3)
        >>> ef.case([(x < 0, lambda: -x), (x > 2, lambda: x * 10)], default=lambda: x)
        ef.Tensor(30, shape=(), dtype=int32)
    """
    del strict, name
    if isinstance(pred_fn_pairs, dict):
        pred_fn_pairs = list(pred_fn_pairs.items())
    if not isinstance(pred_fn_pairs, (list, tuple)) or not pred_fn_pairs or not all(
            isinstance(p, (list, tuple)) and len(p) == 2 for p in pred_fn_pairs):
        raise TypeError(f"case: pred_fn_pairs must be a non-empty list of (pred, fn) pairs. "
                        f"Received: pred_fn_pairs={pred_fn_pairs!r}")
    for index, (_, fn) in enumerate(pred_fn_pairs):
        if not callable(fn):
            raise TypeError(f"case: the function of pair {index} must be callable. "
                            f"Received: {fn!r}")
    if default is not None and not callable(default):
        raise TypeError(f"case: default must be callable. Received: default={default!r}")
    preds = [p for p, _ in pred_fn_pairs]
    if exclusive or default is None:
        _check_case(preds, exclusive, default is None)
    fallback = default if default is not None else pred_fn_pairs[-1][1]
    pairs = pred_fn_pairs if default is not None else pred_fn_pairs[:-1]

    def chain(index: int) -> Any:
        if index == len(pairs):
            return fallback()
        pred, fn = pairs[index]
        return cond(pred, fn, lambda: chain(index + 1))

    return chain(0)


def _check_case(preds: list, exclusive: bool, need_one: bool) -> None:
    """Checks, when the predicates are known (now, or each time the graph runs), that at
    most one is true (`exclusive`) and that one is (`need_one`)."""
    from eagerflow.graph import python_ops
    from eagerflow.ops import array_ops as array

    def check(values: Any) -> None:
        count = int(np.count_nonzero(np.asarray(values)))
        if exclusive and count > 1:
            raise errors.InvalidArgumentError(
                f"case: exclusive=True but {count} predicates are true "
                f"({np.asarray(values).tolist()}); at most one may be.", "Case")
        if need_one and count == 0:
            raise errors.InvalidArgumentError(
                "case: no predicate is true and there is no default; give default=.",
                "Case")

    python_ops.check(check, [array.stack([dispatch.convert_input(p) for p in preds])])
