"""Elementwise fusion: chains of elementwise ops on small tensors run as one compiled
program instead of one NumPy call each.

Each op of the plan costs one NumPy ufunc call, about 0.4 µs however small its operands
are; a traced function made of many elementwise ops on small tensors spends nearly all
its time there. With the numba kernel set (``eagerflow[fast]``, `ef.config.get_kernel_set`)
a region of such ops runs as one register program of `fusion_jit`'s interpreter, a numba
function compiled once per dtype and cached on disk: about 1.5 µs per call, a few ns per
instruction per block of 512 elements, and per element what the instruction costs
(arithmetic ~0.1 ns, vectorized by LLVM; float32 tanh ~2 ns, computed without a library
call; the other transcendentals are the C library's scalar functions, 2-20 ns, several
times NumPy's SIMD loops). So fusion pays on small tensors: every candidate region is
priced with both cost models (`_COSTS`) and fused only when the program wins clearly.

What fuses: the float32/float64 ops of `_EMIT` whose tensor inputs all have the output's
dtype (Python-number operands become constants of that dtype, so float32 stays float32),
with fully known, non-empty shapes; ``Pow`` only with a constant exponent (see
`_fusable`). Integer ops (floor division and modulo differ), comparisons, ``where``,
casts, float16 and every other op stay NumPy calls. A region never spans an op with
effects (a variable write, a print, a Python call, a random draw, a branch or loop): its
ops run where its results are needed, which must not move them past a write.

A program may end in a reduction: a sum, mean, maximum or minimum of the region's dtype
over every axis or the last ones (``mean(square(a - b))``, ``reduce_sum(x * y,
axis=-1)``), when nothing else reads the chain's result (else that result must exist, and
NumPy reduces it). `fusion_jit.run_reduce` accumulates block by block while the program
streams, so the chain's full-size values are never written; sums accumulate in float64
(see there for the order and its accuracy). The ops that feed only such a reduction fuse
whatever their size, since they have no result to write; what reads a reduction's result
is another program. The cost model prices the reduction too (`_REDUCE_COSTS`).

A region is a connected set of fusable ops. Its results used outside it (by another op
or as a graph output) are computed by as few programs as possible: consecutive results
share one program (one node with several outputs, values they share computed once),
placed where the last of them was computed, unless an op outside the region reads one of
them before that point; then a new program starts, and reads the results the earlier
ones materialised instead of recomputing them.

The result is an ordinary node (type ``FusedElementwise``) whose outputs are fresh
arrays: later passes may reuse their buffers, but it never writes into its inputs.
Without numba (the NumPy kernel set) the pass changes nothing: the plan stays one NumPy
call per op.

Examples:
    >>> import eagerflow as ef
    >>> from eagerflow.graph.passes import fusion, pipeline
    >>> def chain(x, y):
    ...     for _ in range(5):
    ...         x = ef.tanh(x * y + 0.5) - x * 0.1
    ...     return x
    >>> cf = ef.function(chain).get_concrete_function(ef.TensorSpec([8]), ef.TensorSpec([8]))
    >>> program = pipeline.optimize(cf.graph.nodes, cf.graph.outputs, fuse=fusion.available())
    >>> [n.type for n in program.nodes] == (
    ...     ["Placeholder", "Placeholder", "FusedElementwise"] if fusion.available()
    ...     else [n.type for n in cf.graph.nodes])
    True
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from eagerflow import compiler_options as options
from eagerflow.core import dispatch, errors
from eagerflow.graph import graph
from eagerflow.graph.passes import program as program_lib
from eagerflow.ops.kernels import kernel_sets

_is_symbolic = graph.is_symbolic
# The family of the ops of fused nodes; each node's instance runs its own program.
FUSED = dispatch.register(dispatch.Op("FusedElementwise", None, differentiable=False,
                                      fresh=True, returns_array=True))

# The opcode (its name in `fusion_jit`) of each fusable op.
_EMIT = {
    "AddV2": "ADD", "Sub": "SUB", "Mul": "MUL", "RealDiv": "DIV", "Pow": "POW", "Neg": "NEG",
    "Sqrt": "SQRT", "Maximum": "MAXIMUM", "Minimum": "MINIMUM", "Abs": "ABS", "Exp": "EXP",
    "Expm1": "EXPM1", "Log": "LOG", "Log1p": "LOG1P", "Sin": "SIN", "Cos": "COS",
    "Tan": "TAN", "Tanh": "TANH", "Floor": "FLOOR", "Ceil": "CEIL", "Sign": "SIGN",
    "Square": "SQUARE", "Reciprocal": "RECIPROCAL", "Relu": "RELU", "Sigmoid": "SIGMOID",
    "SquaredDifference": "SQUARED_DIFFERENCE",
}
# The reductions a program may end with (`fusion_jit.run_reduce`), over every axis or the
# last ones: the values reduced are never written to memory.
_REDUCE = {"Sum": "SUM", "Mean": "MEAN", "Max": "MAX", "Min": "MIN"}
_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))

# Nanoseconds per element (program on float32, program on float64, NumPy). The program's
# figures were measured at 512 elements on the development machine (2 cores, AVX-512,
# loaded) for mul, tanh, cos, sin, exp and log, the others set from those of their kind
# (vectorized arithmetic, or a C library call); NumPy's are float32's at 65536 elements,
# float64 priced the same. Calls cost `_NUMPY_CALL` per NumPy op of the plan and
# `_PROGRAM_CALL` + `_PROGRAM_STEP` per instruction per block of `_BLOCK` elements per
# program.
_COSTS = {
    "ADD": (0.1, 0.15, 0.12), "SUB": (0.1, 0.15, 0.12), "MUL": (0.1, 0.15, 0.12),
    "DIV": (0.2, 0.4, 0.12), "POW": (20.0, 30.0, 0.7), "NEG": (0.1, 0.15, 0.1),
    "SQRT": (0.3, 0.6, 0.36), "MAXIMUM": (0.2, 0.3, 0.14), "MINIMUM": (0.2, 0.3, 0.14),
    "ABS": (0.1, 0.15, 0.08), "EXP": (4.0, 10.0, 0.47), "EXPM1": (10.0, 15.0, 0.4),
    "LOG": (5.5, 11.0, 0.45), "LOG1P": (10.0, 15.0, 0.42), "SIN": (3.7, 17.0, 0.76),
    "COS": (2.2, 19.0, 0.54), "TAN": (15.0, 25.0, 0.4), "TANH": (2.1, 17.0, 0.36),
    "FLOOR": (0.2, 0.3, 0.08), "CEIL": (0.2, 0.3, 0.08), "SIGN": (0.3, 0.4, 0.41),
    "SQUARE": (0.1, 0.15, 0.12), "RECIPROCAL": (0.2, 0.4, 0.12), "RELU": (0.2, 0.3, 0.14),
    "SIGMOID": (5.0, 11.0, 1.5), "SQUARED_DIFFERENCE": (0.15, 0.2, 0.3),
}
# A reduction at the end of a program, in ns per element reduced (program on float32, on
# float64, NumPy's reduce) by the length of its rows: rows longer than a block are added
# (or compared) lane by lane, vectorized; shorter ones with sixteen partial sums (eight
# compare chains) each. Measured on 65536 elements (the fastest of 15 interleaved rounds,
# the machine loaded) with NumPy's float32 multiply at 0.12 (the scale of `_COSTS`); min
# is priced as max, mean as sum. NumPy adds a cost per row it reduces (its maximum is
# not vectorized along short rows), np.mean its Python wrapper, and each input a
# reduction program reads costs `_LOAD` an element.
_REDUCE_COSTS = {
    ("SUM", "long"): (0.1, 0.1, 0.1), ("SUM", "short"): (0.4, 0.4, 0.1),
    ("MAX", "long"): (0.15, 0.15, 0.05), ("MAX", "short"): (0.8, 0.9, 0.05),
}
_NUMPY_ROW = {"SUM": 15.0, "MAX": 60.0}  # ns per row NumPy reduces
_PROGRAM_ROW = 5.0  # ns per row of at most a block a program reduces (a call of its own)
_NUMPY_MEAN = 2.5e3  # ns np.mean adds to the ufunc call
_LOAD = 0.1  # ns per element per input of a reduction program
_NUMPY_CALL = 0.40e3  # ns per op of the plan (0.33 with two arrays, 0.49 with a scalar)
_PROGRAM_CALL = 1.5e3  # ns per program call (argument packing and numba's dispatch)
_PROGRAM_STEP = 4.0  # ns per instruction per block (the interpreter's dispatch)
_GAIN = 0.8  # fuse only when the program's estimate is below this share of NumPy's
# (tests force every region to fuse, whatever it costs, by setting `_GAIN` to infinity)
_MAX_ELEMENTS = 1 << 16  # larger results are never fused (NumPy is faster per element);
# ops that feed only a reduction at the end of a program have no result: any size streams
_BLOCK = 512  # `fusion_jit.BLOCK` (not imported: that module loads numba)
_MAX_REGISTERS = 1024  # a bound on the register file: 1024 x 512 float64 values are 4 MiB


def available() -> bool:
    """Whether elementwise fusion can run: the numba kernel set is active
    (`ef.config.get_kernel_set`; ``pip install 'eagerflow[fast]'``)."""
    return kernel_sets.active() == "numba"


def wanted(jit_compile) -> bool:
    """Whether a plan for a function made with this ``jit_compile`` is fused.

    None follows the global setting (when the numba kernel set is active); False never
    fuses; True always does (`ef.function` refuses ``jit_compile=True`` without numba).
    """
    if jit_compile is None:
        return available() and options.get_experimental_options()["elementwise_fusion"]
    return bool(jit_compile) and available()


def require() -> None:
    """Raises the error ``jit_compile=True`` (`ef.function`, `Model.compile`) gives when
    fusion cannot run."""
    if available():
        return
    absent = kernel_sets.missing()
    reason = (f"{', '.join(absent)} {'is' if len(absent) == 1 else 'are'} not installed"
              if absent else "the active kernel set is 'numpy'")
    raise errors.UnimplementedError(
        f"jit_compile=True compiles elementwise chains with numba, but {reason}. Install "
        f"the fast extra with `pip install 'eagerflow[fast]'` and use the numba kernel set "
        f"(EAGERFLOW_KERNELS=numba, or `ef.config.set_kernel_set('numba')`), or leave "
        f"jit_compile at its default to fuse only when the numba kernels are active."
    )


# -- the pass ---------------------------------------------------------------------------------
def fuse_elementwise(program: program_lib.Program) -> program_lib.Program:
    """Replaces regions of fusable elementwise ops by compiled programs where the cost
    model says it pays (see the module documentation). Without the numba kernel set,
    returns `program` unchanged.

    Examples:
        >>> import eagerflow as ef
        >>> from eagerflow.graph.passes import fusion, program
        >>> def chain(x):
        ...     return ef.tanh(ef.exp(x * 2.0 + 1.0) * x - 0.5) * x + 1.0
        >>> cf = ef.function(chain).get_concrete_function(ef.TensorSpec([4]))
        >>> p = fusion.fuse_elementwise(program.Program(cf.graph.nodes, cf.graph.outputs))
        >>> len(p.nodes) == (2 if fusion.available() else len(cf.graph.nodes))
        True
    """
    if not available():
        return program
    nodes = program.nodes
    position = {id(n): i for i, n in enumerate(nodes)}
    producer = {id(o): n for n in nodes for o in n.outputs}
    effects_before = [0]
    for node in nodes:
        effects_before.append(effects_before[-1] + program_lib.has_effects(node))
    fusable = {id(n) for n in nodes if _fusable(n)}
    ends, streamed = _reduction_ends(program, producer)
    fusable |= ends | streamed
    parent = {key: key for key in fusable}

    def root(key):
        while parent[key] != key:
            parent[key] = parent[parent[key]]
            key = parent[key]
        return key

    for node in nodes:
        if id(node) not in fusable:
            continue
        for x in node.inputs:
            source = producer.get(id(x)) if _is_symbolic(x) else None
            if source is None or id(source) not in fusable or id(source) in ends:
                continue  # (a reduction ends its program: what reads it is another one)
            # no effect between the two ops: the consumer's position is where both run
            if effects_before[position[id(node)]] == effects_before[position[id(source)] + 1]:
                parent[root(id(source))] = root(id(node))
    regions: dict = {}
    for node in nodes:
        if id(node) in fusable:
            regions.setdefault(root(id(node)), []).append(node)
    first_use = _external_uses(program, fusable, root, ends)
    replaced: dict = {}  # id(node) -> its replacement (None: computed inside a program)
    for members in regions.values():
        if len(members) < 2:
            continue
        fused = _fuse_region(members, first_use, position, ends)
        if fused is not None:
            replaced.update(fused)
    if not replaced:
        return program
    kept = []
    for node in nodes:
        if id(node) not in replaced:
            kept.append(node)
        elif replaced[id(node)] is not None:
            kept.append(replaced[id(node)])
    return program_lib.Program(kept, program.outputs, program.inplace, program.recycle)


def _fusable(node, limit: float = _MAX_ELEMENTS) -> bool:
    if node.op.name not in _EMIT or node.attrs or node.attr_inputs or len(node.outputs) != 1:
        return False
    out = node.outputs[0]
    if out.dtype not in _DTYPES or None in out.shape or not 0 < _elements(out) <= limit:
        return False
    for x in node.inputs:
        if _is_symbolic(x):
            if x.dtype != out.dtype:
                return False
        elif type(x) not in (int, float) or not _representable(x, out.dtype):
            return False
    # NumPy computes a power whose exponent is the same at every step of its loop (a scalar,
    # or a broadcast or stride-0 array) as a square root when it is 0.5: -inf ** 0.5 is NaN
    # and -0.0 ** 0.5 is -0.0, where C's pow gives inf and 0.0. Only a constant exponent
    # says which NumPy does, and `_steps` writes 0.5 as a square root.
    return node.op.name != "Pow" or _constant(node.inputs[1]) is not None


def _reduction_ends(program, producer) -> tuple[set, set]:
    """The ``id`` of every reduction a program may end with, and those of the elementwise
    ops (of any size) whose result only such reductions read, directly or through such
    ops.

    A reduction ends a program when it is a sum, mean, maximum or minimum (`_REDUCE`) over
    every axis or the last ones, of the dtype of its input, whose input is computed by a
    fusable op (`_fusable`, any size) and read by nothing else: a result also used
    elsewhere (or returned) must exist, so then NumPy reduces it.
    """
    readers: dict = {}  # id(tensor) -> the nodes reading it; None: a graph output
    for node in program.nodes:
        for t in node.tensor_inputs():
            readers.setdefault(id(t), []).append(node)
    for t in program.outputs:
        if _is_symbolic(t):
            readers.setdefault(id(t), []).append(None)
    ends: set = set()
    streamed: set = set()
    for node in reversed(program.nodes):  # readers before the ops they read
        if _columns(node) is not None:
            x = node.inputs[0]
            source = producer.get(id(x))
            if source is not None and len(readers[id(x)]) == 1 and _fusable(source, np.inf):
                ends.add(id(node))
        elif _fusable(node, np.inf) and all(
                reader is not None and (id(reader) in ends or id(reader) in streamed)
                for reader in readers.get(id(node.outputs[0]), [None])):
            streamed.add(id(node))
    return ends, streamed


def _columns(node):
    """The number of elements `node` reduces into each of its results, if it is a
    reduction a program may end with (`_reduction_ends`), else None."""
    if node.op.name not in _REDUCE or node.attr_inputs or len(node.outputs) != 1:
        return None
    x, out = node.inputs[0], node.outputs[0]
    if (not _is_symbolic(x) or out.dtype not in _DTYPES or x.dtype != out.dtype
            or None in x.shape or _elements(x) == 0):
        return None
    axes = node.attrs.get("axis")
    if axes is None:
        columns = _elements(x)
    else:
        axes = tuple(axes)
        if not axes or axes != tuple(range(x.ndim - len(axes), x.ndim)):
            return None  # a reduction over leading or inner axes: NumPy's
        columns = int(np.prod([x.shape[a] for a in axes], dtype=np.int64))
    # over axes of size 1 (a loss's mean over a last axis of 1 channel) the reduction is a
    # copy, which NumPy makes at ~0.4 ns a row, where a program's row costs ~5 ns
    return columns if columns > 1 else None


def _representable(value, dtype) -> bool:
    """Whether a finite Python number stays finite in `dtype` (1e39 is inf in float32)."""
    with np.errstate(over="ignore"):
        return bool(np.isfinite(dtype.type(value)))


def _constant(x):
    """The value of a Python number or of a 0-d trace-time constant, else None."""
    if not _is_symbolic(x):
        return x
    return x._const if x._const is not None and x.ndim == 0 else None


def _elements(t) -> int:
    return int(np.prod(t.shape, dtype=np.int64))


def _external_uses(program, fusable, root, ends) -> dict:
    """``{id(node): position of its first reader outside its region}`` for every fusable
    node whose result is read outside its region (a graph output reads it at the end);
    a reduction's result counts as read outside by any reader (it ends its program)."""
    producer = {id(o): n for n in program.nodes for o in n.outputs}
    first: dict = {}
    for index, node in enumerate(program.nodes):
        region = root(id(node)) if id(node) in fusable else None
        for t in node.tensor_inputs():
            source = producer.get(id(t))
            if source is not None and id(source) in fusable and (
                    root(id(source)) != region or id(source) in ends):
                first.setdefault(id(source), index)
    for t in program.outputs:
        source = producer.get(id(t)) if _is_symbolic(t) else None
        if source is not None and id(source) in fusable:
            first.setdefault(id(source), len(program.nodes))
    return first


def _groups(outputs, first_use, position, ends) -> list:
    """The region's results (in execution order) split into programs: a result joins the
    previous program when it has the same shape and no op outside the region reads one
    of that program's results before it is computed (the program runs where its last
    result was computed). A reduction is a program of its own."""
    groups: list = []
    for out in outputs:
        if groups and out.outputs[0].shape == groups[-1][0].outputs[0].shape and min(
                first_use[id(o)] for o in groups[-1]) > position[id(out)] and not (
                id(out) in ends or id(groups[-1][0]) in ends):
            groups[-1].append(out)
        else:
            groups.append([out])
    return groups


def _fuse_region(members, first_use, position, ends):
    """``{id(member): replacement node or None}`` for a region, or None when fusing it
    would not pay (or does not fit the interpreter's limits)."""
    producer = {id(m.outputs[0]): m for m in members}
    groups = _groups([m for m in members if id(m) in first_use], first_use, position, ends)
    if any(id(g[0]) not in ends and _elements(g[0].outputs[0]) > _MAX_ELEMENTS
           for g in groups):
        return None  # a large result (its reduction was cut off by an effect)
    materialised: set = set()
    cones = []
    for group in groups:  # members are in execution order
        cones.append(_cone(group, producer, materialised))
        materialised.update(id(out.outputs[0]) for out in group)
    column = _DTYPES.index(members[0].outputs[0].dtype)
    numpy_ns = sum(_numpy_ns(m) for m in members)
    program_ns = 0.0
    for group, cone in zip(groups, cones, strict=True):
        if id(group[0]) in ends:
            program_ns += _reduction_ns(group[0], cone[:-1], column)
            continue
        size = _elements(group[0].outputs[0])
        blocks = -(-size // _BLOCK)
        program_ns += (_PROGRAM_CALL + blocks * (len(cone) + len(group)) * _PROGRAM_STEP
                       + size * sum(_COSTS[_EMIT[m.op.name]][column] for m in cone))
    if program_ns >= _GAIN * numpy_ns:
        return None
    programs = []
    for group, cone in zip(groups, cones, strict=True):
        if id(group[0]) in ends:  # the reduction is the last of its cone
            compiled = _compile_reduction(cone[:-1], group[0])
        else:
            compiled = _compile(cone, group)
        if compiled is None:
            return None
        programs.append(compiled)
    replaced: dict[int, Any] = {id(m): None for m in members}
    for group, (kernel, inputs) in zip(groups, programs, strict=True):
        last = group[-1]
        op = FUSED.instance(len(group), forward=kernel)
        node = graph.Node(op, inputs, {}, f"{last.name}/fused", last.graph)
        node.outputs = [out.outputs[0] for out in group]
        replaced[id(last)] = node
    return replaced


def _numpy_ns(node) -> float:
    """The estimated time of `node` as one NumPy call."""
    if node.op.name not in _REDUCE:
        return _NUMPY_CALL + _elements(node.outputs[0]) * _COSTS[_EMIT[node.op.name]][2]
    kind = "SUM" if _REDUCE[node.op.name] in ("SUM", "MEAN") else "MAX"
    return (_NUMPY_CALL + (_NUMPY_MEAN if node.op.name == "Mean" else 0.0)
            + _elements(node.inputs[0]) * _REDUCE_COSTS[kind, "long"][2]
            + _elements(node.outputs[0]) * _NUMPY_ROW[kind])


def _reduction_ns(reduction, body, column) -> float:
    """The estimated time of a program computing `body` and ending in `reduction`."""
    size = _elements(reduction.inputs[0])
    rows = _elements(reduction.outputs[0])
    columns = size // rows
    blocks = -(-rows // (_BLOCK // columns)) if columns <= _BLOCK else (
        rows * -(-columns // _BLOCK))
    produced = {id(m.outputs[0]) for m in body}
    inputs = {id(x) for m in body for x in m.inputs
              if _is_symbolic(x) and _constant(x) is None and id(x) not in produced}
    kind = "SUM" if _REDUCE[reduction.op.name] in ("SUM", "MEAN") else "MAX"
    length = "long" if columns > _BLOCK else "short"
    per_element = (sum(_COSTS[_EMIT[m.op.name]][column] for m in body)
                   + _REDUCE_COSTS[kind, length][column] + len(inputs) * _LOAD)
    return (_PROGRAM_CALL + blocks * (len(body) + len(inputs)) * _PROGRAM_STEP
            + size * per_element + (rows * _PROGRAM_ROW if length == "short" else 0.0))


def _cone(group, producer, materialised) -> list:
    """The members the results of `group` need, in execution order, stopping at
    materialised results."""
    seen = {id(out) for out in group}
    stack = list(group)
    while stack:
        node = stack.pop()
        for x in node.inputs:
            if not _is_symbolic(x) or id(x) in materialised:
                continue
            source = producer.get(id(x))
            if source is not None and id(source) not in seen:
                seen.add(id(source))
                stack.append(source)
    return [m for m in producer.values() if id(m) in seen]  # `producer` is in order


def _steps(cone, dtype):
    """The cone as ``(opcode name, result key, operands)``; operands are symbolic tensors
    or typed constants ``("const", value)``."""
    steps = []
    for node in cone:
        name = _EMIT[node.op.name]
        args = []
        for x in node.inputs:
            value = _constant(x)
            args.append(x if value is None else ("const", dtype.type(value)))
        if name == "POW" and args[1][1] == 0.5:
            name, args = "SQRT", args[:1]  # as NumPy does (`_fusable`)
        steps.append((name, id(node.outputs[0]), args))
    return steps


def _compile(cone, group):
    """``(forward, its input tensors)`` running `cone` and returning the results of
    `group`, or None when the program needs more than `_MAX_REGISTERS` registers."""
    from eagerflow.graph.passes import fusion_jit as vm  # loads numba (kernel set active)

    out = group[0].outputs[0]
    stored = {id(o.outputs[0]): row for row, o in enumerate(group)}
    assembled = _assemble(cone, out.dtype, stored)
    if assembled is None:
        return None
    code, constants, count, inputs, _ = assembled
    return _forward(vm.run, code, constants, count, len(inputs), len(group), tuple(out.shape),
                    out.dtype), inputs


def _compile_reduction(body, reduction):
    """``(forward, its input tensors)`` running `body` and returning `reduction` of its
    last result, or None when the program needs more than `_MAX_REGISTERS` registers."""
    from eagerflow.graph.passes import fusion_jit as vm  # loads numba (kernel set active)

    x, out = reduction.inputs[0], reduction.outputs[0]
    assembled = _assemble(body, out.dtype, {}, keep=id(x))
    if assembled is None:
        return None
    code, constants, count, inputs, register = assembled
    if _elements(x) <= _MAX_ELEMENTS:  # every input is read from copied rows (see below)
        code[code[:, 0] == vm.LOAD, 2] += vm.DIRECT_INPUTS
    kind = getattr(vm, _REDUCE[reduction.op.name])
    return _reduce_forward(vm, code, constants, count, register[id(x)], kind, tuple(x.shape),
                           tuple(out.shape), out.dtype, len(inputs)), inputs


def _assemble(cone, dtype, stored, keep=None):
    """The program of `cone` storing the results in `stored` (``{id(tensor): row}``):
    ``(code, constants, registers, input tensors, {id(tensor): register})``, or None when
    it needs more than `_MAX_REGISTERS` registers. The register of the tensor `keep` is
    never reused."""
    from eagerflow.graph.passes import fusion_jit as vm  # loads numba (kernel set active)

    steps = _steps(cone, dtype)
    constants = [dtype.type(0), dtype.type(1)]  # registers 0 and 1 (the interpreter's)
    constant_register = {c.tobytes(): i for i, c in enumerate(constants)}
    inputs: list = []
    register: dict = {}
    last_use: dict = {}
    for i, (_, _, args) in enumerate(steps):
        for a in args:
            if isinstance(a, tuple):
                if a[1].tobytes() not in constant_register:
                    constant_register[a[1].tobytes()] = len(constants)
                    constants.append(a[1])
            else:
                last_use[id(a)] = i
    produced = {result for _, result, _ in steps}
    count = len(constants)
    free: list = []
    code = []

    def allocate():
        nonlocal count
        if free:
            return free.pop()
        count += 1
        return count - 1

    for _, _, args in steps:  # every input is loaded once, at the start
        for a in args:
            if not isinstance(a, tuple) and id(a) not in produced and id(a) not in register:
                register[id(a)] = allocate()
                code.append((vm.LOAD, register[id(a)], len(inputs), 0))
                inputs.append(a)
    for i, (name, result, args) in enumerate(steps):
        operands = [constant_register[a[1].tobytes()] if isinstance(a, tuple)
                    else register[id(a)] for a in args]
        # The result never goes to an operand's register: LLVM vectorizes a loop only
        # after a run-time check that the rows differ (same row: scalar, 2-10x slower).
        target = allocate()
        register[result] = target
        for a in args:  # operands read for the last time: their registers are free
            if not isinstance(a, tuple) and last_use[id(a)] == i and register[id(a)] not in free:
                free.append(register[id(a)])
        code.append((getattr(vm, name), target, operands[0], operands[-1]))
        if result in stored:
            code.append((vm.STORE, target, len(inputs) + stored[result], 0))
        if result not in last_use and result != keep:  # a result only stored
            free.append(target)
    if not inputs or count > _MAX_REGISTERS:
        return None
    return np.array(code, np.int32), np.array(constants, dtype), count, inputs, register


def _forward(run, code, constants, registers, num_inputs, num_outputs, shape, dtype):
    """The node's forward: copies the inputs (broadcast to `shape`) into the rows of one
    new array, runs the program, which writes the results in the rows after them, and
    returns those rows (fresh arrays, one allocation for all)."""
    size = int(np.prod(shape, dtype=np.int64))
    rows_shape = (num_inputs + num_outputs, *shape)
    flat = None if len(shape) == 1 else (num_inputs + num_outputs, size)
    # itemgetter(k) gives one row, itemgetter(k, k + 1) a tuple of two; both in C (tuple()
    # of the array's rows took ~1.5 us under load)
    results = operator.itemgetter(*range(num_inputs, num_inputs + num_outputs))

    def fused_elementwise(*arrays):
        rows = np.empty(rows_shape, dtype)
        for i, x in enumerate(arrays):
            rows[i] = x
        run(code, constants, registers, rows if flat is None else rows.reshape(flat))
        return results(rows)

    return fused_elementwise


def _reduce_forward(vm, code, constants, registers, source, kind, shape, out_shape, dtype,
                    num_inputs):
    """The node's forward: runs the program over the inputs and reduces its register
    `source` over the last elements into a new array of `out_shape`.

    `fusion_jit.run_reduce` reads its first inputs where they are, flat, read-only and
    C-contiguous (one type for numba whatever the arrays' flags), and the others from
    rows of one array. Inputs up to `_MAX_ELEMENTS` elements all go into that array, as
    `_forward` does: copying a few thousand elements costs less than marking views
    read-only (~0.7 us each). Larger ones are read in place, copied only when broadcast
    or strided.
    """
    size = int(np.prod(shape, dtype=np.int64))
    rows = int(np.prod(out_shape, dtype=np.int64))
    columns = size // rows
    run = vm.run_reduce
    unused = _read_only(np.empty(0, dtype))
    reshaped = None if out_shape == (rows,) else out_shape
    if size <= _MAX_ELEMENTS:
        rows_shape = (num_inputs, *shape)
        flat = None if len(shape) == 1 else (num_inputs, size)

        def fused_reduction(*arrays):  # hot path: one call per step of a traced loss
            rest = np.empty(rows_shape, dtype)
            for i, x in enumerate(arrays):
                rest[i] = x  # (broadcast as NumPy does)
            out = np.empty(rows, dtype)
            run(code, constants, registers, unused, unused, unused, unused,
                rest if flat is None else rest.reshape(flat), source, kind, columns, out)
            return out if reshaped is None else out.reshape(reshaped)

        return fused_reduction
    direct = vm.DIRECT_INPUTS
    no_rest = np.empty((0, 0), dtype)

    def fused_large_reduction(*arrays):
        inputs = [_flat(x, shape) for x in arrays]
        rest = np.stack(inputs[direct:]) if len(inputs) > direct else no_rest
        inputs += [unused] * (direct - len(inputs))
        out = np.empty(rows, dtype)
        run(code, constants, registers, inputs[0], inputs[1], inputs[2], inputs[3], rest,
            source, kind, columns, out)
        return out if reshaped is None else out.reshape(reshaped)

    return fused_large_reduction


def _flat(x, shape):
    """`x` broadcast to `shape`, flat, C-contiguous and read-only (a view when it already
    is that shape and contiguous)."""
    if x.shape != shape or not x.flags.c_contiguous:
        x = np.ascontiguousarray(np.broadcast_to(x, shape))
    return _read_only(x.reshape(-1))


def _read_only(view):
    view.flags.writeable = False
    return view
