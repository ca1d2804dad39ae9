"""Dead-code elimination: ops whose results nobody uses disappear, unless they have an
effect (variable writes, prints, Python calls, random draws), which always stay in order."""

from __future__ import annotations

from eagerflow.graph import graph
from eagerflow.graph.passes import program as program_lib


def eliminate_dead_code(program: program_lib.Program) -> program_lib.Program:
    """Drops nodes whose outputs are unused and that have no effect.

    Examples:
        >>> import eagerflow as ef
        >>> from eagerflow.graph.passes import dead_code, program
        >>> def f(x):
        ...     unused = ef.exp(x)
        ...     return x * 2.0
        >>> cf = ef.function(f).get_concrete_function(ef.TensorSpec([2]))
        >>> p = program.Program(cf.graph.nodes, cf.graph.outputs)
        >>> [node.type for node in dead_code.eliminate_dead_code(p).nodes]
        ['Placeholder', 'Mul']
    """
    live = {id(t) for t in program.outputs if graph.is_symbolic(t)}
    kept = []
    for node in reversed(program.nodes):
        if node.op is graph.PLACEHOLDER or program_lib.has_effects(node) or any(
                id(o) in live for o in node.outputs):
            kept.append(node)
            live.update(id(t) for t in node.tensor_inputs())
    kept.reverse()
    return program_lib.Program(kept, program.outputs, program.inplace)
