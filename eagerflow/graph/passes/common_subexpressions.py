"""Common-subexpression elimination: each distinct pure operation is computed once, and a
variable is read once between two writes."""

from __future__ import annotations

from typing import Any

import numpy as np

from eagerflow.graph import graph
from eagerflow.graph.passes import program as program_lib

_is_symbolic = graph.is_symbolic


def _freeze(value):
    """A hashable key for an attribute value (identity for anything unusual)."""
    if _is_symbolic(value):
        return ("t", id(value))
    if value is None or isinstance(value, (bool, int, float, str, complex, bytes)):
        return (type(value).__name__, value)
    if isinstance(value, np.dtype):
        return ("dtype", value.str)
    if isinstance(value, np.generic):
        return ("np", value.dtype.str, value.item())
    if isinstance(value, (tuple, list)):
        return (type(value).__name__, tuple(_freeze(v) for v in value))
    if isinstance(value, dict):
        return ("dict", tuple((k, _freeze(v)) for k, v in sorted(value.items())))
    if isinstance(value, slice):
        return ("slice", _freeze(value.start), _freeze(value.stop), _freeze(value.step))
    if isinstance(value, np.ndarray) and value.size <= 4096:
        return ("nd", value.dtype.str, value.shape, value.tobytes())
    if value is Ellipsis:
        return ("...",)
    return ("id", id(value))


def eliminate_common_subexpressions(program: program_lib.Program) -> program_lib.Program:
    """Computes each distinct pure operation once.

    Examples:
        >>> import eagerflow as ef
        >>> from eagerflow.graph.passes import common_subexpressions, program
        >>> cf = ef.function(lambda x: ef.exp(x) + ef.exp(x)).get_concrete_function(
        ...     ef.TensorSpec([2]))
        >>> p = program.Program(cf.graph.nodes, cf.graph.outputs)
        >>> [node.type for node in common_subexpressions.eliminate_common_subexpressions(p).nodes]
        ['Placeholder', 'Exp', 'AddV2']
    """
    replace: dict = {}
    seen: dict = {}
    epochs: dict = {}  # id(variable) -> number of writes so far
    nodes = []
    for node in program.nodes:
        node = program_lib.rebuild(node, replace)
        key: tuple[Any, ...] | None = None
        if node.op is graph.READ:
            var = node.attrs["variable"]
            key = ("read", id(var), epochs.get(id(var), 0), epochs.get("any", 0))
        elif node.op in graph.ASSIGN_MODES:
            var = node.attrs["variable"]
            epochs[id(var)] = epochs.get(id(var), 0) + 1
        elif program_lib.has_effects(node):  # a loop, branch or Python call may write any variable
            epochs["any"] = epochs.get("any", 0) + 1
        elif node.op is graph.CONST:
            key = ("const", _freeze(node.attrs["value"]))
            if key[1][0] == "id":
                key = None
        elif program_lib.is_pure(node):
            key = (node.op.name, tuple(_freeze(x) for x in node.inputs), _freeze(node.attrs))
        if key is not None:
            first = seen.get(key)
            if first is not None:
                for old, new in zip(node.outputs, first.outputs, strict=False):
                    replace[id(old)] = new
                continue
            seen[key] = node
        nodes.append(node)
    return program_lib.Program(nodes, program_lib.replaced_outputs(program, replace),
                               program.inplace)
