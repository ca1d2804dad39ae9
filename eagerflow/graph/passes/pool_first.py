"""Max pool first, fused: ``MaxPool(Relu(BiasAdd(c, b)))`` becomes one
``MaxPoolBiasRelu(c, b)`` (``relu(MaxPool(c) + b)``), and its gradient one
``MaxPoolBiasReluGrad`` that gives both ``dc`` and ``db``.

A per-channel add and relu are non-decreasing, and rounding is monotone, so the window
maximum passes through them: both forms give bitwise the same pooled values, and the
fused op adds and clamps only the pooled tensor (a quarter of the cells behind a 2x2
pool), in the same pass as the pool under the numba kernel set. The gradient follows:

* the pool's gradient routes to the winners of ``c`` instead of those of the (no longer
  computed) full relu output. Where the pooled value is positive these are the same
  cells (relu is strictly increasing there), except when the bias add rounds two
  different conv outputs of one window to the same value: the rounded form picks the
  first of them, this one the true maximum of ``c``. Where the pooled value is 0 relu's
  mask zeroes the routed value either way, so the rewrite is made only when that mask
  has already moved to the pooled side (see `pooled_mask`, which runs before): the fused
  gradient applies it to the incoming pooled gradient itself;
* the bias gradient, a sum of the routed gradient, is the sum of the masked pooled
  gradient: routing moves each value to one cell without changing it (summed in another
  order, so equal to float rounding). It is the fused gradient's second output.

The rewrite is made only when the full-size intermediates feed nothing else.
"""

from __future__ import annotations

from typing import Any

from eagerflow.core import dispatch
from eagerflow.graph import graph
from eagerflow.graph.passes import program as program_lib
from eagerflow.ops import pooling  # noqa: F401 - registers the fused ops

_is_symbolic = graph.is_symbolic
_POOL_ATTRS = ("ksize", "strides", "pads")
_FUSED = dispatch.OPS["MaxPoolBiasRelu"]
_FUSED_GRAD = dispatch.OPS["MaxPoolBiasReluGrad"]


def pool_first(program: program_lib.Program) -> program_lib.Program:
    """Rewrites every ``p = MaxPool(Relu(BiasAdd(c, bias)))`` whose full-size tensors have no
    other reader (but its own gradient) as ``p = MaxPoolBiasRelu(c, bias)``, and its
    gradient ``MaxPoolGrad(r, p, dp * (p > 0))`` with the bias gradient behind it
    (``BiasAddGrad`` of that) as ``dc, db = MaxPoolBiasReluGrad(c, p, dp)``.

    Args:
        program: a program in which `pooled_mask` and `dead_code` have run.

    Returns:
        The rewritten program; the full-size nodes it no longer reads are left for
        `dead_code`.

    Examples:
        >>> import eagerflow as ef
        >>> from eagerflow.graph.passes import pipeline
        >>> def f(c, b):
        ...     return ef.nn.max_pool2d(ef.nn.relu(ef.nn.bias_add(c, b)), 2, 2, "VALID")
        >>> cf = ef.function(f).get_concrete_function(ef.TensorSpec([1, 4, 4, 2]),
        ...                                            ef.TensorSpec([2]))
        >>> p = pipeline.optimize(cf.graph.nodes, cf.graph.outputs)
        >>> [(n.type, n.outputs[0].shape) for n in p.nodes if n.type != "Placeholder"]
        [('MaxPoolBiasRelu', (1, 2, 2, 2))]
    """
    producer, readers = program_lib.links(program)
    outputs = {id(t) for t in program.outputs if _is_symbolic(t)}
    replaced: dict = {}  # id(old node) -> the nodes in its place (empty: dropped)
    for pool in program.nodes:
        if pool.op.name == "MaxPool":
            rewrite = _rewrite(pool, producer, readers, outputs)
            if rewrite is not None:
                replaced.update(rewrite)
    return program_lib.with_replacements(program, replaced)


def _only_readers(tensor, allowed, readers, outputs) -> bool:
    return id(tensor) not in outputs and all(
        any(node is a for a in allowed) for node in readers.get(id(tensor), ()))


def _rewrite(pool, producer, readers, outputs):
    """``{id(old node): [new nodes]}`` for one pool (see `pool_first`), or None."""
    r: Any = pool.inputs[0] if len(pool.inputs) == 1 else None
    relu = producer.get(id(r)) if _is_symbolic(r) else None
    if relu is None or relu.op.name != "Relu" or len(relu.inputs) != 1:
        return None
    b = relu.inputs[0]
    bias_add = producer.get(id(b)) if _is_symbolic(b) else None
    if bias_add is None or bias_add.op.name != "BiasAdd" or len(bias_add.inputs) != 2:
        return None
    c, bias = bias_add.inputs
    if not (_is_symbolic(c) and _is_symbolic(bias)) or c.dtype.kind != "f" \
            or len(c.shape) != 4 or None in tuple(c.shape[1:]) \
            or bias_add.attrs.get("channel_axis") != 3 or set(bias_add.attrs) != {"channel_axis"} \
            or c.dtype != b.dtype or b.dtype != r.dtype:
        return None
    p = pool.outputs[0]
    grads = [n for n in readers.get(id(r), ()) if n is not pool]
    incoming = [_masked_pool_grad(n, pool, producer) for n in grads]
    if any(dp is None for dp in incoming) or bias.dtype != c.dtype:
        return None
    if not (_only_readers(b, [relu], readers, outputs)
            and _only_readers(r, [pool, *grads], readers, outputs)):
        return None
    bias_grads = [[n for n in readers.get(id(grad.outputs[0]), ()) if n.op.name == "BiasAddGrad"
                   and n.attrs.get("channel_axis") == 3 and len(n.inputs) == 1]
                  for grad in grads]
    if any(len(found) > 1 for found in bias_grads):  # (common_subexpressions leaves one)
        return None
    g = pool.graph
    fused = graph.Node(_FUSED, [c, bias], pool.attrs, f"{pool.name}/bias_relu", g)
    fused.outputs = pool.outputs  # every reader of p reads the fused op
    replaced: dict = {id(pool): [fused]}
    for grad, dp, found in zip(grads, incoming, bias_grads, strict=True):
        routed = graph.Node(_FUSED_GRAD, [c, p, dp], grad.attrs, grad.name, g)
        if found:  # the bias gradient comes out of the same pass
            routed.outputs = [grad.outputs[0], found[0].outputs[0]]
            replaced[id(found[0])] = []
        else:
            routed.outputs = [grad.outputs[0],
                              graph.SymbolicTensor(tuple(bias.shape), c.dtype, g, routed, 1)]
        replaced[id(grad)] = [routed]
    return replaced


def _masked_pool_grad(node, pool, producer):
    """``dp`` when `node` is ``MaxPoolGrad(r, p, dp * (p > 0))`` for `pool` (``p =
    MaxPool(r)``), else None."""
    if node.op.name != "MaxPoolGrad" or len(node.inputs) != 3:
        return None
    r, p, dy = node.inputs
    if p is not pool.outputs[0] or r is not pool.inputs[0] \
            or any(node.attrs.get(k) != pool.attrs.get(k) for k in _POOL_ATTRS) \
            or not _is_symbolic(dy):
        return None
    mul = producer.get(id(dy))
    if mul is None or mul.op.name != "Mul" or len(mul.inputs) != 2:
        return None
    for mask, dp in (mul.inputs, mul.inputs[::-1]):
        greater = producer.get(id(mask)) if _is_symbolic(mask) else None
        if greater is not None and greater.op.name == "Greater" and len(greater.inputs) == 2 \
                and greater.inputs[0] is p and not _is_symbolic(greater.inputs[1]) \
                and type(greater.inputs[1]) in (int, float) and greater.inputs[1] == 0 \
                and _is_symbolic(dp) and tuple(dp.shape) == tuple(p.shape) \
                and dp.dtype == p.dtype:
            return dp
    return None
