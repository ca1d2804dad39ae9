"""The compiled interpreter that runs elementwise fusion's programs (`fusion.py`).

One numba function, `run`, executes a small register program over the elements of a
fused region: each instruction is ``(opcode, result register, operand, operand)``, and
it runs over a block of up to `BLOCK` elements at a time, so the registers stay in the
first-level cache. A second, `run_reduce`, runs a program the same way (the same
instructions, `_compute`) and reduces its last value over rows of consecutive elements
while it streams, for programs ending in a sum, mean, maximum or minimum. Both are
compiled once per dtype (float32, float64) and cached on disk (``cache=True``, see
`eagerflow.ops.kernels.jit`); no source is ever generated per graph, so tracing costs no
compilation and nothing generated is ever written to or read from a cache directory.

Why an interpreter instead of one generated numba function per region: a generated
function (source built from the graph, then ``exec``) cannot be cached on disk by numba,
so every process would compile every region again when it traces (0.8 s of CPU for the
200-op body of ``benchmarks/bench_fusion.py``, measured on the 2-core machine; a training
step has several regions), and generated code must never be loaded from a writable cache
directory. The interpreter's dispatch costs a few ns an instruction per block instead.

Arithmetic (add, subtract, multiply, divide, square root), maximum/minimum and sign are
IEEE operation for operation, bit-identical to NumPy (NaN and signed zeros included);
transcendentals (exp, log, sin, cos, float64 tanh, ...) call the C library's scalar
functions (numba's llvmlite carries no vector math library), which agree with NumPy's to
a few units in the last place but cost ~2-20 ns an element where NumPy's SIMD loops take
~0.4-0.8: `fusion`'s cost model prices that and leaves large arrays to NumPy. float32
tanh is computed here without a library call (`_tanh_float32`), vectorized.

Examples:
    >>> import numpy as np
    >>> from eagerflow.graph.passes import fusion_jit as vm
    >>> rows = np.array([[1.0, 4.0, 9.0], [0.0, 0.0, 0.0]])  # an input, an output
    >>> code = np.array([[vm.LOAD, 2, 0, 0], [vm.SQRT, 3, 2, 0], [vm.ADD, 4, 3, 1],
    ...                  [vm.STORE, 4, 1, 0]], np.int32)
    >>> consts = np.array([0.0, 1.0])  # registers 0 and 1 hold the constants
    >>> vm.run(code, consts, 5, rows)
    >>> rows[1]
    array([2., 3., 4.])
"""

from __future__ import annotations

import math

import numpy as np

from eagerflow.ops.kernels import jit

BLOCK = 512
"""Elements per block: 512 float64 values of a register are 4 KiB (see `run`)."""

# -- opcodes (stable numbers: `fusion` emits them) ------------------------------------------
LOAD, STORE = 0, 1  # register d <- rows[a]; register d -> rows[a]
ADD, SUB, MUL, DIV, POW, MAXIMUM, MINIMUM, SQUARED_DIFFERENCE = 2, 3, 4, 5, 6, 7, 8, 9
NEG, SQRT, ABS, SQUARE, RECIPROCAL, RELU, SIGN, FLOOR, CEIL = 10, 11, 12, 13, 14, 15, 16, 17, 18
EXP, EXPM1, LOG, LOG1P, SIN, COS, TAN, TANH, SIGMOID = 19, 20, 21, 22, 23, 24, 25, 26, 27
BINARY = frozenset({ADD, SUB, MUL, DIV, POW, MAXIMUM, MINIMUM, SQUARED_DIFFERENCE})
"""The opcodes that read two operand registers (the others read one)."""


@jit.elementwise_kernel
def _tanh_float32(x):  # pragma: no cover - compiled
    """tanh of a float32 value, correctly rounded (checked on 4.4 million values against
    float64's tanh rounded to float32), in ~2 ns where the C library's scalar ``tanhf``
    takes ~20-30 ns: no library call, so LLVM vectorizes the loop around it.

    In float64: ``tanh(a) = q / (q + 2)`` with ``q = expm1(2a)``, and ``expm1(2a)`` from
    ``expm1(2a / 64)`` (its Taylor series to degree 13, relative error < 1e-16 for
    ``2a / 64 <= 0.3125``) by six doublings ``expm1(2y) = expm1(y) (expm1(y) + 2)``, which
    keep the relative error (no cancellation near 0, unlike ``(e - 1) / (e + 1)``).
    Beyond ``|x| = 10`` tanh is 1 in float32; NaN passes through, the sign of -0.0 stays.
    """
    a = abs(np.float64(x))
    a = a if not a > 10.0 else 10.0  # (NaN stays NaN)
    y = a * 0.03125
    # The series in Estrin's form (pairs, then powers y^2, y^4, y^8): a dependency chain
    # of 5 multiply-adds instead of Horner's 13; small arrays pay the chain's latency.
    y2 = y * y
    y4 = y2 * y2
    low = (1.0 + y / 2) + y2 * (1 / 6 + y / 24) + y4 * (
        (1 / 120 + y / 720) + y2 * (1 / 5040 + y / 40320))
    high = (1 / 362880 + y / 3628800) + y2 * (1 / 39916800 + y / 479001600) + y4 * (
        1 / 6227020800)
    q = y * (low + (y4 * y4) * high)
    for _ in range(6):
        q = q * (q + 2.0)
    return math.copysign(q / (q + 2.0), x)


@jit.inline_formula
def _compute(op, d, a, b, r, m, w):  # pragma: no cover - compiled
    """Runs one arithmetic instruction (not `LOAD`/`STORE`) over the first lanes of the
    registers `r`: `m` elements, or `w` (m rounded up to 16) for the vectorized loops
    (see `run`). Inlined into `run` and `run_reduce`, which share it."""
    if op == MUL:
        for j in range(w):
            r[d, j] = r[a, j] * r[b, j]
    elif op == ADD:
        for j in range(w):
            r[d, j] = r[a, j] + r[b, j]
    elif op == SUB:
        for j in range(w):
            r[d, j] = r[a, j] - r[b, j]
    elif op == DIV:
        for j in range(w):
            r[d, j] = r[a, j] / r[b, j]
    elif op == TANH:
        if r.itemsize == 4:
            for j in range(w):
                r[d, j] = _tanh_float32(r[a, j])
        else:
            for j in range(m):
                r[d, j] = math.tanh(r[a, j])
    elif op == COS:
        for j in range(m):
            r[d, j] = math.cos(r[a, j])
    elif op == SIN:
        for j in range(m):
            r[d, j] = math.sin(r[a, j])
    elif op == EXP:
        for j in range(m):
            r[d, j] = math.exp(r[a, j])
    elif op == LOG:
        for j in range(m):
            r[d, j] = np.log(r[a, j])
    elif op == NEG:
        for j in range(w):
            r[d, j] = -r[a, j]
    elif op == SQUARE:
        for j in range(w):
            r[d, j] = r[a, j] * r[a, j]
    elif op == SQUARED_DIFFERENCE:
        for j in range(w):
            r[d, j] = (r[a, j] - r[b, j]) * (r[a, j] - r[b, j])
    elif op == RECIPROCAL:
        for j in range(w):
            r[d, j] = r[1, 0] / r[a, j]  # register 1 holds the constant 1
    elif op == SQRT:
        for j in range(w):
            r[d, j] = np.sqrt(r[a, j])
    elif op == MAXIMUM or op == RELU:
        for j in range(w):
            x = r[a, j]
            y = r[b, j] if op == MAXIMUM else r[0, 0]  # register 0: the constant 0
            # as NumPy: NaN propagates, and of two equal values (0.0 and -0.0)
            # the second is the result
            r[d, j] = x if x > y or x != x else y
    elif op == MINIMUM:
        for j in range(w):
            x = r[a, j]
            y = r[b, j]
            r[d, j] = x if x < y or x != x else y
    elif op == SIGMOID:
        # As the eager kernel: r = 1 / (1 + e^-|x|), times e^-|x| where x < 0, so
        # that tiny results stay positive instead of underflowing through 1 + e^-x.
        for j in range(m):
            x = r[a, j]
            e = math.exp(-abs(x))
            s = r[1, 0] / (r[1, 0] + e)
            r[d, j] = e * s if x < 0 else s
    elif op == POW:
        for j in range(m):
            r[d, j] = r[a, j] ** r[b, j]
    elif op == ABS:
        for j in range(w):
            r[d, j] = abs(r[a, j])
    elif op == SIGN:
        for j in range(w):
            x = r[a, j]
            # x - x: 0.0 for both zeros (as NumPy's sign of -0.0), NaN for NaN
            r[d, j] = r[1, 0] if x > 0 else (-r[1, 0] if x < 0 else x - x)
    elif op == FLOOR:
        for j in range(w):
            r[d, j] = np.floor(r[a, j])
    elif op == CEIL:
        for j in range(w):
            r[d, j] = np.ceil(r[a, j])
    elif op == EXPM1:
        for j in range(m):
            r[d, j] = math.expm1(r[a, j])
    elif op == LOG1P:
        for j in range(m):
            r[d, j] = np.log1p(r[a, j])
    elif op == TAN:
        for j in range(m):
            r[d, j] = math.tan(r[a, j])


@jit.elementwise_kernel
def run(code, consts, registers, rows):  # pragma: no cover - compiled
    """Runs `code` over the elements of `rows`: reads its input rows, writes its output
    rows.

    Args:
        code: int32 ``(instructions, 4)``: opcode, result register, operands (`LOAD`:
            register <- a row; `STORE`: register -> a row).
        consts: the constants, in registers ``0 .. len(consts) - 1`` (never written;
            registers 0 and 1 hold 0 and 1).
        registers: how many registers the program uses (constants included).
        rows: ``(inputs + outputs, size)``, of the dtype of `consts`.
    """
    size = rows.shape[1]
    r = _registers(consts, registers, size)
    for start in range(0, size, BLOCK):
        m = min(BLOCK, size - start)
        # The vectorized loops compute w lanes, m rounded up to 16: LLVM's loops take 8 or
        # 16 lanes at a time and end in scalar steps, where a float32 tanh costs its whole
        # latency (~50 ns) against ~2-4 ns a lane (10 elements: 188 ns a tanh; 16: 71).
        # The extra lanes hold finite leftovers and are never stored. Loops calling the C
        # library (cos, exp, ...) are scalar anyway: they run over the m elements only.
        w = (m + 15) // 16 * 16
        for pc in range(code.shape[0]):
            op = code[pc, 0]
            d = code[pc, 1]
            a = code[pc, 2]
            if op == LOAD:
                _copy(r[d], rows[a, start:start + m], m)
            elif op == STORE:
                _copy(rows[a, start:start + m], r[d], m)
            else:
                _compute(op, d, a, code[pc, 3], r, m, w)


@jit.elementwise_kernel
def _copy(target, source, m):  # pragma: no cover - compiled
    """Copies the first `m` elements of `source` into `target`: a loop over ``range(m)``
    (indices LLVM knows are not negative, so no wraparound test per element), compiled on
    its own so LLVM vectorizes it whatever the caller around it; a slice assignment
    between 2-d rows, or an index ``start + j``, ran element by element (~0.3-0.45 ns an
    element instead of ~0.05)."""
    for j in range(m):
        target[j] = source[j]


@jit.inline_formula
def _registers(consts, registers, size):  # pragma: no cover - compiled
    """The register file, constants in place: a small input needs no full block (the
    zeroing alone took ~0.3 us at 10 elements)."""
    r = np.zeros((registers, min(BLOCK, (size + 15) // 16 * 16)), consts.dtype)
    for k in range(len(consts)):
        r[k, :] = consts[k]
    return r


# -- programs ending in a reduction ---------------------------------------------------------
SUM, MEAN, MAX, MIN = 0, 1, 2, 3
"""The reductions `run_reduce` ends a program with (stable numbers: `fusion` emits them)."""
DIRECT_INPUTS = 4
"""Inputs `run_reduce` reads where they are (the others are copied into one array)."""
FLUSH = 8
"""Blocks of a long row summed lane by lane before the lanes are added up pairwise."""


@jit.elementwise_kernel
def run_reduce(code, consts, registers, x0, x1, x2, x3, rest, source, kind, columns,
               out):  # pragma: no cover - compiled
    """Runs `code` over ``len(out) * columns`` elements and reduces its register `source`
    over each run of `columns` consecutive elements (a row: the last axes) into one
    element of `out`, block by block: the values reduced are never written to memory.

    Sums accumulate in float64 whatever the dtype, and are rounded once into `out`: a
    row of at most `BLOCK` elements with sixteen interleaved partial sums (as NumPy's
    pairwise sum does at its leaves, with eight), a longer one in blocks of at most
    `BLOCK` elements added lane by lane for `FLUSH` blocks, the lanes then summed
    pairwise, and those partial sums combined pairwise (a binary cascade). A float32
    chain's sum is therefore closer to the exact one than NumPy's float32 pairwise sum;
    a float64 chain's has the pairwise sum's error bound, O(log n) roundings (the sums
    start from +0.0: a sum of negative zeros is +0.0, where NumPy's is -0.0). The
    maximum and minimum propagate NaN as NumPy's do.

    Args:
        code: as `run`'s, without `STORE`; a `LOAD` of input ``k`` reads ``xk`` for
            ``k < DIRECT_INPUTS``, else ``rest[k - DIRECT_INPUTS]``.
        consts: as `run`'s.
        registers: as `run`'s.
        x0: the first input, flat (read-only, C-contiguous; unused ones are empty).
        x1: the second input.
        x2: the third input.
        x3: the fourth input.
        rest: ``(inputs - DIRECT_INPUTS, size)``: the other inputs.
        source: the register holding the values to reduce.
        kind: `SUM`, `MEAN`, `MAX` or `MIN`.
        columns: the elements reduced into each result.
        out: the results, of the dtype of `consts`.
    """
    rows = out.shape[0]
    r = _registers(consts, registers, rows * columns)
    # A block holds whole rows when they fit (`per` of them), else a piece of one row
    # (each row in `pieces` pieces of `piece` elements, the last one shorter).
    per = max(BLOCK // columns, 1)
    pieces = -(-columns // BLOCK)
    piece = -(-columns // pieces)
    blocks = -(-rows // per) if columns <= BLOCK else rows * pieces
    lanes = np.empty(BLOCK)  # float64
    stack = np.empty(64)  # the cascade's partial sums, and how many flushes each holds
    counts = np.empty(64, np.int64)
    top = 0
    for block in range(blocks):
        if columns <= BLOCK:
            row = block * per
            count = min(per, rows - row)
            start = row * columns
            m = count * columns
            p = 0
        else:
            row = block // pieces
            p = block % pieces
            count = 1
            start = row * columns + p * piece
            m = min(piece, columns - p * piece)
        _program(code, r, x0, x1, x2, x3, rest, start, m)  # (one call site: see `_program`)
        values = r[source]
        if columns <= BLOCK:
            for k in range(count):
                total = _row(values, k * columns, columns, kind)
                out[row + k] = total / columns if kind == MEAN else total
            continue
        if p == 0:
            lanes[:] = -np.inf if kind == MAX else (np.inf if kind == MIN else 0.0)
            top = 0
        if kind == MAX:
            for j in range(m):
                lanes[j] = _pick_max(lanes[j], values[j])
        elif kind == MIN:
            for j in range(m):
                lanes[j] = _pick_min(lanes[j], values[j])
        else:
            for j in range(m):
                lanes[j] += values[j]
            if (p + 1) % FLUSH == 0 or p == pieces - 1:
                top = _push(stack, counts, top, _pairwise(lanes, piece))
                lanes[:piece] = 0.0
        if p < pieces - 1:
            continue
        if kind == MAX or kind == MIN:
            total = lanes[0]
            for j in range(1, piece):
                total = _pick_max(total, lanes[j]) if kind == MAX else _pick_min(total, lanes[j])
        else:
            total = stack[top - 1]
            for i in range(top - 2, -1, -1):  # the smallest partial sums first
                total += stack[i]
        out[row] = total / columns if kind == MEAN else total


@jit.inline_formula
def _program(code, r, x0, x1, x2, x3, rest, start, m):  # pragma: no cover - compiled
    """Runs `code` (no `STORE`) over the `m` elements from `start` (see `run_reduce`)."""
    w = (m + 15) // 16 * 16  # as in `run`
    for pc in range(code.shape[0]):
        op = code[pc, 0]
        d = code[pc, 1]
        a = code[pc, 2]
        if op == LOAD:
            if a == 0:
                _copy(r[d], x0[start:start + m], m)
            elif a == 1:
                _copy(r[d], x1[start:start + m], m)
            elif a == 2:
                _copy(r[d], x2[start:start + m], m)
            elif a == 3:
                _copy(r[d], x3[start:start + m], m)
            else:
                _copy(r[d], rest[a - DIRECT_INPUTS, start:start + m], m)
        else:
            _compute(op, d, a, code[pc, 3], r, m, w)




@jit.inline_formula
def _pick_max(x, y):  # pragma: no cover - compiled
    """The larger of two values, NaN if either is (as NumPy's maximum)."""
    return y if y > x or y != y else x


@jit.inline_formula
def _pick_min(x, y):  # pragma: no cover - compiled
    """The smaller of two values, NaN if either is (as NumPy's minimum)."""
    return y if y < x or y != y else x


@jit.elementwise_kernel
def _row(values, lo, n, kind):  # pragma: no cover - compiled
    """The reduction of ``values[lo:lo + n]``: a sum in float64 with sixteen interleaved
    partial sums (LLVM packs them into vector registers: 3x faster than eight, measured on
    rows of 128 and 500 elements), a maximum or minimum with eight compare chains.
    Compiled on its own, not inlined: inlined, it slowed the loops of `run_reduce` around
    it (2.5x on a whole-array sum)."""
    end = lo + n
    j = lo
    if kind == MAX or kind == MIN:
        m0 = m1 = m2 = m3 = m4 = m5 = m6 = m7 = np.float64(values[lo])
        while j + 8 <= end:
            if kind == MAX:
                m0 = _pick_max(m0, values[j])
                m1 = _pick_max(m1, values[j + 1])
                m2 = _pick_max(m2, values[j + 2])
                m3 = _pick_max(m3, values[j + 3])
                m4 = _pick_max(m4, values[j + 4])
                m5 = _pick_max(m5, values[j + 5])
                m6 = _pick_max(m6, values[j + 6])
                m7 = _pick_max(m7, values[j + 7])
            else:
                m0 = _pick_min(m0, values[j])
                m1 = _pick_min(m1, values[j + 1])
                m2 = _pick_min(m2, values[j + 2])
                m3 = _pick_min(m3, values[j + 3])
                m4 = _pick_min(m4, values[j + 4])
                m5 = _pick_min(m5, values[j + 5])
                m6 = _pick_min(m6, values[j + 6])
                m7 = _pick_min(m7, values[j + 7])
            j += 8
        while j < end:
            m0 = _pick_max(m0, values[j]) if kind == MAX else _pick_min(m0, values[j])
            j += 1
        for other in (m1, m2, m3, m4, m5, m6, m7):
            m0 = _pick_max(m0, other) if kind == MAX else _pick_min(m0, other)
        return m0
    s0 = s1 = s2 = s3 = s4 = s5 = s6 = s7 = 0.0
    t0 = t1 = t2 = t3 = t4 = t5 = t6 = t7 = 0.0
    while j + 16 <= end:
        s0 += values[j]
        s1 += values[j + 1]
        s2 += values[j + 2]
        s3 += values[j + 3]
        s4 += values[j + 4]
        s5 += values[j + 5]
        s6 += values[j + 6]
        s7 += values[j + 7]
        t0 += values[j + 8]
        t1 += values[j + 9]
        t2 += values[j + 10]
        t3 += values[j + 11]
        t4 += values[j + 12]
        t5 += values[j + 13]
        t6 += values[j + 14]
        t7 += values[j + 15]
        j += 16
    while j < end:
        s0 += values[j]
        j += 1
    return ((((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7)))
            + (((t0 + t1) + (t2 + t3)) + ((t4 + t5) + (t6 + t7))))


@jit.inline_formula
def _pairwise(lanes, n):  # pragma: no cover - compiled
    """The sum of ``lanes[:n]`` by halving (pairwise; overwrites the lanes)."""
    while n > 1:
        half = n // 2
        rest = n - half
        for j in range(half):
            lanes[j] += lanes[j + rest]
        n = rest
    return lanes[0]


@jit.inline_formula
def _push(stack, counts, top, value):  # pragma: no cover - compiled
    """Pushes a partial sum on the cascade, adding equal-sized neighbours (pairwise)."""
    stack[top] = value
    counts[top] = 1
    top += 1
    while top > 1 and counts[top - 1] == counts[top - 2]:
        stack[top - 2] += stack[top - 1]
        counts[top - 2] += counts[top - 1]
        top -= 1
    return top
