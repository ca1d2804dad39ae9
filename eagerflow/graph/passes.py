"""Graph optimisation passes run on every traced graph before it is compiled.

Each pass takes a `Program` (nodes in execution order plus the output tensors) and
returns a new one; the traced `Graph` itself is never modified, so the same graph can be
compiled again with other outputs (gradients need intermediates). The passes:

* `fold_constants`: ops whose inputs are all constants become constants.
* `simplify_arithmetic`: ``x*1``, ``1*x``, ``x+0``, ``x-0``, ``x/1``, ``x**1``, double
  negation, identities, casts to the same dtype, reshapes of reshapes, and transposes of
  transposes are removed or merged (only when dtype and shape are unchanged).
* `eliminate_common_subexpressions`: equal pure ops on equal inputs are computed once;
  repeated reads of a variable with no write in between are read once.
* `eliminate_dead_code`: ops whose results nobody uses disappear; ops with effects
  (variable writes, prints, Python calls, random draws) always stay, in order.
* `plan_buffer_reuse`: an elementwise op writes its result into the buffer of an input
  that is dead afterwards (NumPy ``out=``), so chains of elementwise ops allocate once.

Example:
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

import numpy as np

from eagerflow.graph import graph

__all__ = [
    "Program",
    "eliminate_common_subexpressions",
    "eliminate_dead_code",
    "fold_constants",
    "optimize",
    "plan_buffer_reuse",
    "simplify_arithmetic",
]

_is_symbolic = graph.is_symbolic
_FOLD_LIMIT = 1 << 22  # elements: larger results stay computed at run time

# Elementwise ops whose kernel is one NumPy ufunc accepting ``out=`` (see executor.py).
INPLACE_OPS = {
    "AddV2", "Sub", "Mul", "RealDiv", "FloorMod", "Pow", "Maximum", "Minimum", "Neg", "Abs",
    "Sign", "Exp", "Expm1", "Log", "Log1p", "Sqrt", "Reciprocal", "Square", "Sin", "Cos",
    "Tan", "Tanh", "Floor", "Ceil", "Relu", "BiasAdd",
}
# Ops that always return newly allocated arrays (never a view of an input).
FRESH_OPS = INPLACE_OPS | {
    "FloorDiv", "Rsqrt", "Sigmoid", "Round", "SquaredDifference", "SelectV2", "Cast",
    "Equal", "NotEqual", "Less", "LessEqual", "Greater", "GreaterEqual", "LogicalAnd",
    "LogicalOr", "LogicalXor", "LogicalNot", "BitwiseAnd", "BitwiseOr", "BitwiseXor",
    "Invert", "BatchMatMulV2", "Softmax", "LogSoftmax", "Sum", "Mean", "Max", "Min", "Prod",
    "LogSumExp", "Cumsum", "Cumprod", "ZerosLike", "OnesLike", "Fill", "ConcatV2", "Pack",
    "Tile", "Gather", "GatherGrad", "OneHot", "BiasAddGrad", "Conv2D", "Conv2DBackpropInput",
    "Conv2DBackpropFilter", "MaxPool", "MaxPoolGrad", "AvgPool",
}
_ELIDED = {"Identity", "StopGradient"}


class Program:
    """Nodes in execution order and the output tensors; `inplace` maps ``id(node)`` to the
    index of the input whose buffer the node may overwrite.

    Example:
        >>> import eagerflow as ef
        >>> from eagerflow.graph import passes
        >>> cf = ef.function(lambda x: -x).get_concrete_function(ef.TensorSpec([2]))
        >>> program = passes.Program(cf.graph.nodes, cf.graph.outputs)
        >>> [node.type for node in program.operations], program.inplace
        (['Placeholder', 'Neg'], {})
    """

    def __init__(self, nodes, outputs, inplace=None):  # noqa: D107
        self.nodes = list(nodes)
        self.outputs = list(outputs)
        self.inplace = dict(inplace or {})

    @property
    def operations(self) -> list:
        return self.nodes


def optimize(nodes, outputs) -> Program:
    """Runs every pass, in an order where each one feeds the next.

    Example:
        >>> import eagerflow as ef
        >>> from eagerflow.graph import passes
        >>> def program(fn, *specs):
        ...     cf = ef.function(fn).get_concrete_function(*specs)
        ...     return passes.Program(cf.graph.nodes, cf.graph.outputs)
        >>> def types(p):
        ...     return [node.type for node in p.nodes]
        >>> p = program(lambda x: (x + 0.0) * 1.0, ef.TensorSpec([2]))
        >>> optimized = passes.optimize(p.nodes, p.outputs)
        >>> types(optimized), optimized.outputs[0] is p.nodes[0].outputs[0]
        (['Placeholder'], True)
    """
    program = Program(nodes, outputs)
    program = fold_constants(program)
    program = simplify_arithmetic(program)
    program = eliminate_common_subexpressions(program)
    program = fold_constants(program)
    program = mask_pooled_gradients(program)
    program = eliminate_dead_code(program)
    return plan_buffer_reuse(program)


# -- helpers ------------------------------------------------------------------------------
def _rebuild(node, replace: dict):
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


def _outputs(program, replace):
    return [replace.get(id(t), t) if _is_symbolic(t) else t for t in program.outputs]


def _const_node(value, like):
    node = graph.Node(graph.CONST, (), {"value": value}, f"{like.name}/folded", like.graph)
    out = graph.SymbolicTensor(value.shape, value.dtype, like.graph, node, 0)
    out._const = value
    node.outputs = [out]
    return node


def has_effects(node) -> bool:
    """Whether `node` must run even when its outputs are unused (writes, prints, Python
    calls, random draws, numeric checks, and control flow containing any of them)."""
    if node.op.stateful or node.op.name == "CheckNumerics":
        return True
    if node.op in (graph.COND, graph.WHILE):
        return any(has_effects(n) for key in ("then_branch", "else_branch", "cond", "body")
                   if node.attrs.get(key) is not None
                   for n in node.attrs[key].graph.nodes)
    return False


def _pure(node) -> bool:
    return node.op.forward is not None and not node.op.stateful and node.op.name != \
        "CheckNumerics"


# -- constant folding ---------------------------------------------------------------------
def fold_constants(program: Program) -> Program:
    """Replaces every pure op whose inputs are all constants by a constant node (and ops
    that only read their input's static shape, such as ``ZerosLike``).

    Example:
        >>> import eagerflow as ef
        >>> from eagerflow.graph import passes
        >>> def program(fn, *specs):
        ...     cf = ef.function(fn).get_concrete_function(*specs)
        ...     return passes.Program(cf.graph.nodes, cf.graph.outputs)
        >>> def types(p):
        ...     return [node.type for node in p.nodes]
        >>> p = program(lambda x: x + ef.exp(ef.constant(0.0)), ef.TensorSpec([2]))
        >>> types(p), types(passes.fold_constants(p))
        (['Placeholder', 'Const', 'Exp', 'AddV2'], ['Placeholder', 'Const', 'Const', 'AddV2'])
    """
    replace: dict = {}
    nodes = []
    for node in program.nodes:
        node = _rebuild(node, replace)
        inputs = node.tensor_inputs()
        if node.op.name in _SHAPE_ONLY and len(inputs) == 1 and None not in inputs[0].shape:
            value = _SHAPE_ONLY[node.op.name](np.empty(inputs[0].shape, inputs[0].dtype),
                                              **node.attrs)
            folded = _const_node(np.asarray(value), node)
            nodes.append(folded)
            replace[id(node.outputs[0])] = folded.outputs[0]
            continue
        if (_pure(node) and node.outputs and all(t._const is not None for t in inputs)
                and sum(int(np.prod(o.shape)) if None not in o.shape else _FOLD_LIMIT
                        for o in node.outputs) < _FOLD_LIMIT):
            values = _evaluate(node)
            if values is not None:
                for out, value in zip(node.outputs, values, strict=False):
                    folded = _const_node(value, node)
                    nodes.append(folded)
                    replace[id(out)] = folded.outputs[0]
                continue
        nodes.append(node)
    return Program(nodes, _outputs(program, replace), program.inplace)


# Ops whose result depends only on the shape and dtype of their input.
_SHAPE_ONLY = {
    "ZerosLike": lambda x, dtype: np.zeros(x.shape, dtype or x.dtype),
    "OnesLike": lambda x, dtype: np.ones(x.shape, dtype or x.dtype),
    "Shape": lambda x, out_type: np.asarray(x.shape, out_type),
    "Size": lambda x, out_type: np.asarray(x.size, out_type),
}


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


# -- arithmetic simplification ------------------------------------------------------------
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


def simplify_arithmetic(program: Program) -> Program:
    """Removes operations that return one of their inputs unchanged; merges op pairs.

    Example:
        >>> import eagerflow as ef
        >>> from eagerflow.graph import passes
        >>> def program(fn, *specs):
        ...     cf = ef.function(fn).get_concrete_function(*specs)
        ...     return passes.Program(cf.graph.nodes, cf.graph.outputs)
        >>> def types(p):
        ...     return [node.type for node in p.nodes]
        >>> p = program(lambda x: ef.transpose(ef.transpose(x * 1.0)), ef.TensorSpec([2, 3]))
        >>> passes.simplify_arithmetic(p).outputs[0] is p.nodes[0].outputs[0]
        True
    """
    replace: dict = {}
    producer: dict = {}
    nodes = []
    for node in program.nodes:
        node = _rebuild(node, replace)
        same = _passthrough(node, producer)
        if isinstance(same, graph.Node):
            node = same
        elif same is not None:
            replace[id(node.outputs[0])] = same
            continue
        for out in node.outputs:
            producer[id(out)] = node
        nodes.append(node)
    return Program(nodes, _outputs(program, replace), program.inplace)


def _passthrough(node, producer):
    """The input tensor `node` returns unchanged, a merged replacement node, or None."""
    name, inputs = node.op.name, node.inputs
    if not node.outputs:
        return None
    out = node.outputs[0]
    if name in _ELIDED and _is_symbolic(inputs[0]):
        return inputs[0]
    if len(inputs) == 2 and name in ("Mul", "AddV2"):
        number = 1 if name == "Mul" else 0
        if _neutral(inputs[1], inputs[0], out, number):
            return inputs[0]
        if _neutral(inputs[0], inputs[1], out, number):
            return inputs[1]
    if len(inputs) == 2 and name in ("Sub", "RealDiv", "Pow"):
        if _neutral(inputs[1], inputs[0], out, 0 if name == "Sub" else 1):
            return inputs[0]
    x = inputs[0] if inputs and _is_symbolic(inputs[0]) else None
    if x is None:
        return None
    if name == "Cast" and node.attrs.get("dtype") == x.dtype:
        return x
    source = producer.get(id(x))
    if name == "Neg" and source is not None and source.op.name == "Neg":
        return source.inputs[0] if _is_symbolic(source.inputs[0]) else None
    if name == "Reshape":
        if None not in out.shape and out.shape == x.shape:
            return x
        if source is not None and source.op.name == "Reshape" and not node.attr_inputs:
            merged = graph.Node(node.op, [source.inputs[0]], node.attrs, node.name, node.graph)
            merged.outputs = node.outputs
            return merged
    if name == "Transpose" and source is not None and source.op.name == "Transpose":
        inner = source.attrs.get("perm") or tuple(range(x.ndim))[::-1]
        outer = node.attrs.get("perm") or tuple(range(x.ndim))[::-1]
        combined = tuple(inner[i] for i in outer)
        base = source.inputs[0]
        if combined == tuple(range(len(combined))):
            return base
        merged = graph.Node(node.op, [base], {"perm": combined}, node.name, node.graph)
        merged.outputs = node.outputs
        return merged
    return None


# -- relu masks on the pooled side of a max pool's gradient ------------------------------
def mask_pooled_gradients(program: Program) -> Program:
    """Rewrites ``Mul(MaxPoolGrad(r, p, dp), Greater(r, 0))`` (relu's gradient behind a max
    pool's, p = MaxPool(r)) as ``MaxPoolGrad(r, p, Mul(dp, Greater(p, 0)))``.

    The pool's gradient lands only on each window's (first) maximum, where r equals p, so
    masking before routing gives exactly the same values, with the comparison and the
    product on the pooled tensor: a quarter of the size behind a 2x2 pool. The old nodes
    are left for `eliminate_dead_code`; the rewrite is made only when nothing else reads
    them.

    Example:
        >>> import eagerflow as ef
        >>> from eagerflow.graph import passes
        >>> def step(z):
        ...     with ef.GradientTape() as tape:
        ...         tape.watch(z)
        ...         y = ef.nn.max_pool2d(ef.nn.relu(z), 2, 2, "VALID")
        ...     return tape.gradient(y, z)
        >>> cf = ef.function(step).get_concrete_function(ef.TensorSpec([1, 4, 4, 1]))
        >>> p = passes.optimize(cf.graph.nodes, cf.graph.outputs)
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
    nodes = []
    for node in program.nodes:
        rewritten = _masked_pool_gradient(node, producer, uses) \
            if node.op.name == "Mul" and len(node.inputs) == 2 else None
        nodes.extend(rewritten or [node])
    return Program(nodes, program.outputs, program.inplace)


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


# -- common subexpressions ----------------------------------------------------------------
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


def eliminate_common_subexpressions(program: Program) -> Program:
    """Computes each distinct pure operation once.

    Example:
        >>> import eagerflow as ef
        >>> from eagerflow.graph import passes
        >>> def program(fn, *specs):
        ...     cf = ef.function(fn).get_concrete_function(*specs)
        ...     return passes.Program(cf.graph.nodes, cf.graph.outputs)
        >>> def types(p):
        ...     return [node.type for node in p.nodes]
        >>> p = program(lambda x: ef.exp(x) + ef.exp(x), ef.TensorSpec([2]))
        >>> types(passes.eliminate_common_subexpressions(p))
        ['Placeholder', 'Exp', 'AddV2']
    """
    replace: dict = {}
    seen: dict = {}
    epochs: dict = {}  # id(variable) -> number of writes so far
    nodes = []
    for node in program.nodes:
        node = _rebuild(node, replace)
        key = None
        if node.op is graph.READ:
            var = node.attrs["variable"]
            key = ("read", id(var), epochs.get(id(var), 0), epochs.get("any", 0))
        elif node.op.name in graph.ASSIGN_MODES:
            var = node.attrs["variable"]
            epochs[id(var)] = epochs.get(id(var), 0) + 1
        elif has_effects(node):  # a loop, branch or Python call may write any variable
            epochs["any"] = epochs.get("any", 0) + 1
        elif node.op is graph.CONST:
            key = ("const", _freeze(node.attrs["value"]))
            if key[1][0] == "id":
                key = None
        elif _pure(node):
            key = (node.op.name, tuple(_freeze(x) for x in node.inputs), _freeze(node.attrs))
        if key is not None:
            first = seen.get(key)
            if first is not None:
                for old, new in zip(node.outputs, first.outputs, strict=False):
                    replace[id(old)] = new
                continue
            seen[key] = node
        nodes.append(node)
    return Program(nodes, _outputs(program, replace), program.inplace)


# -- dead code ----------------------------------------------------------------------------
def eliminate_dead_code(program: Program) -> Program:
    """Drops nodes whose outputs are unused and that have no effect.

    Example:
        >>> import eagerflow as ef
        >>> from eagerflow.graph import passes
        >>> def program(fn, *specs):
        ...     cf = ef.function(fn).get_concrete_function(*specs)
        ...     return passes.Program(cf.graph.nodes, cf.graph.outputs)
        >>> def types(p):
        ...     return [node.type for node in p.nodes]
        >>> def f(x):
        ...     unused = ef.exp(x)
        ...     return x * 2.0
        >>> types(passes.eliminate_dead_code(program(f, ef.TensorSpec([2]))))
        ['Placeholder', 'Mul']
    """
    live = {id(t) for t in program.outputs if _is_symbolic(t)}
    kept = []
    for node in reversed(program.nodes):
        if node.op is graph.PLACEHOLDER or has_effects(node) or any(
                id(o) in live for o in node.outputs):
            kept.append(node)
            live.update(id(t) for t in node.tensor_inputs())
    kept.reverse()
    return Program(kept, program.outputs, program.inplace)


# -- buffer reuse -------------------------------------------------------------------------
def plan_buffer_reuse(program: Program) -> Program:
    """Marks elementwise nodes that may write into a dead input buffer (NumPy ``out=``).

    A buffer may be overwritten when it was allocated by the graph itself (not an input,
    a constant or a variable), when no tensor sharing it (views made by reshapes, slices,
    ...) is used later or returned, and when the result has its dtype and shape.

    Example:
        >>> import eagerflow as ef
        >>> from eagerflow.graph import passes
        >>> def program(fn, *specs):
        ...     cf = ef.function(fn).get_concrete_function(*specs)
        ...     return passes.Program(cf.graph.nodes, cf.graph.outputs)
        >>> def types(p):
        ...     return [node.type for node in p.nodes]
        >>> p = passes.plan_buffer_reuse(program(lambda x: ef.exp(x) * 2.0 + 1.0,
        ...                                            ef.TensorSpec([3])))
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
        if node.op.name in FRESH_OPS:
            for out in node.outputs:
                group[id(out)] = [out]
                fresh[id(out)] = True
            continue
        # Anything else may return views of its inputs: its outputs share their buffers.
        members = []
        for t in inputs:
            for m in group.get(id(t), [t]):
                if all(m is not x for x in members):
                    members.append(m)
        members.extend(node.outputs)
        for m in members:
            group[id(m)] = members
        for out in node.outputs:
            fresh[id(out)] = False
    return Program(program.nodes, program.outputs, inplace)


def _reusable_input(node, index, group, fresh, last_use):
    if node.op.name not in INPLACE_OPS or len(node.outputs) != 1 or node.attr_inputs:
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
