"""A dense layer's product, bias and relu as one op: ``Relu(AddV2(MatMul(a, b), bias))``
becomes ``MatMulBias(a, b, bias, relu=True)`` (and without the relu, ``relu=False``); and
in its gradient, the kernel's and the bias's parts as one op (`fuse_bias_gradients`).

Keras's ``Dense`` and ``EinsumDense`` compute ``x @ kernel + bias`` as a product, often a
``Reshape`` of it back to the input's leading axes, and an ``AddV2`` broadcasting the bias
over the rows; then the activation. Each is a pass over the whole output: in the
benchmark's encoder block the five bias adds and the relu took ~0.45 ms of a 7 ms step.
The fused op adds the bias (and clamps) in the same call as the product, and under the
numba kernel set in each thread's rows of the product while they are in cache
(`ops/kernels/matmul_jit.py`). The values are bitwise the ops' (the same IEEE addition
and NumPy's ``maximum`` rule: NaN kept, -0.0 to 0.0).

The rewrite is made only for a 2-D float product of one dtype whose result feeds nothing
but the add (through at most one reshape), with a bias of that dtype covering exactly one
row of the product (its shape the trailing axes of the add's output, its size the
product's last axis), and an add whose output is the reshape's shape (no broadcasting
grows it). The relu is taken in when it is the add's only reader. Gradients are already
in the graph (it is a traced training step), and they read ``a``, ``b`` and the relu's
output, which the fused op still gives.
"""

from __future__ import annotations

import math

from eagerflow.core import dispatch
from eagerflow.graph import graph
from eagerflow.graph.passes import program as program_lib
from eagerflow.ops import linalg_ops  # noqa: F401 - registers the fused op

_is_symbolic = graph.is_symbolic
_FUSED = dispatch.OPS["MatMulBias"]
_FUSED_GRAD = dispatch.OPS["MatMulSum"]
_TRANSPOSES = {"transpose_a", "transpose_b"}


def fuse_matmul_bias(program: program_lib.Program) -> program_lib.Program:
    """Rewrites every ``AddV2(Reshape?(BatchMatMulV2(a, b)), bias)`` (and the ``Relu`` after
    it) that qualifies (see the module docstring) as ``Reshape?(MatMulBias(a, b, bias))``.

    Args:
        program: a program in which `dead_code` has run.

    Returns:
        The rewritten program; nodes it no longer reads are dropped.

    Examples:
        >>> import numpy as np
        >>> import eagerflow as ef
        >>> from eagerflow.graph.passes import pipeline
        >>> w, b = np.ones((3, 2), np.float32), np.array([1.0, -9.0], np.float32)
        >>> cf = ef.function(lambda x: ef.nn.relu(ef.matmul(x, w) + b)).get_concrete_function(
        ...     ef.TensorSpec([4, 3]))
        >>> p = pipeline.optimize(cf.graph.nodes, cf.graph.outputs)
        >>> [(n.type, n.attrs.get("relu")) for n in p.nodes if n.type == "MatMulBias"]
        [('MatMulBias', True)]
    """
    producer, readers = program_lib.links(program)
    outputs = {id(t) for t in program.outputs if _is_symbolic(t)}
    replaced: dict = {}  # id(old node) -> the nodes in its place (empty: dropped)
    for node in program.nodes:
        if node.op.name == "AddV2":
            rewrite = _rewrite(node, producer, readers, outputs)
            if rewrite is not None:
                replaced.update(rewrite)
    return program_lib.with_replacements(program, replaced)


def _only_reader(tensor, node, readers, outputs) -> bool:
    found = readers.get(id(tensor), ())
    return id(tensor) not in outputs and len(found) == 1 and found[0] is node


def _rewrite(add, producer, readers, outputs):
    """``{id(old node): [new nodes]}`` for one add (see `fuse_matmul_bias`), or None."""
    if len(add.inputs) != 2 or add.attrs or add.attr_inputs or len(add.outputs) != 1:
        return None
    for value, bias in (add.inputs, add.inputs[::-1]):
        found = _product_behind(value, producer, readers, outputs, add)
        if found is not None and _is_symbolic(bias):
            break
    else:
        return None
    product, reshape = found
    a, b = product.inputs
    p, y = product.outputs[0], add.outputs[0]
    m, n = p.shape
    shape = tuple(value.shape)
    if (bias.dtype != p.dtype or y.dtype != p.dtype or tuple(y.shape) != shape
            or None in tuple(bias.shape) or math.prod(bias.shape) != n
            or len(bias.shape) > len(shape)
            or tuple(shape[len(shape) - len(bias.shape):]) != tuple(bias.shape)):
        return None
    relu = None
    after = readers.get(id(y), ())
    if (id(y) not in outputs and len(after) == 1 and after[0].op.name == "Relu"
            and len(after[0].inputs) == 1 and not after[0].attrs
            and after[0].outputs[0].dtype == y.dtype):
        relu = after[0]
    last = relu if relu is not None else add
    g = add.graph
    attrs = {k: v for k, v in product.attrs.items() if v}
    attrs["relu"] = relu is not None
    fused = graph.Node(_FUSED, [a, b, bias], attrs, f"{add.name}/matmul_bias", g)
    replaced: dict = {id(add): [], id(product): []}
    if relu is not None:
        replaced[id(relu)] = []
    if reshape is None:
        fused.outputs = last.outputs
        replaced[id(last)] = [fused]
        return replaced
    fused.outputs = [graph.SymbolicTensor((m, n), p.dtype, g, fused, 0)]
    back = graph.Node(reshape.op, [fused.outputs[0]], reshape.attrs, reshape.name, g)
    back.outputs = last.outputs
    replaced[id(reshape)] = []
    replaced[id(last)] = [fused, back]
    return replaced


def _product_behind(value, producer, readers, outputs, add):
    """``(product node, reshape node or None)`` when `value` is a 2-D float product (maybe
    reshaped) read by nothing but `add`, else None."""
    if not _is_symbolic(value):
        return None
    node = producer.get(id(value))
    reshape = None
    if node is not None and node.op.name == "Reshape" and len(node.inputs) == 1 \
            and len(node.outputs) == 1 and not node.attr_inputs:
        if not _only_reader(value, add, readers, outputs):
            return None
        reshape, value = node, node.inputs[0]
        node = producer.get(id(value)) if _is_symbolic(value) else None
        reader = reshape
    else:
        reader = add
    if node is None or node.op.name != "BatchMatMulV2" or len(node.inputs) != 2 \
            or node.attr_inputs or set(node.attrs) - _TRANSPOSES or len(node.outputs) != 1:
        return None
    a, b = node.inputs
    p = node.outputs[0]
    if not (_is_symbolic(a) and _is_symbolic(b)) or len(a.shape) != 2 or len(b.shape) != 2 \
            or len(p.shape) != 2 or None in tuple(p.shape) or p.dtype.kind != "f" \
            or a.dtype != p.dtype or b.dtype != p.dtype:
        return None
    if not _only_reader(p, reader, readers, outputs):
        return None
    if reshape is not None and (None in tuple(reshape.outputs[0].shape)
                                or math.prod(reshape.outputs[0].shape) != math.prod(p.shape)):
        return None
    return node, reshape


def fuse_bias_gradients(program: program_lib.Program) -> program_lib.Program:
    """Rewrites a dense layer's bias gradient ``db = Sum(d, axis=<leading axes>)`` and a
    kernel gradient over the same rows ``dw = BatchMatMulV2(a, d2, transpose_a=True)``
    (``d2`` being ``d`` or a reshape of it to ``(rows, units)``, the units being the kept
    axes) as one ``dw, db = MatMulSum(a, d2, d)``, in the product's place.

    Under the numba kernel set, when the product is split by depth in numba's pool, each
    thread sums its rows of ``d2`` while they are in cache (`matmul_jit.matmul_sum`);
    otherwise the op is the two ops' forwards. Made only when nothing reads the sum before
    the product runs (the fused op takes the product's place).

    Args:
        program: a program in which `dead_code` has run.

    Returns:
        The rewritten program.

    Examples:
        >>> import numpy as np
        >>> import eagerflow as ef
        >>> from eagerflow.graph.passes import pipeline
        >>> def grads(x, dy):
        ...     return ef.matmul(x, dy, transpose_a=True), ef.reduce_sum(dy, axis=0)
        >>> cf = ef.function(grads).get_concrete_function(ef.TensorSpec([8, 3]),
        ...                                               ef.TensorSpec([8, 2]))
        >>> p = pipeline.optimize(cf.graph.nodes, cf.graph.outputs)
        >>> [n.type for n in p.nodes if n.type != "Placeholder"]
        ['MatMulSum']
    """
    index = {id(node): i for i, node in enumerate(program.nodes)}
    _, readers = program_lib.links(program)
    replaced: dict = {}
    taken: set = set()  # products given a sum already
    for node in program.nodes:
        if node.op.name == "Sum":
            found = _weight_gradient(node, readers, index, taken)
            if found is not None:
                product, rows = found
                fused = graph.Node(_FUSED_GRAD, [product.inputs[0], rows, node.inputs[0]],
                                   {"axis": node.attrs["axis"]}, f"{product.name}/sum",
                                   product.graph)
                fused.outputs = [product.outputs[0], node.outputs[0]]
                replaced[id(product)] = [fused]
                replaced[id(node)] = []
                taken.add(id(product))
    return program_lib.with_replacements(program, replaced)


def _weight_gradient(total, readers, index, taken):
    """``(product node, its 2-D operand of d's rows)`` for a ``Sum`` of ``d`` over its
    leading axes, when such a product reads ``d`` as rows of the kept axes (see
    `fuse_bias_gradients`), else None."""
    if len(total.inputs) != 1 or total.attr_inputs or len(total.outputs) != 1:
        return None
    d = total.inputs[0]
    axis = tuple(total.attrs.get("axis") or ())
    if not _is_symbolic(d) or len(d.shape) < 2 or None in tuple(d.shape) \
            or d.dtype.kind != "f" or total.attrs.get("keepdims", False) \
            or not axis or axis != tuple(range(len(axis))) or len(axis) >= len(d.shape):
        return None
    rows_shape = (math.prod(d.shape[:len(axis)]), math.prod(d.shape[len(axis):]))
    candidates = [d] if tuple(d.shape) == rows_shape else []
    for reader in readers.get(id(d), ()):
        if reader.op.name == "Reshape" and len(reader.outputs) == 1 \
                and tuple(reader.outputs[0].shape) == rows_shape:
            candidates.append(reader.outputs[0])
    first_use = min((index[id(n)] for n in readers.get(id(total.outputs[0]), ())),
                    default=len(index))
    for rows in candidates:
        for product in readers.get(id(rows), ()):
            if product.op.name != "BatchMatMulV2" or id(product) in taken \
                    or len(product.inputs) != 2 or product.inputs[1] is not rows \
                    or product.attr_inputs or product.attrs.get("transpose_b") \
                    or not product.attrs.get("transpose_a") \
                    or set(product.attrs) - _TRANSPOSES or index[id(product)] >= first_use:
                continue
            a = product.inputs[0]
            if _is_symbolic(a) and len(a.shape) == 2 and a.shape[0] == rows_shape[0] \
                    and a.dtype == d.dtype:
                return product, rows
    return None
