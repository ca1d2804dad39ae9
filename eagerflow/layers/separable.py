"""Depthwise and depthwise-separable convolutions: `DepthwiseConv1D`, `DepthwiseConv2D`,
`SeparableConv1D` and `SeparableConv2D` (the 1-D layers run the 2-D ops on height-1
images).

A depthwise convolution filters each input channel on its own with `depth_multiplier`
filters (output channel ``k * depth_multiplier + m`` is input channel k with filter m); a
separable convolution follows it with a 1x1 ("pointwise") convolution that mixes the
channels into `filters` outputs. Weights as in Keras 3: ``depthwise_kernel`` of shape
``(kh, kw, in_channels, depth_multiplier)``, ``pointwise_kernel`` of shape
``(1, 1, in_channels * depth_multiplier, filters)``, and a bias per output channel (for
the 1-D layers, ``(k, in_channels, depth_multiplier)`` and ``(1, in_channels *
depth_multiplier, filters)``).

Examples:
    >>> import eagerflow as ef
    >>> ef.layers.DepthwiseConv2D(3, depth_multiplier=2)(ef.ones([1, 8, 8, 3])).shape
    (1, 6, 6, 6)
    >>> ef.layers.SeparableConv2D(5, 3, padding="same")(ef.ones([1, 8, 8, 3])).shape
    (1, 8, 8, 5)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from eagerflow.layers import activations, constraints, core, initializers, regularizers
from eagerflow.layers.base import Layer
from eagerflow.layers.convolutional import _padding, conv_output_length, normalize_tuple
from eagerflow.layers.core import positive_int
from eagerflow.layers.input_spec import InputSpec
from eagerflow.layers.reshaping import check_data_format
from eagerflow.ops import array_ops
from eagerflow.ops import conv_ops
from eagerflow.ops import nn_ops


class _Depthwise(Layer):
    """The depthwise part shared by the layers."""

    _rank = 2

    def __init__(self, kernel_size: int | Sequence[int], strides: int | Sequence[int] = 1,
                 padding: str = "valid", depth_multiplier: int = 1, data_format: str | None = None,
                 dilation_rate: int | Sequence[int] = 1, activation: Any = None,
                 use_bias: bool = True, depthwise_initializer: Any = "glorot_uniform",
                 bias_initializer: Any = "zeros", depthwise_regularizer: Any = None,
                 bias_regularizer: Any = None, activity_regularizer: Any = None,
                 depthwise_constraint: Any = None, bias_constraint: Any = None,
                 **kwargs: Any) -> None:
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        name, rank = type(self).__name__, self._rank
        self.kernel_size = normalize_tuple(kernel_size, rank, "kernel_size", name)
        self.strides = normalize_tuple(strides, rank, "strides", name)
        self.padding = _padding(padding, name, {"valid", "same"})
        self.depth_multiplier = positive_int(depth_multiplier, "depth_multiplier", name)
        self.data_format = check_data_format(data_format, name)
        self.dilation_rate = normalize_tuple(dilation_rate, rank, "dilation_rate", name)
        if max(self.strides) > 1 and max(self.dilation_rate) > 1:
            raise ValueError(
                f"`strides > 1` is not supported in conjunction with `dilation_rate > 1` in "
                f"{name}. Received: strides={self.strides} and "
                f"dilation_rate={self.dilation_rate}")
        self.activation = activations.get(activation)
        self.use_bias = bool(use_bias)
        self.depthwise_initializer = initializers.get(depthwise_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.depthwise_regularizer = regularizers.get(depthwise_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.depthwise_constraint = constraints.get(depthwise_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.input_spec = InputSpec(ndim=rank + 2)
        self._channel_axis = -1 if self.data_format == "channels_last" else 1

    def _channels(self, input_shape) -> int:
        channels = input_shape[self._channel_axis]
        if channels is None:
            raise ValueError(
                f"The channel dimension of the inputs to {type(self).__name__} should be "
                f"defined. Found None. Full input shape received: {tuple(input_shape)}")
        self.input_spec = InputSpec(ndim=self._rank + 2, axes={self._channel_axis: channels})
        return channels

    def _add_depthwise(self, channels: int) -> None:
        self.depthwise_kernel = self.add_weight(
            "depthwise_kernel", (*self.kernel_size, channels, self.depth_multiplier),
            initializer=self.depthwise_initializer, regularizer=self.depthwise_regularizer,
            constraint=self.depthwise_constraint)

    def _add_bias(self, size: int) -> None:
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight("bias", (size,), initializer=self.bias_initializer,
                                        regularizer=self.bias_regularizer,
                                        constraint=self.bias_constraint)

    def _as_image(self, inputs):
        """A 1-D layer's input as a height-1 image (2-D inputs as they are)."""
        if self._rank == 2:
            return inputs
        return array_ops.expand_dims(inputs, 1 if self.data_format == "channels_last" else 2)

    def _from_image(self, outputs):
        if self._rank == 2:
            return outputs
        return array_ops.squeeze(outputs, 1 if self.data_format == "channels_last" else 2)

    def _depthwise(self, image):
        kernel, strides, dilations = self.depthwise_kernel, self.strides, self.dilation_rate
        if self._rank == 1:
            kernel = array_ops.expand_dims(kernel, 0)
            strides, dilations = (1, *strides), (1, *dilations)
        return conv_ops.depthwise_conv2d(
            image, kernel, strides=[1, *strides, 1]
            if self.data_format == "channels_last" else [1, 1, *strides],
            padding=self.padding.upper(),
            data_format="NHWC" if self.data_format == "channels_last" else "NCHW",
            dilations=list(dilations))

    def _finish(self, outputs):
        if self.bias is not None:
            data_format = "N...C" if self.data_format == "channels_last" else "NC..."
            outputs = nn_ops.bias_add(outputs, self.bias, data_format=data_format)
        return core.activate(self, outputs)

    def _output_shape(self, input_shape, channels_out):
        input_shape = tuple(input_shape)
        rank = self._rank
        spatial = input_shape[1:1 + rank] if self.data_format == "channels_last" else \
            input_shape[2:2 + rank]
        sizes = tuple(conv_output_length(n, k, self.padding, s, d) for n, k, s, d in zip(
            spatial, self.kernel_size, self.strides, self.dilation_rate, strict=True))
        if self.data_format == "channels_last":
            return (input_shape[0], *sizes, channels_out)
        return (input_shape[0], channels_out, *sizes)

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "kernel_size": list(self.kernel_size), "strides": list(self.strides),
            "padding": self.padding, "depth_multiplier": self.depth_multiplier,
            "data_format": self.data_format, "dilation_rate": list(self.dilation_rate),
            "activation": activations.serialize(self.activation), "use_bias": self.use_bias,
            "depthwise_initializer": initializers.serialize(self.depthwise_initializer),
            "bias_initializer": initializers.serialize(self.bias_initializer),
            "depthwise_regularizer": regularizers.serialize(self.depthwise_regularizer),
            "bias_regularizer": regularizers.serialize(self.bias_regularizer),
            "activity_regularizer": regularizers.serialize(self.activity_regularizer),
            "depthwise_constraint": constraints.serialize(self.depthwise_constraint),
            "bias_constraint": constraints.serialize(self.bias_constraint),
        }


class DepthwiseConv2D(_Depthwise):
    """Depthwise 2-D convolution: each input channel filtered by its own
    `depth_multiplier` kernels, without mixing channels (Keras 3's layer).

    Args:
        kernel_size: int or ``(kh, kw)``.
        strides: int or pair (default 1).
        padding: ``"valid"`` or ``"same"``.
        depth_multiplier: filters per input channel; the output has ``channels *
            depth_multiplier`` channels.
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.
        dilation_rate: int or pair; not combinable with strides > 1.
        activation, use_bias: as in Dense.
        depthwise_initializer, bias_initializer: initializers.
        depthwise_regularizer, bias_regularizer, activity_regularizer: regularizers.
        depthwise_constraint, bias_constraint: constraints.

    Raises:
        ValueError: for invalid sizes or paddings, or inputs that are not rank 4 or have an
            unknown channel count.

    Examples:
        >>> import eagerflow as ef
        >>> layer = ef.layers.DepthwiseConv2D(3, strides=2, padding="same")
        >>> layer(ef.ones([2, 9, 9, 4])).shape, layer.depthwise_kernel.shape
        ((2, 5, 5, 4), (3, 3, 4, 1))
    """

    def build(self, input_shape: Any) -> None:
        channels = self._channels(input_shape)
        self._add_depthwise(channels)
        self._add_bias(channels * self.depth_multiplier)

    def call(self, inputs: Any) -> Any:
        return self._finish(self._from_image(self._depthwise(self._as_image(inputs))))

    def compute_output_shape(self, input_shape: Any) -> Any:
        channels = input_shape[self._channel_axis]
        return self._output_shape(
            input_shape, None if channels is None else channels * self.depth_multiplier)


class SeparableConv2D(_Depthwise):
    """Depthwise-separable 2-D convolution: a depthwise convolution, then a 1x1 convolution
    mixing its ``channels * depth_multiplier`` outputs into `filters` (Keras 3's layer).

    Args:
        filters: the number of output channels.
        kernel_size, strides, padding, data_format, dilation_rate, depth_multiplier: of the
            depthwise step (see `DepthwiseConv2D`).
        activation, use_bias: as in Dense.
        depthwise_initializer, pointwise_initializer, bias_initializer: initializers.
        depthwise_regularizer, pointwise_regularizer, bias_regularizer: regularizers.
        activity_regularizer: regularizer on the outputs.
        depthwise_constraint, pointwise_constraint, bias_constraint: constraints.

    Raises:
        ValueError: as `DepthwiseConv2D`, and for a non-positive `filters`.

    Examples:
        >>> import eagerflow as ef
        >>> layer = ef.layers.SeparableConv2D(6, 3, depth_multiplier=2)
        >>> _ = layer(ef.ones([1, 5, 5, 3]))
        >>> layer.depthwise_kernel.shape, layer.pointwise_kernel.shape, layer.bias.shape
        ((3, 3, 3, 2), (1, 1, 6, 6), (6,))
    """

    def __init__(self, filters: int, kernel_size: int | Sequence[int],
                 strides: int | Sequence[int] = 1, padding: str = "valid",
                 data_format: str | None = None, dilation_rate: int | Sequence[int] = 1,
                 depth_multiplier: int = 1, activation: Any = None, use_bias: bool = True,
                 depthwise_initializer: Any = "glorot_uniform",
                 pointwise_initializer: Any = "glorot_uniform", bias_initializer: Any = "zeros",
                 depthwise_regularizer: Any = None, pointwise_regularizer: Any = None,
                 bias_regularizer: Any = None, activity_regularizer: Any = None,
                 depthwise_constraint: Any = None, pointwise_constraint: Any = None,
                 bias_constraint: Any = None, **kwargs: Any) -> None:
        super().__init__(kernel_size, strides=strides, padding=padding,
                         depth_multiplier=depth_multiplier, data_format=data_format,
                         dilation_rate=dilation_rate, activation=activation,
                         use_bias=use_bias, depthwise_initializer=depthwise_initializer,
                         bias_initializer=bias_initializer,
                         depthwise_regularizer=depthwise_regularizer,
                         bias_regularizer=bias_regularizer,
                         activity_regularizer=activity_regularizer,
                         depthwise_constraint=depthwise_constraint,
                         bias_constraint=bias_constraint, **kwargs)
        self.filters = positive_int(filters, "filters", type(self).__name__)
        self.pointwise_initializer = initializers.get(pointwise_initializer)
        self.pointwise_regularizer = regularizers.get(pointwise_regularizer)
        self.pointwise_constraint = constraints.get(pointwise_constraint)

    def build(self, input_shape: Any) -> None:
        channels = self._channels(input_shape)
        self._add_depthwise(channels)
        self.pointwise_kernel = self.add_weight(
            "pointwise_kernel",
            (*(1,) * self._rank, channels * self.depth_multiplier, self.filters),
            initializer=self.pointwise_initializer, regularizer=self.pointwise_regularizer,
            constraint=self.pointwise_constraint)
        self._add_bias(self.filters)

    def call(self, inputs: Any) -> Any:
        pointwise = self.pointwise_kernel
        if self._rank == 1:
            pointwise = array_ops.expand_dims(pointwise, 0)
        outputs = conv_ops.conv2d(
            self._depthwise(self._as_image(inputs)), pointwise, strides=1, padding="VALID",
            data_format="NHWC" if self.data_format == "channels_last" else "NCHW")
        return self._finish(self._from_image(outputs))

    def compute_output_shape(self, input_shape: Any) -> Any:
        return self._output_shape(input_shape, self.filters)

    def get_config(self) -> dict:
        return {
            **super().get_config(), "filters": self.filters,
            "pointwise_initializer": initializers.serialize(self.pointwise_initializer),
            "pointwise_regularizer": regularizers.serialize(self.pointwise_regularizer),
            "pointwise_constraint": constraints.serialize(self.pointwise_constraint),
        }


class DepthwiseConv1D(DepthwiseConv2D):
    """Depthwise 1-D convolution over sequences ``(batch, steps, channels)``: each channel
    filtered by its own `depth_multiplier` kernels (Keras 3's layer; arguments as
    `DepthwiseConv2D` with single ints).

    Examples:
        >>> import eagerflow as ef
        >>> layer = ef.layers.DepthwiseConv1D(3, depth_multiplier=2)
        >>> layer(ef.ones([1, 8, 3])).shape, layer.depthwise_kernel.shape
        ((1, 6, 6), (3, 3, 2))
    """

    _rank = 1


class SeparableConv1D(SeparableConv2D):
    """Depthwise-separable 1-D convolution over sequences: a `DepthwiseConv1D`, then a
    pointwise convolution into `filters` channels (Keras 3's layer; arguments as
    `SeparableConv2D` with single ints).

    Examples:
        >>> import eagerflow as ef
        >>> layer = ef.layers.SeparableConv1D(5, 3, padding="same", depth_multiplier=2)
        >>> layer(ef.ones([1, 8, 3])).shape, layer.pointwise_kernel.shape
        ((1, 8, 5), (1, 6, 5))
    """

    _rank = 1
