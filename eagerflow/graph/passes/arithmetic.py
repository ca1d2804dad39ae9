"""Arithmetic simplification: operations that return an input unchanged disappear, and
pairs of reshapes or transposes merge into one."""

from __future__ import annotations

import numpy as np

from eagerflow.graph import graph
from eagerflow.graph.passes import program as program_lib

_is_symbolic = graph.is_symbolic


def _is_constant(value, number) -> bool:
    if _is_symbolic(value):
        return value._const is not None and value._const.size > 0 and bool(
            np.all(value._const == number))
    return type(value) in (int, float) and value == number


def _neutral(other, x, out, number) -> bool:
    """Whether ``op(x, other)`` equals `x` because `other` is the neutral `number`."""
    if not _is_symbolic(x) or not _is_constant(other, number):
        return False
    if out.dtype != x.dtype or out.shape != x.shape:
        return False
    if _is_symbolic(other):  # a constant must not broadcast x to a larger shape
        if other.ndim > x.ndim:
            return False
        for a, b in zip(reversed(other.shape), reversed(x.shape), strict=False):
            if a != 1 and a != b:
                return False
    return True


def simplify_arithmetic(program: program_lib.Program) -> program_lib.Program:
    """Removes operations that return one of their inputs unchanged; merges op pairs.

    What returns an input unchanged is declared with each op (`Op.elidable`,
    `Op.neutral`, `Op.involution`): ``Identity(x)``, ``Cast`` to x's dtype, ``Reshape`` to
    x's (known) shape, ``x * 1``, ``0 + x``, ``x ** 1``, ``-(-x)``, ...

    Examples:
        >>> import eagerflow as ef
        >>> from eagerflow.graph.passes import arithmetic, program
        >>> def traced(fn, *specs):
        ...     cf = ef.function(fn).get_concrete_function(*specs)
        ...     return program.Program(cf.graph.nodes, cf.graph.outputs)
        >>> p = traced(lambda x: ef.transpose(ef.transpose(x * 1.0)), ef.TensorSpec([2, 3]))
        >>> arithmetic.simplify_arithmetic(p).outputs[0] is p.nodes[0].outputs[0]
        True
    """
    replace: dict = {}
    producer: dict = {}
    nodes = []
    for node in program.nodes:
        node = program_lib.rebuild(node, replace)
        same = _passthrough(node, producer)
        if isinstance(same, graph.Node):
            node = same
        elif same is not None:
            replace[id(node.outputs[0])] = same
            continue
        for out in node.outputs:
            producer[id(out)] = node
        nodes.append(node)
    return program_lib.Program(nodes, program_lib.replaced_outputs(program, replace),
                               program.inplace)


def _passthrough(node, producer):
    """The input tensor `node` returns unchanged, a merged replacement node, or None."""
    op, inputs = node.op, node.inputs
    if not node.outputs:
        return None
    out = node.outputs[0]
    if op.elidable is True and _is_symbolic(inputs[0]):
        return inputs[0]
    if op.neutral and len(inputs) == 2:
        for index in (1, 0):  # x * 1 before 1 * x
            number = op.neutral.get(index)
            if number is not None and _neutral(inputs[index], inputs[1 - index], out, number):
                return inputs[1 - index]
    x = inputs[0] if inputs and _is_symbolic(inputs[0]) else None
    if x is None:
        return None
    if op.elidable == "dtype" and out.dtype == x.dtype:
        return x
    source = producer.get(id(x))
    if op.involution and source is not None and source.op is op:
        return source.inputs[0] if _is_symbolic(source.inputs[0]) else None
    if op.elidable == "shape" and None not in out.shape and out.shape == x.shape:
        return x
    # Two rewrites about one op's attributes: a reshape of a reshape is one reshape, and
    # a transpose of a transpose one transpose with the composed permutation (or none).
    if op.name == "Reshape" and source is not None and source.op is op \
            and not node.attr_inputs:
        merged = graph.Node(op, [source.inputs[0]], node.attrs, node.name, node.graph)
        merged.outputs = node.outputs
        return merged
    if op.name == "Transpose" and source is not None and source.op is op:
        inner = source.attrs.get("perm") or tuple(range(x.ndim))[::-1]
        outer = node.attrs.get("perm") or tuple(range(x.ndim))[::-1]
        combined = tuple(inner[i] for i in outer)
        base = source.inputs[0]
        if combined == tuple(range(len(combined))):
            return base
        merged = graph.Node(op, [base], {"perm": combined}, node.name, node.graph)
        merged.outputs = node.outputs
        return merged
    return None
