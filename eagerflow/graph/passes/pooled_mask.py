"""Relu masks on the pooled side: the mask of relu's gradient behind a max pool's gradient
is applied before the pool's gradient routes it back, on the (smaller) pooled tensor."""

from __future__ import annotations

from typing import Any

from eagerflow.graph import graph
from eagerflow.graph.passes import program as program_lib

_is_symbolic = graph.is_symbolic


def mask_pooled_gradients(program: program_lib.Program) -> program_lib.Program:
    """Rewrites ``Mul(MaxPoolGrad(r, p, dp), Greater(r, 0))`` (relu's gradient behind a max
    pool's, p = MaxPool(r)) as ``MaxPoolGrad(r, p, Mul(dp, Greater(p, 0)))``.

    The pool's gradient lands only on each window's (first) maximum, where r equals p, so
    masking before routing gives exactly the same values, with the comparison and the
    product on the pooled tensor: a quarter of the size behind a 2x2 pool. The old nodes
    are left for `dead_code`; the rewrite is made only when nothing else reads them.

    Examples:
        >>> import eagerflow as ef
        >>> from eagerflow.graph.passes import pipeline
        >>> def step(z):
        ...     with ef.GradientTape() as tape:
        ...         tape.watch(z)
        ...         y = ef.nn.max_pool2d(ef.nn.relu(z), 2, 2, "VALID")
        ...     return tape.gradient(y, z)
        >>> cf = ef.function(step).get_concrete_function(ef.TensorSpec([1, 4, 4, 1]))
        >>> p = pipeline.optimize(cf.graph.nodes, cf.graph.outputs)
        >>> [(n.type, n.outputs[0].shape) for n in p.nodes if n.type in ("Greater", "Mul")]
        [('Greater', (1, 2, 2, 1)), ('Mul', (1, 2, 2, 1))]
    """
    producer: dict = {}
    uses: dict = {}
    for node in program.nodes:
        for t in node.tensor_inputs():
            uses[id(t)] = uses.get(id(t), 0) + 1
        for out in node.outputs:
            producer[id(out)] = node
    for t in program.outputs:
        if _is_symbolic(t):
            uses[id(t)] = uses.get(id(t), 0) + 1
    nodes: list[Any] = []
    for node in program.nodes:
        rewritten = _masked_pool_gradient(node, producer, uses) \
            if node.op.name == "Mul" and len(node.inputs) == 2 else None
        nodes.extend(rewritten or [node])
    return program_lib.Program(nodes, program.outputs, program.inplace)


def _masked_pool_gradient(mul, producer, uses):
    """The nodes replacing `mul` (see `mask_pooled_gradients`), or None."""
    a, b = mul.inputs
    if not (_is_symbolic(a) and _is_symbolic(b)):
        return None
    pool_grad, mask = producer.get(id(a)), producer.get(id(b))
    if pool_grad is None or mask is None:
        return None
    if pool_grad.op.name != "MaxPoolGrad":
        pool_grad, mask = mask, pool_grad
    if pool_grad.op.name != "MaxPoolGrad" or mask.op.name != "Greater":
        return None
    r, p, dp = pool_grad.inputs
    pool = producer.get(id(p))
    zero = mask.inputs[1]
    if (pool is None or pool.op.name != "MaxPool" or pool.inputs[0] is not r
            or any(pool.attrs[k] != pool_grad.attrs[k] for k in ("ksize", "strides", "pads"))
            or mask.inputs[0] is not r or _is_symbolic(zero) or zero != 0
            or type(zero) not in (int, float)
            or uses.get(id(pool_grad.outputs[0])) != 1 or uses.get(id(mask.outputs[0])) != 1
            or tuple(dp.shape) != tuple(p.shape) or dp.dtype != mul.outputs[0].dtype
            or tuple(r.shape) != tuple(mul.outputs[0].shape)):
        return None
    g = mul.graph
    pooled_mask = graph.Node(mask.op, [p, zero], mask.attrs, f"{mul.name}/pooled_mask", g)
    pooled_mask.outputs = [graph.SymbolicTensor(p.shape, mask.outputs[0].dtype, g,
                                                pooled_mask, 0)]
    masked = graph.Node(mul.op, [dp, pooled_mask.outputs[0]], mul.attrs,
                        f"{mul.name}/pooled", g)
    masked.outputs = [graph.SymbolicTensor(dp.shape, dp.dtype, g, masked, 0)]
    routed = graph.Node(pool_grad.op, [r, p, masked.outputs[0]], pool_grad.attrs,
                        f"{mul.name}/routed", g)
    routed.outputs = mul.outputs
    return [pooled_mask, masked, routed]
