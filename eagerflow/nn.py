"""Neural-network ops (`ef.nn`): activations, losses on logits, convolutions, pooling.

Example:
    >>> import eagerflow as ef
    >>> ef.nn.relu([-1.0, 1.0])
    ef.Tensor([0. 1.], shape=(2,), dtype=float32)
"""

from eagerflow.core.ops.conv import conv1d, conv2d, conv2d_transpose, depthwise_conv2d
from eagerflow.core.ops.math import sigmoid, tanh
from eagerflow.core.ops.nn import log_softmax, relu, softmax
from eagerflow.core.ops.pooling import (
    avg_pool1d,
    avg_pool2d,
    global_avg_pool2d,
    global_max_pool2d,
    max_pool1d,
    max_pool2d,
)

__all__ = [
    "avg_pool1d", "avg_pool2d", "conv1d", "conv2d", "conv2d_transpose", "depthwise_conv2d",
    "global_avg_pool2d", "global_max_pool2d", "log_softmax", "max_pool1d", "max_pool2d",
    "relu", "sigmoid", "softmax", "tanh",
]
