"""The graph data structure of `ef.function`: symbolic tensors, nodes, graphs, printing.

A `Graph` is a list of `Node`s in execution order. Each node applies one op of the registry
`dispatch.OPS` (an op with a forward, or one of the graph-only ops registered below, which
the executor runs itself: placeholders, constants, variable reads and writes, control
flow, printing, Python calls) to its inputs and produces `SymbolicTensor`s. Inputs are
symbolic tensors of the same graph or Python scalars (kept as weak literals so NumPy
promotes them exactly as eagerly).

A `SymbolicTensor` is a `Tensor` whose value is not known while the function is traced:
it has a shape (``None`` for a dimension that varies between calls) and a dtype, so op
wrappers can validate arguments exactly as they do eagerly, but it refuses every attempt
to read its value from Python (``bool(t)``, ``t.numpy()``, ``np.asarray(t)``) with an
`OperatorNotAllowedInGraphError` that names the line and says what to do instead.

Examples:
    >>> import eagerflow as ef
    >>> @ef.function
    ... def f(x):
    ...     return ef.exp(x) * 2.0
    >>> graph = f.get_concrete_function(ef.TensorSpec([None, 3])).graph
    >>> [op.type for op in graph.operations]
    ['Placeholder', 'Exp', 'Mul']
    >>> graph.operations[1].outputs[0]
    ef.Tensor("Exp:0", shape=(None, 3), dtype=float32)
"""

from __future__ import annotations

import linecache
import os
import sys
import types
from typing import TYPE_CHECKING

import numpy as np

from eagerflow.core import dispatch, dtypes, tensor


class OperatorNotAllowedInGraphError(TypeError):
    """A Python operation needs the value of a tensor that is only known when the graph runs.

    Raised while `ef.function` traces a function, for example by ``if x > 0:`` or
    ``x.numpy()`` on a symbolic tensor.

    Examples:
        >>> import eagerflow as ef
        >>> from eagerflow.graph.graph import OperatorNotAllowedInGraphError
        >>> try:
        ...     ef.function(lambda x: x.numpy())(ef.constant(1.0))
        ... except OperatorNotAllowedInGraphError as e:
        ...     print(str(e).split(" on the")[0])
        `.numpy()`
    """


class OutOfScopeError(OperatorNotAllowedInGraphError, AttributeError):
    """A symbolic tensor used after its function's trace ended (kept in Python state).

    A `TypeError` (as TensorFlow's "out of scope" error when another function captures
    it) and an `AttributeError` (as TensorFlow's ``'SymbolicTensor' object has no attribute
    'numpy'`` when read eagerly).

    Examples:
        >>> import eagerflow as ef
        >>> leaked = []
        >>> ef.function(lambda x: leaked.append(x + 1) or x)(ef.constant(1))
        ef.Tensor(1, shape=(), dtype=int32)
        >>> try:
        ...     leaked[0].numpy()
        ... except AttributeError as e:
        ...     print(str(e).split(" at ")[0])
        `.numpy()` on the symbolic tensor AddV2:0
    """


_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def user_location() -> str:
    """``file:line: `source``` of the innermost frame outside eagerflow, or ``""``."""
    frame: types.FrameType | None = sys._getframe(1)
    while frame is not None:
        filename = frame.f_code.co_filename
        if not os.path.abspath(filename).startswith(_PACKAGE_DIR):
            line = linecache.getline(filename, frame.f_lineno).strip()
            where = f"{filename}:{frame.f_lineno}"
            return f"{where}: `{line}`" if line else where
        frame = frame.f_back
    return ""


def dtype_name(dtype) -> str:
    """The dtype's name, ``string`` for text (as eager tensors print it, and TensorFlow)."""
    dtype = np.dtype(dtype)
    return "string" if dtype.kind in "SUO" else dtype.name


def format_spec(shape, dtype) -> str:
    """``float32[None, 3]``: a compact shape-and-dtype string for graph printing."""
    dims = ", ".join("None" if d is None else str(d) for d in shape)
    return f"{dtype_name(dtype)}[{dims}]"


# -- graph-only ops -----------------------------------------------------------------------
# In the one registry, `dispatch.OPS`, without a forward: the executor runs each by identity.
# ``If``, ``While`` and ``EagerPyFunc`` are also the families of the per-call ops a tape
# records for one `cond`, `while_loop` or `py_function` (`Op.instance`, with its gradient).


def _graph_op(name: str, stateful: bool = False) -> dispatch.Op:
    return dispatch.register(dispatch.Op(name, None, differentiable=False, stateful=stateful))


PLACEHOLDER = _graph_op("Placeholder")
CONST = _graph_op("Const")
READ = _graph_op("ReadVariableOp")
ASSIGN = {
    "assign": _graph_op("AssignVariableOp", stateful=True),
    "assign_add": _graph_op("AssignAddVariableOp", stateful=True),
    "assign_sub": _graph_op("AssignSubVariableOp", stateful=True),
}
COND = _graph_op("If")
WHILE = _graph_op("While")
PY_FUNCTION = _graph_op("EagerPyFunc", stateful=True)
PRINT = _graph_op("PrintV2", stateful=True)
# The family of the per-call op a tape records for a call of a concrete function (its
# `origin`), as TensorFlow's ``PartitionedCall``; never a node: a call inlines the graph.
CALL = _graph_op("PartitionedCall")
# The graph-only ops a node may hold: the executor runs them, a saved graph may name them.
NODE_OPS = (PLACEHOLDER, CONST, READ, COND, WHILE, PY_FUNCTION, PRINT, *ASSIGN.values())
ASSIGN_MODES = {op: mode for mode, op in ASSIGN.items()}


class SymbolicTensor(tensor.Tensor):
    """A tensor inside a graph being traced: known shape and dtype, value known only at run time.

    Attributes:
        shape: tuple of ints, with None for dimensions that vary between calls.
        dtype: a `numpy.dtype`.
        name: ``"<node name>:<output index>"``.
        op: the `Node` that produces it.
        graph: the `Graph` it belongs to.

    Examples:
        >>> import eagerflow as ef
        >>> @ef.function(input_signature=[ef.TensorSpec([None, 3])])
        ... def f(x):
        ...     print(x, x.shape[1])
        ...     return x
        >>> _ = f.get_concrete_function()
        ef.Tensor("x:0", shape=(None, 3), dtype=float32) 3
    """

    __slots__ = ("_const", "_dtype", "_error", "_graph", "_index", "_node", "_probe", "_shadow",
                 "_shape")
    _symbolic = True  # read by op wrappers that must not ask for a traced tensor's value

    def __init__(self, shape, dtype, graph, node=None, index=0):  # noqa: D107
        self._shape = tuple(shape)
        self._dtype = np.dtype(dtype)  # the storage dtype (object for ef.string)
        self._graph = graph
        self._node = node
        self._index = index
        self._shadow = None  # an example value, used while tracing only (see tracing.py)
        self._probe = None  # the same at other sizes of the unknown dimensions
        # The error of an op that failed on the first call's real values, deferred because
        # nothing may need this value (see `raise_deferred`).
        self._error: Exception | None = None
        self._const = None  # the value, when it is a trace-time constant

    @property
    def shape(self) -> tuple:
        return self._shape

    @property
    def dtype(self) -> dtypes.DType:
        return dtypes.public(self._dtype)

    @property
    def ndim(self) -> int:
        return len(self._shape)

    @property
    def name(self) -> str:
        return f"{self._node.name}:{self._index}" if self._node is not None else "?"

    @property
    def op(self):
        return self._node

    @property
    def graph(self):
        return self._graph

    # -- the value is not available ----------------------------------------------------
    def _not_allowed(self, what: str, advice: str):
        where = user_location()
        where = f" at {where}" if where else ""
        from eagerflow.core import context

        if context.thread.tracer is None:  # kept from a finished trace and used eagerly
            return OutOfScopeError(
                f"{what} on the symbolic tensor {self.name}{where} is not possible: it belongs "
                f"to the graph of the traced function {self._graph.name!r} and has no value "
                "outside it. Return the values you need from the function instead of "
                "keeping its intermediate tensors in Python state."
            )
        return OperatorNotAllowedInGraphError(
            f"{what} on the symbolic tensor {self.name} ({format_spec(self._shape, self._dtype)})"
            f"{where} is not allowed while ef.function traces the function: its value is only "
            f"known when the graph runs. {advice}"
        )

    @property
    def _value(self):  # type: ignore[override]  # (a stand-in: see `_ValueStandIn`)
        # Code that reads ``t._value.shape`` / ``.dtype`` (the tape does, for speed) gets
        # them; anything that needs the numbers gets the error (see `_ValueStandIn`).
        if self._const is not None:
            return self._const
        return _ValueStandIn(self)

    def numpy(self):
        """Raises: a traced tensor has no value yet (use `ef.py_function` for NumPy code)."""
        raise self._not_allowed(
            "`.numpy()`", "Return the tensor from the function and call .numpy() on the result, "
            "or use ef.py_function to run NumPy code inside the graph.")

    def __array__(self, dtype=None, copy=None):
        raise self._not_allowed(
            "Converting to a NumPy array", "Use eagerflow ops (ef.exp, ef.reduce_sum, ...) "
            "instead of NumPy functions, or ef.py_function to run NumPy code in the graph.")

    def _control_flow_error(self, what: str):
        return self._not_allowed(
            what, "AutoGraph converts `if`/`while`/`for` statements on tensors in the traced "
            "function, the user's functions it calls and Layer.call methods when it can read "
            "their source (not in lambdas or code typed into `python -c`, and not with "
            "ef.function(autograph=False)); this use was not converted. Use ef.cond(pred, "
            "true_fn, "
            "false_fn) or ef.while_loop(cond, body, loop_vars) for control flow that depends "
            "on tensor values, ef.where(cond, x, y) for elementwise choices, or decide from "
            "Python values (arguments, static shapes) instead.")

    def __bool__(self):
        raise self._control_flow_error("Using it as a Python bool")

    def __int__(self):
        raise self._control_flow_error("int()")

    def __float__(self):
        raise self._control_flow_error("float()")

    def __complex__(self):
        raise self._control_flow_error("complex()")

    def __index__(self):
        raise self._control_flow_error("Using it as a Python index or range bound")

    def __len__(self) -> int:
        if not self._shape:
            raise TypeError("len() of a scalar tensor (shape ()) is undefined")
        if self._shape[0] is None:
            raise self._not_allowed("len()", "Its first dimension is unknown (None) in the "
                                    "traced signature; use ef.shape(x)[0].")
        return self._shape[0]

    def __format__(self, spec: str) -> str:
        if not spec:
            return repr(self)
        raise self._not_allowed(f"format(..., {spec!r})", "Use ef.print to print values.")

    def __reduce__(self):
        raise TypeError(f"symbolic tensor {self.name} cannot be pickled")

    def __repr__(self) -> str:
        return f'ef.Tensor("{self.name}", shape={self._shape}, dtype={dtype_name(self._dtype)})'

    __str__ = __repr__


_READ_VALUE_ADVICE = (
    "Use eagerflow ops on it instead of NumPy or Python code; run NumPy code with "
    "ef.py_function(func, inp, Tout); create Variables from values computed outside the "
    "function (or inside `with ef.init_scope():`); optimizers that update variables with "
    "NumPy in place are not traceable (use assign/assign_sub)."
)


class _ValueStandIn:
    """What a symbolic tensor's ``_value`` is: its shape and dtype, and no numbers.

    Every attempt to use it as an array raises `OperatorNotAllowedInGraphError` naming the
    tensor and the line, so code written for eager tensors fails clearly, never silently.
    """

    __slots__ = ("_tensor",)
    __array_priority__ = 1000  # NumPy defers to the refusing operators below

    def __init__(self, symbolic):
        self._tensor = symbolic

    shape = property(lambda self: self._tensor._shape)
    dtype = property(lambda self: self._tensor._dtype)
    ndim = property(lambda self: len(self._tensor._shape))

    @property
    def size(self):
        shape = self._tensor._shape
        return None if None in shape else int(np.prod(shape, dtype=np.int64))

    def _refuse(self, *args, **kwargs):
        raise self._tensor._not_allowed("Reading the value", _READ_VALUE_ADVICE)

    def __getattr__(self, name):
        self._refuse()

    __array__ = __getitem__ = __iter__ = __len__ = __bool__ = __int__ = __float__ = _refuse
    __index__ = __complex__ = __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = _refuse
    __rmul__ = __truediv__ = __rtruediv__ = __pow__ = __neg__ = __eq__ = __ne__ = _refuse
    __lt__ = __le__ = __gt__ = __ge__ = __matmul__ = __array_ufunc__ = _refuse
    __array_function__ = _refuse
    __hash__ = None  # type: ignore[assignment]  # (unhashable, like an ndarray)


def _deferred_error(inputs, attrs) -> Exception | None:
    for x in inputs:
        if type(x) is SymbolicTensor and x._error is not None:
            return x._error
    if attrs and _symbolic_leaves(attrs):
        for x in _symbolic_leaves(attrs):
            if x._error is not None:
                return x._error
    return None


def raise_deferred(values) -> None:
    """Raises the error of an op that failed on the first call's real values, if one of
    `values` depends on it.

    TensorFlow runs only the ops a graph's outputs and effects need ("non-strict"), so an
    op whose result is unused cannot fail a call. The first call of an `ef.function` runs
    each op as it is traced; when a pure op fails on the real values but not on dummy
    values of the same shapes (an index out of range, say), its error is kept on its
    outputs and raised only if an output of the function, an effect or control flow needs
    them. Unused, the node is removed by dead-code elimination before later calls.
    """
    for x in values:
        if type(x) is SymbolicTensor and x._error is not None:
            raise x._error


def is_symbolic(value) -> bool:
    """Whether `value` is a `SymbolicTensor`."""
    return type(value) is SymbolicTensor


class Node:
    """One operation in a graph.

    Attributes:
        op: the `dispatch.Op` (registry op or graph-only op).
        type: the op name, e.g. ``"AddV2"``.
        name: unique within its graph.
        inputs: `SymbolicTensor`s of the graph, or Python scalar literals.
        attrs: keyword attributes of the op; may hold symbolic tensors of the graph
            (e.g. a tensor used as an index), which are inputs too.
        outputs: the `SymbolicTensor`s it produces.

    Examples:
        >>> import eagerflow as ef
        >>> cf = ef.function(lambda x: x * 2.0).get_concrete_function(ef.TensorSpec([2]))
        >>> node = cf.graph.operations[1]
        >>> node.type, node.inputs[1], node.outputs[0].shape
        ('Mul', 2.0, (2,))
    """

    __slots__ = ("attr_inputs", "attrs", "graph", "inputs", "name", "op", "outputs")

    def __init__(self, op, inputs, attrs, name, graph):  # noqa: D107
        self.op = op
        self.inputs = list(inputs)
        self.attrs = dict(attrs)
        self.name = name
        self.graph = graph
        self.outputs: list[SymbolicTensor] = []
        # Attributes named "_..." hold Python objects for gradients, never graph inputs.
        self.attr_inputs = _symbolic_leaves(
            {k: v for k, v in self.attrs.items() if not k.startswith("_")})

    @property
    def type(self) -> str:
        return self.op.name

    def tensor_inputs(self) -> list:
        """The symbolic tensors this node reads (inputs and tensors inside attributes)."""
        return [x for x in self.inputs if is_symbolic(x)] + self.attr_inputs

    def __repr__(self) -> str:
        return f"<Node {self.name} type={self.type}>"


def _symbolic_leaves(value) -> list:
    found: list = []

    def walk(v):
        if is_symbolic(v):
            found.append(v)
        elif isinstance(v, (tuple, list)):
            for item in v:
                walk(item)
        elif isinstance(v, dict):
            for item in v.values():
                walk(item)
        elif isinstance(v, slice):
            walk(v.start)
            walk(v.stop)
            walk(v.step)

    walk(value)
    return found


def map_attr_tensors(value, fn):
    """Rebuilds an attribute value with every symbolic tensor `t` in it replaced by `fn(t)`."""
    if is_symbolic(value):
        return fn(value)
    if isinstance(value, tuple) and not hasattr(value, "_fields"):
        return tuple(map_attr_tensors(v, fn) for v in value)
    if isinstance(value, list):
        return [map_attr_tensors(v, fn) for v in value]
    if isinstance(value, dict):
        return {k: v if isinstance(k, str) and k.startswith("_") else map_attr_tensors(v, fn)
                for k, v in value.items()}
    if isinstance(value, slice):
        return slice(*(map_attr_tensors(v, fn) for v in (value.start, value.stop, value.step)))
    return value


class Graph:
    """A traced computation: nodes in execution order, its inputs, outputs and state.

    Attributes:
        name: the traced function's name.
        operations: the nodes, in execution order (placeholders first).
        inputs: the placeholder tensors, in call order.
        outputs: the flat list of output tensors.
        captures: ``(outer tensor, placeholder)`` pairs for tensors of another graph that
            this graph uses (control-flow branches, gradient graphs).
        variables: the variables the graph reads or assigns, captured by reference.

    Examples:
        >>> import eagerflow as ef
        >>> v = ef.Variable(1.0, name="v")
        >>> g = ef.function(lambda: v.assign_add(1.0).read_value()).get_concrete_function().graph
        >>> [op.type for op in g.operations], [var.name for var in g.variable_list]
        (['Const', 'AssignAddVariableOp', 'ReadVariableOp'], ['v'])
    """

    # TensorFlow's serialized form: eagerflow graphs are Python objects (printable; exported
    # as JSON by ef.saved_model), never protocol buffers.
    _ABSENT = {"as_graph_def": "eagerflow graphs are not GraphDef protocol buffers; print "
                               "the graph, or list graph.operations, to see its ops"}

    if not TYPE_CHECKING:  # (type checkers keep flagging unknown attributes)
        def __getattr__(self, name):
            if name in Graph._ABSENT:
                raise AttributeError(f"'Graph' object has no attribute {name!r}: "
                                     f"{Graph._ABSENT[name]}")
            raise AttributeError(f"'Graph' object has no attribute {name!r}")

    def __init__(self, name: str | None = "graph"):  # noqa: D107
        self.name = name
        self.nodes: list[Node] = []
        self.inputs: list[SymbolicTensor] = []
        self.outputs: list[SymbolicTensor] = []
        self.captures: list[tuple] = []
        self.capture_map: dict[int, SymbolicTensor] = {}
        self.variables: dict[int, object] = {}
        self.records: list = []  # tape records of the trace, for gradients of calls
        self.var_reads: dict[int, tuple] = {}  # id(variable) -> (variable, its reads)
        self.input_keys: list = []  # what each input stands for in `records`
        self._counts: dict[str, int] = {}
        # `ef.function(jit_compile=...)`: None follows `ef.config.optimizer` (fusion.wanted)
        self.jit_compile = None

    @property
    def operations(self) -> list:
        return list(self.nodes)

    def unique_name(self, base: str) -> str:
        count = self._counts.get(base, 0)
        self._counts[base] = count + 1
        return base if count == 0 else f"{base}_{count}"

    def add_node(self, op, inputs, attrs, out_specs, name=None) -> Node:
        """Appends a node; `out_specs` is a list of ``(shape, dtype)``.

        A node using a value whose op failed (see `raise_deferred`) fails too: a pure op
        passes the error on to its outputs, any other op (a write, a print, control flow)
        raises it, since it would act on a value that does not exist.
        """
        deferred = _deferred_error(inputs, attrs)
        if deferred is not None and (not op.pure or op in (COND, WHILE)):
            raise deferred
        node = Node(op, inputs, attrs, self.unique_name(name or op.name), self)
        node.outputs = [SymbolicTensor(shape, dtype, self, node, i)
                        for i, (shape, dtype) in enumerate(out_specs)]
        if deferred is not None:
            for out in node.outputs:
                out._error = deferred
        self.nodes.append(node)
        return node

    @property
    def variable_list(self) -> list:
        return list(self.variables.values())

    def drop_shadows(self) -> None:
        """Frees the example values kept while tracing (constants stay)."""
        for node in self.nodes:
            for out in node.outputs:
                out._shadow = None
                out._probe = None

    def __str__(self) -> str:
        return format_graph(self)

    def __repr__(self) -> str:
        return f"<ef.Graph {self.name!r} with {len(self.nodes)} operations>"


# -- printing -----------------------------------------------------------------------------
def _format_value(value, names) -> str:
    if is_symbolic(value):
        return names.get(id(value), value.name)
    if isinstance(value, np.ndarray):
        if value.size <= 6:
            return f"array({value.tolist()}, {value.dtype.name})"
        return f"array<{format_spec(value.shape, value.dtype)}>"
    if isinstance(value, np.dtype):
        return value.name
    if isinstance(value, tuple):
        return "(" + ", ".join(_format_value(v, names) for v in value) + ("," if len(value) == 1
                                                                           else "") + ")"
    if isinstance(value, list):
        return "[" + ", ".join(_format_value(v, names) for v in value) + "]"
    if isinstance(value, slice):
        parts = [_format_value(v, names) if v is not None else "" for v in
                 (value.start, value.stop, value.step)]
        return ":".join(parts[:2] if value.step is None else parts)
    if isinstance(value, np.random.Generator):
        return "<random generator>"
    if callable(value) and hasattr(value, "__name__"):
        return value.__name__
    if hasattr(value, "_buf") and hasattr(value, "name"):  # a Variable
        return f"<variable {value.name!r}>"
    if hasattr(value, "graph") and isinstance(getattr(value, "graph", None), Graph):
        return f"<graph {value.graph.name!r}>"
    return repr(value)


def format_graph(graph: Graph, indent: str = "") -> str:
    """A readable listing: one line per operation with its inputs, attributes and outputs."""
    names: dict[int, str] = {}
    lines = [f"{indent}graph {graph.name!r} ({len(graph.nodes)} operations)"]
    for node in graph.nodes:
        outs = [o for o in node.outputs]
        for o in outs:
            names[id(o)] = node.name if len(outs) == 1 else f"{node.name}:{o._index}"
        args = [_format_value(x, names) for x in node.inputs]
        args += [f"{k}={_format_value(v, names)}" for k, v in node.attrs.items()
                 if not k.startswith("_")]
        target = ", ".join(names[id(o)] for o in outs) if outs else "_"
        specs = ", ".join(format_spec(o.shape, o.dtype) for o in outs)
        line = f"{indent}  {target} = {node.type}({', '.join(args)})"
        lines.append(f"{line:<72} # {specs}" if specs else line)
        for key in ("then_branch", "else_branch", "cond", "body"):
            sub = node.attrs.get(key)
            if sub is not None and isinstance(getattr(sub, "graph", None), Graph):
                lines.append(format_graph(sub.graph, indent + "    "))
    shown = ", ".join(names.get(id(o), o.name) for o in graph.outputs)
    lines.append(f"{indent}  return {shown}")
    return "\n".join(lines)
