"""Neural-network basics: relu, the softmax family, bias_add, dropout, embedding lookup.

Softmax and log-softmax are fused primitives: one stable NumPy pass forward (shifted by
the maximum, so no overflow for any logit) and a closed-form gradient. The other
activations are in `activations.py`, cross-entropies in `cross_entropy.py`, convolutions
in `conv.py`, pooling in `pooling.py`, and moments/batch norm in `normalization.py`.

Examples:
    >>> import eagerflow as ef
    >>> ef.nn.relu([-1.0, 2.0])
    ef.Tensor([0. 2.], shape=(2,), dtype=float32)
    >>> ef.nn.softmax([1000.0, 1000.0])
    ef.Tensor([0.5 0.5], shape=(2,), dtype=float32)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from eagerflow.core import errors, forwardprop
from eagerflow.core import logits as logits_lib
from eagerflow.core import tape as tape_lib
from eagerflow.core.dispatch import convert_input, execute, primitive
from eagerflow.ops import array_ops as _array
from eagerflow.ops import indexing as _indexing
from eagerflow.ops import linalg_ops as _linalg
from eagerflow.ops import logic as _logic
from eagerflow.ops import math as _math
from eagerflow.ops import random as _random
from eagerflow.ops import reduce as _reduce
from eagerflow.ops import unary as _unary
from eagerflow.ops.kernels import extrema, kernel_sets, scratch
from eagerflow.ops.typing import Tensor, TensorLike


@primitive("Relu", elementwise=True, ufunc=(np.maximum, 0))
def _relu(x):
    if x.dtype.kind != "f":
        return np.maximum(x, 0)
    # Pooled output memory: a fresh 6 MB array costs ~2.5 ms of page faults (scratch.py).
    return extrema.maximum(x, 0, out=scratch.empty(x.shape, x.dtype))


_relu.jvp(forwardprop.DIAGONAL)  # JVP: elementwise: the gradient rule with dy = tangent


@_relu.gradient
def _relu_grad(dy, out, x):
    # dy * [y > 0]: multiplying by the boolean mask is ~10x faster than np.where here.
    return _math.multiply(dy, _logic.greater(out, 0))


def relu(features: TensorLike, name: str | None = None) -> Tensor:
    """Rectified linear unit: ``max(x, 0)`` elementwise.

    Args:
        features: a numeric tensor.

    Returns:
        A tensor of the same shape and dtype; its gradient is 1 where the output is > 0.

    Examples:
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


@primitive("Softmax", fresh=True, returns_array=True)
def _softmax(x, axis):
    shifted = x - np.maximum.reduce(x, axis=axis, keepdims=True)
    e = np.exp(shifted, out=shifted)
    e /= np.add.reduce(e, axis=axis, keepdims=True)
    return e


@_softmax.gradient
def _softmax_grad(dy, out, x, axis):
    return execute(_softmax_backward, (out, dy), {"axis": axis})


@_softmax.jvp
def _softmax_jvp(tangents, out, x, axis):
    # dy = y * (dx - sum(y * dx)): the Jacobian is symmetric, so the gradient formula
    return _softmax_grad(tangents[0], out, x, axis)


@primitive("SoftmaxGrad", fresh=True, returns_array=True)
def _softmax_backward(y, dy, axis):
    # dx = y * (dy - sum(dy * y)): three passes and a temporary in NumPy, one compiled
    # pass per row with the numba kernel set (ops/kernels/softmax_jit.py)
    dx = dy - np.add.reduce(dy * y, axis=axis, keepdims=True)
    dx *= y
    return dx


_softmax_backward.jvp(forwardprop.FROM_VJP)


def _softmax_backward_formula(y, dy, axis):
    inner = _reduce.reduce_sum(_math.multiply(dy, y), axis, keepdims=True)
    return _math.multiply(y, _math.subtract(dy, inner))


@_softmax_backward.gradient
def _softmax_backward_grad(ddx, dx, y, dy, axis):
    # the formula in eagerflow ops, differentiated (second order of the softmax)
    return _formula_grad(_softmax_backward_formula, ddx, (y, dy), axis)


def _formula_grad(formula, output_gradient, inputs, axis):
    inputs = list(inputs)
    with tape_lib.GradientTape() as tape:
        tape.watch(inputs)
        result = formula(*inputs, axis)
    return tape.gradient(result, inputs, output_gradients=output_gradient)


def softmax(logits: TensorLike, axis: int = -1, name: str | None = None) -> Tensor:
    """Softmax along `axis`: ``exp(x) / sum(exp(x))``, stable for any logit magnitude.

    Args:
        logits: a floating-point tensor.
        axis: the axis to normalise over.

    Returns:
        Probabilities of `logits`' shape and dtype, summing to 1 along `axis`.

    Raises:
        InvalidArgumentError: for non-float logits or an axis out of range.

    Examples:
        >>> import eagerflow as ef
        >>> ef.nn.softmax([0.0, 0.0, 0.0, 0.0])
        ef.Tensor([0.25 0.25 0.25 0.25], shape=(4,), dtype=float32)

    The result remembers `logits` (`eagerflow.core.logits`), so a categorical
    cross-entropy of it is computed from them, exactly, as Keras does in a traced step.
    """
    x, axis = _float_axis(logits, axis, "Softmax")
    y = execute(_softmax, (x,), {"axis": axis})
    logits_lib.remember(y, x, logits_lib.SOFTMAX)
    return y


@primitive("LogSoftmax", fresh=True, returns_array=True)
def _log_softmax(x, axis):
    shifted = x - np.maximum.reduce(x, axis=axis, keepdims=True)
    shifted -= np.log(np.add.reduce(np.exp(shifted), axis=axis, keepdims=True))
    return shifted


@_log_softmax.gradient
def _log_softmax_grad(dy, out, x, axis):
    return execute(_log_softmax_backward, (out, dy), {"axis": axis})


@primitive("LogSoftmaxGrad", fresh=True, returns_array=True)
def _log_softmax_backward(y, dy, axis):
    # dx = dy - softmax(x) * sum(dy), softmax(x) = exp(y): the exp over the whole array
    # in NumPy, the rest one compiled pass per row with the numba kernel set
    probs = np.exp(y)
    probs *= np.add.reduce(dy, axis=axis, keepdims=True)
    return np.subtract(dy, probs, out=probs)


_log_softmax_backward.jvp(forwardprop.FROM_VJP)


def _log_softmax_backward_formula(y, dy, axis):
    total = _reduce.reduce_sum(dy, axis, keepdims=True)
    return _math.subtract(dy, _math.multiply(_unary.exp(y), total))


@_log_softmax_backward.gradient
def _log_softmax_backward_grad(ddx, dx, y, dy, axis):
    return _formula_grad(_log_softmax_backward_formula, ddx, (y, dy), axis)


kernel_sets.register("Softmax", forward="eagerflow.ops.kernels.softmax_jit:softmax")
kernel_sets.register("SoftmaxGrad", forward="eagerflow.ops.kernels.softmax_jit:softmax_grad")
kernel_sets.register("LogSoftmaxGrad",
                     forward="eagerflow.ops.kernels.softmax_jit:log_softmax_grad")


@_log_softmax.jvp
def _log_softmax_jvp(tangents, out, x, axis):
    # dy = dx - sum(softmax(x) * dx)
    dx = tangents[0]
    inner = _reduce.reduce_sum(_math.multiply(_unary.exp(out), dx), axis, keepdims=True)
    return _math.subtract(dx, inner)


def log_softmax(logits: TensorLike, axis: int = -1, name: str | None = None) -> Tensor:
    """Log of the softmax along `axis`, computed without forming the softmax.

    Args:
        logits: a floating-point tensor.
        axis: the axis to normalise over.

    Returns:
        ``logits - logsumexp(logits, axis)``, finite for any finite logits.

    Raises:
        InvalidArgumentError: for non-float logits or an axis out of range.

    Examples:
        >>> import eagerflow as ef
        >>> ef.nn.log_softmax([0.0, -1000.0])
        ef.Tensor([    0. -1000.], shape=(2,), dtype=float32)
    """
    x, axis = _float_axis(logits, axis, "LogSoftmax")
    return execute(_log_softmax, (x,), {"axis": axis})


# -- bias_add -----------------------------------------------------------------------------
def _wide_rows(x):
    """A channels-last C-contiguous array of rank >= 3 as rows of ``w * c`` values (w the
    axis before the channels), or None. NumPy broadcasts and sums along rows this wide
    several times faster than along rows of c values: 0.5 ms instead of 0.65 for a bias
    add on (64, 26, 26, 32), 0.2 ms instead of 1.1 for the bias gradient."""
    if x.ndim < 3 or not x.flags.c_contiguous or x.size == 0:
        return None
    return x.reshape(-1, x.shape[-2] * x.shape[-1])


@primitive("BiasAdd", elementwise=True)
def _bias_add(x, bias, channel_axis, out=None):
    # `out` is x's own buffer when an ef.function plan knows x is dead (the op is
    # declared `elementwise`: see graph/passes/buffer_reuse.py).
    if out is None:
        out = scratch.empty(x.shape, np.result_type(x, bias))  # pooled: see _relu
    rows = _wide_rows(x) if channel_axis == x.ndim - 1 else None
    if rows is not None and out.flags.c_contiguous:
        np.add(rows, np.tile(bias, x.shape[-2]), out=out.reshape(rows.shape))
        return out
    shape = [1] * x.ndim
    shape[channel_axis] = bias.shape[0]
    return np.add(x, bias.reshape(shape), out=out)


_bias_add.jvp(forwardprop.LINEAR)  # JVP: linear: the op applied to the tangents


@_bias_add.gradient
def _bias_add_grad(dy, out, x, bias, channel_axis):
    return dy, execute(_bias_add_backprop, (dy,), {"channel_axis": channel_axis})


@primitive("BiasAddGrad", fresh=True)
def _bias_add_backprop(dy, channel_axis):
    # The bias gradient sums over every axis but the channels.
    rows = _wide_rows(dy) if channel_axis == dy.ndim - 1 else None
    if rows is not None:
        return np.add.reduce(rows, axis=0).reshape(dy.shape[-2], -1).sum(axis=0)
    return np.add.reduce(dy, axis=tuple(i for i in range(dy.ndim) if i != channel_axis))


_bias_add_backprop.jvp(forwardprop.LINEAR)  # JVP: linear: the op applied to the tangents


@_bias_add_backprop.gradient
def _bias_add_backprop_grad(dz, out, dy, channel_axis):
    # Linear: the gradient spreads each channel's value over every position.
    shape = [1] * dy.ndim
    shape[channel_axis] = -1
    return _array.broadcast_to(_array.reshape(dz, shape), dy.shape)


def bias_add(value: TensorLike, bias: Any, data_format: str | None = None,
             name: str | None = None) -> Tensor:
    """Adds the 1-D `bias` along the channel axis of `value`.

    Args:
        value: a tensor of rank >= 2.
        bias: a 1-D tensor, one entry per channel.
        data_format: None or ``"N...C"`` (channels last, e.g. ``"NHWC"``), or
            ``"NC..."`` (channels at axis 1, e.g. ``"NCHW"``).

    Returns:
        ``value + bias`` broadcast along the channel axis; the bias gradient sums over
        every other axis.

    Raises:
        InvalidArgumentError: when `bias` is not 1-D or does not match the channel count.

    Examples:
        >>> import eagerflow as ef
        >>> ef.nn.bias_add([[1.0, 2.0], [3.0, 4.0]], [10.0, 20.0])
        ef.Tensor(
        [[11. 22.]
         [13. 24.]], shape=(2, 2), dtype=float32)
    """
    x, b = convert_input(value), convert_input(bias)
    if data_format is None or (data_format.startswith("N") and data_format.endswith("C")):
        channel_axis = -1
    elif isinstance(data_format, str) and data_format.startswith("NC"):
        channel_axis = 1
    else:
        raise errors.InvalidArgumentError(
            f"data_format must be None, 'N...C' or 'NC...'. Received: "
            f"data_format={data_format!r}", "BiasAdd"
        )
    if x.ndim < 2 or b.ndim != 1 or x.shape[channel_axis] != b.shape[0]:
        raise errors.InvalidArgumentError(
            f"Must provide as many biases as the channel dimension of the input tensor "
            f"(rank >= 2): bias shape {b.shape} vs. value shape {x.shape}", "BiasAdd"
        )
    return execute(_bias_add, (x, b), {"channel_axis": channel_axis % x.ndim})


# -- dropout ------------------------------------------------------------------------------
@primitive("Dropout")
def _dropout(x, noise, rate):
    # Inverted dropout: keep where noise >= rate and scale by 1 / (1 - rate), so the
    # expected value is unchanged and inference needs no rescaling.
    out = scratch.empty(x.shape, x.dtype)  # pooled: see _relu
    np.multiply(x, noise >= rate, out=out)
    out *= 1.0 / (1.0 - rate)
    return out


_dropout.jvp(forwardprop.MULTILINEAR)  # JVP: linear in each input: one term per input


@_dropout.gradient
def _dropout_grad(dy, out, x, noise, rate):
    return execute(_dropout, (dy, noise), {"rate": rate}), None  # linear in x: same mask


def _noise_shape(noise_shape, shape):
    if noise_shape is None:
        return shape
    if hasattr(noise_shape, "numpy"):
        noise_shape = noise_shape.numpy().tolist()
    items = list(noise_shape)
    resolved = tuple(n if item is None else int(item) for item, n in
                     zip(items, shape, strict=False))
    if len(items) != len(shape) or any(m not in (1, n) for m, n in zip(resolved, shape,
                                                                        strict=True)):
        raise errors.InvalidArgumentError(
            f"noise_shape {noise_shape!r} must have the rank of x and each entry equal to "
            f"x's dimension or 1 (None takes x's); x has shape {shape}", "Dropout"
        )
    return resolved


def dropout(x: TensorLike, rate: Any, noise_shape: Any = None,
            seed: int | _random.Generator | None = None, name: str | None = None) -> Tensor:
    """Zeroes elements with probability `rate` and scales the rest by ``1 / (1 - rate)``.

    Args:
        x: a floating-point tensor.
        rate: the drop probability, in ``[0, 1)``.
        noise_shape: shape of the keep/drop mask, broadcast to `x`'s shape (e.g.
            ``[batch, 1, 1, channels]`` drops whole feature maps); None entries take
            `x`'s dimension.
        seed: op seed; with `ef.random.set_seed` the masks repeat run to run.

    Returns:
        A tensor of `x`'s shape and dtype (`x` itself when `rate` is 0).

    Raises:
        InvalidArgumentError: for `rate` outside ``[0, 1)``, a non-float `x`, or a bad
            `noise_shape`.

    Examples:
        >>> import eagerflow as ef
        >>> y = ef.nn.dropout(ef.ones([1000]), rate=0.5, seed=1)
        >>> sorted(set(y.numpy().tolist()))
        [0.0, 2.0]
    """
    x = convert_input(x)
    if x.dtype.kind != "f":
        raise errors.InvalidArgumentError(
            f"x has to be a floating point tensor since it's going to be scaled. Got a "
            f"{x.dtype.name} tensor instead.", "Dropout"
        )
    rate = float(rate)
    if not 0.0 <= rate < 1.0:
        raise errors.InvalidArgumentError(
            f"rate must be a scalar tensor or a float in the range [0, 1), got {rate}",
            "Dropout",
        )
    shape = _noise_shape(noise_shape, x.shape)
    if rate == 0.0:
        return x
    noise = _random.generator_for(seed).uniform(shape, dtype=x.dtype)
    return execute(_dropout, (x, noise), {"rate": rate})


# -- embedding lookup and l2 loss ---------------------------------------------------------
def embedding_lookup(params: TensorLike, ids: Any, max_norm: Any = None,
                     name: str | None = None) -> Tensor:
    """Rows of `params` at `ids` (bounds-checked, like `gather`).

    Args:
        params: the ``(vocabulary, ...)`` embedding table, or a list of tables sharded
            along the first axis in order (TensorFlow's "div" strategy).
        ids: integer ids in ``[0, vocabulary)``, any shape.
        max_norm: if given, rows whose L2 norm exceeds it are scaled down to it.

    Returns:
        A tensor of shape ``ids.shape + params.shape[1:]``.

    Raises:
        InvalidArgumentError: for an id out of range (naming it) or non-integer ids.

    Examples:
        >>> import eagerflow as ef
        >>> table = ef.constant([[0.0, 0.0], [1.0, 1.0], [2.0, 2.0]])
        >>> ef.nn.embedding_lookup(table, [[2, 0]])
        ef.Tensor(
        [[[2. 2.]
          [0. 0.]]], shape=(1, 2, 2), dtype=float32)
    """
    if isinstance(params, (list, tuple)):
        if not params:
            raise errors.InvalidArgumentError("params must not be an empty list",
                                              "EmbeddingLookup")
        params = params[0] if len(params) == 1 else _array.concat(list(params), 0)
    ids = convert_input(ids)
    rows = _indexing.gather(params, ids)
    if max_norm is None:
        return rows
    return _linalg.clip_by_norm(rows, max_norm, axes=list(range(ids.ndim, rows.ndim)))


def l2_loss(t: TensorLike, name: str | None = None) -> Tensor:
    """Half the squared L2 norm: ``sum(t ** 2) / 2`` (a common weight-decay term).

    Args:
        t: a floating-point tensor.

    Returns:
        A scalar tensor.

    Examples:
        >>> import eagerflow as ef
        >>> ef.nn.l2_loss([1.0, 2.0])
        ef.Tensor(2.5, shape=(), dtype=float32)
    """
    return _math.multiply(_reduce.reduce_sum(_unary.square(t)), 0.5)
