"""TensorFlow's `tf.nn` functions that are compositions of other ops: the N-D pooling
names (`max_pool`, `avg_pool`, choosing the 1-, 2- or 3-D op by rank), block moves
(`space_to_depth`, `depth_to_space`), losses (`weighted_cross_entropy_with_logits`,
`log_poisson_loss`, `compute_average_loss`, `scale_regularization_loss`), moments from
statistics (`sufficient_statistics`, `normalize_moments`, `weighted_moments`) and
`crelu`, with TensorFlow's signatures and formulas.

Examples:
    >>> import eagerflow as ef
    >>> ef.nn.crelu([-1.0, 2.0])
    ef.Tensor([0. 2. 1. 0.], shape=(4,), dtype=float32)
    >>> ef.nn.depth_to_space(ef.reshape(ef.range(4.0), (1, 1, 1, 4)), 2)[0, :, :, 0]
    ef.Tensor(
    [[0. 1.]
     [2. 3.]], shape=(2, 2), dtype=float32)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from eagerflow.core import errors
from eagerflow.ops import array_ops as _array
from eagerflow.ops import creation as _creation
from eagerflow.ops import logic as _logic
from eagerflow.ops import math as _math
from eagerflow.ops import nn_ops as _nn
from eagerflow.ops import pooling as _pooling
from eagerflow.ops import pooling3d as _pooling3d
from eagerflow.ops import reduce as _reduce
from eagerflow.ops import special as _special
from eagerflow.ops import unary as _unary
from eagerflow.ops.typing import Tensor, TensorLike

_POOLS = {"max": (_pooling.max_pool1d, _pooling.max_pool2d, _pooling3d.max_pool3d),
          "avg": (_pooling.avg_pool1d, _pooling.avg_pool2d, _pooling3d.avg_pool3d)}


def _pool(kind: str, input: TensorLike, ksize: Any, strides: Any, padding: str,
          data_format: str | None, op_name: str) -> Tensor:
    x = _creation.convert_to_tensor(input)
    if x.ndim not in (3, 4, 5):
        raise errors.InvalidArgumentError(
            f"{op_name} expects a 3-D, 4-D or 5-D input (batch, spatial..., channels), got "
            f"shape {x.shape}", op=op_name)
    pool = _POOLS[kind][x.ndim - 3]
    if data_format is None:
        return pool(x, ksize, strides, padding)
    return pool(x, ksize, strides, padding, data_format=data_format)


def max_pool(input: TensorLike, ksize: int | Sequence[int],  # noqa: A002
             strides: int | Sequence[int], padding: str, data_format: str | None = None,
             name: str | None = None) -> Tensor:
    """N-D max pooling: `max_pool1d`, `max_pool2d` or `max_pool3d` by the input's rank
    (3, 4 or 5), with the same arguments (`data_format` defaults to channels last).

    Raises:
        InvalidArgumentError: for an input of another rank, or bad window arguments.

    Examples:
        >>> import eagerflow as ef
        >>> ef.nn.max_pool(ef.reshape(ef.range(4.0), (1, 4, 1)), 2, 2, "VALID")[0, :, 0]
        ef.Tensor([1. 3.], shape=(2,), dtype=float32)
    """
    return _pool("max", input, ksize, strides, padding, data_format, "MaxPool")


def avg_pool(input: TensorLike, ksize: int | Sequence[int],  # noqa: A002
             strides: int | Sequence[int], padding: str, data_format: str | None = None,
             name: str | None = None) -> Tensor:
    """N-D average pooling: `avg_pool1d`, `avg_pool2d` or `avg_pool3d` by the input's
    rank (3, 4 or 5), with the same arguments.

    Raises:
        InvalidArgumentError: for an input of another rank, or bad window arguments.

    Examples:
        >>> import eagerflow as ef
        >>> ef.nn.avg_pool(ef.reshape(ef.range(4.0), (1, 4, 1)), 2, 2, "VALID")[0, :, 0]
        ef.Tensor([0.5 2.5], shape=(2,), dtype=float32)
    """
    return _pool("avg", input, ksize, strides, padding, data_format, "AvgPool")


def _block_args(input: TensorLike, block_size: int, data_format: str,
                op_name: str) -> tuple[Tensor, int, bool]:
    x = _creation.convert_to_tensor(input)
    if x.ndim != 4:
        raise errors.InvalidArgumentError(f"{op_name} expects a 4-D input, got shape "
                                          f"{x.shape}", op=op_name)
    if int(block_size) < 2:
        raise errors.InvalidArgumentError(f"block_size must be at least 2, got {block_size}",
                                          op=op_name)
    if data_format not in ("NHWC", "NCHW"):
        raise errors.InvalidArgumentError(
            f"data_format must be 'NHWC' or 'NCHW', got {data_format!r}", op=op_name)
    return x, int(block_size), data_format == "NCHW"


def space_to_depth(input: TensorLike, block_size: int, data_format: str = "NHWC",  # noqa: A002
                   name: str | None = None) -> Tensor:
    """Moves each ``block_size x block_size`` spatial block into the channels: (N, H, W, C)
    becomes (N, H/b, W/b, b*b*C), the block's rows outermost (TensorFlow's order).

    Raises:
        InvalidArgumentError: for a non-4-D input, a block size under 2, or a height or
            width that the block size does not divide.

    Examples:
        >>> import eagerflow as ef
        >>> ef.nn.space_to_depth(ef.zeros((1, 4, 6, 3)), 2).shape
        (1, 2, 3, 12)
    """
    x, b, channels_first = _block_args(input, block_size, data_format, "SpaceToDepth")
    if channels_first:
        x = _array.transpose(x, (0, 2, 3, 1))
    n, h, w, c = x.shape
    if h % b or w % b:
        raise errors.InvalidArgumentError(
            f"height and width ({h}, {w}) must be divisible by block_size {b}",
            op="SpaceToDepth")
    y = _array.reshape(x, (n, h // b, b, w // b, b, c))
    y = _array.reshape(_array.transpose(y, (0, 1, 3, 2, 4, 5)), (n, h // b, w // b, b * b * c))
    return _array.transpose(y, (0, 3, 1, 2)) if channels_first else y


def depth_to_space(input: TensorLike, block_size: int, data_format: str = "NHWC",  # noqa: A002
                   name: str | None = None) -> Tensor:
    """The inverse of `space_to_depth`: (N, H, W, b*b*C) becomes (N, H*b, W*b, C).

    Raises:
        InvalidArgumentError: for a non-4-D input, a block size under 2, or a channel count
            that ``block_size**2`` does not divide.

    Examples:
        >>> import eagerflow as ef
        >>> ef.nn.depth_to_space(ef.zeros((1, 2, 3, 12)), 2).shape
        (1, 4, 6, 3)
    """
    x, b, channels_first = _block_args(input, block_size, data_format, "DepthToSpace")
    if channels_first:
        x = _array.transpose(x, (0, 2, 3, 1))
    n, h, w, c = x.shape
    if c % (b * b):
        raise errors.InvalidArgumentError(
            f"depth {c} must be divisible by block_size * block_size = {b * b}",
            op="DepthToSpace")
    y = _array.reshape(x, (n, h, w, b, b, c // (b * b)))
    y = _array.reshape(_array.transpose(y, (0, 1, 3, 2, 4, 5)), (n, h * b, w * b, c // (b * b)))
    return _array.transpose(y, (0, 3, 1, 2)) if channels_first else y


def crelu(features: TensorLike, name: str | None = None, axis: int = -1) -> Tensor:
    """Concatenated ReLU: ``concat([relu(x), relu(-x)], axis)``, doubling that axis.

    Examples:
        >>> import eagerflow as ef
        >>> ef.nn.crelu([[1.0, -2.0]])
        ef.Tensor([[1. 0. 0. 2.]], shape=(1, 4), dtype=float32)
    """
    x = _creation.convert_to_tensor(features)
    return _array.concat([_nn.relu(x), _nn.relu(_unary.negative(x))], axis=axis)


def weighted_cross_entropy_with_logits(labels: TensorLike, logits: TensorLike,
                                       pos_weight: TensorLike, name: str | None = None) -> Tensor:
    """Sigmoid cross-entropy with the positive term weighted by `pos_weight`:
    ``labels * -log(sigmoid(logits)) * pos_weight + (1 - labels) * -log(1 - sigmoid(logits))``,
    computed as ``(1 - z) * x + (1 + (q - 1) * z) * (log1p(exp(-|x|)) + max(-x, 0))``.

    Raises:
        InvalidArgumentError: when `labels` and `logits` differ in shape.

    Examples:
        >>> import eagerflow as ef
        >>> ef.nn.weighted_cross_entropy_with_logits([1.0, 0.0], [0.0, 0.0], 2.0)
        ef.Tensor([1.3863 0.6931], shape=(2,), dtype=float32)
    """
    logits = _creation.convert_to_tensor(logits)
    labels = _math.cast(labels, logits.dtype)
    if labels.shape != logits.shape:
        raise errors.InvalidArgumentError(
            f"labels and logits must have the same shape, got {labels.shape} and "
            f"{logits.shape}", op="WeightedCrossEntropyWithLogits")
    log_weight = _math.add(_math.multiply(_math.subtract(pos_weight, 1.0), labels), 1.0)
    softplus_neg = _special.softplus(_unary.negative(logits))  # log1p(exp(-x)), stably
    return _math.add(_math.multiply(_math.subtract(1.0, labels), logits),
                     _math.multiply(log_weight, softplus_neg))


def log_poisson_loss(targets: TensorLike, log_input: TensorLike,
                     compute_full_loss: bool = False, name: str | None = None) -> Tensor:
    """The Poisson negative log-likelihood ``exp(c) - z * c`` of targets `z` given the log
    rate `c`; with `compute_full_loss`, plus Stirling's ``z log z - z + 0.5 log(2 pi z)``
    where ``z > 1``.

    Raises:
        InvalidArgumentError: when `targets` and `log_input` differ in shape.

    Examples:
        >>> import eagerflow as ef
        >>> ef.nn.log_poisson_loss([1.0, 2.0], [0.0, 0.0])
        ef.Tensor([1. 1.], shape=(2,), dtype=float32)
    """
    log_input = _creation.convert_to_tensor(log_input)
    targets = _math.cast(targets, log_input.dtype)
    if targets.shape != log_input.shape:
        raise errors.InvalidArgumentError(
            f"log_input and targets must have the same shape, got {log_input.shape} and "
            f"{targets.shape}", op="LogPoissonLoss")
    loss = _math.subtract(_unary.exp(log_input), _math.multiply(targets, log_input))
    if not compute_full_loss:
        return loss
    above = _logic.greater(targets, 1.0)
    safe = _math.where(above, targets, _creation.ones_like(targets))
    stirling = _math.add(_math.subtract(_math.multiply(safe, _unary.log(safe)), safe),
                         _math.multiply(_unary.log(_math.multiply(safe, 2.0 * math.pi)), 0.5))
    return _math.add(loss, _math.where(above, stirling, _creation.zeros_like(stirling)))


def sufficient_statistics(x: TensorLike, axes: Sequence[int], shift: TensorLike | None = None,
                          keepdims: bool = False, name: str | None = None) -> tuple:
    """The sufficient statistics for the mean and variance of `x` over `axes`.

    Returns:
        ``(count, mean_ss, variance_ss, shift)``: the number of reduced entries (in `x`'s
        dtype), ``sum(x - shift)``, ``sum((x - shift)**2)`` and `shift` (None if not given).

    Examples:
        >>> import eagerflow as ef
        >>> count, m, v, _ = ef.nn.sufficient_statistics([1.0, 2.0, 3.0], axes=[0])
        >>> float(count), float(m), float(v)
        (3.0, 6.0, 14.0)
    """
    x = _creation.convert_to_tensor(x)
    axes = [int(a) % max(x.ndim, 1) for a in axes]
    count = _creation.constant(float(np.prod([x.shape[a] for a in axes])), x.dtype)
    centered = x if shift is None else _math.subtract(x, shift)
    mean_ss = _reduce.reduce_sum(centered, axes, keepdims=keepdims)
    variance_ss = _reduce.reduce_sum(_unary.square(centered), axes, keepdims=keepdims)
    return count, mean_ss, variance_ss, (None if shift is None else
                                         _creation.convert_to_tensor(shift))


def normalize_moments(counts: TensorLike, mean_ss: TensorLike, variance_ss: TensorLike,
                      shift: TensorLike | None, name: str | None = None) -> tuple[Tensor, Tensor]:
    """The mean and variance from `sufficient_statistics`' outputs.

    Returns:
        ``(mean, variance)``: ``mean_ss / counts (+ shift)`` and
        ``variance_ss / counts - (mean_ss / counts)**2``.

    Examples:
        >>> import eagerflow as ef
        >>> mean, variance = ef.nn.normalize_moments(3.0, 6.0, 14.0, None)
        >>> round(float(mean), 4), round(float(variance), 4)
        (2.0, 0.6667)
    """
    divisor = _math.divide(1.0, _creation.convert_to_tensor(counts))
    shifted_mean = _math.multiply(mean_ss, divisor)
    mean = shifted_mean if shift is None else _math.add(shifted_mean, shift)
    variance = _math.subtract(_math.multiply(variance_ss, divisor), _unary.square(shifted_mean))
    return mean, variance


def weighted_moments(x: TensorLike, axes: Sequence[int], frequency_weights: TensorLike,
                     keepdims: bool = False, name: str | None = None) -> tuple[Tensor, Tensor]:
    """The mean and variance of `x` over `axes`, each entry counted `frequency_weights`
    times (broadcast against `x`); 0 where the weights sum to 0.

    Examples:
        >>> import eagerflow as ef
        >>> mean, variance = ef.nn.weighted_moments([1.0, 3.0], [0], [3.0, 1.0])
        >>> float(mean), float(variance)
        (1.5, 0.75)
    """
    x = _creation.convert_to_tensor(x)
    weights = _math.cast(frequency_weights, x.dtype)
    total = _reduce.reduce_sum(_math.multiply(weights, _creation.ones_like(x)), axes,
                               keepdims=True)
    divisor = _math.where(_logic.equal(total, 0.0), _creation.zeros_like(total),
                          _math.divide(1.0, _math.where(_logic.equal(total, 0.0),
                                                        _creation.ones_like(total), total)))
    mean = _math.multiply(_reduce.reduce_sum(_math.multiply(weights, x), axes, keepdims=True),
                          divisor)
    squared = _unary.square(_math.subtract(x, mean))
    variance = _math.multiply(
        _reduce.reduce_sum(_math.multiply(weights, squared), axes, keepdims=True), divisor)
    if not keepdims:
        mean, variance = _array.squeeze(mean, list(axes)), _array.squeeze(variance, list(axes))
    return mean, variance


def compute_average_loss(per_example_loss: TensorLike, sample_weight: TensorLike | None = None,
                         global_batch_size: int | None = None) -> Tensor:
    """The sum of the (weighted) per-example losses divided by the global batch size.

    With one replica (eagerflow's strategies split batches across processes, each of
    which computes its own loss) the global batch size defaults to the first dimension
    of `per_example_loss`.

    Raises:
        ValueError: for a negative `global_batch_size` (0 gives 0).

    Examples:
        >>> import eagerflow as ef
        >>> ef.nn.compute_average_loss([1.0, 2.0, 3.0], global_batch_size=6)
        ef.Tensor(1.0, shape=(), dtype=float32)
    """
    loss = _creation.convert_to_tensor(per_example_loss)
    if sample_weight is not None:
        loss = _math.multiply(loss, _math.cast(sample_weight, loss.dtype))
    if global_batch_size is None:
        global_batch_size = loss.shape[0] if loss.ndim else 1
    if int(global_batch_size) < 0:
        raise ValueError(f"`global_batch_size` must be non-negative. Received: "
                         f"global_batch_size={global_batch_size}")
    total = _reduce.reduce_sum(loss)
    if int(global_batch_size) == 0:  # TensorFlow divides with divide_no_nan
        return _creation.zeros_like(total)
    return _math.divide(total, float(global_batch_size))


def scale_regularization_loss(regularization_loss: TensorLike) -> Tensor:
    """The sum of `regularization_loss` divided by the number of replicas (1 here: each
    process of a strategy holds a whole model).

    Examples:
        >>> import eagerflow as ef
        >>> ef.nn.scale_regularization_loss([0.5, 0.25])
        ef.Tensor(0.75, shape=(), dtype=float32)
    """
    return _reduce.reduce_sum(_creation.convert_to_tensor(regularization_loss))
