"""Buffer reuse: an elementwise op writes its result into a buffer the graph allocated
earlier and no longer needs (NumPy ``out=``): the buffer of one of its inputs that is dead
afterwards, or else any dead buffer of the same shape and dtype ("recycling"). Chains of
elementwise ops, such as the per-variable update chains of an optimizer step, then
allocate a few buffers once instead of one per op."""

from __future__ import annotations

from typing import Any

from eagerflow.graph import graph
from eagerflow.graph.passes import program as program_lib

_is_symbolic = graph.is_symbolic


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
    return program_lib.Program(program.nodes, program.outputs, inplace, recycle)


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
    if any(_is_symbolic(x) and x.dtype != out.dtype for x in node.inputs):
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
