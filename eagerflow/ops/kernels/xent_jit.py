"""The numba kernel of the softmax cross-entropy's gradient (`ops/cross_entropy.py`).

``SoftmaxCrossEntropyWithLogitsGrad`` turns the softmax its forward saved into
``dy * (softmax * sum(labels) - labels)`` in place: one pass per row (the label sum, then
the row), where the NumPy kernel makes three passes over the whole array and a sum. The
exponentials stay in the forward's NumPy pass (numba's are scalar calls, ~50x slower).
The label sums are reassociated (`jit.sum_kernel`) and accumulated in float64, so the
result may differ from the NumPy kernel's in the last bit.
"""

from __future__ import annotations

import numpy as np

from eagerflow.ops import cross_entropy
from eagerflow.ops.kernels import jit


@jit.sum_kernel
def _gradient_rows(softmax, labels, dy):  # pragma: no cover - compiled
    rows, classes = softmax.shape
    for i in range(rows):
        total = 0.0
        for j in range(classes):
            total += labels[i, j]
        scale = dy[i]
        for j in range(classes):
            softmax[i, j] = (softmax[i, j] * total - labels[i, j]) * scale


def softmax_xent_grad(dy, loss, labels, logits):
    """The numba forward of ``SoftmaxCrossEntropyWithLogitsGrad`` (arguments as the op's)."""
    softmax = cross_entropy.saved_softmax(loss, labels, logits)
    classes = logits.shape[-1]
    _gradient_rows(softmax.reshape(-1, classes),
                   np.ascontiguousarray(labels).reshape(-1, classes),
                   np.ascontiguousarray(dy).reshape(-1))
    return softmax
