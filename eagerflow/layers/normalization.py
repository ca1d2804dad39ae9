"""Normalization layers: BatchNormalization, LayerNormalization, RMSNormalization,
UnitNormalization and GroupNormalization.

Examples:
    >>> import eagerflow as ef
    >>> x = ef.constant([[0.0, 2.0], [2.0, 4.0]])
    >>> ef.layers.LayerNormalization(epsilon=0.0)(x)
    ef.Tensor(
    [[-1.  1.]
     [-1.  1.]], shape=(2, 2), dtype=float32)
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from eagerflow.layers import call_context, constraints, initializers, regularizers
from eagerflow.layers.base import Layer
from eagerflow.layers.input_spec import InputSpec
from eagerflow.ops import array_ops
from eagerflow.ops import batch_norm as batch_norm_ops
from eagerflow.ops import layer_norm as layer_norm_ops
from eagerflow.ops import math as math_ops
from eagerflow.ops import normalization as norm_ops
from eagerflow.ops import reduce as reduce_ops
from eagerflow.ops import unary as unary_ops
from eagerflow.ops.typing import AxisLike, Tensor

# The dtypes LayerNormalization's fused op computes in (float16 takes the composite path).
_FUSED_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def _axes(axis, rank: int, layer: str) -> list:
    axes = [axis] if isinstance(axis, int) else list(axis)
    resolved = []
    for a in axes:
        if not -rank <= int(a) < rank:
            raise ValueError(
                f"Invalid axis {a} for {layer} on an input of rank {rank}: axes must be in "
                f"[{-rank}, {rank}).")
        resolved.append(int(a) % rank)
    return sorted(set(resolved))


def _broadcast(value, shape):
    """A per-feature weight reshaped to broadcast against the input (None stays None)."""
    if value is None:
        return None
    return value if tuple(value.shape) == tuple(shape) else array_ops.reshape(value, shape)


class _Normalization(Layer):
    """Shared arguments and weights of the normalization layers."""

    def _init_params(self, axis, epsilon, center, scale, beta_initializer, gamma_initializer,
                     beta_regularizer, gamma_regularizer, beta_constraint, gamma_constraint):
        self.axis = axis if isinstance(axis, int) else [int(a) for a in axis]
        self.epsilon = float(epsilon)
        self.center = bool(center)
        self.scale = bool(scale)
        self.beta_initializer = initializers.get(beta_initializer)
        self.gamma_initializer = initializers.get(gamma_initializer)
        self.beta_regularizer = regularizers.get(beta_regularizer)
        self.gamma_regularizer = regularizers.get(gamma_regularizer)
        self.beta_constraint = constraints.get(beta_constraint)
        self.gamma_constraint = constraints.get(gamma_constraint)
        self.supports_masking = True

    def _build_params(self, input_shape, layer: str):
        rank = len(input_shape)
        self._axes = _axes(self.axis, rank, layer)
        for a in self._axes:
            if input_shape[a] is None:
                raise ValueError(
                    f"Axis {a} of the input to {layer} '{self.name}' must have a known size "
                    f"(its weights have one entry per feature). Input shape: "
                    f"{tuple(input_shape)}")
        shape = tuple(input_shape[a] for a in self._axes)
        if self._axes == [rank - 1]:
            self._param_shape = shape  # per-channel weights broadcast as they are
        else:
            self._param_shape = tuple(input_shape[i] if i in self._axes else 1
                                      for i in range(rank))
        self.gamma = self.beta = None
        if self.scale:
            self.gamma = self.add_weight("gamma", shape, initializer=self.gamma_initializer,
                                         regularizer=self.gamma_regularizer,
                                         constraint=self.gamma_constraint)
        if self.center:
            self.beta = self.add_weight("beta", shape, initializer=self.beta_initializer,
                                        regularizer=self.beta_regularizer,
                                        constraint=self.beta_constraint)
        self.input_spec = InputSpec(ndim=rank, axes={a: input_shape[a] for a in self._axes})
        return shape

    def _params_config(self) -> dict:
        return dict(
            axis=self.axis, epsilon=self.epsilon, center=self.center, scale=self.scale,
            beta_initializer=initializers.serialize(self.beta_initializer),
            gamma_initializer=initializers.serialize(self.gamma_initializer),
            beta_regularizer=regularizers.serialize(self.beta_regularizer),
            gamma_regularizer=regularizers.serialize(self.gamma_regularizer),
            beta_constraint=constraints.serialize(self.beta_constraint),
            gamma_constraint=constraints.serialize(self.gamma_constraint))


class BatchNormalization(_Normalization):
    """Normalizes each feature with batch statistics in training, moving ones in inference.

    In training (``training=True``) the output is ``gamma * (x - mean) / sqrt(var + eps)
    + beta`` with the mean and (biased) variance of the batch, and the moving statistics
    (non-trainable weights) move towards them: ``moving = moving * momentum + batch * (1 -
    momentum)``. At inference the moving statistics are used and nothing changes. In
    training with one feature axis and no mask, the normalization is one op forward and
    one backward (`eagerflow.ops.batch_norm`); a mask or several axes compose it from
    `moments` and `batch_normalization` (the same function).

    Which statistics are used is a separate question from whether gamma and beta train:
    `freeze_stats` decides it. By default (None) it follows Keras: a
    frozen layer (``trainable=False``) runs in inference mode, as transfer learning
    needs. ``freeze_stats=True`` always uses (and never updates) the moving statistics;
    ``freeze_stats=False`` uses batch statistics in training even when frozen.

    Args:
        axis: the feature axis (or axes), default -1 (channels last).
        momentum: momentum of the moving statistics.
        epsilon: added to the variance.
        center, scale: whether to learn beta and gamma.
        beta_initializer, gamma_initializer: initializers.
        moving_mean_initializer, moving_variance_initializer: initializers.
        beta_regularizer, gamma_regularizer, beta_constraint, gamma_constraint: as in
            Dense.
        freeze_stats: see above.
        synchronized: must be False (one process).

    Raises:
        ValueError: for an invalid axis, an unknown feature size, or synchronized=True.

    Examples:
        >>> import eagerflow as ef
        >>> bn = ef.layers.BatchNormalization(momentum=0.5, epsilon=0.0)
        >>> y = bn(ef.constant([[1.0], [3.0]]), training=True)
        >>> y.numpy().ravel(), bn.moving_mean.numpy(), bn.moving_variance.numpy()
        (array([-1.,  1.], dtype=float32), array([1.], dtype=float32), array([1.], dtype=float32))
    """

    def __init__(self, axis: AxisLike = -1, momentum: float = 0.99, epsilon: float = 1e-3,
                 center: bool = True, scale: bool = True, beta_initializer: Any = "zeros",
                 gamma_initializer: Any = "ones", moving_mean_initializer: Any = "zeros",
                 moving_variance_initializer: Any = "ones", beta_regularizer: Any = None,
                 gamma_regularizer: Any = None, beta_constraint: Any = None,
                 gamma_constraint: Any = None, freeze_stats: Any = None,
                 synchronized: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if synchronized:
            raise ValueError(
                "BatchNormalization(synchronized=True) is not supported: statistics are "
                "computed on each process's batch.")
        self._init_params(axis, epsilon, center, scale, beta_initializer, gamma_initializer,
                          beta_regularizer, gamma_regularizer, beta_constraint,
                          gamma_constraint)
        self.momentum = float(momentum)
        self.moving_mean_initializer = initializers.get(moving_mean_initializer)
        self.moving_variance_initializer = initializers.get(moving_variance_initializer)
        self.freeze_stats = None if freeze_stats is None else bool(freeze_stats)

    def build(self, input_shape: Any) -> None:
        shape = self._build_params(input_shape, "BatchNormalization")
        self.moving_mean = self.add_weight("moving_mean", shape,
                                           initializer=self.moving_mean_initializer,
                                           trainable=False)
        self.moving_variance = self.add_weight("moving_variance", shape,
                                               initializer=self.moving_variance_initializer,
                                               trainable=False)

    def _uses_batch_stats(self, training) -> bool:
        frozen = self.freeze_stats if self.freeze_stats is not None else not self.trainable
        return bool(training) and not frozen

    def call(self, inputs: Any, training: bool | None = None, mask: Any = None) -> Tensor:
        shape = self._param_shape
        reduce_axes = [i for i in range(inputs.ndim) if i not in self._axes]
        if self._uses_batch_stats(training) and mask is None and self._fuses(inputs):
            # One op each way (ops/batch_norm.py): the same function, and the batch
            # statistics it returns move the moving ones as below.
            outputs, mean, variance = batch_norm_ops.batch_norm(
                inputs, self.gamma, self.beta, self.epsilon, self._axes[0])
            if not call_context.state.probing:
                self._update_moving(mean, variance)
            return outputs
        if self._uses_batch_stats(training):
            mean, variance = self._batch_moments(inputs, reduce_axes, mask)
            if not call_context.state.probing:
                self._update_moving(mean, variance)
            mean, variance = _broadcast(mean, shape), _broadcast(variance, shape)
        else:
            mean = _broadcast(self.moving_mean, shape)
            variance = _broadcast(self.moving_variance, shape)
        return norm_ops.batch_normalization(inputs, mean, variance,
                                            _broadcast(self.beta, shape),
                                            _broadcast(self.gamma, shape), self.epsilon)

    def _fuses(self, inputs) -> bool:
        """Whether the fused op computes this call: one feature axis, float32 or float64
        inputs and weights of the same dtype (float16 takes the composite path)."""
        return (len(self._axes) == 1 and inputs.dtype in batch_norm_ops.FUSED_DTYPES
                and all(w is None or w.dtype == inputs.dtype for w in (self.gamma, self.beta)))

    def _batch_moments(self, inputs, axes, mask):
        if mask is None:
            return norm_ops.moments(inputs, axes)
        # Masked steps (padding) do not count: a weighted mean and variance.
        weights = math_ops.cast(mask, inputs.dtype)
        while weights.ndim < inputs.ndim:
            weights = array_ops.expand_dims(weights, -1)
        weights = array_ops.broadcast_to(weights, inputs.shape)
        count = math_ops.maximum(reduce_ops.reduce_sum(weights, axes), 1.0)
        mean = math_ops.divide(reduce_ops.reduce_sum(math_ops.multiply(inputs, weights), axes),
                               count)
        centered = math_ops.subtract(inputs, _broadcast(mean, self._param_shape))
        variance = math_ops.divide(
            reduce_ops.reduce_sum(math_ops.multiply(unary_ops.square(centered), weights), axes),
            count)
        return mean, variance

    def _update_moving(self, mean, variance) -> None:
        # Statistics are state, not part of the differentiated computation.
        momentum = self.momentum
        for moving, batch in ((self.moving_mean, mean), (self.moving_variance, variance)):
            batch = array_ops.stop_gradient(batch)
            moving.assign(math_ops.add(math_ops.multiply(moving, momentum),
                                       math_ops.multiply(batch, 1.0 - momentum)))

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(self._params_config())
        config.update(
            momentum=self.momentum,
            moving_mean_initializer=initializers.serialize(self.moving_mean_initializer),
            moving_variance_initializer=initializers.serialize(
                self.moving_variance_initializer),
            freeze_stats=self.freeze_stats)
        return config


class LayerNormalization(_Normalization):
    """Normalizes each example over `axis`: ``gamma * (x - mean) / sqrt(var + eps) + beta``.

    Statistics are per example (no batch statistics, no training/inference difference).

    Args:
        axis: axis or axes to normalize over (default -1); gamma and beta have one entry
            per element of these axes.
        epsilon: added to the variance.
        center, scale: whether to learn beta and gamma.
        rms_scaling: deprecated, as in Keras 3.15: multiply the inputs by
            ``rsqrt(variance + epsilon)`` without centering them (no beta); despite its
            name this is not the root mean square (`RMSNormalization` is).
        beta_initializer, gamma_initializer: as in Dense.
        beta_regularizer, gamma_regularizer, beta_constraint, gamma_constraint: as in Dense.

    Raises:
        ValueError: for an invalid axis or an unknown feature size.

    Examples:
        >>> import eagerflow as ef
        >>> ef.layers.LayerNormalization()(ef.ones([2, 3, 4])).shape
        (2, 3, 4)
    """

    def __init__(self, axis: AxisLike = -1, epsilon: float = 1e-3, center: bool = True,
                 scale: bool = True, rms_scaling: bool = False, beta_initializer: Any = "zeros",
                 gamma_initializer: Any = "ones", beta_regularizer: Any = None,
                 gamma_regularizer: Any = None, beta_constraint: Any = None,
                 gamma_constraint: Any = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.rms_scaling = bool(rms_scaling)
        if self.rms_scaling:
            warnings.warn(
                "LayerNormalization: rms_scaling=True is deprecated, as in Keras 3: it scales "
                "the inputs by their variance (x / sqrt(var + epsilon), not centered), not by "
                "their root mean square. Use ef.layers.RMSNormalization for that.",
                DeprecationWarning, stacklevel=2)
            center = False
        self._init_params(axis, epsilon, center, scale, beta_initializer, gamma_initializer,
                          beta_regularizer, gamma_regularizer, beta_constraint,
                          gamma_constraint)

    def build(self, input_shape: Any) -> None:
        self._build_params(input_shape, "LayerNormalization")

    def call(self, inputs: Any) -> Any:
        shape = self._param_shape
        gamma = _broadcast(self.gamma, shape)
        if self.rms_scaling:
            # Keras 3.15's (deprecated) rms_scaling divides by the standard deviation, not
            # the root mean square; RMSNormalization is the root mean square.
            _, variance = norm_ops.moments(inputs, self._axes, keepdims=True)
            outputs = math_ops.multiply(inputs,
                                        unary_ops.rsqrt(math_ops.add(variance, self.epsilon)))
            return outputs if gamma is None else math_ops.multiply(outputs, gamma)
        if (self._axes == [inputs.ndim - 1] and self.gamma is not None
                and self.beta is not None and inputs.dtype in _FUSED_DTYPES
                and self.gamma.dtype == inputs.dtype):
            # The common form as one op each way (ops/layer_norm.py): the same function.
            return layer_norm_ops.layer_norm(inputs, self.gamma, self.beta, self.epsilon)
        mean, variance = norm_ops.moments(inputs, self._axes, keepdims=True)
        return norm_ops.batch_normalization(inputs, mean, variance,
                                            _broadcast(self.beta, shape), gamma, self.epsilon)

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(self._params_config())
        config["rms_scaling"] = self.rms_scaling
        return config


class RMSNormalization(Layer):
    """Scales each example by the inverse root mean square over `axis`, times a learned
    `scale`: ``x * rsqrt(mean(x**2, axis) + epsilon) * scale`` (Keras 3's layer; no
    centering).

    Args:
        axis: axis or axes to normalize over (default -1); `scale` has one entry per
            element of these axes.
        epsilon: added to the mean square.

    Raises:
        ValueError: for an invalid axis or an unknown feature size.

    Examples:
        >>> import eagerflow as ef
        >>> ef.layers.RMSNormalization(epsilon=0.0)(ef.constant([[3.0, 4.0]])).numpy().round(4)
        array([[0.8485, 1.1314]], dtype=float32)
    """

    def __init__(self, axis: int | list[int] | tuple[int, ...] = -1, epsilon: float = 1e-6,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.axis = axis if isinstance(axis, int) else [int(a) for a in axis]
        self.epsilon = float(epsilon)
        self.supports_masking = True

    def build(self, input_shape: Any) -> None:
        rank = len(input_shape)
        self._axes = _axes(self.axis, rank, "RMSNormalization")
        if any(input_shape[a] is None for a in self._axes):
            raise ValueError(
                f"The normalized axes {self._axes} of the input to RMSNormalization "
                f"'{self.name}' must have known sizes. Input shape: {tuple(input_shape)}")
        shape = tuple(input_shape[a] for a in self._axes)
        self._param_shape = tuple(input_shape[i] if i in self._axes else 1
                                  for i in range(rank))
        self.scale = self.add_weight("scale", shape, initializer="ones")
        self.input_spec = InputSpec(ndim=rank, axes={a: input_shape[a] for a in self._axes})

    def call(self, inputs: Any) -> Tensor:
        mean_square = reduce_ops.reduce_mean(unary_ops.square(inputs), self._axes,
                                             keepdims=True)
        outputs = math_ops.multiply(inputs, unary_ops.rsqrt(math_ops.add(mean_square,
                                                                         self.epsilon)))
        return math_ops.multiply(outputs, _broadcast(self.scale, self._param_shape))

    def compute_output_shape(self, input_shape: Any) -> Any:
        return tuple(input_shape)

    def get_config(self) -> dict:
        return {**super().get_config(), "axis": self.axis, "epsilon": self.epsilon}


class UnitNormalization(Layer):
    """Scales each input to unit L2 norm along `axis`: ``x / sqrt(max(sum(x**2), 1e-12))``.

    Args:
        axis: the axis (or list of axes) normalized over (default the last).

    Examples:
        >>> import eagerflow as ef
        >>> ef.layers.UnitNormalization()(ef.constant([[3.0, 4.0]]))
        ef.Tensor([[0.6 0.8]], shape=(1, 2), dtype=float32)
    """

    def __init__(self, axis: int | list[int] | tuple[int, ...] = -1, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.axis = [int(a) for a in axis] if isinstance(axis, (list, tuple)) else int(axis)
        self.supports_masking = True

    def call(self, inputs: Any) -> Tensor:
        squares = reduce_ops.reduce_sum(math_ops.multiply(inputs, inputs), axis=self.axis,
                                        keepdims=True)
        return math_ops.multiply(inputs, unary_ops.rsqrt(math_ops.maximum(squares, 1e-12)))

    def compute_output_shape(self, input_shape: Any) -> Any:
        return tuple(input_shape)

    def get_config(self) -> dict:
        return {**super().get_config(), "axis": self.axis}


class GroupNormalization(_Normalization):
    """Normalizes each example over groups of channels (Wu & He), as Keras 3.

    The channels (`axis`) are split into `groups` groups; mean and variance are taken over
    each group's channels and all non-batch, non-channel axes; ``gamma``/``beta`` have one
    entry per channel. ``groups=1`` is layer normalization over everything, ``groups =
    channels`` instance normalization.

    Args:
        groups: the number of groups; must divide the number of channels. -1 is one
            group per channel (instance normalization), set when the layer is built.
        axis: the channel axis (default -1).
        epsilon, center, scale: as in `LayerNormalization`.
        beta_initializer, gamma_initializer: as in `LayerNormalization`, as are the
            beta/gamma regularizers and constraints.

    Raises:
        ValueError: if `groups` does not divide the channels, or is larger.

    Examples:
        >>> import eagerflow as ef
        >>> layer = ef.layers.GroupNormalization(groups=2)
        >>> y = layer(ef.constant([[1.0, 3.0, 10.0, 30.0]]))
        >>> [round(float(v), 3) for v in y[0]]
        [-1.0, 1.0, -1.0, 1.0]
    """

    def __init__(self, groups: int = 32, axis: AxisLike = -1, epsilon: float = 1e-3,
                 center: bool = True, scale: bool = True, beta_initializer: Any = "zeros",
                 gamma_initializer: Any = "ones", beta_regularizer: Any = None,
                 gamma_regularizer: Any = None, beta_constraint: Any = None,
                 gamma_constraint: Any = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if isinstance(groups, bool) or not isinstance(groups, int) or (
                groups < 1 and groups != -1):
            raise ValueError(f"GroupNormalization: `groups` must be a positive int (or -1 "
                             f"for instance normalization). Received: groups={groups!r}")
        if not isinstance(axis, int):
            raise ValueError(f"GroupNormalization: `axis` must be one int (the channel "
                             f"axis). Received: axis={axis!r}")
        self.groups = groups
        self._init_params(axis, epsilon, center, scale, beta_initializer, gamma_initializer,
                          beta_regularizer, gamma_regularizer, beta_constraint,
                          gamma_constraint)

    def build(self, input_shape: Any) -> None:
        channels = input_shape[self.axis]
        if self.groups == -1 and channels is not None:  # one group per channel, as Keras
            self.groups = int(channels)
        if channels is not None and (self.groups > channels or channels % self.groups):
            raise ValueError(
                f"GroupNormalization '{self.name}': groups={self.groups} must divide the "
                f"{channels} channels of input shape {tuple(input_shape)} (and not exceed "
                "them).")
        self._build_params(input_shape, "GroupNormalization")
        self.built = True

    def call(self, inputs: Any) -> Any:
        rank = inputs.ndim
        axis = self.axis % rank
        x = inputs if axis == rank - 1 else array_ops.transpose(
            inputs, [i for i in range(rank) if i != axis] + [axis])
        shape = tuple(x.shape)
        grouped = array_ops.reshape(
            x, (-1, *shape[1:-1], self.groups, shape[-1] // self.groups))
        reduce_axes = list(range(1, rank - 1)) + [rank]  # all but batch and the group axis
        mean, variance = norm_ops.moments(grouped, reduce_axes, keepdims=True)
        normalized = math_ops.divide(math_ops.subtract(grouped, mean), unary_ops.sqrt(
            math_ops.add(variance, self.epsilon)))
        out = array_ops.reshape(normalized, (-1, *shape[1:]))
        if self.gamma is not None:
            out = math_ops.multiply(out, self.gamma)
        if self.beta is not None:
            out = math_ops.add(out, self.beta)
        if axis != rank - 1:
            order = list(range(rank - 1))
            order.insert(axis, rank - 1)
            out = array_ops.transpose(out, order)
        return out

    def compute_output_shape(self, input_shape: Any) -> Any:
        return tuple(input_shape)

    def get_config(self) -> dict:
        return {**super().get_config(), "groups": self.groups, **self._params_config()}
