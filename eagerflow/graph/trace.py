"""The tracer: turns the ops a Python function runs into graph nodes.

While a function is traced, `context.thread.tracer` is a `Tracer`, so the dispatcher hands
it every op (`execute`), and variables hand it every read and write. For each op the
tracer runs the op's own NumPy forward on *example values* ("shadows") of the inputs:

* the output shapes and dtypes come out exactly as in eager mode, and invalid arguments
  raise the same errors, at trace time, from the same code (except a pure op that fails
  only on the first call's values, such as an index out of range: its error is raised
  only if the outputs or effects need its result, see `graph.raise_deferred`);
* on the first call of an `ef.function` the shadows are the real arguments and variable
  values and effects happen for real ("executing" trace), so that call's results are
  the shadows of the outputs and nothing runs twice (a `py_function` runs once per call);
* other traces (`get_concrete_function`, untaken `cond` branches, loop bodies, gradient
  graphs) use example values without effects, falling back to dummy values (zeros, or
  identity matrices) when an op fails on them.

A dimension left unknown (``None``) by an input signature is inferred per op by running
the forward a second time on inputs resized along the unknown dimensions ("probes"):
output dimensions that change are unknown too. This is `graph/shape_probe.py`'s mechanism,
the one the functional API uses for layer calls.

Examples:
    >>> import eagerflow as ef
    >>> def f(x):
    ...     print("executing eagerly:", ef.executing_eagerly(), "shape:", x.shape)
    ...     return x + 1.0
    >>> cf = ef.function(f).get_concrete_function(ef.TensorSpec([None, 2]))
    executing eagerly: False shape: (None, 2)
"""

from __future__ import annotations

import contextlib
import copy
import threading
from typing import Any, cast

import numpy as np

from eagerflow.core import buffers, context, dispatch, dtypes, errors, tensor, variable
from eagerflow.core import tape as tape_lib
from eagerflow.graph import graph, shape_probe
from eagerflow.ops.array_ops import index_value  # 0-d integers in indices

_Tensor = tensor.Tensor
_is_symbolic = graph.is_symbolic
_SHAPE_ATTRS = {"shape", "multiples", "sizes"}


class _TraceOptions(threading.local):
    """Per-thread switches of the trace in progress, the compiler's own (not the engine's)."""

    autograph = False  # converts control flow (graph/autograph); set by Function's trace


options = _TraceOptions()


def current() -> Tracer | None:
    """The trace in progress in this thread (`context.thread.tracer`, declared there as the
    engine's `context.Tracer` protocol, of which this module's `Tracer` is the one
    implementation), or None."""
    return cast("Tracer | None", context.thread.tracer)


@contextlib.contextmanager
def in_tracer(tracer):
    """Makes `tracer` (and the tapes of its trace) current for the block."""
    state = context.thread
    saved = state.tracer, state.tapes
    state.tracer, state.tapes = tracer, tracer.tapes
    try:
        yield
    finally:
        state.tracer, state.tapes = saved


@contextlib.contextmanager
def active(tracer, private: bool = False):
    """Traces the block with `tracer`; with `private`, a persistent tape records every op
    (the records become the graph's gradient information) and is yielded."""
    state = context.thread
    saved = state.tracer, state.tapes
    state.tracer, state.tapes = tracer, tracer.tapes
    context.update_flags(tracing=1)
    recorder = None
    try:
        if private:
            recorder = tape_lib.GradientTape(persistent=True)
            recorder.__enter__()  # on the trace's own tapes
            tracer.private = recorder
        yield recorder
    finally:
        if recorder is not None:
            recorder.__exit__(None, None, None)
            tracer.graph.records, tracer.graph.var_reads = tape_lib.recorded(recorder)
        state.tracer, state.tapes = saved
        context.update_flags(tracing=-1)




class Tracer:
    """Records ops into `graph`; see the module docstring.

    Args:
        graph: the `Graph` to fill.
        executing: whether effects happen for real and shadows are real values.
        parent: the tracer of the enclosing graph (for control-flow branches and bodies),
            whose tensors and variable reads are captured as inputs of this graph.
        external: whether tensors of finished graphs may be captured (gradient graphs).
        recompute: whether this trace re-runs Python for a gradient: variable writes and
            prints are dropped, random ops are refused.
        no_hoist: ids of variables to read inside this graph rather than in the parent.
    """

    def __init__(self, graph_, executing=False, parent=None, external=False, recompute=False,
                 no_hoist=()):
        self.graph = graph_
        self.executing = executing
        self.parent = parent
        self.external = external
        self.recompute = recompute or (parent is not None and parent.recompute)
        self.no_hoist = set(no_hoist)
        self.tapes: list = []
        self.assigned: dict[int, object] = {}
        self._consts: dict[int, tuple] = {}
        self._shadow_vars: dict[int, np.ndarray] = {}
        self.private = None  # the tape recording the trace for gradients (see `active`)
        # Whether this trace repeats an executing one to check variable creation (its
        # shadows are the same real arguments; nothing it does is kept).
        self.checking = False
        self.deferred: Exception | None = None  # set by `_forward`, taken by `execute`
        # id(variable) -> the read to use instead of reading again (gradient re-runs).
        self.read_overrides = dict(parent.read_overrides) if parent is not None else {}
        # The outputs of each py_function a first trace called, in order (`py_record`), and
        # the same list handed to the trace that repeats it to check variable creation
        # (`py_replay`, see Function._trace), which reuses them instead of calling Python
        # again: a py_function runs once per call, the first one included.
        self.py_record: list | None = parent.py_record if parent is not None else None
        self.py_replay: list | None = parent.py_replay if parent is not None else None

    # -- mapping inputs to graph tensors ------------------------------------------------
    def placeholder(self, shape, dtype, name, shadow=None, probe=None, key=None):
        """Adds a graph input; `shadow` is its example value (a dummy when None)."""
        node = self.graph.add_node(graph.PLACEHOLDER, (), {}, [(shape, dtype)], name=name)
        out = node.outputs[0]
        if shadow is None:
            shadow = shape_probe.dummy(shape, dtype)
            if not shape_probe.is_known(shape):
                probe = shape_probe.dummy(shape, dtype, size=shape_probe.TRACE_SIZES[1])
        elif probe is None and not shape_probe.is_known(shape):
            probe = shape_probe.resize(shadow, shape)
        out._shadow, out._probe = shadow, probe
        self.graph.inputs.append(out)
        return out

    def ref(self, value):
        """The tensor of this graph standing for `value` (a Tensor from anywhere)."""
        if _is_symbolic(value):
            if value._graph is self.graph:
                return value
            return self.capture(value)
        entry = self._consts.get(id(value))
        if entry is not None:
            return entry[1]
        array = value._value
        node = self.graph.add_node(graph.CONST, (), {"value": array},
                                   [(array.shape, array.dtype)])
        out = node.outputs[0]
        out._shadow = out._const = array
        self._consts[id(value)] = (value, out)  # keeps `value` alive so its id stays unique
        return out

    def capture(self, outer):
        """A placeholder of this graph standing for `outer`, a tensor of another graph."""
        found = self.graph.capture_map.get(id(outer))
        if found is not None:
            return found
        if self.parent is None and not self.external:
            raise graph.OutOfScopeError(
                f"The symbolic tensor {outer.name} belongs to another traced function's graph "
                f"({outer._graph.name!r}); it cannot be used in {self.graph.name!r}. Symbolic "
                "tensors only exist while their function is traced: return values from the "
                "function instead of storing them in Python state."
            )
        if outer._const is not None:  # constants are copied, not captured
            node = self.graph.add_node(graph.CONST, (), {"value": outer._const},
                                       [(outer.shape, outer.dtype)])
            out = node.outputs[0]
            out._shadow = out._const = outer._const
        else:
            out = self.placeholder(outer.shape, outer.dtype, f"captured_{outer._node.name}",
                                   shadow=outer._shadow, probe=outer._probe)
            out._error = outer._error
            self.graph.captures.append((outer, out))
        self.graph.capture_map[id(outer)] = out
        if self.private is not None and outer.dtype.kind in "fc":
            # Records name the outer tensor (ops receive it), so the recorder tracks it.
            self.private.watch(outer)
        return out

    def holds_tensor(self, value) -> bool:
        """Whether a (nested) list or tuple holds a tensor or variable."""
        return _holds_tensor(value)

    def pack(self, value, dtype=None):
        """A (nested) list holding tensors or variables, stacked with ``Pack`` ops so the
        graph reads their values when it runs (as TensorFlow packs such lists; Python
        numbers in it take the tensors' dtype); None for a list without tensors."""
        if not _holds_tensor(value):
            return None
        dtype = dtype if dtype is not None else _first_dtype(value)
        rows = [self.pack(v, dtype) if isinstance(v, (list, tuple)) and _holds_tensor(v)
                else dispatch.convert_input(v, dtype=dtype) for v in value]
        for row in rows:
            if row.dtype != dtype:
                raise TypeError(  # TensorFlow's class for this conversion
                    f"Cannot pack a list of tensors of dtypes {dtype.name} and "
                    f"{row.dtype.name} into one tensor: cast them to one dtype first (ef.cast).")
        return dispatch.execute(dispatch.OPS["Pack"], tuple(rows), {"axis": 0})

    # -- ops ---------------------------------------------------------------------------
    def execute(self, op, inputs, attrs):
        """Adds a node applying `op`; returns its symbolic output(s) like `dispatch.execute`."""
        inputs = dispatch.promote_inputs(op, dispatch.convert_inputs(op, inputs))
        refs = [self.ref(x) if isinstance(x, _Tensor) else x for x in inputs]
        node_attrs = graph.map_attr_tensors(attrs, self.ref) if _has_tensor(attrs) else attrs
        self._check_unknown_dims(op, node_attrs)
        leaves = refs + graph._symbolic_leaves(node_attrs)
        const = not op.stateful and (
            all(not _is_symbolic(r) or r._const is not None for r in leaves)
            # e.g. ef.shape(x) of a fully known shape: a trace-time constant, so it may be
            # used where a static value is needed (a random op's shape, a reshape)
            or (op.shape_only and all(not _is_symbolic(r) or None not in r.shape
                                      for r in leaves)))
        self.deferred = None
        outs = self._infer(op, refs, node_attrs)
        deferred, self.deferred = self.deferred, None
        if op.stateful:
            node_attrs = _generator_refs(node_attrs)
        node = self.graph.add_node(op, refs, node_attrs,
                                   [(shape, array.dtype) for array, _, shape in outs])
        for out, (array, probe, _) in zip(node.outputs, outs, strict=False):
            out._shadow, out._probe = array, probe
            if deferred is not None:
                out._error = deferred
            elif const and out._error is None:
                out._const = array
        outputs = tuple(node.outputs)
        tapes = context.thread.tapes
        if tapes and op.differentiable:
            context.record_op(tapes, op, inputs, attrs, outputs)
        return outputs[0] if op.num_outputs == 1 else outputs

    def _check_unknown_dims(self, op, attrs):
        if op.unknown_dims:
            return
        for key, value in attrs.items():
            if key in _SHAPE_ATTRS and isinstance(value, tuple) and any(v is None for v in value):
                raise errors.InvalidArgumentError(
                    f"attribute {key}={value} has an unknown dimension (None): the function is "
                    "traced with an input signature (or reduce_retracing) that leaves a "
                    "dimension unknown, and this op needs it static. Give that dimension a "
                    "fixed size in the input_signature, or leave input_signature out.", op.name
                )

    def _infer(self, op, refs, attrs):
        """Runs the forward on shadows (and probes): [(shadow, probe, static shape)]."""
        shadows = [r._shadow if _is_symbolic(r) else r for r in refs]
        shadow_attrs = graph.map_attr_tensors(attrs, lambda t: index_value(t._shadow))
        outs = self._forward(op, shadows, shadow_attrs, refs)
        dynamic = any(_is_symbolic(r) and r._probe is not None
                      for r in refs + graph._symbolic_leaves(attrs))
        probes: Any = [None] * len(outs)
        if dynamic:
            values = [(r._probe if r._probe is not None else r._shadow) if _is_symbolic(r) else r
                      for r in refs]
            probe_attrs = graph.map_attr_tensors(
                attrs, lambda t: index_value(t._probe if t._probe is not None else t._shadow))
            try:
                with np.errstate(all="ignore"):
                    probes = _as_list(op, op.forward(*values, **_private_rngs(op, probe_attrs)))
            except Exception:  # noqa: BLE001 - e.g. an index valid only at the shadow size
                outs, probes = self._dummy_pair(op, refs, attrs, outs)
        result = []
        for i, array in enumerate(outs):
            if not dynamic:
                shape = array.shape
            elif probes is None:
                shape = (None,) * array.ndim
            else:
                shape = shape_probe.merge(array.shape, probes[i].shape)
            if op.value_shaped_axis is not None and shape:
                shape = list(shape)
                shape[op.value_shaped_axis] = None
            # Kept even for a static shape: a value (like a Shape op's) may depend on the
            # unknown dimensions, and ops using it as an attribute need that value.
            probe = probes[i] if dynamic and probes is not None else None
            if probe is None and None in shape:  # every unknown dimension needs a probe
                probe = shape_probe.resize(array, shape)
            result.append((array, probe, tuple(shape)))
        return result

    def _dummy_pair(self, op, refs, attrs, outs):
        """Output shapes from dummy inputs (zeros) at shadow and probe sizes, or None."""
        def run(probe):
            def dummy(t):
                return np.zeros_like(t._probe if probe and t._probe is not None else t._shadow)
            values = [dummy(r) if _is_symbolic(r) else r for r in refs]
            with np.errstate(all="ignore"):
                return _as_list(op, op.forward(*values, **_private_rngs(
                    op, graph.map_attr_tensors(attrs, lambda t: index_value(dummy(t))))))
        try:
            small, large = run(False), run(True)
        except Exception:  # noqa: BLE001 - the dimensions stay unknown
            return outs, None
        if [o.shape for o in small] != [o.shape for o in outs]:
            return outs, None
        return outs, large

    def _forward(self, op, values, attrs, refs):
        if op.stateful and self.recompute:
            raise errors.UnimplementedError(
                f"the gradient of ef.cond/ef.while_loop re-runs its branch or body, which uses "
                f"the random op {op.name}: it would draw different values than the forward "
                "pass. Draw the random values outside the branch or loop and pass them in.",
                op.name,
            )
        if self.executing and not self.recompute:
            try:
                return _as_list(op, op.forward(*values, **attrs))
            except Exception as e:  # noqa: BLE001 - translated like eager errors
                error = dispatch.op_error(op, values, attrs, e)
            if not op.pure:
                raise error from None
            # Fails on these values only? Then only a use of the result fails (see
            # `graph.raise_deferred`); a wrong shape or dtype fails on dummies too.
            dummies = [shape_probe.dummy(r.shape, r.dtype) if _is_symbolic(r) else r
                       for r in refs]
            try:
                with np.errstate(all="ignore"):
                    outs = _as_list(op, op.forward(*dummies, **attrs))
            except Exception:  # noqa: BLE001
                raise error from None
            self.deferred = error
            return outs
        attrs = _private_rngs(op, attrs)
        try:
            with np.errstate(all="ignore"):
                return _as_list(op, op.forward(*values, **attrs))
        except Exception as first:  # noqa: BLE001
            # Example values may be invalid for this op (a guarded branch, a loop body run
            # past its condition): retry on dummies before calling the error real.
            dummies = [shape_probe.dummy(r.shape, r.dtype) if _is_symbolic(r) else r
                       for r in refs]
            try:
                with np.errstate(all="ignore"):
                    return _as_list(op, op.forward(*dummies, **attrs))
            except Exception:  # noqa: BLE001
                raise dispatch.op_error(op, values, attrs, first) from None

    def add_node(self, op, refs, attrs, out_specs):
        """Adds a graph-only node; `out_specs` is ``[(shape, dtype, shadow, probe)]``."""
        node = self.graph.add_node(op, refs, attrs, [(s[0], s[1]) for s in out_specs])
        for out, spec in zip(node.outputs, out_specs, strict=False):
            out._shadow, out._probe = spec[2], spec[3]
        return node

    # -- variables ------------------------------------------------------------------------
    def initial_value(self, value) -> np.ndarray:
        """The value of `value` (a tensor of this trace) for a Variable created from it.

        As in TensorFlow, a variable made on the first call of a function may start from
        the function's arguments: the call that traces is the one that runs, so the value
        is known. A trace that does not run (`get_concrete_function`, a loop body or a
        branch) does not know it."""
        if _is_symbolic(value) and value._graph is not self.graph and self.parent is not None:
            return self.parent.initial_value(value)
        if not _is_symbolic(value) or value._const is not None:
            return np.asarray(value._const if _is_symbolic(value) else value.numpy())
        if (self.executing or self.checking) and not self.recompute and self.parent is None:
            graph.raise_deferred([value])
            return np.array(value._shadow)
        raise ValueError(
            f"ef.Variable created from the traced tensor {value.name}{_at()}, in a trace that "
            "does not run (get_concrete_function, or a loop or branch of the graph): its "
            "value is not known. Create the variable on the first call of the function "
            "outside loops and branches, from a value known when tracing, or outside it.")

    def read_variable(self, variable):
        """A symbolic read of `variable` (hoisted into the parent graph when possible)."""
        key = id(variable)
        # Reads of the enclosing graph are returned as they are (ops capture them when they
        # use them), so tapes everywhere identify the read by the same tensor.
        if key in self.read_overrides:
            return self.read_overrides[key]
        if self.parent is not None and key not in self.assigned and key not in self.no_hoist:
            with in_tracer(self.parent):
                outer = self.parent.read_variable(variable)
            if context.thread.tapes:  # tapes inside this branch/body see the read too
                context.record_read(variable, outer)
            return outer
        self.graph.variables[key] = variable
        if self.executing and not self.recompute:
            shadow = buffers.read(variable)  # copy-on-write: a later write copies the buffer first
        else:
            shadow = self._shadow_vars.get(key, buffers.read(variable))
        node = self.add_node(graph.READ, [], {"variable": variable},
                             [(variable.shape, variable.dtype, shadow, None)])
        out = node.outputs[0]
        if context.thread.tapes:
            context.record_read(variable, out)
        return out

    def assign_variable(self, variable, value, mode):
        """Adds a write of `value` to `variable` (done for real in an executing trace)."""
        value = dispatch.convert_input(value, dtype=variable.dtype)
        ref = self.ref(value)
        array = ref._shadow if ref._shadow is not None else shape_probe.dummy(ref.shape, ref.dtype)
        checked = buffers.checked(variable, np.asarray(array), mode)
        key = id(variable)
        if self.recompute:
            return variable
        self.graph.variables[key] = variable
        # Enclosing branches and loop bodies write it too (through their cond/while node):
        # their later reads must stay after the write, and a loop whose body wrote it
        # retraces with its reads inside the body (not hoisted before the loop).
        tracer: Tracer | None = self
        while tracer is not None:
            tracer.assigned.setdefault(key, variable)
            tracer = tracer.parent
        self.add_node(graph.ASSIGN[mode], [ref],
                      {"variable": variable}, [])
        if self.executing:
            with context.init_scope():
                variable._assign(checked, mode)
        else:
            old = self._shadow_vars.get(key, buffers.read(variable))
            if mode == "assign":
                new = np.asarray(checked, variable.dtype).copy()
            else:
                ufunc = np.add if mode == "assign_add" else np.subtract
                new = ufunc(old, checked).astype(variable.dtype, copy=False)
            self._shadow_vars[key] = new
        return variable

    def writable_buffer(self, variable):
        """Refuses in-place NumPy writes to a variable while tracing (they would run once)."""
        raise graph.OperatorNotAllowedInGraphError(
            f"Variable {variable.name!r}: in-place NumPy updates through buffers.write/update "
            f"(as optimizers do outside ops){_at()} cannot be traced by ef.function: they "
            "would happen once, while tracing, instead of on every call. Inside a traced "
            "function update variables with variable.assign/assign_add/assign_sub and "
            "eagerflow ops, or apply the update outside the function."
        )


def _holds_tensor(value) -> bool:
    if isinstance(value, (list, tuple)):
        return any(_holds_tensor(v) for v in value)
    return isinstance(value, (_Tensor, variable.Variable))


def _first_dtype(value):
    if isinstance(value, (list, tuple)):
        return next((d for d in map(_first_dtype, value) if d is not None), None)
    return value.dtype if isinstance(value, (_Tensor, variable.Variable)) else None


def _at() -> str:
    where = graph.user_location()
    return f" at {where}" if where else ""


def _has_tensor(attrs) -> bool:
    return bool(attrs) and bool(graph._symbolic_leaves(attrs))


def _as_list(op, out) -> list:
    if op.num_outputs == 1:
        return [out if type(out) is np.ndarray else dtypes.as_array(out)]
    return [o if type(o) is np.ndarray else dtypes.as_array(o) for o in out]


class GeneratorRef:
    """Stands for the global random generator (``key`` None) or the one of op seed ``key``
    in a graph: resolved each time the graph runs, so ``ef.random.set_seed`` restarts
    traced functions like eager code (as in TensorFlow)."""

    __slots__ = ("key",)

    def __init__(self, key=None):  # noqa: D107
        self.key = key

    def resolve(self):
        """The NumPy generator this stands for now."""
        from eagerflow.ops import random

        return random.generator_for(self.key).numpy_generator

    def __repr__(self) -> str:
        return "<global random generator>" if self.key is None else f"<generator seed={self.key}>"


def _generator_refs(attrs):
    """Attributes with the global and op-seeded generators replaced by `GeneratorRef`s."""
    from eagerflow.ops import random

    found = {}
    for k, v in attrs.items():
        if isinstance(v, np.random.Generator):
            if v is random.get_global_generator().numpy_generator:
                found[k] = GeneratorRef()
            else:
                for key, gen in random.seeded_generators().items():
                    if gen.numpy_generator is v:
                        found[k] = GeneratorRef(key)
    return {**attrs, **found} if found else attrs


def resolve_generators(attrs):
    """`attrs` with every `GeneratorRef` replaced by the generator it stands for now."""
    if not any(isinstance(v, GeneratorRef) for v in attrs.values()):
        return attrs
    return {k: v.resolve() if isinstance(v, GeneratorRef) else v for k, v in attrs.items()}


def _private_rngs(op, attrs):
    """Attributes with random generators replaced by copies (trace runs draw nothing real)."""
    if not op.stateful:
        return attrs
    return {k: copy.deepcopy(v) if isinstance(v, np.random.Generator) else v
            for k, v in attrs.items()}
