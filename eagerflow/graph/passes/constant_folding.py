"""Constant folding: an op whose inputs are all constants becomes a constant."""

from __future__ import annotations

import numpy as np

from eagerflow.graph import graph
from eagerflow.graph.passes import program as program_lib

_is_symbolic = graph.is_symbolic
_FOLD_LIMIT = 1 << 22  # elements: larger results stay computed at run time


def fold_constants(program: program_lib.Program) -> program_lib.Program:
    """Replaces every pure op whose inputs are all constants by a constant node (and
    `shape_only` ops, such as ``ZerosLike``, whose input has a fully known shape).

    Examples:
        >>> import eagerflow as ef
        >>> from eagerflow.graph.passes import constant_folding, program
        >>> def traced(fn, *specs):
        ...     cf = ef.function(fn).get_concrete_function(*specs)
        ...     return program.Program(cf.graph.nodes, cf.graph.outputs)
        >>> def types(p):
        ...     return [node.type for node in p.nodes]
        >>> p = traced(lambda x: x + ef.exp(ef.constant(0.0)), ef.TensorSpec([2]))
        >>> types(p), types(constant_folding.fold_constants(p))
        (['Placeholder', 'Const', 'Exp', 'AddV2'], ['Placeholder', 'Const', 'Const', 'AddV2'])
    """
    replace: dict = {}
    nodes = []
    for node in program.nodes:
        node = program_lib.rebuild(node, replace)
        inputs = node.tensor_inputs()
        if node.op.shape_only and len(inputs) == 1 and None not in inputs[0].shape:
            value = node.op.forward(np.empty(inputs[0].shape, inputs[0].dtype), **node.attrs)
            folded = program_lib.const_node(np.asarray(value), node)
            nodes.append(folded)
            replace[id(node.outputs[0])] = folded.outputs[0]
            continue
        if (program_lib.is_pure(node) and node.outputs
                and all(t._const is not None for t in inputs)
                and sum(int(np.prod(o.shape)) if None not in o.shape else _FOLD_LIMIT
                        for o in node.outputs) < _FOLD_LIMIT):
            values = _evaluate(node)
            if values is not None:
                for out, value in zip(node.outputs, values, strict=False):
                    folded = program_lib.const_node(value, node)
                    nodes.append(folded)
                    replace[id(out)] = folded.outputs[0]
                continue
        nodes.append(node)
    return program_lib.Program(nodes, program_lib.replaced_outputs(program, replace),
                               program.inplace)


def _evaluate(node):
    values = [x._const if _is_symbolic(x) else x for x in node.inputs]
    attrs = graph.map_attr_tensors(node.attrs, lambda t: t._const)
    try:
        with np.errstate(all="ignore"):
            out = node.op.forward(*values, **attrs)
    except Exception:  # noqa: BLE001 - left to fail (with its error) when the graph runs
        return None
    outs = [out] if node.op.num_outputs == 1 else list(out)
    return [np.asarray(o) for o in outs]
