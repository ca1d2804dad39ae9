"""Convolution layers: Conv1D, Conv2D, Conv3D, Conv2DTranspose (channels last by default).

Kernels are laid out as in Keras: ``(kernel_size..., in_channels // groups, filters)``
for convolutions and ``(kh, kw, filters, in_channels)`` for Conv2DTranspose, so Keras
weights load unchanged.

Examples:
    >>> import eagerflow as ef
    >>> conv = ef.layers.Conv2D(8, 3, padding="same", activation="relu")
    >>> conv(ef.ones([2, 28, 28, 1])).shape, conv.kernel.shape
    ((2, 28, 28, 8), (3, 3, 1, 8))
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from eagerflow.layers import core
from eagerflow.layers.base import Layer
from eagerflow.layers.core import positive_int
from eagerflow.layers.input_spec import InputSpec
from eagerflow.layers.reshaping import check_data_format
from eagerflow.ops import array_ops
from eagerflow.ops import conv_ops
from eagerflow.ops import nn_ops


def normalize_tuple(value, rank: int, name: str, layer: str) -> tuple:
    """An int or a sequence of `rank` positive ints, as a tuple of `rank` ints."""
    items = (value,) * rank if isinstance(value, int) and not isinstance(value, bool) else value
    try:
        items = tuple(items)
    except TypeError:
        items = ()
    if len(items) != rank or any(isinstance(v, bool) or not isinstance(v, int) or v <= 0
                                 for v in items):
        raise ValueError(
            f"The `{name}` argument of {layer} must be a positive int or a tuple of {rank} "
            f"positive ints. Received: {name}={value!r}")
    return items


def conv_output_length(length, kernel, padding, stride, dilation=1):
    """Output size of a convolution along one axis (None stays None)."""
    if length is None:
        return None
    span = (kernel - 1) * dilation + 1
    if padding in ("same", "causal"):
        return -(-length // stride)
    return (length - span) // stride + 1


def _padding(value, layer: str, allowed) -> str:
    padding = str(value).lower()
    if padding not in allowed:
        raise ValueError(
            f"The `padding` argument of {layer} must be one of {sorted(allowed)}. Received: "
            f"padding={value!r}")
    return padding


class _Conv(Layer):
    """Shared arguments, weights and validation of the convolution layers."""

    kernel: Any  # made by `build`
    bias: Any

    _rank = 2
    _transpose = False

    def __init__(self, filters: int, kernel_size: int | Sequence[int],
                 strides: int | Sequence[int] = 1, padding: str = "valid",
                 data_format: str | None = None, dilation_rate: int | Sequence[int] = 1,
                 groups: int = 1, activation: Any = None, use_bias: bool = True,
                 kernel_initializer: Any = "glorot_uniform", bias_initializer: Any = "zeros",
                 kernel_regularizer: Any = None, bias_regularizer: Any = None,
                 activity_regularizer: Any = None, kernel_constraint: Any = None,
                 bias_constraint: Any = None, **kwargs: Any) -> None:
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        name, rank = type(self).__name__, self._rank
        self.filters = positive_int(filters, "filters", name)
        self.kernel_size = normalize_tuple(kernel_size, rank, "kernel_size", name)
        self.strides = normalize_tuple(strides, rank, "strides", name)
        allowed = {"valid", "same", "causal"} if rank == 1 and not self._transpose else {
            "valid", "same"}
        self.padding = _padding(padding, name, allowed)
        self.data_format = check_data_format(data_format, name)
        self.dilation_rate = normalize_tuple(dilation_rate, rank, "dilation_rate", name)
        self.groups = positive_int(groups, "groups", name)
        if self.filters % self.groups:
            raise ValueError(
                f"The number of filters of {name} must be divisible by the number of groups. "
                f"Received: groups={self.groups}, filters={self.filters}")
        if max(self.strides) > 1 and max(self.dilation_rate) > 1:
            raise ValueError(
                f"`strides > 1` is not supported in conjunction with `dilation_rate > 1` in "
                f"{name}. Received: strides={self.strides} and "
                f"dilation_rate={self.dilation_rate}")
        core.init_kernel_bias(self, activation, use_bias, kernel_initializer,
                                    bias_initializer, kernel_regularizer, bias_regularizer,
                                    kernel_constraint, bias_constraint)
        self.input_spec = InputSpec(ndim=rank + 2)
        self._channel_axis = -1 if self.data_format == "channels_last" else 1

    def _kernel_shape(self, channels: int) -> tuple:
        return (*self.kernel_size, channels // self.groups, self.filters)

    def build(self, input_shape: Any) -> None:
        name = type(self).__name__
        channels = input_shape[self._channel_axis]
        if channels is None:
            raise ValueError(
                f"The channel dimension of the inputs to {name} should be defined. Found "
                f"None. Full input shape received: {tuple(input_shape)}")
        if channels % self.groups:
            raise ValueError(
                f"The number of input channels of {name} must be divisible by the number of "
                f"groups. Received: groups={self.groups}, input shape {tuple(input_shape)}")
        core.add_kernel_and_bias(self, self._kernel_shape(channels), (self.filters,))
        self.input_spec = InputSpec(ndim=self._rank + 2, axes={self._channel_axis: channels})

    def _finish(self, outputs):
        if self.bias is not None:
            data_format = "N...C" if self.data_format == "channels_last" else "NC..."
            outputs = nn_ops.bias_add(outputs, self.bias, data_format=data_format)
        return core.activate(self, outputs)

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(
            filters=self.filters, kernel_size=list(self.kernel_size), strides=list(self.strides),
            padding=self.padding, data_format=self.data_format,
            dilation_rate=list(self.dilation_rate), groups=self.groups)
        config.update(core.kernel_bias_config(self))
        return config


class Conv2D(_Conv):
    """2-D convolution over images: ``(batch, height, width, channels)`` by default.

    Args:
        filters: number of output channels.
        kernel_size: int or ``(kh, kw)``.
        strides: int or pair (default 1).
        padding: ``"valid"`` (no padding) or ``"same"`` (output size ``ceil(in / stride)``).
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.
        dilation_rate: int or pair (default 1); not combinable with strides > 1.
        groups: split channels into this many independent groups.
        activation, use_bias, *_initializer, *_regularizer, *_constraint: as in Dense.

    Raises:
        ValueError: for invalid sizes, paddings or groups, or inputs of the wrong rank or
            channel count.

    Examples:
        >>> import eagerflow as ef
        >>> ef.layers.Conv2D(4, (3, 3), strides=2)(ef.ones([1, 9, 9, 3])).shape
        (1, 4, 4, 4)
    """

    _rank = 2

    def call(self, inputs: Any) -> Any:
        outputs = conv_ops.conv2d(
            inputs, self.kernel, strides=list(self.strides), padding=self.padding.upper(),
            data_format="NHWC" if self.data_format == "channels_last" else "NCHW",
            dilations=list(self.dilation_rate))
        return self._finish(outputs)


class Conv3D(_Conv):
    """3-D convolution over volumes: ``(batch, depth, height, width, channels)`` by default.

    Arguments as Conv2D with triples; the kernel has shape
    ``(kd, kh, kw, in_channels // groups, filters)``. It runs as one 2-D convolution per
    kernel depth offset (see `ef.nn.conv3d`), so it suits small volumes.

    Examples:
        >>> import eagerflow as ef
        >>> conv = ef.layers.Conv3D(4, 3, padding="same", strides=(1, 2, 2))
        >>> conv(ef.ones([1, 5, 6, 6, 2])).shape, conv.kernel.shape
        ((1, 5, 3, 3, 4), (3, 3, 3, 2, 4))
    """

    _rank = 3

    def call(self, inputs: Any) -> Any:
        outputs = conv_ops.conv3d(
            inputs, self.kernel, strides=list(self.strides), padding=self.padding.upper(),
            data_format="NDHWC" if self.data_format == "channels_last" else "NCDHW",
            dilations=list(self.dilation_rate))
        return self._finish(outputs)


class Conv1D(_Conv):
    """1-D convolution over sequences: ``(batch, steps, channels)`` by default.

    Arguments as Conv2D with single ints; ``padding="causal"`` pads only the start, so
    output step ``t`` sees inputs up to ``t`` (for autoregressive models).

    Examples:
        >>> import eagerflow as ef
        >>> ef.layers.Conv1D(2, 3, padding="causal")(ef.ones([1, 5, 1])).shape
        (1, 5, 2)
    """

    _rank = 1

    def call(self, inputs: Any) -> Any:
        padding: Any = self.padding.upper()
        if self.padding == "causal":
            left = (self.kernel_size[0] - 1) * self.dilation_rate[0]
            padding = [[0, 0], [left, 0], [0, 0]]
            if self.data_format == "channels_first":
                padding = [[0, 0], [0, 0], [left, 0]]
        outputs = conv_ops.conv1d(
            inputs, self.kernel, stride=self.strides[0], padding=padding,
            data_format="NWC" if self.data_format == "channels_last" else "NCW",
            dilations=self.dilation_rate[0])
        return self._finish(outputs)


def deconv_output_length(length, kernel, padding, output_padding, stride, dilation):
    """Output size of a transposed convolution along one axis (Keras's formula)."""
    if length is None:
        return None
    span = kernel + (kernel - 1) * (dilation - 1)
    if output_padding is None:
        return length * stride + (max(span - stride, 0) if padding == "valid" else 0)
    pad = span // 2 if padding == "same" else 0
    return (length - 1) * stride + span - 2 * pad + output_padding


class Conv2DTranspose(_Conv):
    """Transposed 2-D convolution ("deconvolution"): upsamples by `strides`.

    The kernel has shape ``(kh, kw, filters, in_channels)``.

    Args:
        filters, kernel_size, strides, padding, data_format, dilation_rate: as Conv2D.
        output_padding: int or pair added to the output size on the bottom/right (must
            be smaller than the stride), or None for the default size (``in * stride``
            with ``"same"``).
        activation, use_bias, *_initializer, *_regularizer, *_constraint: as in Dense.

    Raises:
        ValueError: for invalid arguments, or an output_padding not below the stride.

    Examples:
        >>> import eagerflow as ef
        >>> ef.layers.Conv2DTranspose(3, 3, strides=2, padding="same")(
        ...     ef.ones([1, 7, 7, 8])).shape
        (1, 14, 14, 3)
    """

    _rank = 2
    _transpose = True

    def __init__(self, filters: int, kernel_size: int | Sequence[int],
                 strides: int | Sequence[int] = 1, padding: str = "valid",
                 output_padding: Any = None, data_format: str | None = None,
                 dilation_rate: int | Sequence[int] = 1, **kwargs: Any) -> None:
        super().__init__(filters, kernel_size, strides=strides, padding=padding,
                         data_format=data_format, dilation_rate=dilation_rate, **kwargs)
        if self.groups != 1:
            raise ValueError(f"{type(self).__name__} does not support groups. Received: "
                             f"groups={self.groups}")
        self.output_padding = None
        if output_padding is not None:
            name = type(self).__name__
            self.output_padding = tuple((output_padding,) * self._rank
                                        if isinstance(output_padding, int) else output_padding)
            if len(self.output_padding) != self._rank or any(
                    not 0 <= p < s for p, s in zip(self.output_padding, self.strides,
                                                   strict=True)):
                raise ValueError(
                    f"{name} `output_padding` must be non-negative and smaller than "
                    f"the strides {self.strides}. Received: output_padding={output_padding!r}")

    def _kernel_shape(self, channels: int) -> tuple:
        return (*self.kernel_size, self.filters, channels)

    def call(self, inputs: Any) -> Any:
        channels_last = self.data_format == "channels_last"
        kernel, strides, dilations = self.kernel, self.strides, self.dilation_rate
        kernel_size, paddings = self.kernel_size, self.output_padding or (None,) * self._rank
        if self._rank == 1:  # a height-1 image
            inputs = array_ops.expand_dims(inputs, 1 if channels_last else 2)
            kernel = array_ops.expand_dims(kernel, 0)
            kernel_size, strides, dilations = ((1, *v) for v in (kernel_size, strides,
                                                                  dilations))
            paddings = (0, *paddings) if self.output_padding else (None, None)
        spatial = inputs.shape[1:3] if channels_last else inputs.shape[2:4]
        height, width = (deconv_output_length(size, k, self.padding, p, s, d) for size, k, p, s, d
                         in zip(spatial, kernel_size, paddings, strides, dilations, strict=True))
        batch = inputs.shape[0]
        shape = ((batch, height, width, self.filters) if channels_last
                 else (batch, self.filters, height, width))
        outputs = conv_ops.conv2d_transpose(
            inputs, kernel, shape, strides=list(strides), padding=self.padding.upper(),
            data_format="NHWC" if channels_last else "NCHW", dilations=list(dilations))
        if self._rank == 1:
            outputs = array_ops.squeeze(outputs, 1 if channels_last else 2)
        return self._finish(outputs)

    def get_config(self) -> dict:
        config = super().get_config()
        config.pop("groups")
        config["output_padding"] = None if self.output_padding is None else list(
            self.output_padding)
        return config


class Conv1DTranspose(Conv2DTranspose):
    """Transposed 1-D convolution: upsamples sequences by `strides` (Keras 3's layer).

    The kernel has shape ``(k, filters, in_channels)``; arguments as `Conv2DTranspose`
    with single ints.

    Examples:
        >>> import eagerflow as ef
        >>> ef.layers.Conv1DTranspose(4, 3, strides=2)(ef.ones([1, 8, 3])).shape
        (1, 17, 4)
    """

    _rank = 1
