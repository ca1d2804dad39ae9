"""Spatial shape layers: ZeroPadding1D/2D/3D, Cropping1D/2D/3D, UpSampling1D/2D/3D
(Keras 3's arguments; 2-D and 3-D layers take ``data_format``).

Examples:
    >>> import eagerflow as ef
    >>> ef.layers.ZeroPadding2D(1)(ef.ones([1, 2, 2, 3])).shape
    (1, 4, 4, 3)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from eagerflow.core.tensor import Tensor
from eagerflow.layers.base import Layer
from eagerflow.layers.input_spec import InputSpec
from eagerflow.layers.reshaping import check_data_format
from eagerflow.ops import array_ops
from eagerflow.ops import image_ops
from eagerflow.ops import indexing as indexing_ops


def _pairs(value, count: int, what: str, layer: str) -> tuple:
    """`value` as `count` (before, after) pairs of non-negative ints (Keras's forms: an
    int, `count` ints, or `count` pairs)."""
    def check(v):
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            raise ValueError(f"{layer}: `{what}` must hold non-negative ints. Received: "
                             f"{what}={value!r}")
        return v

    if isinstance(value, int):
        return tuple((check(value), check(value)) for _ in range(count))
    items = list(value)
    if count == 1 and len(items) == 2 and all(isinstance(v, int) for v in items):
        return ((check(items[0]), check(items[1])),)
    if len(items) != count:
        raise ValueError(f"{layer}: `{what}` must be an int or {count} values. Received: "
                         f"{what}={value!r}")
    pairs = []
    for item in items:
        if isinstance(item, int):
            pairs.append((check(item), check(item)))
        else:
            first, second = item
            pairs.append((check(first), check(second)))
    return tuple(pairs)


def _repeat(x, factor: int, axis: int):
    """Each element of `axis` repeated `factor` times in place (nearest upsampling)."""
    if factor == 1:
        return x
    shape = list(x.shape)
    multiples = [1] * (x.ndim + 1)
    multiples[axis + 1] = factor
    tiled = array_ops.tile(array_ops.expand_dims(x, axis + 1), multiples)
    target = [-1 if d is None else d for d in shape]
    target[axis] = shape[axis] * factor
    return array_ops.reshape(tiled, target)


class _Spatial(Layer):
    rank = 1

    def __init__(self, data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.data_format = check_data_format(data_format, type(self).__name__)
        self.input_spec = InputSpec(ndim=self.rank + 2)

    def _axes(self) -> list:
        first = 1 if self.data_format == "channels_last" else 2
        return list(range(first, first + self.rank))

    def get_config(self) -> dict:
        config = super().get_config()
        if self.rank >= 2:
            config["data_format"] = self.data_format
        return config


class ZeroPadding1D(_Spatial):
    """Pads the steps axis with zeros: ``padding`` is an int or ``(before, after)``.

    Examples:
        >>> import eagerflow as ef
        >>> ef.layers.ZeroPadding1D((1, 2))(ef.ones([1, 3, 2])).shape
        (1, 6, 2)
    """

    def __init__(self, padding: Any = 1, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.padding = _pairs(padding, self.rank, "padding", type(self).__name__)

    def call(self, inputs: Any) -> Tensor:
        paddings = [[0, 0] for _ in range(inputs.ndim)]
        for axis, pair in zip(self._axes(), self.padding, strict=True):
            paddings[axis] = list(pair)
        return indexing_ops.pad(inputs, paddings)

    def compute_output_shape(self, input_shape: Any) -> Any:
        shape = list(input_shape)
        for axis, (before, after) in zip(self._axes(), self.padding, strict=True):
            shape[axis] = None if shape[axis] is None else shape[axis] + before + after
        return tuple(shape)

    def get_config(self) -> dict:
        return {**super().get_config(), "padding": [list(p) for p in self.padding]}


class ZeroPadding2D(ZeroPadding1D):
    """Pads height and width with zeros: an int, ``(h, w)``, or ``((top, bottom),
    (left, right))``.

    Examples:
        >>> import eagerflow as ef
        >>> ef.layers.ZeroPadding2D(((1, 0), (2, 2)))(ef.ones([1, 2, 2, 1])).shape
        (1, 3, 6, 1)
    """

    rank = 2


class Cropping1D(_Spatial):
    """Crops the steps axis: ``cropping`` is an int or ``(start, end)``.

    Examples:
        >>> import eagerflow as ef
        >>> ef.layers.Cropping1D((1, 1))(ef.ones([1, 5, 2])).shape
        (1, 3, 2)
    """

    def __init__(self, cropping: Any = (1, 1), **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.cropping = _pairs(cropping, self.rank, "cropping", type(self).__name__)

    def call(self, inputs: Any) -> Any:
        index = [slice(None)] * inputs.ndim
        for axis, (start, end) in zip(self._axes(), self.cropping, strict=True):
            size = inputs.shape[axis]
            if size is not None and start + end >= size:
                raise ValueError(
                    f"{type(self).__name__} '{self.name}': cropping {(start, end)} leaves "
                    f"nothing of axis {axis} (size {size}) of input shape {inputs.shape}.")
            index[axis] = slice(start, size - end if end else None)
        return inputs[tuple(index)]

    def compute_output_shape(self, input_shape: Any) -> Any:
        shape = list(input_shape)
        for axis, (start, end) in zip(self._axes(), self.cropping, strict=True):
            shape[axis] = None if shape[axis] is None else shape[axis] - start - end
        return tuple(shape)

    def get_config(self) -> dict:
        return {**super().get_config(), "cropping": [list(p) for p in self.cropping]}


class Cropping2D(Cropping1D):
    """Crops height and width: an int, ``(h, w)``, or ``((top, bottom), (left, right))``.

    Examples:
        >>> import eagerflow as ef
        >>> ef.layers.Cropping2D(((1, 0), (0, 2)))(ef.ones([1, 4, 4, 1])).shape
        (1, 3, 2, 1)
    """

    rank = 2

    def __init__(self, cropping: Any = ((0, 0), (0, 0)), **kwargs: Any) -> None:
        super().__init__(cropping=cropping, **kwargs)


class UpSampling1D(_Spatial):
    """Repeats each step `size` times along the steps axis.

    Examples:
        >>> import eagerflow as ef
        >>> ef.layers.UpSampling1D(2)(ef.constant([[[1.0], [2.0]]])).numpy()[0, :, 0]
        array([1., 1., 2., 2.], dtype=float32)
    """

    def __init__(self, size: int | Sequence[int] = 2, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        sizes = (size,) * self.rank if isinstance(size, int) else tuple(size)
        if len(sizes) != self.rank or any(isinstance(s, bool) or not isinstance(s, int)
                                          or s < 1 for s in sizes):
            raise ValueError(f"{type(self).__name__}: `size` must be a positive int or "
                             f"{self.rank} of them. Received: size={size!r}")
        self.size = sizes

    def call(self, inputs: Any) -> Any:
        outputs = inputs
        for axis, factor in zip(self._axes(), self.size, strict=True):
            outputs = _repeat(outputs, factor, axis)
        return outputs

    def compute_output_shape(self, input_shape: Any) -> Any:
        shape = list(input_shape)
        for axis, factor in zip(self._axes(), self.size, strict=True):
            shape[axis] = None if shape[axis] is None else shape[axis] * factor
        return tuple(shape)

    def get_config(self) -> dict:
        size = self.size[0] if self.rank == 1 else list(self.size)
        return {**super().get_config(), "size": size}




class UpSampling2D(UpSampling1D):
    """Upsamples rows and columns by ``size`` (an int or ``(h, w)``): repeated pixels
    (``interpolation="nearest"``, the default) or ``ef.image.resize`` to ``size`` times
    the image with another method, as Keras 3.

    Args:
        size: the upsampling factors.
        interpolation: ``"nearest"``, ``"bilinear"``, ``"bicubic"``, ``"lanczos3"``,
            ``"lanczos5"`` or ``"area"`` (any case).

    Raises:
        ValueError: for another interpolation (at construction; Keras raises when called).

    Examples:
        >>> import eagerflow as ef
        >>> ef.layers.UpSampling2D((2, 3))(ef.ones([1, 2, 2, 1])).shape
        (1, 4, 6, 1)
        >>> ef.layers.UpSampling2D(2, interpolation="bilinear")(ef.ones([1, 2, 2, 1])).shape
        (1, 4, 4, 1)
    """

    rank = 2

    def __init__(self, size: Any = (2, 2), interpolation: str = "nearest",
                 **kwargs: Any) -> None:
        super().__init__(size=size, **kwargs)
        method = interpolation.lower() if isinstance(interpolation, str) else interpolation
        if method not in image_ops.KERAS_RESIZE_METHODS:
            raise ValueError(f"UpSampling2D: `interpolation` must be one of "
                             f"{image_ops.KERAS_RESIZE_METHODS}. Received: "
                             f"interpolation={interpolation!r}")
        self.interpolation = method

    def call(self, inputs: Any) -> Any:
        if self.interpolation == "nearest":
            return super().call(inputs)
        first = self.data_format == "channels_first"
        if first:
            inputs = array_ops.transpose(inputs, [0, 2, 3, 1])
        height, width = inputs.shape[1], inputs.shape[2]
        outputs = image_ops.resize(inputs, [height * self.size[0], width * self.size[1]],
                                   method=self.interpolation)
        return array_ops.transpose(outputs, [0, 3, 1, 2]) if first else outputs

    def get_config(self) -> dict:
        return {**super().get_config(), "interpolation": self.interpolation}


class ZeroPadding3D(ZeroPadding1D):
    """Pads depth, height and width of volumes with zeros: an int, 3 ints, or 3
    ``(before, after)`` pairs.

    Examples:
        >>> import eagerflow as ef
        >>> ef.layers.ZeroPadding3D()(ef.ones([1, 2, 2, 2, 3])).shape
        (1, 4, 4, 4, 3)
    """

    rank = 3

    def __init__(self, padding: Any = ((1, 1), (1, 1), (1, 1)), **kwargs: Any) -> None:
        super().__init__(padding=padding, **kwargs)


class Cropping3D(Cropping1D):
    """Crops depth, height and width of volumes: an int, 3 ints, or 3 ``(start, end)``
    pairs.

    Examples:
        >>> import eagerflow as ef
        >>> ef.layers.Cropping3D()(ef.ones([1, 4, 5, 6, 2])).shape
        (1, 2, 3, 4, 2)
    """

    rank = 3

    def __init__(self, cropping: Any = ((1, 1), (1, 1), (1, 1)), **kwargs: Any) -> None:
        super().__init__(cropping=cropping, **kwargs)


class UpSampling3D(UpSampling1D):
    """Repeats each cell of a volume along depth, height and width: ``size`` an int or
    3 ints.

    Examples:
        >>> import eagerflow as ef
        >>> ef.layers.UpSampling3D((1, 2, 3))(ef.ones([1, 2, 2, 2, 1])).shape
        (1, 2, 4, 6, 1)
    """

    rank = 3

    def __init__(self, size: Any = (2, 2, 2), **kwargs: Any) -> None:
        super().__init__(size=size, **kwargs)
