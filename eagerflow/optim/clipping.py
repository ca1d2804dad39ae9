"""Gradient clipping as optimizers apply it, on eagerflow ops (Keras 3's formulas).

Each function takes and returns tensors, so clipping runs the same eagerly and inside
`ef.function`; gradients are never written in place.

Examples:
    >>> import eagerflow as ef
    >>> from eagerflow.optim import clipping
    >>> clipping.clip_by_norm(ef.constant([3.0, 4.0]), 1.0)
    ef.Tensor([0.6 0.8], shape=(2,), dtype=float32)
"""

from __future__ import annotations

from eagerflow.ops import linalg_ops as linalg, logic, math, reduce, unary


def _l2_norm(grad):
    """The L2 norm of `grad`, with a finite gradient at 0 (as TensorFlow's clip ops)."""
    total = reduce.reduce_sum(unary.square(grad))
    positive = logic.greater(total, 0)
    return math.where(positive, unary.sqrt(math.where(positive, total, 1)), total)


def clip_by_norm(grad, clipnorm: float):
    """``grad * clipnorm / max(norm(grad), clipnorm)``: rescales a tensor whose norm is larger.

    Examples:
        >>> import eagerflow as ef
        >>> from eagerflow.optim import clipping
        >>> clipping.clip_by_norm(ef.constant([0.3, 0.4]), 1.0)
        ef.Tensor([0.3 0.4], shape=(2,), dtype=float32)
    """
    return math.divide(math.multiply(grad, clipnorm), math.maximum(_l2_norm(grad), clipnorm))


def clip_by_value(grad, clipvalue: float):
    """Clips every element of `grad` to ``[-clipvalue, clipvalue]``.

    Examples:
        >>> import eagerflow as ef
        >>> from eagerflow.optim import clipping
        >>> clipping.clip_by_value(ef.constant([-3.0, 0.5, 2.0]), 1.0)
        ef.Tensor([-1.   0.5  1. ], shape=(3,), dtype=float32)
    """
    return math.clip_by_value(grad, -clipvalue, clipvalue)


def clip_by_global_norm(grads, clipnorm: float) -> list:
    """Rescales all of `grads` by ``clipnorm / max(global_norm, clipnorm)``.

    As in TensorFlow and Keras, a non-finite global norm turns every gradient into NaN, so
    the problem shows instead of being silently clipped away. None entries stay None.

    Examples:
        >>> import eagerflow as ef
        >>> from eagerflow.optim import clipping
        >>> clipping.clip_by_global_norm([ef.constant([3.0]), ef.constant([4.0])], 1.0)
        [ef.Tensor([0.6], shape=(1,), dtype=float32), ef.Tensor([0.8], shape=(1,), dtype=float32)]
    """
    present = [g for g in grads if g is not None]
    if not present:
        return list(grads)
    norm = linalg.global_norm(present)
    # `norm - norm` is NaN exactly when the norm is not finite, and 0 otherwise.
    scale = math.add(math.divide(clipnorm, math.maximum(norm, clipnorm)),
                     math.subtract(norm, norm))
    return [None if g is None else math.multiply(g, scale if scale.dtype == g.dtype
                                                 else math.cast(scale, g.dtype))
            for g in grads]
