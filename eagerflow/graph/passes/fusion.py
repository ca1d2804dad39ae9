"""Elementwise fusion: chains of elementwise ops on small tensors run as one compiled
numexpr program instead of one NumPy call each.

Each op of the plan costs one NumPy ufunc call, about 0.4 µs however small its operands
are; a traced function made of many elementwise ops on small tensors spends nearly all
its time there. numexpr (the optional extra ``eagerflow[fast]``) runs a whole chain as
one program of its virtual machine, block by block, for about 0.85 µs per call plus about
6 ns per instruction. Its kernels are scalar C, though, several times slower per
element than NumPy's vectorised loops (measured per element on float32: multiply 0.4 ns
against 0.12, tanh 14.5 ns against 0.36), so fusion pays only on small tensors. Every
candidate region is priced with both cost models (`_COSTS`) and fused only when numexpr
wins clearly.

What fuses: the float32/float64 ops of `_EMIT` whose tensor inputs all have the output's
dtype (Python-number operands become constants of that dtype, so float32 stays float32),
with fully known, non-empty shapes; ``Pow`` only with a constant exponent (see
`_fusable`). Integer ops (floor division and modulo differ), comparisons, ``where``,
casts, float16 (numexpr computes it in float32) and every other op stay
NumPy calls. A region never spans an op with effects (a variable write, a print, a
Python call, a random draw, a branch or loop): its ops run where its results are needed,
which must not move them past a write.

A region is a connected set of fusable ops. Each of its results used outside it
(by another op or as a graph output) is one compiled program, placed where that result
was computed. Inside a program values shared by several ops are computed once
(registers), and results another program of the region materialised earlier are read,
not recomputed; values shared by two programs and not materialised are computed by
both (the cost model counts that). The programs are built directly as numexpr bytecode
(`numexpr.interpreter.NumExpr`): numexpr's own compiler takes expression trees, and a
traced chain is a DAG whose tree would grow exponentially.

The result is an ordinary node (type ``FusedElementwise``) whose output is a fresh
array: later passes may reuse its buffer, but it never writes into its inputs (a
program may use its output register for temporaries while inputs are still read).

Examples:
    >>> import eagerflow as ef
    >>> from eagerflow.graph.passes import fusion, pipeline
    >>> def chain(x, y):
    ...     for _ in range(5):
    ...         x = ef.tanh(x * y + 0.5) - x * 0.1
    ...     return x
    >>> cf = ef.function(chain).get_concrete_function(ef.TensorSpec([8]), ef.TensorSpec([8]))
    >>> program = pipeline.optimize(cf.graph.nodes, cf.graph.outputs, fuse=fusion.AVAILABLE)
    >>> [n.type for n in program.nodes] == (
    ...     ["Placeholder", "Placeholder", "FusedElementwise"] if fusion.AVAILABLE
    ...     else [n.type for n in cf.graph.nodes])
    True
"""

from __future__ import annotations

from typing import Any

import numpy as np

from eagerflow import compiler_options as options
from eagerflow.core import dispatch, errors
from eagerflow.graph import graph
from eagerflow.graph.passes import program as program_lib

try:
    from numexpr import interpreter as _vm
except ImportError:  # the optional extra `eagerflow[fast]` is not installed
    _vm = None

_is_symbolic = graph.is_symbolic
# The family of the ops of fused nodes; each node's instance has its own numexpr kernel.
FUSED = dispatch.register(dispatch.Op("FusedElementwise", None, differentiable=False,
                                      fresh=True, returns_array=True))

# How each op is written in numexpr: ("op", name) is a VM opcode ``name_<types>``,
# ("func", name) a VM function ``name_<types>`` called through ``func_<types>n``;
# "square", "reciprocal", "relu", "sigmoid" and "squared_difference" are short sequences.
_EMIT = {
    "AddV2": ("op", "add"), "Sub": ("op", "sub"), "Mul": ("op", "mul"),
    "RealDiv": ("op", "div"), "Pow": ("op", "pow"), "Neg": ("op", "neg"),
    "Sqrt": ("op", "sqrt"), "Maximum": ("func", "maximum"), "Minimum": ("func", "minimum"),
    "Abs": ("func", "absolute"), "Exp": ("func", "exp"), "Expm1": ("func", "expm1"),
    "Log": ("func", "log"), "Log1p": ("func", "log1p"), "Sin": ("func", "sin"),
    "Cos": ("func", "cos"), "Tan": ("func", "tan"), "Tanh": ("func", "tanh"),
    "Floor": ("func", "floor"), "Ceil": ("func", "ceil"), "Sign": ("func", "sign"),
    "Square": ("square", None), "Reciprocal": ("reciprocal", None), "Relu": ("relu", None),
    "Sigmoid": ("sigmoid", None), "SquaredDifference": ("squared_difference", None),
}
_TYPECODE = {np.dtype(np.float32): "f", np.dtype(np.float64): "d"}
_UNARY_OPCODES = {"neg", "sqrt"}

# Nanoseconds per element (numexpr, NumPy), measured on float32 at 65536 elements on the
# development machine (2 cores); float64 is priced the same. Calls cost `_NUMPY_CALL` per
# NumPy op in the plan and `_NUMEXPR_CALL` + `_NUMEXPR_STEP` per instruction per program.
_COSTS = {
    "add": (0.5, 0.12), "sub": (0.5, 0.12), "mul": (0.4, 0.12), "div": (0.4, 0.12),
    "pow": (4.2, 0.7), "neg": (0.4, 0.1), "sqrt": (1.6, 0.36), "maximum": (2.6, 0.14),
    "minimum": (2.6, 0.14), "absolute": (1.4, 0.08), "exp": (2.2, 0.47), "expm1": (9.7, 0.4),
    "log": (3.9, 0.45), "log1p": (10.3, 0.42), "sin": (5.8, 0.76), "cos": (5.5, 0.54),
    "tan": (14.7, 0.4), "tanh": (14.5, 0.36), "floor": (1.4, 0.08), "ceil": (1.4, 0.08),
    "sign": (2.2, 0.41), "square": (0.4, 0.12), "reciprocal": (0.4, 0.12),
    "relu": (2.6, 0.14), "sigmoid": (10.1, 1.5), "squared_difference": (0.9, 0.3),
}  # (sigmoid's numexpr figure is the sum of its eight instructions')
_NUMPY_CALL = 0.40e3  # ns per op of the plan (0.33 with two arrays, 0.49 with a scalar)
_NUMEXPR_CALL = 0.9e3  # ns per program call (0.85 measured at 10 elements)
_NUMEXPR_STEP = 6.0  # ns per instruction per call (per block of up to 4096 elements)
_GAIN = 0.8  # fuse only when numexpr's estimate is below this share of NumPy's
# (tests force every region to fuse, whatever it costs, by setting `_GAIN` to infinity)
_MAX_ELEMENTS = 1 << 16  # larger results are never fused (NumPy is faster per element)
_MAX_REGISTERS = 255  # numexpr numbers registers with one byte; 255 means "none"
_MAX_INPUTS = 30  # NumPy's iterator takes a limited number of operands


def _compatible() -> bool:
    """Whether the installed numexpr has the VM entry points and opcodes used here."""
    if _vm is None:
        return False
    try:
        needed = [b"noop", b"func_ffn", b"func_fffn", b"func_ddn", b"func_dddn"]
        for code in "fd":
            needed += [f"{n}_{code * 3}".encode() for n in ("add", "sub", "mul", "div", "pow")]
            needed += [f"{n}_{code * 2}".encode() for n in _UNARY_OPCODES]
            functions = [f"{kind[1]}_{code * 2}" for kind in _EMIT.values()
                         if kind[0] == "func" and kind[1] not in ("maximum", "minimum")]
            functions += [f"maximum_{code * 3}", f"minimum_{code * 3}", f"exp_{code * 2}"]
            if not all(f.encode() in _vm.funccodes for f in functions):
                return False
        return all(n in _vm.opcodes for n in needed) and callable(_vm.NumExpr)
    except AttributeError:
        return False


AVAILABLE = _compatible()
"""Whether elementwise fusion can run: numexpr is installed and has the VM this uses."""


def wanted(jit_compile) -> bool:
    """Whether a plan for a function made with this ``jit_compile`` is fused.

    None follows the global setting (when numexpr is available); False never fuses;
    True always does (`ef.function` refuses ``jit_compile=True`` without numexpr).
    """
    if jit_compile is None:
        return AVAILABLE and options.get_experimental_options()["elementwise_fusion"]
    return bool(jit_compile) and AVAILABLE


def require() -> None:
    """Raises the error ``jit_compile=True`` (`ef.function`, `Model.compile`) gives when
    fusion cannot run."""
    if AVAILABLE:
        return
    reason = ("numexpr is not installed" if _vm is None else
              "the installed numexpr lacks the virtual-machine opcodes it needs")
    raise errors.UnimplementedError(
        f"jit_compile=True compiles elementwise chains with numexpr, but {reason}. "
        f"Install it with `pip install 'eagerflow[fast]'` (numexpr>=2.10), or leave "
        f"jit_compile at its default to fuse only when numexpr is available."
    )


# -- the pass ---------------------------------------------------------------------------------
def fuse_elementwise(program: program_lib.Program) -> program_lib.Program:
    """Replaces regions of fusable elementwise ops by compiled numexpr programs where the
    cost model says it pays (see the module documentation). Without numexpr, returns
    `program` unchanged.

    Examples:
        >>> import eagerflow as ef
        >>> from eagerflow.graph.passes import fusion, program
        >>> cf = ef.function(lambda x: ef.exp(x * 2.0 + 1.0) - x).get_concrete_function(
        ...     ef.TensorSpec([4]))
        >>> p = fusion.fuse_elementwise(program.Program(cf.graph.nodes, cf.graph.outputs))
        >>> len(p.nodes) == (2 if fusion.AVAILABLE else 5)
        True
    """
    if not AVAILABLE:
        return program
    nodes = program.nodes
    position = {id(n): i for i, n in enumerate(nodes)}
    producer = {id(o): n for n in nodes for o in n.outputs}
    effects_before = [0]
    for node in nodes:
        effects_before.append(effects_before[-1] + program_lib.has_effects(node))
    fusable = {id(n) for n in nodes if _fusable(n)}
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
            if source is None or id(source) not in fusable:
                continue
            # no effect between the two ops: the consumer's position is where both run
            if effects_before[position[id(node)]] == effects_before[position[id(source)] + 1]:
                parent[root(id(source))] = root(id(node))
    regions: dict = {}
    for node in nodes:
        if id(node) in fusable:
            regions.setdefault(root(id(node)), []).append(node)
    external = _external_uses(program, fusable, root)
    replaced: dict = {}  # id(node) -> its replacement (None: computed inside a program)
    for members in regions.values():
        if len(members) < 2:
            continue
        fused = _fuse_region(members, external)
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


def _fusable(node) -> bool:
    if node.op.name not in _EMIT or node.attrs or node.attr_inputs or len(node.outputs) != 1:
        return False
    out = node.outputs[0]
    # Empty results stay NumPy: numexpr broadcasts (3, 1) against (1, 0) to (1, 0), not (3, 0).
    if out.dtype not in _TYPECODE or None in out.shape or not 0 < _elements(out) <= _MAX_ELEMENTS:
        return False
    for x in node.inputs:
        if _is_symbolic(x):
            if x.dtype != out.dtype:
                return False
        elif type(x) not in (int, float) or not _representable(x, out.dtype):
            return False
    # NumPy computes a power whose exponent is the same at every step of its loop (a scalar,
    # or a broadcast or stride-0 array) as a square root when it is 0.5: -inf ** 0.5 is NaN
    # and -0.0 ** 0.5 is -0.0, where numexpr's pow (C's) gives inf and 0.0. Only a constant
    # exponent says which NumPy does, and `_steps` writes 0.5 as a square root.
    return node.op.name != "Pow" or _constant(node.inputs[1]) is not None


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


def _external_uses(program, fusable, root) -> set:
    """``id`` of every fusable node whose result is read outside its region."""
    producer = {id(o): n for n in program.nodes for o in n.outputs}
    used = set()
    for node in program.nodes:
        region = root(id(node)) if id(node) in fusable else None
        for t in node.tensor_inputs():
            source = producer.get(id(t))
            if source is not None and id(source) in fusable and root(id(source)) != region:
                used.add(id(source))
    for t in program.outputs:
        source = producer.get(id(t)) if _is_symbolic(t) else None
        if source is not None and id(source) in fusable:
            used.add(id(source))
    return used


def _fuse_region(members, external):
    """``{id(member): replacement node or None}`` for a region, or None when fusing it
    would not pay (or does not fit numexpr's limits)."""
    producer = {id(m.outputs[0]): m for m in members}
    outputs = [m for m in members if id(m) in external]
    materialised: set = set()
    cones = []
    for out in outputs:  # members are in execution order
        cone = _cone(out, producer, materialised)
        cones.append(cone)
        materialised.add(id(out.outputs[0]))
    numpy_ns = sum(_NUMPY_CALL + _elements(m.outputs[0]) * _COSTS[_cost_key(m)][1]
                   for m in members)
    numexpr_ns = sum(_NUMEXPR_CALL + len(cone) * _NUMEXPR_STEP
                     + _elements(out.outputs[0]) * sum(_COSTS[_cost_key(m)][0] for m in cone)
                     for out, cone in zip(outputs, cones, strict=True))
    if numexpr_ns >= _GAIN * numpy_ns:
        return None
    programs = []
    for out, cone in zip(outputs, cones, strict=True):
        compiled = _compile(cone, out)
        if compiled is None:
            return None
        programs.append(compiled)
    replaced: dict[int, Any] = {id(m): None for m in members}
    for out, (kernel, inputs) in zip(outputs, programs, strict=True):
        op = FUSED.instance(1, forward=kernel)
        node = graph.Node(op, inputs, {}, f"{out.name}/fused", out.graph)
        node.outputs = out.outputs
        replaced[id(out)] = node
    return replaced


def _cost_key(node) -> str:
    kind, name = _EMIT[node.op.name]
    return name if name is not None else kind


def _cone(out, producer, materialised) -> list:
    """The members `out` needs, in execution order, stopping at materialised results."""
    seen = {id(out)}
    stack = [out]
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


def _steps(cone):
    """The cone as VM steps ``(kind, name, result, operands)``; operands are symbolic
    tensors, typed constants ``("const", value)`` or intermediate keys."""
    steps: list[tuple[Any, ...]] = []
    for node in cone:
        kind, name = _EMIT[node.op.name]
        dtype = node.outputs[0].dtype
        args = [x if _is_symbolic(x) else ("const", dtype.type(x)) for x in node.inputs]
        result = id(node.outputs[0])
        one, zero = ("const", dtype.type(1)), ("const", dtype.type(0))
        if name == "pow" and dtype.type(_constant(node.inputs[1])) == 0.5:
            steps.append(("op1", "sqrt", result, args[:1]))  # as NumPy does (`_fusable`)
        elif kind == "op":
            steps.append(("op" if len(args) == 2 else "op1", name, result, args))
        elif kind == "func":
            steps.append(("func" if len(args) == 2 else "func1", name, result, args))
        elif kind == "square":
            steps.append(("op", "mul", result, [args[0], args[0]]))
        elif kind == "reciprocal":
            steps.append(("op", "div", result, [one, args[0]]))
        elif kind == "relu":
            steps.append(("func", "maximum", result, [args[0], zero]))
        elif kind == "sigmoid":
            # As the eager kernel: r = 1 / (1 + e^-|x|), times e^x where x < 0, written
            # e^min(x, 0) (1 where x >= 0). 1 / (1 + e^-x) would give 0 instead of a tiny
            # positive number from x = -89 (float32) on, and 0 / 0 = NaN after it.
            steps += [("func1", "absolute", (result, 0), [args[0]]),
                      ("op1", "neg", (result, 1), [(result, 0)]),
                      ("func1", "exp", (result, 2), [(result, 1)]),
                      ("op", "add", (result, 3), [one, (result, 2)]),
                      ("op", "div", (result, 4), [one, (result, 3)]),
                      ("func", "minimum", (result, 5), [args[0], zero]),
                      ("func1", "exp", (result, 6), [(result, 5)]),
                      ("op", "mul", result, [(result, 6), (result, 4)])]
        else:  # squared difference
            steps += [("op", "sub", (result, 0), args),
                      ("op", "mul", result, [(result, 0), (result, 0)])]
    return steps


def _compile(cone, out):
    """``(numexpr program, its input tensors)`` computing `out` from `cone`, or None when
    it exceeds numexpr's limits."""
    dtype = out.outputs[0].dtype
    code = _TYPECODE[dtype]
    steps = _steps(cone)
    produced = {step[2] for step in steps}
    inputs: list[Any] = []
    input_index: dict[Any, int] = {}
    constants: list[Any] = []
    constant_index: dict[Any, int] = {}
    last_use: dict = {}
    for i, (_, _, _, args) in enumerate(steps):
        for a in args:
            if _is_symbolic(a):
                if a._const is not None and a.ndim == 0:
                    a = ("const", dtype.type(a._const))
                elif id(a) not in produced:
                    if id(a) not in input_index:
                        input_index[id(a)] = len(inputs)
                        inputs.append(a)
                    continue
                else:
                    last_use[id(a)] = i
                    continue
            if isinstance(a, tuple) and len(a) == 2 and a[0] == "const":
                key = a[1].tobytes()
                if key not in constant_index:
                    constant_index[key] = len(constants)
                    constants.append(a[1])
            else:
                last_use[a] = i
    if not inputs or len(inputs) > _MAX_INPUTS:
        return None
    first_temp = 1 + len(inputs) + len(constants)
    free: list = []
    register: dict = {}
    temps = 0
    instructions = []
    for i, (kind, name, result, args) in enumerate(steps):
        operands = []
        for a in args:
            if _is_symbolic(a) and a._const is not None and a.ndim == 0:
                a = ("const", dtype.type(a._const))
            if _is_symbolic(a) and id(a) in input_index:
                operands.append(1 + input_index[id(a)])
            elif isinstance(a, tuple) and len(a) == 2 and a[0] == "const":
                operands.append(1 + len(inputs) + constant_index[a[1].tobytes()])
            else:
                key = id(a) if _is_symbolic(a) else a
                operands.append(register[key])
                if last_use[key] == i and register[key] not in free:
                    free.append(register[key])  # read for the last time: reusable
        if i == len(steps) - 1:
            target = 0
        elif free:
            target = free.pop()
        else:
            target = first_temp + temps
            temps += 1
        register[result] = target
        instructions.append((kind, name, target, operands))
    if first_temp + temps > _MAX_REGISTERS:  # checked before any register is encoded
        return None
    program = b"".join(_encode(kind, name, code, target, operands)
                       for kind, name, target, operands in instructions)
    kernel = _vm.NumExpr(code.encode() * len(inputs), code.encode() * temps,
                         program, tuple(constants),
                         tuple(f"x{i}" for i in range(len(inputs))))
    return kernel, inputs


def _encode(kind, name, code, target, operands) -> bytes:
    """One VM instruction: opcode, result register, two operand registers (or a function
    number); functions of two arguments take a second ``noop`` word for the number."""
    opcodes, functions = _vm.opcodes, _vm.funccodes
    if kind == "op":
        return bytes([opcodes[f"{name}_{code * 3}".encode()], target, *operands])
    if kind == "op1":
        return bytes([opcodes[f"{name}_{code * 2}".encode()], target, operands[0], 255])
    if kind == "func1":
        return bytes([opcodes[f"func_{code * 2}n".encode()], target, operands[0],
                      functions[f"{name}_{code * 2}".encode()]])
    return bytes([opcodes[f"func_{code * 3}n".encode()], target, *operands,
                  opcodes[b"noop"], functions[f"{name}_{code * 3}".encode()], 255, 255])
