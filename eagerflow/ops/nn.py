"""Keras 3's neural-network ops (`keras.ops.nn`, also `ef.ops.<name>`): activations,
softmax, one-hot, cross-entropies, normalizations, convolutions and pooling with Keras's
signatures (`padding="valid"|"same"`, `data_format="channels_last"|"channels_first"`,
`gelu(approximate=True)`, `leaky_relu(negative_slope=0.2)`).

Examples:
    >>> import eagerflow as ef
    >>> ef.ops.softmax(ef.constant([0.0, 0.0]))
    ef.Tensor([0.5 0.5], shape=(2,), dtype=float32)
    >>> ef.ops.one_hot(ef.constant([1, 0]), 3)[0]
    ef.Tensor([0. 1. 0.], shape=(3,), dtype=float32)
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import Any

import numpy as np

from eagerflow.core import logits as _logits
from eagerflow.ops import activations as _activations
from eagerflow.ops import array_ops as _array
from eagerflow.ops import conv_ops as _conv
from eagerflow.ops import creation as _creation
from eagerflow.ops import cross_entropy as _cross_entropy
from eagerflow.ops import einsum_ops as _einsum
from eagerflow.ops import indexing as _indexing
from eagerflow.ops import keras_core as _core
from eagerflow.ops import keras_missing as _keras_missing
from eagerflow.ops import logic as _logic
from eagerflow.ops import math as _math
from eagerflow.ops import nn_ops as _nn
from eagerflow.ops import normalization as _normalization
from eagerflow.ops import pooling as _pooling
from eagerflow.ops import pooling3d as _pooling3d
from eagerflow.ops import reduce as _reduce
from eagerflow.ops import special as _special
from eagerflow.ops import tf_nn as _tf_nn
from eagerflow.ops import unary as _unary
from eagerflow.ops.typing import AxisLike, DTypeLike, Tensor, TensorLike

_f = _core.as_float
_EPSILON = 1e-7  # keras.backend.epsilon()


# -- activations -----------------------------------------------------------------------------
def relu(x: TensorLike) -> Tensor:
    """`max(x, 0)` (`keras.ops.relu`); integers keep their dtype."""
    tensor = _creation.convert_to_tensor(x)
    if tensor.dtype.kind in "iu":
        return _math.maximum(tensor, _creation.zeros_like(tensor))
    return _nn.relu(_f(tensor))


def relu6(x: TensorLike) -> Tensor:
    """`min(max(x, 0), 6)` (`keras.ops.relu6`)."""
    return _activations.relu6(_f(x))


def sigmoid(x: TensorLike) -> Tensor:
    """`1 / (1 + exp(-x))` (`keras.ops.sigmoid`); as Keras's, the result remembers `x`, so
    a cross-entropy of it is computed from the logits (exact when saturated)."""
    x = _f(x)
    y = _unary.sigmoid(x)
    _logits.remember(y, x, _logits.ACTIVATION)
    return y


def softplus(x: TensorLike) -> Tensor:
    """`log(1 + exp(x))` (`keras.ops.softplus`)."""
    return _special.softplus(_f(x))


def softsign(x: TensorLike) -> Tensor:
    """`x / (1 + |x|)` (`keras.ops.softsign`)."""
    return _activations.softsign(_f(x))


def silu(x: TensorLike) -> Tensor:
    """`x * sigmoid(x)` (`keras.ops.silu`, also `swish`)."""
    return _activations.silu(_f(x))


swish = silu
"""`x * sigmoid(x)` (`keras.ops.swish`, the same function as `silu`)."""


def log_sigmoid(x: TensorLike) -> Tensor:
    """`log(sigmoid(x))`, computed stably (`keras.ops.log_sigmoid`)."""
    return _special.log_sigmoid(_f(x))


def leaky_relu(x: TensorLike, negative_slope: float = 0.2) -> Tensor:
    """`x` for positive `x`, else `negative_slope * x` (`keras.ops.leaky_relu`)."""
    return _activations.leaky_relu(_f(x), alpha=negative_slope)


def hard_sigmoid(x: TensorLike) -> Tensor:
    """`relu6(x + 3) / 6` (`keras.ops.hard_sigmoid`)."""
    x = _f(x)
    return _math.divide(_activations.relu6(_math.add(x, 3.0)), 6.0)


def hard_silu(x: TensorLike) -> Tensor:
    """`x * hard_sigmoid(x)` (`keras.ops.hard_silu`, also `hard_swish`)."""
    x = _f(x)
    return _math.multiply(x, hard_sigmoid(x))


hard_swish = hard_silu
"""`x * hard_sigmoid(x)` (`keras.ops.hard_swish`, the same function as `hard_silu`)."""


def elu(x: TensorLike, alpha: float = 1.0) -> Tensor:
    """`x` for positive `x`, else `alpha * (exp(x) - 1)` (`keras.ops.elu`)."""
    x = _f(x)
    negative = _math.multiply(_unary.expm1(_math.minimum(x, 0.0)), alpha)
    return _math.where(_logic.greater(x, 0.0), x, negative)


def selu(x: TensorLike) -> Tensor:
    """Scaled ELU with Keras's constants (`keras.ops.selu`)."""
    return _activations.selu(_f(x))


def gelu(x: TensorLike, approximate: bool = True) -> Tensor:
    """Gaussian error linear unit; the tanh approximation by default, as Keras
    (`keras.ops.gelu`)."""
    return _activations.gelu(_f(x), approximate=approximate)


def celu(x: TensorLike, alpha: float = 1.0) -> Tensor:
    """`max(x, 0) + min(0, alpha * (exp(x / alpha) - 1))` (`keras.ops.celu`)."""
    x = _f(x)
    negative = _math.multiply(_unary.expm1(_math.divide(_math.minimum(x, 0.0), alpha)), alpha)
    return _math.add(_math.maximum(x, 0.0), negative)


def glu(x: TensorLike, axis: int = -1) -> Tensor:
    """Gated linear unit: the first half of `axis` times sigmoid of the second
    (`keras.ops.glu`).

    Raises:
        ValueError: if the size of `axis` is odd.
    """
    x = _f(x)
    if x.shape[axis] % 2:
        raise ValueError(f"glu: axis {axis} must have an even size. Received: x.shape={x.shape}")
    a, b = _array.split(x, 2, axis=axis)
    return _math.multiply(a, _unary.sigmoid(b))


def hard_tanh(x: TensorLike) -> Tensor:
    """`x` clipped to `[-1, 1]` (`keras.ops.hard_tanh`)."""
    return _math.clip_by_value(_f(x), -1.0, 1.0)


def hard_shrink(x: TensorLike, threshold: float = 0.5) -> Tensor:
    """`x` where `|x| > threshold`, else 0 (`keras.ops.hard_shrink`)."""
    x = _f(x)
    return _math.where(_logic.greater(_unary.abs(x), threshold), x, _creation.zeros_like(x))


def soft_shrink(x: TensorLike, threshold: float = 0.5) -> Tensor:
    """`x` moved `threshold` towards 0, 0 within it (`keras.ops.soft_shrink`)."""
    x = _f(x)
    shrunk = _math.subtract(x, _math.multiply(_unary.sign(x), threshold))
    return _math.where(_logic.greater(_unary.abs(x), threshold), shrunk, _creation.zeros_like(x))


def tanh_shrink(x: TensorLike) -> Tensor:
    """`x - tanh(x)` (`keras.ops.tanh_shrink`)."""
    x = _f(x)
    return _math.subtract(x, _unary.tanh(x))


def squareplus(x: TensorLike, b: float = 4) -> Tensor:
    """`(x + sqrt(x^2 + b)) / 2` (`keras.ops.squareplus`)."""
    x = _f(x)
    return _math.multiply(_math.add(x, _unary.sqrt(_math.add(_unary.square(x), b))), 0.5)


def sparse_plus(x: TensorLike) -> Tensor:
    """0 below -1, `(x + 1)^2 / 4` in `[-1, 1]`, `x` above (`keras.ops.sparse_plus`)."""
    x = _f(x)
    middle = _math.multiply(_unary.square(_math.add(x, 1.0)), 0.25)
    upper = _math.where(_logic.greater_equal(x, 1.0), x, middle)
    return _math.where(_logic.less_equal(x, -1.0), _creation.zeros_like(x), upper)


def sparse_sigmoid(x: TensorLike) -> Tensor:
    """0 below -1, `(x + 1) / 2` in `[-1, 1]`, 1 above (`keras.ops.sparse_sigmoid`)."""
    return _math.clip_by_value(_math.multiply(_math.add(_f(x), 1.0), 0.5), 0.0, 1.0)


def threshold(x: TensorLike, threshold: float, default_value: float) -> Tensor:
    """`x` where `x > threshold`, else `default_value` (`keras.ops.threshold`)."""
    x = _f(x)
    return _math.where(_logic.greater(x, threshold), x,
                       _creation.fill(x.shape, _creation.constant(default_value, x.dtype)))


def softmax(x: TensorLike, axis: AxisLike = -1) -> Tensor:
    """`exp(x) / sum(exp(x))` along `axis` (an int or tuple) (`keras.ops.softmax`); as
    Keras's, the result remembers `x`, so a cross-entropy of it uses the logits."""
    x = _f(x)
    y = _nn.softmax(x, axis=axis) if isinstance(axis, int) else _unary.exp(log_softmax(x, axis))
    _logits.remember(y, x, _logits.ACTIVATION)
    return y


def log_softmax(x: TensorLike, axis: AxisLike = -1) -> Tensor:
    """`x - logsumexp(x)` along `axis` (`keras.ops.log_softmax`)."""
    x = _f(x)
    if isinstance(axis, int):
        return _nn.log_softmax(x, axis=axis)
    return _math.subtract(x, _reduce.reduce_logsumexp(x, axis=axis, keepdims=True))


# -- encodings and losses --------------------------------------------------------------------
def one_hot(x: TensorLike, num_classes: int, axis: int = -1, dtype: DTypeLike = None,
            sparse: bool = False) -> Tensor:
    """One-hot rows of `num_classes` (float32 by default) for integer `x`; negative or
    too-large indices give all-zero rows (`keras.ops.one_hot`).

    Raises:
        ValueError: for `sparse=True`.
    """
    if sparse:
        raise ValueError("one_hot: eagerflow has no sparse tensors. Received: sparse=True")
    indices = _math.cast(x, "int32")
    return _indexing.one_hot(indices, num_classes, axis=axis, dtype=dtype or "float32")


def multi_hot(inputs: TensorLike, num_classes: int | None = None, axis: int = -1,
              dtype: DTypeLike = None, sparse: bool = False) -> Tensor:
    """One row per sample with 1 at each of its classes (`keras.ops.multi_hot`).

    Raises:
        ValueError: without `num_classes`, or for `sparse=True`.
    """
    if num_classes is None:
        raise ValueError("multi_hot: `num_classes` is required. Received: num_classes=None")
    inputs = _creation.convert_to_tensor(inputs)
    hot = one_hot(inputs, num_classes, axis=axis, dtype=dtype, sparse=sparse)
    return _reduce.reduce_max(hot, axis=1 if inputs.ndim > 1 else 0)


def _logits_instead(output: Tensor, from_logits: bool, kind: str) -> tuple[Tensor, bool]:
    """The logits a softmax or sigmoid output remembers, used in its place (Keras's
    `_keras_logits`): the cross-entropy is then exact instead of clipped."""
    found = None if from_logits else _logits.logits_of(output, kind)
    return (output, from_logits) if found is None else (found, True)


def binary_crossentropy(target: TensorLike, output: TensorLike,
                        from_logits: bool = False) -> Tensor:
    """Elementwise binary cross-entropy; probabilities are clipped to
    `[epsilon, 1 - epsilon]` (`keras.ops.binary_crossentropy`)."""
    output, from_logits = _logits_instead(_f(output), from_logits, _logits.SIGMOID)
    target = _core.as_tensor(target, output.dtype)
    if from_logits:
        return _cross_entropy.sigmoid_cross_entropy_with_logits(labels=target, logits=output)
    output = _math.clip_by_value(output, _EPSILON, 1.0 - _EPSILON)
    positive = _math.multiply(target, _unary.log(output))
    negative = _math.multiply(_math.subtract(1.0, target),
                              _unary.log(_math.subtract(1.0, output)))
    return _unary.negative(_math.add(positive, negative))


def categorical_crossentropy(target: TensorLike, output: TensorLike, from_logits: bool = False,
                             axis: int = -1) -> Tensor:
    """Cross-entropy of one-hot `target` against probabilities (normalized, clipped) or
    logits along `axis` (`keras.ops.categorical_crossentropy`).

    Raises:
        ValueError: if the shapes differ.
    """
    output, from_logits = _logits_instead(_f(output), from_logits, _logits.SOFTMAX)
    target = _core.as_tensor(target, output.dtype)
    if target.shape != output.shape:
        raise ValueError(f"categorical_crossentropy: `target` and `output` must have the same "
                         f"shape. Received: target.shape={target.shape}, "
                         f"output.shape={output.shape}")
    if from_logits:
        log_prob = _nn.log_softmax(output, axis=axis)
    else:
        output = _math.divide(output, _reduce.reduce_sum(output, axis=axis, keepdims=True))
        log_prob = _unary.log(_math.clip_by_value(output, _EPSILON, 1.0 - _EPSILON))
    return _unary.negative(_reduce.reduce_sum(_math.multiply(target, log_prob), axis=axis))


def sparse_categorical_crossentropy(target: TensorLike, output: TensorLike,
                                    from_logits: bool = False, axis: int = -1) -> Tensor:
    """Cross-entropy of integer `target` classes against `output` along `axis`
    (`keras.ops.sparse_categorical_crossentropy`)."""
    output = _f(output)
    target = _creation.convert_to_tensor(target)
    if target.ndim == output.ndim and target.shape[-1] == 1:
        target = _array.squeeze(target, axis=-1)
    hot = one_hot(target, output.shape[axis], axis=axis, dtype=output.dtype)
    return categorical_crossentropy(hot, output, from_logits=from_logits, axis=axis)


# -- normalization ---------------------------------------------------------------------------
def moments(x: TensorLike, axes: AxisLike, keepdims: bool = False,
            synchronized: bool = False) -> tuple[Tensor, Tensor]:
    """Mean and variance of `x` over `axes` (`keras.ops.moments`)."""
    axes_list = [axes] if isinstance(axes, int) else list(axes)  # type: ignore[arg-type]
    return _normalization.moments(_f(x), axes_list, keepdims=keepdims)


def batch_normalization(x: TensorLike, mean: TensorLike, variance: TensorLike, axis: int,
                        offset: TensorLike | None = None, scale: TensorLike | None = None,
                        epsilon: float = 1e-3) -> Tensor:
    """`(x - mean) / sqrt(variance + epsilon) * scale + offset`, the statistics vectors
    along `axis` (`keras.ops.batch_normalization`)."""
    x = _f(x)
    shape = [1] * x.ndim
    shape[axis] = x.shape[axis]

    def along(v: TensorLike) -> Tensor:
        return _array.reshape(_core.as_tensor(v, x.dtype), shape)

    inv = _unary.rsqrt(_math.add(along(variance), epsilon))
    if scale is not None:
        inv = _math.multiply(inv, along(scale))
    result = _math.multiply(_math.subtract(x, along(mean)), inv)
    return result if offset is None else _math.add(result, along(offset))


def normalize(x: TensorLike, axis: int = -1, order: int = 2,
              epsilon: float | None = None) -> Tensor:
    """`x` divided by its `order`-norm along `axis` (`keras.ops.normalize`).

    Raises:
        ValueError: if `order` is not an int >= 1.
    """
    if not isinstance(order, int) or order < 1:
        raise ValueError(f"normalize: `order` must be an int >= 1. Received: order={order}")
    x = _f(x)
    if x.ndim == 0:
        x = _array.reshape(x, [1])
    eps = _EPSILON if epsilon is None else epsilon
    if order == 2:
        square_sum = _reduce.reduce_sum(_unary.square(x), axis=axis, keepdims=True)
        return _math.multiply(x, _math.minimum(_unary.rsqrt(square_sum), 1.0 / eps))
    total = _reduce.reduce_sum(_math.pow(_unary.abs(x), float(order)), axis=axis, keepdims=True)
    norm = _math.pow(total, 1.0 / order)
    return _math.divide(x, _math.maximum(norm, eps))


def layer_normalization(x: TensorLike, gamma: TensorLike | None = None,
                        beta: TensorLike | None = None, axis: AxisLike = -1,
                        epsilon: float | None = None, **kwargs: Any) -> Tensor:
    """`x` normalized over `axis`, then scaled by `gamma` and shifted by `beta`
    (`keras.ops.layer_normalization`; `rms_scaling=True` divides by the root mean square
    of the centered values)."""
    tensor = _creation.convert_to_tensor(x)
    original = tensor.dtype
    x = _core.as_tensor(tensor, _core.result_type(tensor, np.zeros((), np.float32)))
    eps = _EPSILON if epsilon is None else epsilon
    axes = sorted(a % x.ndim for a in ([axis] if isinstance(axis, int) else axis))  # type: ignore[union-attr]
    shape = [x.shape[i] if i in axes else 1 for i in builtins.range(x.ndim)]

    def along(v: TensorLike) -> Tensor:
        v = _core.as_tensor(v, x.dtype)
        return _array.reshape(v, shape) if v.ndim != x.ndim and axes != [x.ndim - 1] else v

    mean, variance = _normalization.moments(x, axes, keepdims=True)
    inv = _unary.rsqrt(_math.add(variance, eps))
    if kwargs.get("rms_scaling"):
        out = _math.multiply(x, inv)
        out = out if gamma is None else _math.multiply(out, along(gamma))
    else:
        inv = inv if gamma is None else _math.multiply(inv, along(gamma))
        shift = _math.multiply(_unary.negative(mean), inv)
        shift = shift if beta is None else _math.add(shift, along(beta))
        out = _math.add(_math.multiply(x, inv), shift)
    return _math.cast(out, original) if out.dtype != original else out


def rms_normalization(x: TensorLike, scale: TensorLike | None = None, axis: AxisLike = -1,
                      epsilon: float | None = None) -> Tensor:
    """`x / sqrt(mean(x^2) + epsilon) * scale` over `axis` (`keras.ops.rms_normalization`)."""
    x = _f(x)
    eps = _EPSILON if epsilon is None else epsilon
    if x.ndim == 0:
        x = _array.reshape(x, [1])
    rrms = _unary.rsqrt(_math.add(_reduce.reduce_mean(_unary.square(x), axis=axis,
                                                      keepdims=True), eps))
    out = _math.multiply(x, rrms)
    return out if scale is None else _math.multiply(out, _core.as_tensor(scale, x.dtype))


# -- convolution and pooling -----------------------------------------------------------------
def _padding(padding: str, op_name: str) -> str:
    if not isinstance(padding, str) or padding.lower() not in ("valid", "same"):
        raise ValueError(f"{op_name}: `padding` must be 'valid' or 'same'. "
                         f"Received: padding={padding!r}")
    return padding.upper()


def _channels_last(x: Tensor, data_format: str | None, op_name: str) -> bool:
    """Whether `x` must be moved from channels-first (and back) around the op."""
    fmt = data_format or "channels_last"
    if fmt not in ("channels_last", "channels_first"):
        raise ValueError(f"{op_name}: `data_format` must be 'channels_last' or "
                         f"'channels_first'. Received: data_format={data_format!r}")
    return fmt == "channels_first"


def _to_last(x: Tensor) -> Tensor:
    return _array.transpose(x, [0, *builtins.range(2, x.ndim), 1])


def _to_first(x: Tensor) -> Tensor:
    return _array.transpose(x, [0, x.ndim - 1, *builtins.range(1, x.ndim - 1)])


def _spatial(value: int | Sequence[int], rank: int) -> list[int]:
    return [int(value)] * rank if isinstance(value, int) else [int(v) for v in value]


def conv(inputs: TensorLike, kernel: TensorLike, strides: int | Sequence[int] = 1,
         padding: str = "valid", data_format: str | None = None,
         dilation_rate: int | Sequence[int] = 1) -> Tensor:
    """N-D convolution (1D, 2D or 3D by the rank of `inputs`); `kernel` is
    `(*spatial, in_channels, out_channels)` (`keras.ops.conv`).

    Raises:
        ValueError: for a bad `padding`, `data_format` or input rank.
    """
    x = _f(inputs)
    kernel = _core.as_tensor(kernel, x.dtype)
    first = _channels_last(x, data_format, "conv")
    pad = _padding(padding, "conv")
    x = _to_last(x) if first else x
    rank = x.ndim - 2
    stride, dilation = _spatial(strides, rank), _spatial(dilation_rate, rank)
    if rank == 1:
        out = _conv.conv1d(x, kernel, stride, pad, dilations=dilation)
    elif rank == 2:
        out = _conv.conv2d(x, kernel, stride, pad, dilations=dilation)
    elif rank == 3:
        out = _conv.conv3d(x, kernel, stride, pad, dilations=dilation)
    else:
        raise ValueError(f"conv: `inputs` must have rank 3, 4 or 5 (batch, spatial..., "
                         f"channels). Received: inputs.shape={x.shape}")
    return _to_first(out) if first else out


def depthwise_conv(inputs: TensorLike, kernel: TensorLike, strides: int | Sequence[int] = 1,
                   padding: str = "valid", data_format: str | None = None,
                   dilation_rate: int | Sequence[int] = 1) -> Tensor:
    """2-D depthwise convolution; `kernel` is `(h, w, in_channels, multiplier)`
    (`keras.ops.depthwise_conv`; eagerflow has the 2-D form).

    Raises:
        ValueError: for inputs that are not rank 4, or a bad `padding` or `data_format`.
    """
    x = _f(inputs)
    first = _channels_last(x, data_format, "depthwise_conv")
    pad = _padding(padding, "depthwise_conv")
    if x.ndim != 4:
        raise ValueError(f"depthwise_conv: eagerflow has 2-D depthwise convolution only; "
                         f"`inputs` must have rank 4. Received: inputs.shape={x.shape}")
    x = _to_last(x) if first else x
    out = _conv.depthwise_conv2d(x, _core.as_tensor(kernel, x.dtype),
                                 [1, *_spatial(strides, 2), 1], pad,
                                 dilations=_spatial(dilation_rate, 2))
    return _to_first(out) if first else out


def conv_transpose(inputs: TensorLike, kernel: TensorLike, strides: int | Sequence[int] = 1,
                   padding: str = "valid", output_padding: Any = None,
                   data_format: str | None = None,
                   dilation_rate: int | Sequence[int] = 1) -> Tensor:
    """2-D transposed convolution; `kernel` is `(h, w, out_channels, in_channels)`
    (`keras.ops.conv_transpose`; eagerflow has the 2-D form without `output_padding`).

    Raises:
        ValueError: for inputs that are not rank 4, an `output_padding`, or a bad
            `padding` or `data_format`.
    """
    x = _f(inputs)
    kernel = _core.as_tensor(kernel, x.dtype)
    first = _channels_last(x, data_format, "conv_transpose")
    pad = _padding(padding, "conv_transpose")
    if x.ndim != 4 or output_padding is not None:
        raise ValueError(f"conv_transpose: eagerflow has the 2-D form without "
                         f"`output_padding`. Received: inputs.shape={x.shape}, "
                         f"output_padding={output_padding!r}")
    x = _to_last(x) if first else x
    stride, dilation = _spatial(strides, 2), _spatial(dilation_rate, 2)
    size = []
    for length, k, s, d in zip(x.shape[1:3], kernel.shape[:2], stride, dilation):
        k_eff = d * (k - 1) + 1  # Keras's deconv_output_length with output_padding=None
        size.append(length * s if pad == "SAME" else length * s + builtins.max(k_eff - s, 0))
    out = _conv.conv2d_transpose(x, kernel, [x.shape[0], *size, kernel.shape[2]], stride, pad,
                                 dilations=dilation)
    return _to_first(out) if first else out


def _pool(kind: str, inputs: TensorLike, pool_size: int | Sequence[int],
          strides: int | Sequence[int] | None, padding: str, data_format: str | None) -> Tensor:
    op_name = f"{kind}_pool"
    x = _f(inputs)
    first = _channels_last(x, data_format, op_name)
    pad = _padding(padding, op_name)
    x = _to_last(x) if first else x
    rank = x.ndim - 2
    size = _spatial(pool_size, rank)
    stride = size if strides is None else _spatial(strides, rank)
    table = {1: (_pooling.max_pool1d, _pooling.avg_pool1d),
             2: (_pooling.max_pool2d, _pooling.avg_pool2d),
             3: (_pooling3d.max_pool3d, _pooling3d.avg_pool3d)}
    if rank not in table:
        raise ValueError(f"{op_name}: `inputs` must have rank 3, 4 or 5 (batch, spatial..., "
                         f"channels). Received: inputs.shape={x.shape}")
    out = table[rank][0 if kind == "max" else 1](x, size, stride, pad)
    return _to_first(out) if first else out


def max_pool(inputs: TensorLike, pool_size: int | Sequence[int],
             strides: int | Sequence[int] | None = None, padding: str = "valid",
             data_format: str | None = None) -> Tensor:
    """N-D max pooling (`keras.ops.max_pool`); `strides` defaults to `pool_size`."""
    return _pool("max", inputs, pool_size, strides, padding, data_format)


def average_pool(inputs: TensorLike, pool_size: int | Sequence[int],
                 strides: int | Sequence[int] | None = None, padding: str = "valid",
                 data_format: str | None = None) -> Tensor:
    """N-D average pooling (`keras.ops.average_pool`); `strides` defaults to `pool_size`."""
    return _pool("avg", inputs, pool_size, strides, padding, data_format)


def psnr(x1: TensorLike, x2: TensorLike, max_val: float) -> Tensor:
    """Peak signal-to-noise ratio in dB (`keras.ops.psnr`).

    Raises:
        ValueError: if the shapes differ.
    """
    a, b = _f(x1), _f(x2)
    if a.shape != b.shape:
        raise ValueError(f"psnr: input shapes {a.shape} and {b.shape} must match")
    mse = _reduce.reduce_mean(_unary.square(_math.subtract(a, b)))
    ln10 = float(np.log(10.0))
    return _math.subtract(20.0 * float(np.log(max_val)) / ln10,
                          _math.multiply(_math.divide(_unary.log(mse), ln10), 10.0))


def dot_product_attention(query: TensorLike, key: TensorLike, value: TensorLike,
                          bias: TensorLike | None = None, mask: TensorLike | None = None,
                          scale: float | None = None, is_causal: bool = False,
                          flash_attention: bool | None = None,
                          attn_logits_soft_cap: float | None = None) -> Tensor:
    """Scaled dot-product attention on `(batch, length, heads, dim)` tensors
    (`keras.ops.dot_product_attention`).

    Raises:
        ValueError: for `flash_attention=True` or `attn_logits_soft_cap`.
    """
    if flash_attention or attn_logits_soft_cap is not None:
        raise ValueError("dot_product_attention: eagerflow has no flash attention or logits "
                         "soft cap. Received: flash_attention="
                         f"{flash_attention}, attn_logits_soft_cap={attn_logits_soft_cap}")
    q, k, v = _f(query), _f(key), _f(value)
    scale = 1.0 / float(np.sqrt(q.shape[-1])) if scale is None else scale
    logits = _math.multiply(_einsum.einsum("BTNH,BSNH->BNTS", q, k), scale)
    if bias is not None:
        logits = _math.add(logits, _core.as_tensor(bias, logits.dtype))
    keep = None if mask is None else _math.cast(mask, "bool")
    if is_causal:
        t, s = logits.shape[-2], logits.shape[-1]
        causal = _creation.constant(np.tril(np.ones((t, s), bool)))
        keep = causal if keep is None else _logic.logical_and(keep, causal)
    if keep is not None:
        large = _creation.constant(-0.7 * 3.38953e38, logits.dtype)
        logits = _math.where(keep, logits, large)
    weights = _nn.softmax(logits, axis=-1)
    return _einsum.einsum("BNTS,BSNH->BTNH", weights, v)


def _block_format(data_format: str) -> str:
    if data_format not in ("channels_last", "channels_first"):
        raise ValueError("`data_format` must be 'channels_last' or 'channels_first'. "
                         f"Received: data_format={data_format!r}")
    return "NHWC" if data_format == "channels_last" else "NCHW"


def depth_to_space(x: TensorLike, block_size: int, data_format: str = "channels_last") -> Tensor:
    """Moves channel blocks into ``block_size x block_size`` spatial blocks
    (`keras.ops.depth_to_space`); see `ef.nn.depth_to_space`.

    Raises:
        ValueError: for an unknown `data_format`.
    """
    return _tf_nn.depth_to_space(x, block_size, _block_format(data_format))


def space_to_depth(x: TensorLike, block_size: int, data_format: str = "channels_last") -> Tensor:
    """Moves ``block_size x block_size`` spatial blocks into the channels
    (`keras.ops.space_to_depth`); see `ef.nn.space_to_depth`.

    Raises:
        ValueError: for an unknown `data_format`.
    """
    return _tf_nn.space_to_depth(x, block_size, _block_format(data_format))


__all__ = [
    "average_pool", "batch_normalization", "binary_crossentropy", "categorical_crossentropy",
    "celu", "conv", "conv_transpose", "depth_to_space", "depthwise_conv",
    "dot_product_attention", "elu", "gelu", "glu", "hard_shrink", "hard_sigmoid", "hard_silu",
    "hard_swish", "hard_tanh", "layer_normalization", "leaky_relu", "log_sigmoid",
    "log_softmax", "max_pool", "moments", "multi_hot", "normalize", "one_hot", "psnr", "relu",
    "relu6", "rms_normalization", "selu", "sigmoid", "silu", "soft_shrink", "softmax",
    "softplus", "softsign", "space_to_depth", "sparse_categorical_crossentropy", "sparse_plus",
    "sparse_sigmoid", "squareplus", "swish", "tanh_shrink", "threshold",
]


def __getattr__(name: str) -> Any:
    raise _keras_missing.missing("nn", name)
