"""The graph executor: an optimised program compiled to one flat Python function.

`compile_program` turns a `passes.program.Program` into straight-line code, one line per
op, over local-variable slots (``s0, s1, ...``): each line is a direct NumPy call (a
ufunc for elementwise ops, with ``out=`` when `plan_buffer_reuse` found a dead input
buffer) or the op's own forward function. There is no per-op dispatch, no tensor
wrapping and no tape check: only the graph's inputs and outputs are tensors. Python
scalars next to a tensor are converted once, at compile time, to a 0-d array of the
dtype NumPy would give them (about 0.25 µs less per call than a Python float).

The source is generated from the graph's structure only: it names slots, kernels and
constants by number; every value (op functions, attributes, constants, variables) is
passed in through the function's globals, never written into the source. An exception
is mapped back to the op that raised it (from the line number) and reported like an
eager error, ``... [Op:Name]``.

Examples (``jit_compile=False``: with the numba kernel set, this chain would otherwise be
one fused program, see `passes.fusion`):
    >>> import eagerflow as ef
    >>> @ef.function(jit_compile=False)
    ... def f(x, y):
    ...     return ef.tanh(x * y + 0.5) - y
    >>> print(f.get_concrete_function(ef.constant([1.0]), ef.constant([2.0])).plan_source())
    def plan(s0, s1):
        s2 = u2(s0, s1)
        s3 = u3(s2, l3_1, s2)
        s4 = u4(s3, s3)
        s5 = u5(s4, s1, s4)
        return (s5,)
"""

from __future__ import annotations

import numpy as np

from eagerflow.core import buffers, dispatch, dtypes, errors
from eagerflow.core import variable as variable_module
from eagerflow.graph import graph, trace
from eagerflow.graph.passes import buffer_reuse
from eagerflow.ops import training_ops
from eagerflow.ops.array_ops import index_value
from eagerflow.ops.kernels import extrema, saved

_is_symbolic = graph.is_symbolic

_BIG = 1 << 16  # elements: slots this large are released right after their last use


class _Slot:
    """Marks where a tensor's run-time value goes in an attribute template."""

    __slots__ = ("index",)

    def __init__(self, index):
        self.index = index


def _bind(template, values):
    """Attributes with the run-time values of the tensors they contain."""
    if isinstance(template, _Slot):
        return index_value(values[template.index])  # a 0-d integer is an int, as eagerly
    if isinstance(template, dict):
        return {k: _bind(v, values) for k, v in template.items()}
    if isinstance(template, tuple):
        return tuple(_bind(v, values) for v in template)
    if isinstance(template, list):
        return [_bind(v, values) for v in template]
    if isinstance(template, slice):
        return slice(_bind(template.start, values), _bind(template.stop, values),
                     _bind(template.step, values))
    return template


class Plan:
    """A compiled program: call it with the input arrays, get the tuple of output values.

    Attributes:
        program: the optimised `Program` it runs.
        source: the generated Python source.

    Examples:
        >>> import numpy as np
        >>> import eagerflow as ef
        >>> from eagerflow.graph import executor
        >>> from eagerflow.graph.passes import pipeline
        >>> cf = ef.function(lambda x: x * 3.0).get_concrete_function(ef.TensorSpec([2]))
        >>> program = pipeline.optimize(cf.graph.nodes, cf.graph.outputs)
        >>> plan = executor.compile_program(program, cf.graph.inputs)
        >>> plan(np.array([1.0, 2.0], np.float32))
        (array([3., 6.], dtype=float32),)
    """

    def __init__(self, program, inputs, name="plan", check_numerics=False):  # noqa: D107
        self.program = program
        self.name = name
        self._line_nodes: dict[int, tuple] = {}
        self._arena: list = []  # (shape, dtype) of each buffer of the memory plan
        self.source, self._env = _generate(program, inputs, self._line_nodes, check_numerics,
                                           self._arena)
        code = compile(self.source, f"<ef.function plan {name}>", "exec")
        namespace: dict = {}
        exec(code, self._env, namespace)  # noqa: S102 - source generated from slot numbers only
        self._fn = namespace["plan"]
        self._code = self._fn.__code__
        if self._arena:
            self._fn = _with_arena(self._fn, self._arena)

    @property
    def arena_bytes(self) -> int:
        """The bytes of one set of the memory plan's buffers (0 when it has none)."""
        return sum(int(np.prod(shape)) * dtype.itemsize for shape, dtype in self._arena)

    def __call__(self, *arrays) -> tuple:
        try:
            return self._fn(*arrays)
        except Exception as e:  # noqa: BLE001 - re-raised, naming the op
            raise self._translate(e) from None

    def _translate(self, error):
        tb = error.__traceback__
        while tb is not None and tb.tb_frame.f_code is not self._code:
            tb = tb.tb_next
        entry = self._line_nodes.get(tb.tb_lineno) if tb is not None else None
        if entry is None:
            return error
        node, args = entry
        if node.op is graph.PY_FUNCTION:
            return error
        if isinstance(error, errors.OpError):
            return type(error)(error.message, op=error.op or node.type)
        local = tb.tb_frame.f_locals
        values = [local[a] if a in local else self._env.get(a) for a in args]
        return dispatch.op_error(node.op, values, node.attrs, error)


def _with_arena(run, arena: list):
    """`run` (a generated plan taking its memory plan's buffers first) as a function of the
    input arrays alone. Each running call takes a set of buffers of its own, so calls from
    several threads (or a recursive call) never share one; the set goes back to the free
    list when the call ends (its outputs never live in it, see `buffer_reuse`)."""
    free: list = []

    def plan(*arrays):
        try:
            buffers_ = free.pop()
        except IndexError:
            buffers_ = tuple(np.empty(shape, dtype) for shape, dtype in arena)
        try:
            return run(buffers_, *arrays)
        finally:
            free.append(buffers_)

    return plan


def compile_program(program, inputs, name: str = "plan", check_numerics=False) -> Plan:
    """Compiles `program` (`inputs`: its placeholders in call order) into a `Plan`; with
    `check_numerics`, every floating-point op output is checked for NaN and Inf (see the
    `Plan` example)."""
    return Plan(program, inputs, name, check_numerics)


def _check(value, name):
    """Raises if `value` has NaN or Inf (`ef.debugging.enable_check_numerics` in graphs)."""
    array = np.asarray(value)
    if array.dtype.kind in "fc" and not np.isfinite(array).all():
        kind = "NaN" if np.isnan(array).any() else "Inf"
        where = tuple(int(i) for i in np.argwhere(~np.isfinite(array))[0])
        raise errors.InvalidArgumentError(
            f"check_numerics: output of {name} (shape {array.shape}) has {kind} values, "
            f"first at index {where}", name
        )


def _literal(value, node, env, key):
    """The env name of a scalar literal, converted to a typed 0-d array when exact."""
    out = node.outputs[0] if node.outputs else None
    tensors = [x for x in node.inputs if _is_symbolic(x)]
    if (out is not None and tensors and type(value) in (int, float) and node.op.ufunc is not None
            and all(t.dtype == out.dtype for t in tensors) and out.dtype.kind in "fiu"):
        try:
            array = np.asarray(value, out.dtype)
            if out.dtype.kind == "f" and np.isfinite(value) and not np.isfinite(array):
                raise OverflowError
            value = array
        except (OverflowError, ValueError):
            pass
        kernel = node.op.ufunc[0] if type(node.op.ufunc) is tuple else node.op.ufunc
        if kernel in (np.maximum, np.minimum) and isinstance(value, np.ndarray) \
                and None not in tuple(out.shape):
            # a block of the constant: NumPy's 0-d operand path is 2.5x slower here
            value = extrema.operand(tuple(out.shape), value, out.dtype)
    env[key] = value
    return key


def _size(t) -> int:
    return _BIG if None in t.shape else int(np.prod(t.shape))


def _generate(program, inputs, line_nodes, check_numerics=False, arena=None):
    from eagerflow.graph import control_flow, python_ops

    env = {
        "_asarray": dtypes.as_array, "_assign": buffers.write, "_bind": _bind, "_check": _check,
        "_update": buffers.update,
        "_generators": trace.resolve_generators,
        "_print": python_ops.run_print, "_py_function": python_ops.run_py_function,
        "_cond": control_flow.run_cond, "_while": control_flow.run_while,
    }
    names: dict[int, str] = {id(t): f"s{i}" for i, t in enumerate(inputs)}
    count = len(inputs)
    for index, node in enumerate(program.nodes):
        for out in node.outputs:
            if id(out) in names:
                continue
            if node.op is graph.CONST:
                env[f"c{index}"] = node.attrs["value"]
                names[id(out)] = f"c{index}"
            elif node.op is graph.PLACEHOLDER:
                raise errors.InternalError(f"placeholder {node.name} is not a plan input")
            else:
                names[id(out)] = f"s{count}"
                count += 1
    last_use: dict[str, int] = {}
    for index, node in enumerate(program.nodes):
        for x in node.tensor_inputs():
            last_use[names[id(x)]] = index
    returned = {names[id(t)] for t in program.outputs if _is_symbolic(t)}
    big = {names[id(o)] for n in program.nodes for o in n.outputs if _size(o) >= _BIG}
    savers = saved.producers_to_save(program.nodes)
    # Slots whose buffers a later node recycles stay bound until that node.
    kept = {names[id(t)] for t in program.recycle.values()}
    # The memory plan: buffers allocated once per plan (`buffer_reuse.plan_buffer_reuse`
    # says which results may live in them), passed in as the tuple ``m``.
    arena_slots: dict[int, str] = {}
    for node in program.nodes:
        if id(node) in program.arena and arena is not None:
            arena_slots[id(node)] = f"m{len(arena)}"
            arena.append((tuple(node.outputs[0].shape), node.outputs[0].dtype))
    params = [f"s{i}" for i in range(len(inputs))]
    # Fused optimizer updates that write their variables in place, and the assigns they replace
    updates = buffer_reuse.in_place_updates(program)
    replaced = {a for _, assigns in updates.values() for a in assigns}
    lines = [f"def plan({', '.join((['m'] if arena_slots else []) + params)}):"]
    if arena_slots:
        lines.append(f"    {', '.join(arena_slots.values())}, = m")
    alive: set[str] = set()
    for index, node in enumerate(program.nodes):
        if node.op is graph.PLACEHOLDER or node.op is graph.CONST or id(node) in replaced:
            continue
        args = [names[id(x)] if _is_symbolic(x) else _literal(x, node, env, f"l{index}_{j}")
                for j, x in enumerate(node.inputs)]
        targets = [names[id(o)] for o in node.outputs]
        update = updates.get(id(node))
        if node.op in graph.ASSIGN_MODES or update is not None:
            # drop dead references so writes stay in place (an in-place update no longer
            # needs its reads of the variables it writes: `buffers.update` gets the buffers)
            states = set(args[:len(node.outputs)]) - set(args[len(node.outputs):]) \
                if update is not None else set()
            dead = sorted(s for s in alive if (last_use.get(s, -1) < index or s in states
                                               and last_use.get(s, -1) == index)
                          and s not in returned and s not in kept)
            if dead:
                lines.append(f"    {' = '.join(dead)} = None")
                alive.difference_update(dead)
        arg_names = args + [names[id(t)] for t in node.attr_inputs]
        if update is not None:
            env[f"w{index}"] = training_ops.in_place_writer(node.op, node.attrs, len(targets))
            env[f"v{index}"] = update[0]
            code = [f"_update(v{index}, w{index}, {', '.join(args[len(targets):])})"]
            targets = []
        else:
            code = _node_code(node, index, args, targets, names, env, program,
                              id(node) in savers, arena_slots.get(id(node)))
        if check_numerics and node.op.forward is not None:
            env[f"n{index}"] = node.type
            code += [f"_check({t}, n{index})" for t, o in zip(targets, node.outputs, strict=True)
                     if o.dtype.kind in "fc"]
        for line in code:
            lines.append(f"    {line}")
            line_nodes[len(lines)] = (node, arg_names)
        recycled = program.recycle.get(id(node))
        if recycled is not None and names[id(recycled)] not in targets:
            lines.append(f"    {names[id(recycled)]} = None")  # now held by the output
            alive.discard(names[id(recycled)])
        alive.update(t for t in targets if t.startswith("s"))
        for x in node.tensor_inputs():
            slot = names[id(x)]
            if slot in big and slot in alive and last_use.get(slot) == index \
                    and slot not in returned and slot not in kept:
                lines.append(f"    {slot} = None")
                alive.discard(slot)
    writes = [n for n, (node, _) in line_nodes.items()
              if node.op in graph.ASSIGN_MODES or id(node) in updates]
    if writes:
        env["_updates"] = variable_module.atomic_update()
        _group_writes(lines, line_nodes, min(writes), max(writes))
    results = [names[id(t)] for t in program.outputs]
    lines.append(f"    return ({', '.join(results)}{',' if results else ''})")
    return "\n".join(lines) + "\n", env


def _group_writes(lines: list, line_nodes: dict, first: int, last: int) -> None:
    """Puts source lines `first` to `last` (1-based: the first and last variable write) in
    one update group, so a checkpoint saved by another thread holds all of this run's
    writes or none (`variable.atomic_update`). Only the writing stretch, not the whole run,
    so that the group rarely spans a wait for another thread (an iterator's next element
    comes before a step's first write)."""
    lines[first - 1:last] = ["    with _updates:"] + ["    " + line for line in
                                                      lines[first - 1:last]]
    moved = {number + (number >= first): entry for number, entry in line_nodes.items()}
    line_nodes.clear()
    line_nodes.update(moved)


def _node_code(node, k, args, targets, names, env, program, save=False, arena=None) -> list:
    op = node.op
    lhs = ", ".join(targets) + ("," if len(targets) == 1 and op.num_outputs != 1 else "")
    if op is graph.READ:
        env[f"v{k}"] = node.attrs["variable"]
        return [f"{targets[0]} = v{k}._buf"]
    if op in graph.ASSIGN_MODES:
        env[f"v{k}"] = node.attrs["variable"]
        mode = graph.ASSIGN_MODES[op]
        return [f"_assign(v{k}, {args[0]}, {mode!r})"]  # checks the shape and dtype
    if op in (graph.PRINT, graph.PY_FUNCTION, graph.COND, graph.WHILE):
        env[f"a{k}"] = node.attrs
        call = {graph.PRINT: "_print", graph.PY_FUNCTION: "_py_function",
                graph.COND: "_cond", graph.WHILE: "_while"}[op]
        tensors = ", ".join(args) + ("," if len(args) == 1 else "")
        if not targets:
            return [f"{call}(a{k}, ({tensors}))"]
        return [f"{', '.join(targets)}, = {call}(a{k}, ({tensors}))"]
    ufunc = op.ufunc  # the forward's own ufunc (`Op.ufunc`), called directly
    if ufunc is not None and not node.attr_inputs and not node.attrs:
        kernel, *constants = ufunc if type(ufunc) is tuple else (ufunc,)
        env[f"u{k}"] = kernel
        call_args = list(args)
        for j, extra in enumerate(constants):
            call_args.append(_literal(extra, node, env, f"x{k}_{j}"))
        target_input = program.inplace.get(id(node))
        recycled = program.recycle.get(id(node))
        out_slot = args[target_input] if target_input is not None else (
            names[id(recycled)] if recycled is not None else arena)
        if out_slot is not None:
            # Positional `out` is ~20 ns faster; NumPy deprecates it for maximum/minimum only.
            keyword = "out=" if kernel in (np.maximum, np.minimum) else ""
            call_args.append(f"{keyword}{out_slot}")
        call = f"u{k}({', '.join(call_args)})"
    else:
        env[f"f{k}"] = op.forward
        call_args = list(args)
        if node.attr_inputs:
            template = graph.map_attr_tensors(
                node.attrs, lambda t: _Slot(_position(node.attr_inputs, t)))
            env[f"a{k}"] = template
            slots = ", ".join(names[id(t)] for t in node.attr_inputs)
            call_args.append(f"**_bind(a{k}, ({slots},))")
        elif any(isinstance(v, trace.GeneratorRef) for v in node.attrs.values()):
            env[f"a{k}"] = node.attrs  # random generators are looked up on every run
            call_args.append(f"**_generators(a{k})")
        elif node.attrs or save:
            # a forward whose result a later gradient op takes keeps it (see ops/saved.py)
            env[f"a{k}"] = {**node.attrs, "save_for_gradient": True} if save else node.attrs
            call_args.append(f"**a{k}")
        target_input = program.inplace.get(id(node))
        recycled = program.recycle.get(id(node))
        if target_input is not None:  # a non-ufunc `elementwise` forward takes `out=`
            call_args.append(f"out={args[target_input]}")
        elif recycled is not None:
            call_args.append(f"out={names[id(recycled)]}")
        elif arena is not None:  # an elementwise forward, or one declaring ``out=``
            call_args.append(f"out={arena}")
        call = f"f{k}({', '.join(call_args)})"
    if op.num_outputs == 1:
        out = node.outputs[0]
        if not out.shape or (ufunc is None and not node.op.returns_array):
            call = f"_asarray({call})"
        return [f"{targets[0]} = {call}"]
    code = [f"{lhs} = {call}"]
    for target, out in zip(targets, node.outputs, strict=False):
        if not out.shape:
            code.append(f"{target} = _asarray({target})")
    return code


def _position(tensors: list, tensor) -> int:
    """The index of `tensor` in `tensors` by identity (``list.index`` would compare with
    ``==``, an elementwise op on tensors)."""
    return next(i for i, t in enumerate(tensors) if t is tensor)


