"""Neural-network ops (`ef.nn`): activations, losses on logits, convolutions, pooling.

Examples:
    >>> import eagerflow as ef
    >>> ef.nn.relu([-1.0, 1.0])
    ef.Tensor([0. 1.], shape=(2,), dtype=float32)
"""

from eagerflow import absent as _absent
from eagerflow.ops.activations import elu, gelu, leaky_relu, relu6, selu, silu, softsign, swish
from eagerflow.ops.conv_ops import conv1d, conv2d, conv2d_transpose, conv3d, depthwise_conv2d
from eagerflow.ops.cross_entropy import (
    sigmoid_cross_entropy_with_logits,
    softmax_cross_entropy_with_logits,
    sparse_softmax_cross_entropy_with_logits,
)
from eagerflow.ops.nn_ops import (
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
from eagerflow.ops.reduce import top_k
from eagerflow.ops.special import log_sigmoid, softplus
from eagerflow.ops.tf_math import in_top_k, zero_fraction
from eagerflow.ops.tf_nn import (
    avg_pool,
    compute_average_loss,
    crelu,
    depth_to_space,
    log_poisson_loss,
    max_pool,
    normalize_moments,
    scale_regularization_loss,
    space_to_depth,
    sufficient_statistics,
    weighted_cross_entropy_with_logits,
    weighted_moments,
)
from eagerflow.ops.unary import sigmoid, tanh

# Written out so that documentation tools can read it; tests/test_api.py checks that it
# names exactly the public names imported above.
__all__ = [
    "avg_pool", "avg_pool1d", "avg_pool2d", "avg_pool3d", "batch_normalization", "bias_add",
    "compute_average_loss", "conv1d", "conv2d", "conv2d_transpose", "conv3d", "crelu",
    "depth_to_space", "depthwise_conv2d", "dropout", "elu", "embedding_lookup", "gelu",
    "global_avg_pool2d", "global_avg_pool3d", "global_max_pool2d", "global_max_pool3d", "in_top_k",
    "l2_loss", "l2_normalize", "leaky_relu", "log_poisson_loss", "log_sigmoid", "log_softmax",
    "max_pool", "max_pool1d", "max_pool2d", "max_pool3d", "moments", "normalize_moments", "relu",
    "relu6", "scale_regularization_loss", "selu", "sigmoid", "sigmoid_cross_entropy_with_logits",
    "silu", "softmax", "softmax_cross_entropy_with_logits", "softplus", "softsign",
    "space_to_depth", "sparse_softmax_cross_entropy_with_logits", "sufficient_statistics", "swish",
    "tanh", "top_k", "weighted_cross_entropy_with_logits", "weighted_moments", "zero_fraction",
]


__getattr__ = _absent.namespace_getattr(__name__, "tf.nn")
