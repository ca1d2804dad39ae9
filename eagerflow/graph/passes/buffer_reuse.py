"""Buffer reuse: an elementwise op writes its result into a buffer the graph allocated
earlier and no longer needs (NumPy ``out=``): the buffer of one of its inputs that is dead
afterwards, or else any dead buffer of the same shape and dtype ("recycling"). Chains of
elementwise ops, such as the per-variable update chains of an optimizer step, then
allocate a few buffers once instead of one per op.

The buffers that remain allocations form the plan's **memory plan** (`Program.arena`):
a node that can write its result into a given buffer (`writes_into`: a ufunc, an
elementwise forward, or a forward with an ``out`` parameter such as ``BatchMatMulV2``)
gets one that the compiled plan allocates once and keeps for its next calls, unless the
buffer could outlive the call. A buffer outlives the call when a tensor sharing it is
returned (the caller keeps outputs, so they always own fresh memory), is handed to Python
code or control flow (``py_function``, ``print``, a branch or loop), or is a key of a
result saved for a gradient (`ops/kernels/saved.py` follows array identities). A step
then allocates the same memory every time without asking malloc, so its speed no longer
depends on glibc's thresholds (see `executor`)."""

from __future__ import annotations

import inspect
from typing import Any

from eagerflow.graph import graph
from eagerflow.graph.passes import program as program_lib
from eagerflow.ops import training_ops
from eagerflow.ops.kernels import saved

_is_symbolic = graph.is_symbolic
_takes_out: dict = {}  # forward -> whether it has an ``out`` parameter
_ESCAPES = (graph.PY_FUNCTION, graph.PRINT, graph.COND, graph.WHILE)
_MAY_WRITE = (graph.PY_FUNCTION, graph.COND, graph.WHILE)  # run code that may write variables


def writes_into(node) -> bool:
    """Whether the executor can have `node` write its one output into a given buffer: a
    ufunc called directly, an `elementwise` forward, or a forward declaring ``out=``."""
    op = node.op
    if op.num_outputs != 1 or len(node.outputs) != 1 or node.attr_inputs:
        return False
    if op.ufunc is not None and not node.attrs or op.elementwise:
        return True
    forward = op.forward
    if forward is None or not op.fresh:
        return False
    known = _takes_out.get(forward)
    if known is None:
        try:
            known = "out" in inspect.signature(forward).parameters
        except (TypeError, ValueError):  # a builtin or compiled forward without a signature
            known = False
        _takes_out[forward] = known
    return known


def plan_buffer_reuse(program: program_lib.Program) -> program_lib.Program:
    """Marks `elementwise` nodes that may write into a dead input buffer (NumPy ``out=``).

    A buffer may be overwritten when the graph allocated it itself (a `fresh` op's result,
    not an input, a constant or a variable), when no tensor sharing it (views made by
    reshapes, slices, ...) is used later or returned, and when the result has its dtype and
    shape.

    Examples:
        >>> import eagerflow as ef
        >>> from eagerflow.graph.passes import buffer_reuse, program
        >>> cf = ef.function(lambda x: ef.exp(x) * 2.0 + 1.0).get_concrete_function(
        ...     ef.TensorSpec([3]))
        >>> p = buffer_reuse.plan_buffer_reuse(program.Program(cf.graph.nodes, cf.graph.outputs))
        >>> [(n.type, p.inplace.get(id(n))) for n in p.nodes]
        [('Placeholder', None), ('Exp', None), ('Mul', 0), ('AddV2', 0)]
        >>> p.arena  # Exp's buffer is returned (Mul and AddV2 write into it): not kept
        set()
    """
    last_use: dict = {}
    for index, node in enumerate(program.nodes):
        for t in node.tensor_inputs():
            last_use[id(t)] = index
    end = len(program.nodes)
    for t in program.outputs:
        if _is_symbolic(t):
            last_use[id(t)] = end
    group: dict = {}  # id(tensor) -> its buffer group (a list of tensors sharing memory)
    fresh: dict = {}  # id(tensor) -> whether the graph allocated its buffer itself
    inplace: dict = {}
    recycle: dict = {}
    live: list = []  # fresh buffer groups not yet found dead
    roots: list = []  # nodes allocating a buffer the executor could give them (`writes_into`)
    dead: dict = {}  # (shape, dtype) -> dead fresh buffer groups, ready for recycling
    for index, node in enumerate(program.nodes):
        inputs = node.tensor_inputs()
        target = _reusable_input(node, index, group, fresh, last_use)
        if target is not None:
            inplace[id(node)] = target
            members = group[id(node.inputs[target])]
            members.append(node.outputs[0])
            group[id(node.outputs[0])] = members
            fresh[id(node.outputs[0])] = True
            continue
        _collect_dead(live, dead, index, last_use)
        members = _recyclable(node, dead)
        if members is not None:
            recycle[id(node)] = members[-1]
            members.append(node.outputs[0])
            group[id(node.outputs[0])] = members
            fresh[id(node.outputs[0])] = True
            live.append(members)
            continue
        if node.op.fresh:
            if writes_into(node) and _plannable(node):
                roots.append(node)
            for out in node.outputs:
                group[id(out)] = [out]
                fresh[id(out)] = True
                live.append(group[id(out)])
            continue
        # Anything else may return views of its inputs: its outputs share their buffers,
        # so the groups of its inputs merge into one with them. Its parts leave the live
        # groups: one left there alone would be found dead and recycled while a view of it
        # is still read. The merged group is never recycled (a view may be read-only, e.g.
        # a broadcast), though ops may still write into it in place while it is fresh.
        members = []
        parts: list[Any] = []
        for t in inputs:
            part = group.get(id(t))
            if part is not None and all(part is not p for p in parts):
                parts.append(part)
            for m in part if part is not None else [t]:
                if all(m is not x for x in members):
                    members.append(m)
        members.extend(node.outputs)
        for m in members:
            group[id(m)] = members
        for out in node.outputs:
            fresh[id(out)] = False
        if parts and node.outputs:  # (an op without outputs, e.g. an assign, makes no view)
            live[:] = [g for g in live if all(g is not part for part in parts)]
    escaping = _escaping(program, group)
    arena = {id(n) for n in roots if id(group[id(n.outputs[0])]) not in escaping}
    return program_lib.Program(program.nodes, program.outputs, inplace, recycle, arena)


def _plannable(node) -> bool:
    """Whether `node`'s output has a fully known shape and the dtype of its tensor inputs
    (a ufunc would need ``casting=`` to write another dtype into ``out``) or bool inputs
    beside them (`_same_loop`), or is a bool (comparisons and logical ops make bools from
    any inputs, with no cast)."""
    out = node.outputs[0]
    if not out.shape or None in out.shape or out.dtype.kind not in "fiucb":
        return False
    return out.dtype.kind == "b" or _same_loop(node, out.dtype)


def _same_loop(node, dtype) -> bool:
    """Whether every tensor input of `node` has `dtype` or is a bool: a bool operand (a
    mask, as in the ReLU gradient ``dy * (y > 0)``) takes NumPy's loop of the other
    operand's dtype, so the result written into ``out`` is the one NumPy allocates
    (measured: a (32, 64, 128) float32 ReLU gradient took 347 us a step in a fresh
    buffer, page faults included, against 60 us in a kept one)."""
    return all(x.dtype == dtype or x.dtype.kind == "b" for x in node.inputs
               if _is_symbolic(x))


def _escaping(program, group: dict) -> set:
    """The ``id`` of every buffer group that may outlive a call of the plan (see the module
    docstring): returned, handed to Python code or control flow, or keyed by saved results."""
    touched = [t for t in program.outputs if _is_symbolic(t)]
    savers = saved.producers_to_save(program.nodes)
    for node in program.nodes:
        if node.op in _ESCAPES or id(node) in savers:
            touched.extend(node.tensor_inputs())
            touched.extend(node.outputs)
    return {id(group[id(t)]) for t in touched if id(t) in group}


def _collect_dead(live: list, dead: dict, index: int, last_use: dict) -> None:
    """Moves the groups of `live` no node from `index` on reads into `dead`."""
    still = []
    for members in live:
        if all(last_use.get(id(m), -1) < index for m in members):
            last = members[-1]
            if last.shape and None not in last.shape:
                dead.setdefault((last.shape, last.dtype), []).append(members)
        else:
            still.append(members)
    live[:] = still


def _recyclable(node, dead: dict):
    """A dead buffer group `node` can write its result into, taken out of `dead`, or None."""
    if not node.op.elementwise or len(node.outputs) != 1 or node.attr_inputs:
        return None
    out = node.outputs[0]
    if not out.shape or None in out.shape or out.dtype.kind not in "fiuc":
        return None
    if not _same_loop(node, out.dtype):
        return None  # a casting ufunc would need casting="same_kind" to accept `out`
    pool = dead.get((out.shape, out.dtype))
    return pool.pop() if pool else None


def _reusable_input(node, index, group, fresh, last_use):
    if not node.op.elementwise or len(node.outputs) != 1 or node.attr_inputs:
        return None
    out = node.outputs[0]
    if not out.shape or out.dtype.kind not in "fiuc":
        return None
    for k, x in enumerate(node.inputs):
        if not _is_symbolic(x) or not fresh.get(id(x)) or x.dtype != out.dtype:
            continue
        if x.shape != out.shape or not _cannot_grow(x, node.inputs):
            continue
        if all(last_use.get(id(m), -1) <= index for m in group[id(x)]):
            return k
    return None


def _cannot_grow(x, inputs) -> bool:
    """Whether broadcasting the other inputs against `x` cannot enlarge it at run time."""
    for other in inputs:
        if other is x or not _is_symbolic(other):
            continue
        if other.ndim > x.ndim:
            return False
        for a, b in zip(reversed(other.shape), reversed(x.shape), strict=False):
            if b is None and a != 1:
                return False
    return True


def in_place_updates(program: program_lib.Program) -> dict:
    """The fused optimizer updates (`ops/training_ops.py`) that may write their variables'
    buffers in place: ``id(node)`` -> (the variables, in the order of the node's outputs,
    and the ``id`` of the ``assign`` nodes the in-place write replaces).

    An update qualifies when each of its outputs is only assigned (mode ``assign``) to the
    variable whose read is the matching input, each variable once, and from that read to
    the last of those assigns no other node writes one of the variables, reads one after
    the update, or runs code that might (Python calls, branches, loops). The executor then
    calls it through `buffers.update` where the update was: values read earlier keep
    theirs (the write copies a buffer something still holds first), later reads see the
    new values, as with the assigns.

    Examples:
        >>> import eagerflow as ef
        >>> from eagerflow.graph.passes import buffer_reuse, program
        >>> from eagerflow.ops import training_ops
        >>> w = ef.Variable([1.0, 2.0])
        >>> def step(g):
        ...     new, = training_ops.sgd_update([w], [], [g], ef.constant(0.5))
        ...     w.assign(new)
        >>> cf = ef.function(step).get_concrete_function(ef.TensorSpec([2]))
        >>> p = program.Program(cf.graph.nodes, cf.graph.outputs)
        >>> [(variables[0] is w, len(assigns)) for variables, assigns in
        ...  buffer_reuse.in_place_updates(p).values()]
        [(True, 1)]
    """
    nodes = program.nodes
    position = {id(n): i for i, n in enumerate(nodes)}
    users: dict = {}
    for node in nodes:
        for t in node.tensor_inputs():
            users.setdefault(id(t), []).append(node)
    returned = {id(t) for t in program.outputs if _is_symbolic(t)}
    found: dict = {}
    for index, node in enumerate(nodes):
        if not training_ops.is_update(node.op):
            continue
        matched = _assigned_states(node, users, returned)
        if matched is None:
            continue
        variables, reads, assigns = matched
        first = min(position[id(r)] for r in reads)
        last = max(position[id(a)] for a in assigns)
        if _undisturbed(nodes[first:last + 1], index - first, variables, assigns):
            found[id(node)] = (variables, {id(a) for a in assigns})
    return found


def _assigned_states(node, users, returned):
    """(variables, their reads, the assigns) when output j of `node` is only assigned to
    the variable read as input j, for every output; else None."""
    variables, reads, assigns = [], [], []
    for j, out in enumerate(node.outputs):
        consumers = users.get(id(out), [])
        read = node.inputs[j] if j < len(node.inputs) else None
        if read is None or id(out) in returned or len(consumers) != 1 \
                or not _is_symbolic(read):
            return None
        assign, source = consumers[0], read.op
        if assign.op is not graph.ASSIGN["assign"] or source.op is not graph.READ \
                or source.attrs["variable"] is not assign.attrs["variable"]:
            return None
        variables.append(assign.attrs["variable"])
        reads.append(source)
        assigns.append(assign)
    if not variables or len({id(v) for v in variables}) != len(variables):
        return None
    return variables, reads, assigns


def _undisturbed(span, update_at, variables, assigns) -> bool:
    """Whether no node of `span` (from the first read to the last assign; the update is
    ``span[update_at]``) writes the variables but `assigns`, reads them after the update,
    or runs code that may do either."""
    ids = {id(v) for v in variables}
    own = {id(a) for a in assigns}
    for offset, node in enumerate(span):
        if node.op in _MAY_WRITE:
            return False
        if node.op in graph.ASSIGN_MODES and id(node) not in own \
                and id(node.attrs["variable"]) in ids:
            return False
        if node.op is graph.READ and offset > update_at and id(node.attrs["variable"]) in ids:
            return False
    return True
