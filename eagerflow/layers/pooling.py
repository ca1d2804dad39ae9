"""Pooling layers: MaxPooling1D/2D/3D, AveragePooling1D/2D/3D and their global versions.

Examples:
    >>> import eagerflow as ef
    >>> ef.layers.MaxPooling2D()(ef.ones([1, 28, 28, 3])).shape
    (1, 14, 14, 3)
    >>> ef.layers.GlobalAveragePooling2D()(ef.ones([1, 7, 7, 3])).shape
    (1, 3)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from eagerflow.core.tensor import Tensor
from eagerflow.layers.base import Layer
from eagerflow.layers.convolutional import _padding, normalize_tuple
from eagerflow.layers.input_spec import InputSpec
from eagerflow.layers.reshaping import check_data_format
from eagerflow.ops import array_ops
from eagerflow.ops import math as math_ops
from eagerflow.ops import pooling as pool_ops
from eagerflow.ops import pooling3d as pool3d_ops
from eagerflow.ops import reduce as reduce_ops

_FORMATS = {2: ("NHWC", "NCHW"), 3: ("NDHWC", "NCDHW")}  # channels last, channels first


class _Pooling2D(Layer):
    _op: Any = None
    _rank = 2

    def __init__(self, pool_size: int | Sequence[int] = (2, 2),
                 strides: int | Sequence[int] | None = None, padding: str = "valid",
                 data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        name, rank = type(self).__name__, self._rank
        self.pool_size = normalize_tuple(pool_size, rank, "pool_size", name)
        self.strides = self.pool_size if strides is None else normalize_tuple(
            strides, rank, "strides", name)
        self.padding = _padding(padding, name, {"valid", "same"})
        self.data_format = check_data_format(data_format, name)
        self.input_spec = InputSpec(ndim=rank + 2)

    def call(self, inputs: Any) -> Any:
        last, first = _FORMATS[self._rank]
        return type(self)._op(
            inputs, list(self.pool_size), list(self.strides), self.padding.upper(),
            data_format=last if self.data_format == "channels_last" else first)

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(pool_size=list(self.pool_size), strides=list(self.strides),
                      padding=self.padding, data_format=self.data_format)
        return config


class MaxPooling2D(_Pooling2D):
    """Maximum over `pool_size` windows, moved by `strides` (default: the pool size).

    Args:
        pool_size: int or pair (default 2x2).
        strides: int or pair, or None for the pool size.
        padding: ``"valid"`` or ``"same"``.
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.

    Raises:
        ValueError: for invalid sizes or padding, or inputs that are not 4-D.

    Examples:
        >>> import eagerflow as ef
        >>> x = ef.reshape(ef.range(16.0), [1, 4, 4, 1])
        >>> ef.layers.MaxPooling2D()(x).numpy().ravel()
        array([ 5.,  7., 13., 15.], dtype=float32)
    """

    _op = staticmethod(pool_ops.max_pool2d)


class AveragePooling2D(_Pooling2D):
    """Mean over `pool_size` windows (with ``"same"`` padding, of the valid cells only).

    Arguments as MaxPooling2D.

    Examples:
        >>> import eagerflow as ef
        >>> x = ef.reshape(ef.range(16.0), [1, 4, 4, 1])
        >>> ef.layers.AveragePooling2D()(x).numpy().ravel()
        array([ 2.5,  4.5, 10.5, 12.5], dtype=float32)
    """

    _op = staticmethod(pool_ops.avg_pool2d)


class _GlobalPooling2D(Layer):
    _op: Any = None
    _rank = 2

    def __init__(self, data_format: str | None = None, keepdims: bool = False,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.data_format = check_data_format(data_format, type(self).__name__)
        self.keepdims = bool(keepdims)
        self.input_spec = InputSpec(ndim=self._rank + 2)

    def call(self, inputs: Any) -> Any:
        last, first = _FORMATS[self._rank]
        return type(self)._op(
            inputs, keepdims=self.keepdims,
            data_format=last if self.data_format == "channels_last" else first)

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(data_format=self.data_format, keepdims=self.keepdims)
        return config


class GlobalAveragePooling2D(_GlobalPooling2D):
    """Mean over height and width: ``(batch, h, w, c) -> (batch, c)``.

    Args:
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.
        keepdims: keep the spatial axes with size 1.

    Examples:
        >>> import eagerflow as ef
        >>> ef.layers.GlobalAveragePooling2D(keepdims=True)(ef.ones([2, 3, 3, 4])).shape
        (2, 1, 1, 4)
    """

    _op = staticmethod(pool_ops.global_avg_pool2d)


class GlobalMaxPooling2D(_GlobalPooling2D):
    """Maximum over height and width: ``(batch, h, w, c) -> (batch, c)``.

    Arguments as GlobalAveragePooling2D.

    Examples:
        >>> import eagerflow as ef
        >>> ef.layers.GlobalMaxPooling2D()(ef.ones([2, 3, 3, 4])).shape
        (2, 4)
    """

    _op = staticmethod(pool_ops.global_max_pool2d)


class _GlobalPooling1D(Layer):
    """Shared arguments of the 1-D global poolings (over the steps axis)."""

    def __init__(self, data_format: str = "channels_last", keepdims: bool = False,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.data_format = check_data_format(data_format, type(self).__name__)
        self.keepdims = bool(keepdims)
        self.input_spec = InputSpec(ndim=3)
        self.supports_masking = True

    @property
    def _axis(self) -> int:
        return 1 if self.data_format == "channels_last" else 2

    def compute_output_shape(self, input_shape: Any) -> Any:
        shape = list(input_shape)
        if self.keepdims:
            shape[self._axis] = 1
            return tuple(shape)
        del shape[self._axis]
        return tuple(shape)

    def compute_mask(self, inputs: Any, mask: Any = None) -> None:
        return None

    def get_config(self) -> dict:
        return {**super().get_config(), "data_format": self.data_format,
                "keepdims": self.keepdims}


class GlobalAveragePooling1D(_GlobalPooling1D):
    """Mean over the steps: ``(batch, steps, features) -> (batch, features)``; masked steps
    (mask False) do not count, as in Keras.

    Args:
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.
        keepdims: keep the steps axis with size 1.

    Examples:
        >>> import eagerflow as ef
        >>> x = ef.constant([[[1.0], [3.0], [100.0]]])
        >>> ef.layers.GlobalAveragePooling1D()(x, mask=ef.constant([[True, True, False]]))
        ef.Tensor([[2.]], shape=(1, 1), dtype=float32)
    """

    def call(self, inputs: Any, mask: Any = None) -> Any:
        axis = self._axis
        if mask is None:
            return reduce_ops.reduce_mean(inputs, axis=axis, keepdims=self.keepdims)
        weights = math_ops.cast(mask, inputs.dtype)
        weights = array_ops.expand_dims(weights, 2 if axis == 1 else 1)
        total = reduce_ops.reduce_sum(math_ops.multiply(inputs, weights), axis=axis,
                                      keepdims=self.keepdims)
        count = reduce_ops.reduce_sum(weights, axis=axis, keepdims=self.keepdims)
        return math_ops.divide(total, math_ops.maximum(count, 1.0))


class GlobalMaxPooling1D(_GlobalPooling1D):
    """Maximum over the steps: ``(batch, steps, features) -> (batch, features)``.

    Examples:
        >>> import eagerflow as ef
        >>> ef.layers.GlobalMaxPooling1D()(ef.constant([[[1.0], [3.0]]]))
        ef.Tensor([[3.]], shape=(1, 1), dtype=float32)
    """

    def call(self, inputs: Any) -> Any:
        return reduce_ops.reduce_max(inputs, axis=self._axis, keepdims=self.keepdims)


class _Pooling1D(Layer):
    """Shared arguments of the 1-D poolings: the 2-D op on a height-1 image."""

    _op: Any = None

    def __init__(self, pool_size: int | Sequence[int] = 2,
                 strides: int | Sequence[int] | None = None, padding: str = "valid",
                 data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        name = type(self).__name__
        self.pool_size = normalize_tuple(pool_size, 1, "pool_size", name)[0]
        self.strides = self.pool_size if strides is None else normalize_tuple(
            strides, 1, "strides", name)[0]
        self.padding = _padding(padding, name, {"valid", "same"})
        self.data_format = check_data_format(data_format, name)
        self.input_spec = InputSpec(ndim=3)

    def call(self, inputs: Any) -> Tensor:
        steps_axis = 1 if self.data_format == "channels_last" else 2
        image = array_ops.expand_dims(inputs, steps_axis)  # (batch, 1, steps, c) or NCHW
        pooled = type(self)._op(
            image, [1, self.pool_size], [1, self.strides], self.padding.upper(),
            data_format="NHWC" if self.data_format == "channels_last" else "NCHW")
        return array_ops.squeeze(pooled, steps_axis)

    def get_config(self) -> dict:
        return {**super().get_config(), "pool_size": self.pool_size, "strides": self.strides,
                "padding": self.padding, "data_format": self.data_format}


class MaxPooling1D(_Pooling1D):
    """Maximum over windows of `pool_size` steps, every `strides` steps.

    Examples:
        >>> import eagerflow as ef
        >>> ef.layers.MaxPooling1D(2)(ef.constant([[[1.0], [3.0], [2.0], [0.0]]])).numpy()[0, :, 0]
        array([3., 2.], dtype=float32)
    """  # noqa: E501

    _op = staticmethod(pool_ops.max_pool2d)


class AveragePooling1D(_Pooling1D):
    """Mean over windows of `pool_size` steps, every `strides` steps.

    Examples:
        >>> import eagerflow as ef
        >>> ef.layers.AveragePooling1D(2)(ef.constant([[[1.0], [3.0]]])).numpy()[0, :, 0]
        array([2.], dtype=float32)
    """

    _op = staticmethod(pool_ops.avg_pool2d)


class MaxPooling3D(_Pooling2D):
    """Maximum over `pool_size` boxes of volumes ``(batch, depth, height, width,
    channels)``, moved by `strides` (default: the pool size).

    Args:
        pool_size: int or 3 ints (default 2x2x2).
        strides: int or 3 ints, or None for the pool size.
        padding: ``"valid"`` or ``"same"``.
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.

    Raises:
        ValueError: for invalid sizes or padding, or inputs that are not 5-D.

    Examples:
        >>> import eagerflow as ef
        >>> ef.layers.MaxPooling3D()(ef.ones([1, 4, 4, 4, 2])).shape
        (1, 2, 2, 2, 2)
    """

    _op = staticmethod(pool3d_ops.max_pool3d)
    _rank = 3

    def __init__(self, pool_size: int | Sequence[int] = (2, 2, 2),
                 strides: int | Sequence[int] | None = None, padding: str = "valid",
                 data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(pool_size, strides, padding, data_format, **kwargs)


class AveragePooling3D(_Pooling2D):
    """Mean over `pool_size` boxes of volumes (with ``"same"`` padding, of the valid cells
    only). `pool_size` is required, as in Keras; other arguments as MaxPooling3D.

    Examples:
        >>> import eagerflow as ef
        >>> x = ef.reshape(ef.range(8.0), [1, 2, 2, 2, 1])
        >>> float(ef.layers.AveragePooling3D(2)(x)[0, 0, 0, 0, 0])
        3.5
    """

    _op = staticmethod(pool3d_ops.avg_pool3d)
    _rank = 3

    def __init__(self, pool_size: int | Sequence[int], strides: int | Sequence[int] | None = None,
                 padding: str = "valid", data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(pool_size, strides, padding, data_format, **kwargs)


class GlobalAveragePooling3D(_GlobalPooling2D):
    """Mean over depth, height and width: ``(batch, d, h, w, c) -> (batch, c)``.

    Args:
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.
        keepdims: keep the spatial axes with size 1.

    Examples:
        >>> import eagerflow as ef
        >>> ef.layers.GlobalAveragePooling3D()(ef.ones([2, 3, 3, 3, 4])).shape
        (2, 4)
    """

    _op = staticmethod(pool3d_ops.global_avg_pool3d)
    _rank = 3


class GlobalMaxPooling3D(_GlobalPooling2D):
    """Maximum over depth, height and width: ``(batch, d, h, w, c) -> (batch, c)``.

    Arguments as GlobalAveragePooling3D.

    Examples:
        >>> import eagerflow as ef
        >>> ef.layers.GlobalMaxPooling3D(keepdims=True)(ef.ones([2, 3, 3, 3, 4])).shape
        (2, 1, 1, 1, 4)
    """

    _op = staticmethod(pool3d_ops.global_max_pool3d)
    _rank = 3
