"""Neural-network ops (`ef.nn`): activations, losses on logits, convolutions, pooling.

Example:
    >>> import eagerflow as ef
    >>> ef.nn.relu([-1.0, 1.0])
    ef.Tensor([0. 1.], shape=(2,), dtype=float32)
"""

from eagerflow.core.ops.math import sigmoid, tanh
from eagerflow.core.ops.nn import log_softmax, relu, softmax

__all__ = ["log_softmax", "relu", "sigmoid", "softmax", "tanh"]
