"""Neural-network activations: relu and the softmax family.

Softmax and log-softmax are fused primitives: one stable NumPy pass forward (shifted by
the maximum, so no overflow for any logit) and a closed-form gradient.

Example:
    >>> import eagerflow as ef
    >>> ef.nn.relu([-1.0, 2.0])
    ef.Tensor([0. 2.], shape=(2,), dtype=float32)
    >>> ef.nn.softmax([1000.0, 1000.0])
    ef.Tensor([0.5 0.5], shape=(2,), dtype=float32)
"""

from __future__ import annotations

import numpy as np

from eagerflow.core import errors
from eagerflow.core.dispatch import convert_input, execute, primitive

__all__ = ["log_softmax", "relu", "softmax"]


@primitive("Relu")
def _relu(x):
    return np.maximum(x, 0)


@_relu.gradient
def _relu_grad(dy, out, x):
    return _math.where(_math.greater(out, 0), dy, 0)


def relu(features, name=None):
    """Rectified linear unit: ``max(x, 0)`` elementwise.

    Example:
        >>> import eagerflow as ef
        >>> ef.nn.relu([-3, 0, 3])
        ef.Tensor([0 0 3], shape=(3,), dtype=int32)
    """
    return execute(_relu, (features,))


def _float_axis(logits, axis, op_name):
    x = convert_input(logits)
    if x.dtype.kind not in "fc":
        raise errors.InvalidArgumentError(
            f"{op_name} needs floating-point logits, got dtype {x.dtype.name}", op_name
        )
    if x.ndim == 0 or not -x.ndim <= int(axis) < x.ndim:
        raise errors.InvalidArgumentError(
            f"axis {axis} is out of bounds for logits of shape {x.shape}", op_name
        )
    return x, int(axis) % x.ndim


@primitive("Softmax")
def _softmax(x, axis):
    shifted = x - np.maximum.reduce(x, axis=axis, keepdims=True)
    e = np.exp(shifted, out=shifted)
    e /= np.add.reduce(e, axis=axis, keepdims=True)
    return e


@_softmax.gradient
def _softmax_grad(dy, out, x, axis):
    # dx = y * (dy - sum(dy * y))
    inner = _reduce.reduce_sum(_math.multiply(dy, out), axis, keepdims=True)
    return _math.multiply(out, _math.subtract(dy, inner))


def softmax(logits, axis=-1, name=None):
    """Softmax along `axis`: ``exp(x) / sum(exp(x))``, stable for any logit magnitude.

    Example:
        >>> import eagerflow as ef
        >>> ef.nn.softmax([0.0, 0.0, 0.0, 0.0])
        ef.Tensor([0.25 0.25 0.25 0.25], shape=(4,), dtype=float32)
    """
    x, axis = _float_axis(logits, axis, "Softmax")
    return execute(_softmax, (x,), {"axis": axis})


@primitive("LogSoftmax")
def _log_softmax(x, axis):
    shifted = x - np.maximum.reduce(x, axis=axis, keepdims=True)
    shifted -= np.log(np.add.reduce(np.exp(shifted), axis=axis, keepdims=True))
    return shifted


@_log_softmax.gradient
def _log_softmax_grad(dy, out, x, axis):
    # dx = dy - softmax(x) * sum(dy)
    total = _reduce.reduce_sum(dy, axis, keepdims=True)
    return _math.subtract(dy, _math.multiply(_math.exp(out), total))


def log_softmax(logits, axis=-1, name=None):
    """Log of the softmax along `axis`, computed without forming the softmax.

    Example:
        >>> import eagerflow as ef
        >>> ef.nn.log_softmax([0.0, -1000.0])
        ef.Tensor([    0. -1000.], shape=(2,), dtype=float32)
    """
    x, axis = _float_axis(logits, axis, "LogSoftmax")
    return execute(_log_softmax, (x,), {"axis": axis})


from eagerflow.core.ops import math as _math  # noqa: E402
from eagerflow.core.ops import reduce as _reduce  # noqa: E402
