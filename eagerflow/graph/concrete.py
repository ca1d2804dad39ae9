"""ConcreteFunction: one traced graph, callable, differentiable, printable.

Calling it runs the optimised graph through a compiled `executor.Plan`. When a tape
records and tracks one of its inputs (or a trainable variable the graph reads), the call
is recorded on the tape as a single op whose gradient is itself a traced graph:

* the *backward graph* is traced once per set of differentiated inputs by playing the
  forward trace's tape records backwards, exactly as `GradientTape.gradient` would
  (custom gradients included);
* forward tensors the gradient rules use (intermediates) become extra outputs of the
  forward plan and inputs of the backward graph, so nothing is recomputed;
* the backward graph is a `ConcreteFunction` too, so its own calls are recorded the same
  way, which makes second and higher order gradients work.

Examples:
    >>> import eagerflow as ef
    >>> f = ef.function(lambda x: x * x * x)
    >>> x = ef.constant(2.0)
    >>> with ef.GradientTape() as outer:
    ...     outer.watch(x)
    ...     with ef.GradientTape() as inner:
    ...         inner.watch(x)
    ...         y = f(x)
    ...     dy = inner.gradient(y, x)
    >>> dy, outer.gradient(dy, x)
    (ef.Tensor(12.0, shape=(), dtype=float32), ef.Tensor(12.0, shape=(), dtype=float32))
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from eagerflow.core import autodiff, context, dispatch, errors, nest, spec, tensor
from eagerflow.core import tape as tape_lib
from eagerflow.graph import executor, graph, trace
from eagerflow.graph.passes import fusion, pipeline

_Tensor = tensor.Tensor
_ndarray = np.ndarray
_new = object.__new__


class Output:
    """Marks output number `index` in a function's structured outputs.

    Examples:
        >>> from eagerflow.graph.concrete import Output
        >>> Output(2)
        Output(2)
    """

    __slots__ = ("index",)

    def __init__(self, index):  # noqa: D107
        self.index = index

    def __repr__(self) -> str:
        return f"Output({self.index})"


def compile_packer(structured):
    """A function ``packer(values)`` that builds `structured` with ``values[i]`` in place of
    each ``Output(i)``: the same result as `nest.map_structure` over it, without walking the
    structure on every call (one generated expression).

    Examples:
        >>> from eagerflow.graph.concrete import Output, compile_packer
        >>> compile_packer((Output(1), [Output(0), "x"], {"b": Output(1)}))(["v0", "v1"])
        ('v1', ['v0', 'x'], {'b': 'v1'})
    """
    constants: list = []

    def constant(value) -> str:
        constants.append(value)
        return f"c[{len(constants) - 1}]"

    def expression(node) -> str:
        if isinstance(node, Output):
            return f"o[{node.index}]"
        if isinstance(node, dict):  # nest rebuilds plain dicts in the original key order
            items = ", ".join(f"{constant(k)}: {expression(v)}" for k, v in node.items())
            return "{" + items + "}"
        if isinstance(node, list):
            return "[" + ", ".join(expression(item) for item in node) + "]"
        if isinstance(node, tuple):
            items = "".join(f"{expression(item)}, " for item in node)
            if type(node) is tuple:
                return f"({items})"
            if hasattr(node, "_fields"):  # namedtuple
                return f"{constant(type(node))}({items})"
            return f"{constant(type(node))}(({items}))"
        return constant(node)

    source = f"lambda o: {expression(structured)}"
    return eval(source, {"c": tuple(constants)})  # noqa: S307 - generated from the structure


def _wrap(value):
    result = _new(_Tensor)
    result._value = value if type(value) is _ndarray else np.asarray(value)
    return result


class ConcreteFunction:
    """A traced graph with a fixed input signature.

    Call it with tensors matching `inputs` (in the order of the traced call's tensor
    arguments). `graph` is the traced graph, `optimized_graph` what actually runs.

    Attributes:
        graph: the traced `Graph` (`graph.operations`, printable with `str`).
        inputs: the placeholder tensors.
        outputs: the flat output tensors.
        structured_outputs: the outputs in the structure the Python function returned.
        variables / trainable_variables: the variables the graph reads or writes.
        literals: the Python (non-tensor) argument values it was traced with; a call may
            repeat them or leave them out, but another value is a `TypeError`.

    Examples:
        >>> import eagerflow as ef
        >>> cf = ef.function(lambda x: ef.exp(x) + 1.0).get_concrete_function(
        ...     ef.TensorSpec([None], ef.float32))
        >>> print(cf.graph)
        graph '<lambda>' (3 operations)
          x = Placeholder()                                                      # float32[None]
          Exp = Exp(x)                                                           # float32[None]
          AddV2 = AddV2(Exp, 1.0)                                                # float32[None]
          return AddV2
        >>> cf(ef.constant([0.0]))
        ef.Tensor([2.], shape=(1,), dtype=float32)
    """

    def __init__(self, graph_, structured_outputs, name=None):  # noqa: D107
        self.graph = graph_
        self.name = name or graph_.name
        self._structured = structured_outputs
        self._single = isinstance(structured_outputs, Output)
        self._packer = compile_packer(structured_outputs)
        self._plans: dict = {}
        self._backwards: dict = {}
        self._inference = None
        reads = [entry[0] for entry in graph_.var_reads.values()]
        self._read_variables = [v for v in reads if v.trainable]
        self._specs = [(t.shape, t.dtype) for t in graph_.inputs]
        # the Python (non-tensor) argument values of the trace, or None when not known
        self.literals: list | None = None

    # -- introspection ---------------------------------------------------------------------
    @property
    def inputs(self) -> list:
        return list(self.graph.inputs)

    @property
    def outputs(self) -> list:
        return list(self.graph.outputs)

    @property
    def structured_outputs(self):
        return nest.map_structure(
            lambda leaf: self.graph.outputs[leaf.index] if isinstance(leaf, Output) else leaf,
            self._structured)

    @property
    def output_shapes(self) -> Any:
        """The shape of each output (a tuple, None for an unknown dimension), in the
        structure the function returned; None for a Python value it returned.

        Examples:
            >>> import eagerflow as ef
            >>> cf = ef.function(lambda x: (x, [x[0]])).get_concrete_function(
            ...     ef.TensorSpec([None, 2], ef.float32))
            >>> cf.output_shapes
            ((None, 2), [(2,)])
        """
        return self._map_outputs(lambda t: tuple(t.shape))

    @property
    def output_dtypes(self) -> Any:
        """The dtype of each output, in the structure the function returned; None for a
        Python value it returned.

        Examples:
            >>> import eagerflow as ef
            >>> ef.function(lambda x: {"y": x > 0}).get_concrete_function(
            ...     ef.constant(1.0)).output_dtypes
            {'y': dtype('bool')}
        """
        return self._map_outputs(lambda t: t.dtype)

    def _map_outputs(self, fn) -> Any:
        return nest.map_structure(
            lambda leaf: fn(self.graph.outputs[leaf.index]) if isinstance(leaf, Output)
            else None, self._structured)

    @property
    def variables(self) -> list:
        return self.graph.variable_list

    @property
    def trainable_variables(self) -> list:
        return [v for v in self.graph.variable_list if v.trainable]

    @property
    def optimized_graph(self):
        """The optimised program the executor runs (`.operations`, like a graph)."""
        return self._plan().program

    def plan_source(self) -> str:
        """The generated Python source of the compiled graph (for inspection)."""
        return self._plan().source.rstrip("\n")

    def pretty_printed_graph(self, optimized: bool = False) -> str:
        """The graph as text; `optimized` prints the program that actually runs."""
        if not optimized:
            return graph.format_graph(self.graph)
        optimized_graph = graph.Graph(f"{self.graph.name} (optimized)")
        optimized_graph.nodes = list(self.optimized_graph.nodes)
        optimized_graph.outputs = list(self.optimized_graph.outputs)
        return graph.format_graph(optimized_graph)

    def __str__(self) -> str:
        signature = ", ".join(f"{t._node.name}: {graph.format_spec(t.shape, t.dtype)}"
                              for t in self.graph.inputs)
        program = self.optimized_graph
        return (f"ConcreteFunction {self.name}({signature})\n"
                f"{graph.format_graph(self.graph)}\n"
                f"  (runs as {len(program.nodes)} operations after optimisation)")

    def __repr__(self) -> str:
        return f"<ef.ConcreteFunction {self.name!r} with {len(self.graph.nodes)} operations>"

    # TensorFlow's FunctionType and AtomicFunction objects are left out on purpose.
    _ABSENT = {
        "function_type": "print the function (its signature and graph), or read "
                         "`graph.inputs` and `structured_outputs`",
        "inference_fn": "eagerflow has no separate AtomicFunction: call the "
                        "ConcreteFunction itself",
    }

    if not TYPE_CHECKING:  # (type checkers keep flagging unknown attributes)
        def __getattr__(self, name):
            hint = ConcreteFunction._ABSENT.get(name)
            raise AttributeError(f"'ConcreteFunction' object has no attribute {name!r}"
                                 + (f": {hint}" if hint else ""))

    # -- calling -----------------------------------------------------------------------------
    def _plan(self, extra=()):
        check = context.flags.check_numerics
        if not extra and not check and self._inference is not None:
            return self._inference
        key = (check,) + tuple(id(t) for t in extra)
        plan = self._plans.get(key)
        if plan is None:
            outputs = list(self.graph.outputs) + list(extra)
            # check_numerics names the op of each bad value: fused programs would hide it
            fuse = not check and fusion.wanted(self.graph.jit_compile)
            program = pipeline.optimize(self.graph.nodes, outputs, fuse)
            plan = executor.compile_program(program, self.graph.inputs, self.name, check)
            self._plans[key] = plan
            if not extra and not check:
                self._inference = plan
        return plan

    def __call__(self, *args, **kwargs):
        """Calls the graph with tensors (or values convertible to tensors) for its inputs."""
        flat = [x for x in nest.flatten((args, kwargs)) if _is_tensor_like(x)]
        if self.literals is not None:
            self._check_literals(args, kwargs)
        if len(flat) != len(self.graph.inputs):
            raise TypeError(
                f"ConcreteFunction {self.name} takes {len(self.graph.inputs)} tensor inputs "
                f"({self._describe_inputs()}), got {len(flat)}"
            )
        tensors = [dispatch.convert_input(x) for x in flat]
        for i, (t, (shape, dtype)) in enumerate(zip(tensors, self._specs, strict=False)):
            if t.dtype != dtype or t.ndim != len(shape) or any(
                    d is not None and d != n for d, n in zip(shape, t.shape, strict=False)):
                raise errors.InvalidArgumentError(
                    f"ConcreteFunction {self.name}: input {i} must be "
                    f"{graph.format_spec(shape, dtype)}, got {graph.format_spec(t.shape, t.dtype)}"
                )
        return self.pack(self.call_flat(tensors))

    def _check_literals(self, args, kwargs):
        """Python values given to a call must be those it was traced with (as TensorFlow:
        they are fixed in the graph; a different one would be silently ignored)."""
        expected = list(self.literals or ())
        for value in nest.flatten((args, kwargs)):
            if value is None or _is_tensor_like(value) or isinstance(value, spec.TensorSpec):
                continue
            for i, literal in enumerate(expected):
                if literal is value or (type(literal) is type(value) and _same(literal, value)):
                    del expected[i]
                    break
            else:
                raise TypeError(
                    f"ConcreteFunction {self.name} was traced with the Python values "
                    f"{self.literals!r}, which are fixed in its graph; got {value!r}. Pass "
                    "only its tensors, or get another ConcreteFunction for other values.")

    def _describe_inputs(self) -> str:
        return ", ".join(graph.format_spec(s, d) for s, d in self._specs)

    def pack(self, outputs):
        """The flat output tensors in the structure the Python function returned."""
        return self._packer(outputs)

    def run_arrays(self, arrays):
        """Runs the graph on input arrays with nothing recording; returns the structured
        outputs (the hot path of `Function.__call__`)."""
        plan = self._plan()
        try:
            values = plan._fn(*arrays)
        except Exception as e:  # noqa: BLE001 - re-raised, naming the op
            raise plan._translate(e) from None
        if self._single:
            return _wrap(values[self._structured.index])
        return self._packer([_wrap(v) for v in values])

    def call_flat(self, tensors) -> list:
        """Runs the graph on eager tensors (one per input); returns the output tensors."""
        state = context.thread
        if state.tracer is not None:
            from eagerflow.graph import replay

            return replay.call_in_trace(self, tensors)
        if state.tapes:
            recorded = self._call_recorded(tensors, state.tapes)
            if recorded is not None:
                return recorded
        plan = self._plan()
        return [_wrap(o) for o in plan(*[t._value for t in tensors])]

    # -- gradients ---------------------------------------------------------------------------
    def _tracked_mask(self, tensors, tapes):
        snapshots = [v.read_value() for v in self._read_variables]  # lets tapes watch them
        keys = list(tensors) + snapshots
        mask = tuple(
            t.dtype.kind in "fc" and context.on_tape(tapes, t) for t in keys
        )
        return keys, mask

    def _call_recorded(self, tensors, tapes):
        keys, mask = self._tracked_mask(tensors, tapes)
        if not any(mask):
            return None
        backward = self.backward(mask)
        plan = self._plan(backward.extra)
        values = plan(*[t._value for t in tensors])
        outputs = [_wrap(o) for o in values]
        context.record_op(tapes, backward.op, tuple(keys), {}, tuple(outputs))
        return outputs[:len(self.graph.outputs)]

    def call_recorded_in_trace(self, tensors, tapes):
        """Inlines the graph into the current trace with the tapes paused, and records the
        call on them as one op whose gradient is this function's gradient graph (so a
        custom gradient inside it is kept, as in an eager call)."""
        from eagerflow.graph import replay

        keys, mask = self._tracked_mask(tensors, tapes)
        backward = self.backward(mask) if any(mask) else None
        extra = backward.extra if backward is not None else []
        state = context.thread
        saved, state.tapes = state.tapes, []
        try:
            values = replay.replay(self.graph, list(tensors), list(self.graph.outputs) + extra)
            # The op's outputs must be new tensors: an input passed through (or one tensor
            # twice) would make the record its own input and count gradients twice.
            seen = {id(t) for t in tensors}
            for i, value in enumerate(values):
                if id(value) in seen:
                    values[i] = dispatch.execute(dispatch.OPS["Identity"], (value,))
                seen.add(id(values[i]))
        finally:
            state.tapes = saved
        if backward is not None:
            context.record_op(tapes, backward.op, tuple(keys), {}, tuple(values))
        return values[:len(self.graph.outputs)]

    def record_traced_call(self, tensors, outputs, tapes):
        """Records a call whose outputs came from the (executing) trace itself."""
        keys, mask = self._tracked_mask(tensors, tapes)
        if not any(mask):
            return outputs
        backward = self.backward(mask)
        extra = [_wrap(t._shadow) for t in backward.extra]
        context.record_op(tapes, backward.op, tuple(keys), {}, tuple(list(outputs) + extra))
        return outputs

    def backward(self, mask):
        """The `_Backward` (gradient graph and intermediates) for the inputs in `mask`."""
        entry = self._backwards.get(mask)
        if entry is None:
            entry = self._backwards[mask] = _Backward(self, mask)
        return entry


def custom_gradient_names(graph_) -> list[str]:
    """The `@ef.custom_gradient` functions whose gradients the trace of `graph_` recorded,
    directly or inside a ConcreteFunction it called (sorted, without repeats)."""
    names = set()
    for record in graph_.records:
        op = record[0]
        if op.family is autodiff.CUSTOM_GRADIENT:
            names.add(op.origin.__name__)
        elif op.family is graph.CALL:
            names.update(custom_gradient_names(op.origin.graph))
    return sorted(names)


def _same(a, b) -> bool:
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - objects whose == is not a truth value differ
        return False


def _is_tensor_like(value) -> bool:
    return isinstance(value, (_Tensor, np.ndarray, np.generic)) or hasattr(value, "_read")


class _Backward:
    """The gradient graph of a ConcreteFunction for one set of differentiated inputs."""

    def __init__(self, forward, mask):  # noqa: D107
        self.forward = forward
        self.mask = mask
        self.extra: list = []
        for _ in range(16):  # grow the intermediates until the gradient graph needs no more
            function, captures = self._trace()
            outputs = forward.graph.outputs
            new = [t for t in captures
                   if not any(t is o for o in outputs) and not any(t is x for x in self.extra)]
            if not new:
                break
            self.extra.extend(new)
        else:
            raise errors.InternalError(f"the gradient graph of {forward.name} does not converge")
        self.function = function
        self.captures = captures
        results = list(outputs) + self.extra
        self._positions: dict[Any, Any] = {}
        for i, t in enumerate(results):
            self._positions.setdefault(id(t), []).append(i)
        self.op = graph.CALL.instance(len(results), self._rule, name=f"{forward.name}_call",
                                      origin=forward)

    def _targets(self):
        seen, targets = set(), []
        for t in list(self.forward.graph.outputs) + self.extra:
            if t.dtype.kind in "fc" and id(t) not in seen:
                seen.add(id(t))
                targets.append(t)
        return targets

    def _trace(self):
        fgraph = self.forward.graph
        targets = self._targets()
        bgraph = graph.Graph(f"{self.forward.name}_grad")
        bgraph.jit_compile = fgraph.jit_compile
        tracer = trace.Tracer(bgraph, executing=False, external=True)
        keys = fgraph.input_keys + [("variable", v) for v in self.forward._read_variables]
        with trace.active(tracer, private=True) as recorder:
            seeds = []
            for i, t in enumerate(targets):
                # Example values like the target's keep every example size consistent.
                seed = tracer.placeholder(t.shape, t.dtype, f"grad_{i}", shadow=t._shadow,
                                          probe=t._probe)
                recorder.watch(seed)
                seeds.append(seed)
            wanted = {}
            for key, needed in zip(keys, self.mask, strict=False):
                if not needed:
                    continue
                if isinstance(key, tuple):
                    for read in fgraph.var_reads.get(id(key[1]), (None, ()))[1]:
                        wanted[id(read)] = read
                else:
                    wanted[id(key)] = key
            # A captured tensor's placeholder may be a target (an output or intermediate),
            # but the records name the outer tensor: seed that one.
            alias = {id(inner): outer for outer, inner in fgraph.captures}
            recorded = [alias.get(id(t), t) for t in targets]
            grads = tape_lib.backprop(fgraph.records, recorded, seeds, set(wanted), free=False)
            structure: list[Any] = []
            for key, needed in zip(keys, self.mask, strict=False):
                found = []
                if needed:
                    sources = (fgraph.var_reads.get(id(key[1]), (None, ()))[1]
                               if isinstance(key, tuple) else [key])
                    found = [grads[id(s)] for s in sources if id(s) in grads]
                if not found:
                    structure.append(None)
                    continue
                total = found[0]
                for g in found[1:]:
                    total = total + g
                like = key[1] if isinstance(key, tuple) else key
                structure.append(tracer.ref(tape_lib.cast_like(total, like)))
        bgraph.outputs = [t for t in structure if t is not None]
        bgraph.input_keys = list(seeds) + [outer for outer, _ in bgraph.captures]
        function = ConcreteFunction(bgraph, [None if i is None else Output(i)
                                             for i in _count_positions(structure)])
        bgraph.drop_shadows()
        captures = [_resolve(outer, fgraph) for outer, _ in bgraph.captures]
        return function, captures

    def _rule(self, dy, y, *inputs, needs):
        if len(self._positions_list()) == 1:
            dy, y = (dy,), (y,)
        seeds = []
        for t in self._targets():
            total = None
            for i in self._positions[id(t)]:
                d = dy[i]
                if d is not None:
                    total = d if total is None else total + d
            seeds.append(total if total is not None else _zeros_like(y[self._positions[id(t)][0]]))
        captured = [y[self._positions[id(t)][0]] for t in self.captures]
        grads = self.function.call_flat(seeds + captured)
        structure = self.function.pack(grads)
        return tuple(g if need else None for g, need in zip(structure, needs, strict=False))

    def _positions_list(self):
        return list(self.forward.graph.outputs) + self.extra


def _count_positions(structure):
    index = 0
    result = []
    for t in structure:
        result.append(None if t is None else index)
        index += t is not None
    return result


def _zeros_like(t):
    from eagerflow.ops import creation

    return creation.zeros_like(t)


def _resolve(outer, fgraph):
    """The tensor of `fgraph` that `outer` (captured by a gradient graph) stands for."""
    if outer._graph is fgraph:
        return outer
    inner = fgraph.capture_map.get(id(outer))
    if inner is None:
        raise errors.InternalError(
            f"gradient graph of {fgraph.name!r} uses {outer.name}, which is not in that graph"
        )
    return inner
