"""`ef.cond`: control flow that works eagerly and inside graphs (see also `while_loop.py`).

Eagerly they are plain Python ``if`` and ``while`` (the tape records whatever runs).
While `ef.function` traces, a tensor predicate makes them graph nodes: both branches
(or the loop condition and body) are traced into subgraphs once, and the executor runs
the right one when the graph runs. Tensors and variable reads a branch uses from outside
become inputs of the node.

Gradients inside graphs re-run the branch or loop body for the backward pass (Python
side effects in them happen again at that trace; random ops in them are refused):

* ``If``: the gradient is an ``If`` on the same predicate over the two branch gradients.
* ``While``: the forward loop also outputs the loop variables of every iteration
  (computed only when a gradient uses them); the gradient is a ``While`` running the
  iterations backwards, recomputing each body step from its saved inputs.

Example:
    >>> import eagerflow as ef
    >>> @ef.function
    ... def absolute(x):
    ...     return ef.cond(x >= 0.0, lambda: x, lambda: -x)
    >>> float(absolute(ef.constant(-3.0))), float(absolute(ef.constant(2.0)))
    (3.0, 2.0)
    >>> [op.type for op in absolute.get_concrete_function(ef.constant(1.0)).graph.operations]
    ['Placeholder', 'GreaterEqual', 'If']
"""

from __future__ import annotations

import numpy as np

from eagerflow.core import context, dispatch, errors, nest, tensor
from eagerflow.core import tape as tape_lib
from eagerflow.graph import executor, graph, passes, trace

__all__ = ["Branch", "cond", "run_cond"]

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
            program = passes.optimize(self.graph.nodes, self.graph.outputs)
            self._plan = executor.compile_program(program, self.inputs, self.graph.name)
        return self._plan


def _trace_subgraph(fn, specs, name, executing, recompute=False, no_hoist=(), overrides=None):
    """Traces `fn(*placeholders)` into a new graph under the current tracer."""
    parent = context.thread.tracer
    sub = graph.Graph(name)
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
def cond(pred, true_fn=None, false_fn=None, name=None):
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

    Example:
        >>> import eagerflow as ef
        >>> x = ef.constant(3.0)
        >>> ef.cond(x > 0.0, lambda: x * 2.0, lambda: -x)
        ef.Tensor(6.0, shape=(), dtype=float32)
    """
    return _cond(pred, true_fn, false_fn, name or "cond")


def _cond(pred, true_fn, false_fn, name, recompute=False, overrides=None):
    for label, fn in (("true_fn", true_fn), ("false_fn", false_fn)):
        if not callable(fn):
            raise TypeError(f"ef.cond: {label} must be callable, got {type(fn).__name__}: {fn!r}")
    if not _is_symbolic(pred) or pred._const is not None:
        return true_fn() if _static_bool(pred, "ef.cond") else false_fn()
    _check_pred(pred, "ef.cond")
    tracer = context.thread.tracer
    pred_ref = tracer.ref(pred)
    taken = bool(np.asarray(pred_ref._shadow).reshape(()))
    real = tracer.executing and not tracer.recompute
    recompute = recompute or tracer.recompute
    g_true, _, r_true = _trace_subgraph(true_fn, [], f"{name}_true", real and taken, recompute,
                                        overrides=overrides)
    g_false, _, r_false = _trace_subgraph(false_fn, [], f"{name}_false", real and not taken,
                                          recompute, overrides=overrides)
    _check_same_structure(r_true, r_false, g_true.outputs, g_false.outputs)
    union = _union(g_true, g_false)
    specs = []
    for a, b in zip(g_true.outputs, g_false.outputs, strict=False):
        shape = tuple(x if x == y else None for x, y in zip(a.shape, b.shape, strict=False))
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
        op = dispatch.Op("If", None, num_outputs=len(outputs))
        op.gradient(_cond_rule(true_fn, false_fn, union, len(outputs), name))
        tape_lib.record(tapes, op, (pred, *union), {}, outputs)
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
        return ("dict", tuple((k, _skeleton(value[k])) for k in nest._keys(value)))
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, tuple(_skeleton(v) for v in value))
    return "leaf"


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
