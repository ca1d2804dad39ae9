"""The NumPy row kernels of the softmax: forward in place and backward, over the last axis.

`ops/attention_ops.py` runs them on the attention scores; the numba kernel set replaces them by
the compiled passes of `softmax_jit.py`. Each is the formula of the ``Softmax`` op and its
gradient rule (`ops/nn_ops.py`), operation for operation, so the values are the same.

Examples:
    >>> import numpy as np
    >>> from eagerflow.ops.kernels import softmax
    >>> softmax.softmax_rows(np.array([[0.0, np.log(3.0)]]))
    array([[0.25, 0.75]])
"""

from __future__ import annotations

import numpy as np


def softmax_rows(x):
    """``exp(x - max) / sum(exp(x - max))`` over the last axis, written into `x` (returned)."""
    x -= np.maximum.reduce(x, axis=-1, keepdims=True)
    np.exp(x, out=x)
    x /= np.add.reduce(x, axis=-1, keepdims=True)
    return x


def softmax_grad_rows(y, dy, dextra=None):
    """``y * (g - sum(g * y))`` over the last axis with ``g = dy + dextra`` (`dextra`: None
    or a second gradient of `y`), written into `dy` (a fresh array; returned)."""
    if dextra is not None:
        dy += dextra
    dy -= np.add.reduce(dy * y, axis=-1, keepdims=True)
    dy *= y
    return dy
