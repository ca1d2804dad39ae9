"""The numba kernels of ``FusedAttention`` and ``FusedAttentionGrad``: one (example, head)
pair after another, BLAS called from inside the compiled loop on the heads where they lie.

The NumPy forward (`ops/attention_ops.py`) is a handful of whole-array calls: batched
products (``np.matmul`` on the heads-last layout, one small BLAS call per pair) and the
softmax rows, each a pass over the whole ``(B, H, Tq, Tv)`` array. Here a compiled loop
runs the pairs: each pair's products call BLAS on the strided heads (`gemm_jit.product`:
no copies), and its block of scores gets the mask, the shift by the row maximum, the
division by the row sum or the gradient's row formula (`softmax_jit`'s row kernels) while
it is in cache. For float32 so does the exponential (`softmax_jit.exp_shifted_float32`:
float32 arithmetic that vectorizes, within 1 ulp, as fast as NumPy's SIMD pass on one
core, where numba's scalar ``exp`` is 50-90 times slower); float64 keeps NumPy's pass over
the whole array between two kernels (a float64 polynomial written for LLVM to vectorize
ran slower than it). The backward has no transcendental and is one kernel. Row sums are
reassociated (`jit.sum_kernel`), so they round differently from NumPy's pairwise sums (a
few ulps); products are BLAS's either way.

**Split over numba's threads.** Each kernel takes a range of pairs, and a parallel kernel
gives each thread of numba's pool its range (`jit.run_parts`): the scores and their
exponentials, then the normalized output; the backward in one. In
Python threads (`jit.run_split`) this was measured slower inside a training step than on
one thread: waking a thread costs ~60 us on the VM, and OpenBLAS's worker spun on the
second core after the dense layers' products. In numba's pool, whose threads spin a
while between kernels, with the dense products in the same pool (`matmul_jit`), the
benchmark's encoder block (32 x 4 pairs of 64 x 64 scores, ``d = 16``) ran its backward in
0.64-0.82 ms instead of 1.7 (one thread), and its training step in 7.4-7.7 ms instead of
8.3-8.8 (quiet 2-core machine, interleaved, with the layer normalization split too).

float16 (no numba arithmetic) and empty inputs take the NumPy products and rows.
"""

from __future__ import annotations

import numpy as np

from eagerflow.ops import attention_ops
from eagerflow.ops.kernels import gemm_jit, jit, kernel_sets, scratch, softmax_jit
from eagerflow.ops.kernels import softmax as numpy_rows



@jit.kernel
def _shifted_scores(query, key, mask, big, weights, exponentiate, lo,
                    hi):  # pragma: no cover - compiled
    """For each pair ``lo <= b * heads + h < hi``: ``weights[b, h] = q k^T`` (+ `big`, a
    large negative number, where `mask` is False), minus each row's maximum, then its
    exponential if `exponentiate` (float32: `softmax_jit.exp_shifted_float32`). (`mask`:
    None or broadcast to the scores' shape; numba compiles the None case without the
    test.)"""
    batch, steps, heads, size = query.shape
    key_steps = key.shape[1]
    one_zero = gemm_jit.scalars(query)
    # The products go to a block of their own: the shift runs twice as fast from one
    # array into another as in place (numba cannot rule out aliasing there).
    scores = np.empty((steps, key_steps), query.dtype)
    for pair in range(lo, hi):
        b, h = pair // heads, pair % heads
        gemm_jit.product(one_zero, query[b, 0, h:], heads * size, False, key[b, 0, h:],
                         heads * size, True, scores, key_steps, steps, key_steps, size)
        if mask is not None:
            for i in range(steps):
                for j in range(key_steps):
                    if not mask[b, h, i, j]:
                        scores[i, j] += big
        softmax_jit.shift_rows(scores, weights[b, h])
        if exponentiate:
            softmax_jit.exp_shifted_rows(weights[b, h])


@jit.kernel
def _normalized_output(value, weights, output, lo, hi):  # pragma: no cover - compiled
    """For each pair from `lo` to `hi`: each row of ``weights[b, h]`` (exponentials) divided by
    its sum, then ``output[b, :, h, :] = weights[b, h] v``."""
    batch, key_steps, heads, size = value.shape
    steps = weights.shape[2]
    one_zero = gemm_jit.scalars(value)
    for pair in range(lo, hi):
        b, h = pair // heads, pair % heads
        probs = weights[b, h]
        softmax_jit.normalize_rows(probs)
        gemm_jit.product(one_zero, probs, key_steps, False, value[b, 0, h:], heads * size,
                         False, output[b, 0, h:], heads * size, steps, size, key_steps)


@jit.kernel
def _backward(query, key, value, weights, doutput, dweights, dquery, dkey,
              dvalue, lo, hi):  # pragma: no cover - compiled
    """For each pair from `lo` to `hi`, `FusedAttentionGrad`'s formula (module docstring of
    `attention_ops`) with ``dP = dweights`` (None: zero)."""
    batch, steps, heads, size = query.shape
    key_steps, value_size = key.shape[1], value.shape[3]
    one_zero = gemm_jit.scalars(query)
    dscores = np.empty((steps, key_steps), query.dtype)
    row, value_row = heads * size, heads * value_size  # (leading dimensions)
    for pair in range(lo, hi):
        b, h = pair // heads, pair % heads
        q, k, v = query[b, 0, h:], key[b, 0, h:], value[b, 0, h:]
        do, probs = doutput[b, 0, h:], weights[b, h]
        # dscores = do v^T, then the softmax gradient of its rows
        gemm_jit.product(one_zero, do, value_row, False, v, value_row, True, dscores,
                         key_steps, steps, key_steps, value_size)
        softmax_jit.grad_rows(probs, dscores, None if dweights is None else dweights[b, h])
        # dq = dscores k, dk = dscores^T q, dv = p^T do
        gemm_jit.product(one_zero, dscores, key_steps, False, k, row, False, dquery[b, 0, h:],
                         row, steps, size, key_steps)
        gemm_jit.product(one_zero, dscores, key_steps, True, q, row, False, dkey[b, 0, h:],
                         row, key_steps, size, steps)
        gemm_jit.product(one_zero, probs, key_steps, True, do, value_row, False,
                         dvalue[b, 0, h:], value_row, key_steps, value_size, steps)


# One range of pairs per thread of numba's pool (`jit.run_parts`).

@jit.parallel_kernel
def _scores_parts(parts, query, key, mask, big, weights,
                  exponentiate):  # pragma: no cover - compiled
    pairs = weights.shape[0] * weights.shape[1]
    for part in jit.prange(parts):
        lo, hi = jit.part_bounds(pairs, parts, part)
        _shifted_scores(query, key, mask, big, weights, exponentiate, lo, hi)


@jit.parallel_kernel
def _output_parts(parts, value, weights, output):  # pragma: no cover - compiled
    pairs = weights.shape[0] * weights.shape[1]
    for part in jit.prange(parts):
        lo, hi = jit.part_bounds(pairs, parts, part)
        _normalized_output(value, weights, output, lo, hi)


@jit.parallel_kernel
def _backward_parts(parts, query, key, value, weights, doutput, dweights, dquery, dkey,
                    dvalue):  # pragma: no cover - compiled
    pairs = weights.shape[0] * weights.shape[1]
    for part in jit.prange(parts):
        lo, hi = jit.part_bounds(pairs, parts, part)
        _backward(query, key, value, weights, doutput, dweights, dquery, dkey, dvalue, lo, hi)


def attention(query, key, value, mask=None):
    """The numba forward of ``FusedAttention`` (arguments as the op's)."""
    if (query.dtype not in kernel_sets.COMPILED_DTYPES
            or min(query.size, key.size, value.size) == 0):
        return attention_ops.forward(query, key, value, mask, numpy_rows.softmax_rows)
    query, key, value = (np.ascontiguousarray(a, query.dtype) for a in (query, key, value))
    batch, steps, heads, _ = query.shape
    key_steps = key.shape[1]
    weights = scratch.empty((batch, heads, steps, key_steps), query.dtype)
    output = scratch.empty((batch, steps, heads, value.shape[3]), query.dtype)
    if mask is not None:
        mask = np.broadcast_to(mask, weights.shape)
    big = query.dtype.type(attention_ops.large_negative(query.dtype))
    gemm_jit.require_blas()
    # float32: the exponential in the pairs' parts, while each block is in cache; float64:
    # NumPy's pass (`exp_shifted_float32` is a float32 formula)
    in_parts = query.dtype == np.float32
    jit.run_parts(_scores_parts, batch * heads, query, key, mask, big, weights, in_parts)
    if not in_parts:
        np.exp(weights, out=weights)
    jit.run_parts(_output_parts, batch * heads, value, weights, output)
    return output, weights


def attention_grad(query, key, value, weights, doutput, dweights):
    """The numba forward of ``FusedAttentionGrad`` (arguments as the op's)."""
    if (query.dtype not in kernel_sets.COMPILED_DTYPES
            or min(query.size, key.size, value.size) == 0):
        return attention_ops.backward(query, key, value, weights, doutput, dweights,
                                      numpy_rows.softmax_grad_rows)
    # (one dtype: the kernels read the arrays' memory through BLAS)
    query, key, value, weights, doutput = (np.ascontiguousarray(a, query.dtype)
                                           for a in (query, key, value, weights, doutput))
    if dweights is not None:
        dweights = np.ascontiguousarray(np.broadcast_to(dweights, weights.shape), query.dtype)
    dquery, dkey, dvalue = (scratch.empty(a.shape, a.dtype) for a in (query, key, value))
    gemm_jit.require_blas()
    jit.run_parts(_backward_parts, weights.shape[0] * weights.shape[1], query, key, value,
                  weights, doutput, dweights, dquery, dkey, dvalue)
    return dquery, dkey, dvalue
