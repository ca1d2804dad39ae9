"""The numba kernels of ``FusedAttention`` and ``FusedAttentionGrad``: one (example, head)
pair after another, in compiled code that holds no GIL, so two threads share the pairs.

The NumPy forward (`ops/attention_ops.py`) is a handful of whole-array calls: batched
products (``np.matmul`` on the heads-last layout) and the softmax rows. Each product is
small (64x16 by 16x64 in the benchmark's encoder block: below OpenBLAS's threading
threshold), so those calls ran on one core while the other idled, and splitting them over
two Python threads gained nothing (NumPy's batched ``matmul`` holds the GIL between its
BLAS calls). Here one compiled function runs a whole range of pairs: it multiplies each
pair's query, key and value where they lie in the heads-last arrays, calling BLAS from
inside the kernel with the heads' row spacing (`gemm_jit.product`: no copies), and runs
the softmax arithmetic and the gradient's row formula (`softmax_jit`'s row kernels) on
each pair's block while it is in cache. `chunks.run` shares the pairs between the threads
in chunks, when the work is large enough to pay for the handoff (`SPLIT_MULTIPLY_ADDS`)
and each product small enough to run on one BLAS thread (`BLAS_ONE_THREAD`).

The exponential stays NumPy's, over each chunk's block of scores at once (SIMD; numba's
scalar ``exp`` is 50-90 times slower, and a polynomial one in float64 was slower than
NumPy's pass): the forward is a kernel (the scores, the mask and the shift by the row
maximum), ``np.exp`` in place (which releases the GIL too), and a second kernel (the
division by the row sum and the product with the values). The backward has no
transcendental and is one kernel. Row sums are reassociated (`jit.sum_kernel`), so they
round differently from NumPy's pairwise sums (a few ulps); products are BLAS's either way.

float16 (no numba arithmetic) and empty inputs take the NumPy products and rows.
"""

from __future__ import annotations

import numpy as np

from eagerflow.ops import attention_ops
from eagerflow.ops.kernels import chunks, gemm_jit, jit, scratch, softmax_jit
from eagerflow.ops.kernels import softmax as numpy_rows

SPLIT_MULTIPLY_ADDS = 1 << 21
"""Multiply-adds of one call's products (pairs x Tq x Tv x (dk + dv), twice that backward)
from which the pairs are shared between threads: below it, handing some to another thread
costs more than it saves."""

BLAS_ONE_THREAD = 1 << 18
"""OpenBLAS runs a product of at most this many multiply-adds on the calling thread
(``interface/gemm.c``: ``SMP_THRESHOLD_MIN`` 65536 x ``GEMM_MULTITHREAD_THRESHOLD`` 4), so
two threads each calling such products use two cores; larger products are split by
OpenBLAS's own threads, and the pairs then run in one thread (no thread settings to
change)."""

CHUNKS_PER_THREAD = 4
"""Chunks of pairs per thread (`chunks.run`): fewer leave a longer tail when a thread
starts late, more cost a kernel call (~3 us) each."""

_COMPILED = (np.dtype(np.float32), np.dtype(np.float64))  # numba has no float16 arithmetic


@jit.kernel
def _shifted_scores(query, key, mask, big, weights, start, stop):  # pragma: no cover
    """For pairs `start` to `stop`: ``weights[b, h] = q k^T`` (+ `big`, a large negative
    number, where `mask` is False), minus each row's maximum. (`mask`: None or broadcast to
    the scores' shape; numba compiles the None case without the test.)"""
    _, steps, heads, size = query.shape
    key_steps = key.shape[1]
    one_zero = gemm_jit.scalars(query)
    # The products go to a block of their own: the shift runs twice as fast from one
    # array into another as in place (numba cannot rule out aliasing there).
    scores = np.empty((steps, key_steps), query.dtype)
    for pair in range(start, stop):
        b, h = pair // heads, pair % heads
        gemm_jit.product(one_zero, query[b, 0, h:], heads * size, False, key[b, 0, h:],
                         heads * size, True, scores, key_steps, steps, key_steps, size)
        if mask is not None:
            for i in range(steps):
                for j in range(key_steps):
                    if not mask[b, h, i, j]:
                        scores[i, j] += big
        softmax_jit.shift_rows(scores, weights[b, h])


@jit.kernel
def _normalized_output(value, weights, output, start, stop):  # pragma: no cover - compiled
    """For pairs `start` to `stop`: each row of ``weights[b, h]`` (exponentials) divided by
    its sum, then ``output[b, :, h, :] = weights[b, h] v``."""
    _, key_steps, heads, size = value.shape
    steps = weights.shape[2]
    one_zero = gemm_jit.scalars(value)
    for pair in range(start, stop):
        b, h = pair // heads, pair % heads
        probs = weights[b, h]
        softmax_jit.normalize_rows(probs)
        gemm_jit.product(one_zero, probs, key_steps, False, value[b, 0, h:], heads * size,
                         False, output[b, 0, h:], heads * size, steps, size, key_steps)


@jit.kernel
def _backward(query, key, value, weights, doutput, dweights, dquery, dkey, dvalue, start,
              stop):  # pragma: no cover - compiled
    """For pairs `start` to `stop`, `FusedAttentionGrad`'s formula (module docstring of
    `attention_ops`) with ``dP = dweights`` (None: zero)."""
    _, steps, heads, size = query.shape
    key_steps, value_size = key.shape[1], value.shape[3]
    one_zero = gemm_jit.scalars(query)
    dscores = np.empty((steps, key_steps), query.dtype)
    row, value_row = heads * size, heads * value_size  # (leading dimensions)
    for pair in range(start, stop):
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


def _run(task, pairs: int, largest_product: int, multiply_adds: int) -> None:
    """`task(start, stop)` over the (example, head) pairs, shared between threads
    (`chunks.run`) when the products of a pair run on one BLAS thread (`largest_product`
    multiply-adds at most `BLAS_ONE_THREAD`; larger ones BLAS splits over its own threads)
    and the call's `multiply_adds` reach `SPLIT_MULTIPLY_ADDS`."""
    if largest_product > BLAS_ONE_THREAD or multiply_adds < SPLIT_MULTIPLY_ADDS:
        task(0, pairs)
        return
    threads = jit.threads()
    chunks.run(task, pairs, max(1, pairs // (CHUNKS_PER_THREAD * threads)), threads)


def _sizes(query, key, value):
    """``(pairs, the largest product of a pair, the multiply-adds of one product pass per
    size: Tq * Tv * (dk + dv) per pair)``."""
    batch, steps, heads, size = query.shape
    per_pair = steps * key.shape[1]
    return (batch * heads, per_pair * max(size, value.shape[3]),
            batch * heads * per_pair * (size + value.shape[3]))


def attention(query, key, value, mask=None):
    """The numba forward of ``FusedAttention`` (arguments as the op's)."""
    if query.dtype not in _COMPILED or min(query.size, key.size, value.size) == 0:
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
    blocks = weights.reshape(batch * heads, steps, key_steps)

    def task(start, stop):
        _shifted_scores(query, key, mask, big, weights, start, stop)
        np.exp(blocks[start:stop], out=blocks[start:stop])
        _normalized_output(value, weights, output, start, stop)

    pairs, largest, multiply_adds = _sizes(query, key, value)
    _run(task, pairs, largest, multiply_adds)
    return output, weights


def attention_grad(query, key, value, weights, doutput, dweights):
    """The numba forward of ``FusedAttentionGrad`` (arguments as the op's)."""
    if query.dtype not in _COMPILED or min(query.size, key.size, value.size) == 0:
        return attention_ops.backward(query, key, value, weights, doutput, dweights,
                                      numpy_rows.softmax_grad_rows)
    # (one dtype: the kernels read the arrays' memory through BLAS)
    query, key, value, weights, doutput = (np.ascontiguousarray(a, query.dtype)
                                           for a in (query, key, value, weights, doutput))
    if dweights is not None:
        dweights = np.ascontiguousarray(np.broadcast_to(dweights, weights.shape), query.dtype)
    dquery, dkey, dvalue = (scratch.empty(a.shape, a.dtype) for a in (query, key, value))
    gemm_jit.require_blas()

    def task(start, stop):
        _backward(query, key, value, weights, doutput, dweights, dquery, dkey, dvalue, start,
                  stop)

    pairs, largest, multiply_adds = _sizes(query, key, value)
    _run(task, pairs, largest, 2 * multiply_adds)
    return dquery, dkey, dvalue
