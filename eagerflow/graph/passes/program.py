"""What the passes share: the `Program` they transform, and helpers to rebuild nodes.

A pass never modifies a node of the traced graph: a node whose inputs change is copied
(`rebuild`), and a folded value becomes a new constant node (`const_node`).
"""

from __future__ import annotations

from eagerflow.graph import graph

_is_symbolic = graph.is_symbolic


class Program:
    """Nodes in execution order and the output tensors; `inplace` maps ``id(node)`` to the
    index of the input whose buffer the node may overwrite, `recycle` maps ``id(node)``
    to a dead tensor (not an input) whose buffer the node writes its result into, and
    `arena` holds the ``id(node)`` of the nodes whose result may go into a buffer the
    compiled plan keeps from one call to the next (its memory plan, `buffer_reuse`).

    Examples:
        >>> import eagerflow as ef
        >>> from eagerflow.graph.passes import program
        >>> cf = ef.function(lambda x: -x).get_concrete_function(ef.TensorSpec([2]))
        >>> p = program.Program(cf.graph.nodes, cf.graph.outputs)
        >>> [node.type for node in p.operations], p.inplace
        (['Placeholder', 'Neg'], {})
    """

    def __init__(self, nodes, outputs, inplace=None, recycle=None, arena=None):  # noqa: D107
        self.nodes = list(nodes)
        self.outputs = list(outputs)
        self.inplace = dict(inplace or {})
        self.recycle = dict(recycle or {})
        self.arena = set(arena or ())

    @property
    def operations(self) -> list:
        return self.nodes


def rebuild(node, replace: dict):
    """`node`, or a copy reading the replacement of each input found in `replace`."""
    tensors = node.tensor_inputs()
    if not any(id(t) in replace for t in tensors):
        return node

    def swap(t):
        return replace.get(id(t), t)

    copy = graph.Node(node.op, [swap(x) if _is_symbolic(x) else x for x in node.inputs],
                      graph.map_attr_tensors(node.attrs, swap), node.name, node.graph)
    copy.outputs = node.outputs
    return copy


def links(program) -> tuple[dict, dict]:
    """``(producer, readers)``: ``id(tensor)`` -> the node computing it, and -> the nodes
    reading it (in program order), for passes that match patterns of nodes."""
    producer: dict = {}
    readers: dict = {}
    for node in program.nodes:
        for t in node.tensor_inputs():
            readers.setdefault(id(t), []).append(node)
        for out in node.outputs:
            producer[id(out)] = node
    return producer, readers


def with_replacements(program, replaced: dict):
    """`program` with each node whose ``id`` `replaced` maps put aside for the nodes it
    maps to (an empty list drops it), in its place; `program` itself when none is."""
    if not replaced:
        return program
    nodes = []
    for node in program.nodes:
        nodes.extend(replaced.get(id(node), [node]))
    return Program(nodes, program.outputs, program.inplace)


def replaced_outputs(program, replace) -> list:
    """The outputs of `program`, each replaced by its entry in `replace` if it has one."""
    return [replace.get(id(t), t) if _is_symbolic(t) else t for t in program.outputs]


def const_node(value, like):
    """A new constant node holding `value`, named after the node `like` it replaces."""
    node = graph.Node(graph.CONST, (), {"value": value}, f"{like.name}/folded", like.graph)
    out = graph.SymbolicTensor(value.shape, value.dtype, like.graph, node, 0)
    out._const = value
    node.outputs = [out]
    return node


def has_effects(node) -> bool:
    """Whether `node` must run even when its outputs are unused (writes, prints, Python
    calls, random draws, numeric checks, and control flow containing any of them)."""
    if not node.op.pure:
        return True
    if node.op in (graph.COND, graph.WHILE):
        return any(has_effects(n) for key in ("then_branch", "else_branch", "cond", "body")
                   if node.attrs.get(key) is not None
                   for n in node.attrs[key].graph.nodes)
    return False


def is_pure(node) -> bool:
    """Whether `node` computes its outputs from its inputs alone, with no effect."""
    return node.op.forward is not None and node.op.pure
