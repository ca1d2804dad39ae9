"""Neural-network ops (`ef.nn`): activations, losses on logits, convolutions, pooling.

Examples:
    >>> import eagerflow as ef
    >>> ef.nn.relu([-1.0, 1.0])
    ef.Tensor([0. 1.], shape=(2,), dtype=float32)
"""

from eagerflow import absent as _absent
from eagerflow.ops.activations import elu, gelu, leaky_relu, relu6, selu, silu, softsign, swish
from eagerflow.ops.conv import conv1d, conv2d, conv2d_transpose, conv3d, depthwise_conv2d
from eagerflow.ops.cross_entropy import (
    sigmoid_cross_entropy_with_logits,
    softmax_cross_entropy_with_logits,
    sparse_softmax_cross_entropy_with_logits,
)
from eagerflow.ops.nn import (
    bias_add,
    dropout,
    embedding_lookup,
    l2_loss,
    log_softmax,
    relu,
    softmax,
)
from eagerflow.ops.normalization import batch_normalization, l2_normalize, moments
from eagerflow.ops.pooling import (
    avg_pool1d,
    avg_pool2d,
    global_avg_pool2d,
    global_max_pool2d,
    max_pool1d,
    max_pool2d,
)
from eagerflow.ops.pooling3d import avg_pool3d, global_avg_pool3d, global_max_pool3d, max_pool3d
from eagerflow.ops.special import log_sigmoid, softplus
from eagerflow.ops.unary import sigmoid, tanh

# Written out so that documentation tools can read it; tests/test_api.py checks that it
# names exactly the public names imported above.
__all__ = [
    "avg_pool1d", "avg_pool2d", "avg_pool3d", "batch_normalization", "bias_add", "conv1d",
    "conv2d", "conv2d_transpose", "conv3d", "depthwise_conv2d", "dropout", "elu",
    "embedding_lookup", "gelu", "global_avg_pool2d", "global_avg_pool3d", "global_max_pool2d",
    "global_max_pool3d", "l2_loss", "l2_normalize", "leaky_relu", "log_sigmoid", "log_softmax",
    "max_pool1d", "max_pool2d", "max_pool3d", "moments", "relu", "relu6", "selu", "sigmoid",
    "sigmoid_cross_entropy_with_logits", "silu", "softmax",
    "softmax_cross_entropy_with_logits", "softplus", "softsign",
    "sparse_softmax_cross_entropy_with_logits", "swish", "tanh",
]


__getattr__ = _absent.namespace_getattr(__name__, "tf.nn")
