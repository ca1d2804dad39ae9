"""Gradient clipping on ndarrays, as optimizers apply it (Keras 3's formulas).

Every function returns new arrays, or the input array itself when it is already within
bounds: gradients may be the buffers of immutable tensors, so they are never written.

Example:
    >>> import numpy as np
    >>> from eagerflow.optim import clipping
    >>> clipping.clip_by_norm(np.array([3.0, 4.0], np.float32), 1.0)
    array([0.6, 0.8], dtype=float32)
"""

from __future__ import annotations

import math

import numpy as np


def _squared_norm(grad: np.ndarray) -> float:
    flat = grad.reshape(-1)
    return float(np.dot(flat, flat))  # one BLAS pass, no temporary


def clip_by_norm(grad: np.ndarray, clipnorm: float) -> np.ndarray:
    """``grad * clipnorm / max(norm(grad), clipnorm)``: rescales a tensor whose norm is larger.

    Example:
        >>> import numpy as np
        >>> from eagerflow.optim import clipping
        >>> clipping.clip_by_norm(np.array([0.3, 0.4], np.float32), 1.0)
        array([0.3, 0.4], dtype=float32)
    """
    norm = math.sqrt(_squared_norm(grad))
    if norm <= clipnorm:
        return grad
    return grad * (clipnorm / norm)


def clip_by_value(grad: np.ndarray, clipvalue: float) -> np.ndarray:
    """Clips every element of `grad` to ``[-clipvalue, clipvalue]``.

    Example:
        >>> import numpy as np
        >>> from eagerflow.optim import clipping
        >>> clipping.clip_by_value(np.array([-3.0, 0.5, 2.0], np.float32), 1.0)
        array([-1. ,  0.5,  1. ], dtype=float32)
    """
    return np.clip(grad, -clipvalue, clipvalue)


def global_norm(grads) -> float:
    """The norm of all arrays in `grads` taken together (None entries are skipped).

    Example:
        >>> import numpy as np
        >>> from eagerflow.optim import clipping
        >>> clipping.global_norm([np.array([3.0]), None, np.array([4.0])])
        5.0
    """
    return math.sqrt(sum(_squared_norm(g) for g in grads if g is not None))


def clip_by_global_norm(grads, clipnorm: float) -> list:
    """Rescales all of `grads` by ``clipnorm / max(global_norm, clipnorm)``.

    As in TensorFlow and Keras, a non-finite global norm turns every gradient into NaN, so
    the problem shows instead of being silently clipped away. None entries stay None.

    Example:
        >>> import numpy as np
        >>> from eagerflow.optim import clipping
        >>> clipping.clip_by_global_norm([np.array([3.0], np.float32), np.array([4.0],
        ...                                np.float32)], 1.0)
        [array([0.6], dtype=float32), array([0.8], dtype=float32)]
    """
    norm = global_norm(grads)
    if not math.isfinite(norm):
        return [None if g is None else np.full_like(g, np.nan) for g in grads]
    if norm <= clipnorm:
        return list(grads)
    scale = clipnorm / norm
    return [None if g is None else g * scale for g in grads]
