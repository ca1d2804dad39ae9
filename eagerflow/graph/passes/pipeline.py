"""The pass pipeline: every pass, in an order where each one feeds the next.

Examples:
    >>> import eagerflow as ef
    >>> @ef.function
    ... def f(x):
    ...     unused = ef.exp(x)
    ...     return (x * 1.0 + ef.constant(2.0) * 3.0) * (x * 1.0 + ef.constant(2.0) * 3.0)
    >>> cf = f.get_concrete_function(ef.TensorSpec([3]))
    >>> [op.type for op in cf.optimized_graph.operations]
    ['Placeholder', 'Const', 'AddV2', 'Mul']
"""

from __future__ import annotations

from eagerflow.graph.passes import (
    arithmetic,
    buffer_reuse,
    common_subexpressions,
    constant_folding,
    dead_code,
    fusion,
    matmul_bias,
    pool_first,
    pooled_mask,
)
from eagerflow.graph.passes import program as program_lib


def optimize(nodes, outputs, fuse: bool = False) -> program_lib.Program:
    """Runs every pass (see `eagerflow.graph.passes` for the order and why) on a program.

    Args:
        nodes: the nodes of a traced graph, in execution order.
        outputs: the tensors the program returns.
        fuse: run elementwise fusion (`fusion.fuse_elementwise`); callers decide with
            `fusion.wanted`.

    Returns:
        The optimised `Program`, with its buffer-reuse plan.

    Examples:
        >>> import eagerflow as ef
        >>> from eagerflow.graph.passes import pipeline
        >>> cf = ef.function(lambda x: (x + 0.0) * 1.0).get_concrete_function(
        ...     ef.TensorSpec([2]))
        >>> p = pipeline.optimize(cf.graph.nodes, cf.graph.outputs)
        >>> [node.type for node in p.nodes], p.outputs[0] is cf.graph.inputs[0]
        (['Placeholder'], True)
    """
    program = program_lib.Program(nodes, outputs)
    program = constant_folding.fold_constants(program)
    program = arithmetic.simplify_arithmetic(program)
    program = common_subexpressions.eliminate_common_subexpressions(program)
    program = constant_folding.fold_constants(program)
    program = pooled_mask.mask_pooled_gradients(program)
    program = dead_code.eliminate_dead_code(program)
    program = pool_first.pool_first(program)
    program = dead_code.eliminate_dead_code(program)
    program = matmul_bias.fuse_matmul_bias(program)
    program = matmul_bias.fuse_bias_gradients(program)
    if fuse:
        program = fusion.fuse_elementwise(program)
    return buffer_reuse.plan_buffer_reuse(program)
