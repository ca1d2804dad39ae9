"""Scaled dot-product attention as one op, forward and backward (``FusedAttention``).

For a query ``q`` of shape ``(batch, Tq, heads, dk)`` (already scaled by ``1/sqrt(dk)``),
a key ``k`` ``(batch, Tv, heads, dk)``, a value ``v`` ``(batch, Tv, heads, dv)`` and an
optional boolean mask broadcastable to ``(batch, heads, Tq, Tv)``, per batch and head::

    s = q k^T   (+ large_negative where the mask is False)
    p = softmax(s)          (over Tv: the attention weights, an output)
    o = p v                 (``(batch, Tq, heads, dv)``, the other output)

Composed from ops, that is two einsums (each a transpose, a batched product and a copy), a
softmax of four passes and, backward, two more einsums per product and a four-op softmax
gradient, every one a node of the plan. Here the forward is one op and the backward
another (``FusedAttentionGrad``), with the closed form::

    dp = do v^T + dP            (dP: the gradient reaching the weights output, if any)
    ds = p * (dp - sum(dp * p)) (the softmax gradient, per row)
    dq = ds k,   dk = ds^T q,   dv = p^T do

The products are batched BLAS calls (``np.matmul``) on transposed views, written straight
into the heads-last layout of the result (no copy of q, k, v), and the softmax and its
gradient are the row kernels of `eagerflow.ops.kernels.softmax`. With the numba kernel set
(`ops/kernels/attention_jit.py`) compiled kernels run the same formula one (example, head)
pair at a time, calling BLAS from inside on each head where it lies. The backward op's own
gradient (second order) differentiates the formula written in eagerflow ops. The masked
score is Keras's (a large negative number added, not -inf), so fully masked rows give
uniform weights as in Keras.
`MultiHeadAttention` uses this op unless it applies dropout to the weights in training.

Examples:
    >>> import eagerflow as ef
    >>> from eagerflow.ops import attention_ops as attention
    >>> out, weights = attention.fused_attention(ef.ones([1, 2, 1, 4]), ef.ones([1, 3, 1, 4]),
    ...                                          ef.ones([1, 3, 1, 5]))
    >>> out.shape, weights.shape
    ((1, 2, 1, 5), (1, 1, 2, 3))
"""

from __future__ import annotations

import numpy as np

from eagerflow.core import errors, forwardprop
from eagerflow.core import tape as tape_lib
from eagerflow.core.dispatch import convert_input, execute, primitive
from eagerflow.ops import array_ops as _array
from eagerflow.ops import linalg_ops as _linalg
from eagerflow.ops import math as _math
from eagerflow.ops import reduce as _reduce
from eagerflow.ops.kernels import kernel_sets, scratch
from eagerflow.ops.kernels import softmax as softmax_kernels
from eagerflow.ops.typing import Tensor, TensorLike

_HEADS_FIRST = (0, 2, 1, 3)  # (batch, T, heads, d) <-> (batch, heads, T, d): an involution


def large_negative(dtype) -> float:
    """The number added to masked scores before the softmax (Keras's: -1e9, -3e4 in
    float16)."""
    return -3e4 if np.dtype(dtype) == np.float16 else -1e9


def _heads_first(x):
    return x.transpose(_HEADS_FIRST)


def _product(a, b):
    """``a @ b`` (batched) on pooled memory: a fresh 2 MB array of scores costs ~1 ms of
    page faults a call, more than the product (`kernels/scratch.py`)."""
    return np.matmul(a, b, out=scratch.empty((*a.shape[:-1], b.shape[-1]), a.dtype))


def _product_into(a, b, shape, dtype):
    """``a @ b`` ``(batch, heads, T, d)`` written into a new ``(batch, T, heads, d)`` array."""
    out = scratch.empty(shape, dtype)
    np.matmul(a, b, out=out.transpose(_HEADS_FIRST))
    return out


def forward(query, key, value, mask, softmax_rows):
    """`FusedAttention`'s forward with the given in-place row softmax (the kernel sets
    differ only in it): ``(output, weights)``."""
    scores = _product(_heads_first(query), key.transpose(0, 2, 3, 1))  # (B, H, Tq, Tv)
    if mask is not None:
        # s + (1 - m) * big as `layers.attention.masked_softmax` does: the same values
        np.add(scores, scores.dtype.type(large_negative(scores.dtype)), out=scores,
               where=np.logical_not(mask))
    weights = softmax_rows(scores)
    batch, steps, heads, _ = query.shape
    output = _product_into(weights, _heads_first(value), (batch, steps, heads, value.shape[3]),
                           weights.dtype)
    return output, weights


def backward(query, key, value, weights, doutput, dweights, softmax_grad_rows):
    """`FusedAttentionGrad`'s forward with the given row softmax gradient:
    ``(dquery, dkey, dvalue)``."""
    query_h, key_h, dout_h = _heads_first(query), _heads_first(key), _heads_first(doutput)
    dprobs = _product(dout_h, value.transpose(0, 2, 3, 1))  # do v^T: (B, H, Tq, Tv)
    dscores = softmax_grad_rows(weights, dprobs, dweights)
    dtype = dscores.dtype
    dquery = _product_into(dscores, key_h, query.shape, dtype)
    dkey = _product_into(dscores.transpose(0, 1, 3, 2), query_h, key.shape, dtype)
    dvalue = _product_into(weights.transpose(0, 1, 3, 2), dout_h, value.shape, dtype)
    return dquery, dkey, dvalue


@primitive("FusedAttention", num_outputs=2)
def _attention(query, key, value, mask=None):
    return forward(query, key, value, mask, softmax_kernels.softmax_rows)


_attention.jvp(forwardprop.FROM_VJP)


@_attention.gradient
def _attention_grad(dys, outs, query, key, value, mask=None):
    doutput, dweights = dys
    grads = execute(_attention_backward, (query, key, value, outs[1], doutput, dweights))
    return (*grads, None) if mask is not None else grads


@primitive("FusedAttentionGrad", num_outputs=3)
def _attention_backward(query, key, value, weights, doutput, dweights):
    return backward(query, key, value, weights, doutput, dweights,
                    softmax_kernels.softmax_grad_rows)


_attention_backward.jvp(forwardprop.FROM_VJP)


def _backward_formula(query, key, value, weights, doutput, dweights):
    """`_attention_backward` in eagerflow ops (for its gradient)."""
    perm = list(_HEADS_FIRST)
    query_h, key_h = _array.transpose(query, perm), _array.transpose(key, perm)
    value_h, dout_h = _array.transpose(value, perm), _array.transpose(doutput, perm)
    dprobs = _math.add(_linalg.matmul(dout_h, value_h, transpose_b=True), dweights)
    inner = _reduce.reduce_sum(_math.multiply(dprobs, weights), -1, keepdims=True)
    dscores = _math.multiply(weights, _math.subtract(dprobs, inner))
    dquery = _linalg.matmul(dscores, key_h)
    dkey = _linalg.matmul(dscores, query_h, transpose_a=True)
    dvalue = _linalg.matmul(weights, dout_h, transpose_a=True)
    return [_array.transpose(g, perm) for g in (dquery, dkey, dvalue)]


@_attention_backward.gradient
def _attention_backward_grad(dys, outs, query, key, value, weights, doutput, dweights):
    inputs = [query, key, value, weights, doutput, dweights]
    with tape_lib.GradientTape() as tape:
        tape.watch(inputs)
        outputs = _backward_formula(*inputs)
    return tape.gradient(outputs, inputs, output_gradients=list(dys))


kernel_sets.register("FusedAttention", forward="eagerflow.ops.kernels.attention_jit:attention")
kernel_sets.register("FusedAttentionGrad",
                     forward="eagerflow.ops.kernels.attention_jit:attention_grad")


def fused_attention(query: TensorLike, key: TensorLike, value: TensorLike,
                    mask: TensorLike | None = None) -> tuple[Tensor, Tensor]:
    """Scaled dot-product attention of every head, as one op with a one-op gradient.

    Args:
        query: ``(batch, Tq, heads, dk)``, already scaled (by ``1/sqrt(dk)`` usually).
        key: ``(batch, Tv, heads, dk)``.
        value: ``(batch, Tv, heads, dv)``.
        mask: None, or booleans broadcastable to ``(batch, heads, Tq, Tv)``: False
            positions get the score ``large_negative`` (no gradient flows to the mask).

    Returns:
        ``(output, weights)``: ``softmax(q k^T) v`` of shape ``(batch, Tq, heads, dv)``
        and the weights ``(batch, heads, Tq, Tv)``, in the inputs' dtype.

    Raises:
        InvalidArgumentError: for inputs not of rank 4, of different float dtypes or of
            mismatched sizes, or a mask that is not boolean or does not broadcast.

    Examples:
        >>> import eagerflow as ef
        >>> from eagerflow.ops import attention_ops as attention
        >>> q = ef.zeros([1, 1, 1, 2])
        >>> kv = ef.constant([[[[1.0, 0.0]], [[3.0, 0.0]]]])  # (1, 2, 1, 2)
        >>> attention.fused_attention(q, kv, kv)[0]  # equal scores: the mean of the values
        ef.Tensor([[[[2. 0.]]]], shape=(1, 1, 1, 2), dtype=float32)
    """
    query, key, value = convert_input(query), convert_input(key), convert_input(value)
    shapes = (query.shape, key.shape, value.shape)
    if (any(len(s) != 4 for s in shapes) or query.dtype.kind != "f"
            or not query.dtype == key.dtype == value.dtype):
        raise errors.InvalidArgumentError(
            "FusedAttention needs query, key and value of rank 4 (batch, steps, heads, size) "
            f"and one float dtype; got shapes {list(shapes)} and dtypes "
            f"{[query.dtype.name, key.dtype.name, value.dtype.name]}", "FusedAttention")
    if (key.shape[0] != query.shape[0] or key.shape[2:] != query.shape[2:]
            or value.shape[:3] != key.shape[:3]):
        raise errors.InvalidArgumentError(
            f"FusedAttention: incompatible shapes query {query.shape}, key {key.shape}, value "
            f"{value.shape}: expected (B, Tq, H, dk), (B, Tv, H, dk) and (B, Tv, H, dv)",
            "FusedAttention")
    if mask is None:
        return execute(_attention, (query, key, value))
    mask = convert_input(mask)
    scores_shape = (query.shape[0], query.shape[2], query.shape[1], key.shape[1])
    if mask.dtype != np.bool_ or len(mask.shape) > 4 or any(
            m not in (1, s) for m, s in zip(mask.shape[::-1], scores_shape[::-1])):
        raise errors.InvalidArgumentError(
            f"FusedAttention: the mask must be boolean and broadcast to the scores' shape "
            f"(B, H, Tq, Tv) = {scores_shape}; got dtype {mask.dtype.name} and shape "
            f"{mask.shape}", "FusedAttention")
    return execute(_attention, (query, key, value, mask))
