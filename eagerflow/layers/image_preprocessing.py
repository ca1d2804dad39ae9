"""Deterministic image preprocessing layers: Resizing and CenterCrop (Keras 3's arguments).

Both take one image ``(height, width, channels)`` or a batch, channels last by default
(``data_format="channels_first"`` for ``(channels, height, width)``), and compute in the
layer's dtype (float32 unless given). `ImageLayer` is their base and that of the random
augmentation layers: it checks the rank, moves channels last and back, and predicts
output shapes.

Examples:
    >>> import eagerflow as ef
    >>> ef.layers.Resizing(2, 3)(ef.ones([1, 4, 6, 3])).shape
    (1, 2, 3, 3)
    >>> ef.layers.CenterCrop(2, 2)(ef.ones([5, 5, 1])).shape
    (2, 2, 1)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from eagerflow.layers.base import Layer
from eagerflow.layers.core import positive_int
from eagerflow.layers.reshaping import check_data_format
from eagerflow.ops import array_ops
from eagerflow.ops import image_ops
from eagerflow.ops import indexing as indexing_ops
from eagerflow.ops import math as math_ops
from eagerflow.ops import unary as unary_ops


class ImageLayer(Layer):
    """Base of the image layers: checks the rank, moves channels last, and hands a
    channels-last batch to the subclass's ``transform(images, training)``.

    Examples:
        >>> import eagerflow as ef
        >>> from eagerflow.layers.image_preprocessing import ImageLayer
        >>> class Invert(ImageLayer):
        ...     def transform(self, images, training):
        ...         return 1.0 - images
        >>> Invert(data_format="channels_first")(ef.zeros([3, 2, 2]))[:, 0, 0]
        ef.Tensor([1. 1. 1.], shape=(3,), dtype=float32)
    """

    transform: Callable[[Any, bool | None], Any]  # what each subclass does to a batch
    """``transform(images, training)``: the layer's work on a channels-last batch
    ``(batch, height, width, channels)``; `call` moves the channels and adds the batch axis
    around it. With ``training`` false a random augmentation returns its input."""

    def __init__(self, data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.data_format = check_data_format(data_format, type(self).__name__)

    def _check_rank(self, shape) -> None:
        if len(shape) not in (3, 4):
            layout = "(height, width, channels)" if self.data_format == "channels_last" else (
                "(channels, height, width)")
            raise ValueError(
                f"{type(self).__name__} '{self.name}' expects one image {layout} or a batch of "
                f"them (rank 3 or 4). Received: inputs.shape={tuple(shape)}")

    def _spatial_axes(self, rank: int) -> tuple:
        first = rank - 3 if self.data_format == "channels_last" else rank - 2
        return first, first + 1

    def call(self, inputs: Any, training: bool | None = False) -> Any:
        self._check_rank(inputs.shape)
        batched = inputs.ndim == 4
        images = inputs if batched else array_ops.expand_dims(inputs, 0)
        if self.data_format == "channels_first":
            images = array_ops.transpose(images, [0, 2, 3, 1])
        images = self.transform(images, training)
        if self.data_format == "channels_first":
            images = array_ops.transpose(images, [0, 3, 1, 2])
        return images if batched else array_ops.squeeze(images, 0)

    def to_compute_dtype(self, images: Any) -> Any:
        """Integer images cast to the layer's dtype (floats are cast on the way in)."""
        return images if images.dtype == self.compute_dtype else math_ops.cast(
            images, self.compute_dtype)

    def compute_output_shape(self, input_shape: Any) -> Any:
        self._check_rank(input_shape)
        return tuple(input_shape)

    def get_config(self) -> dict:
        return {**super().get_config(), "data_format": self.data_format}


class SizedImageLayer(ImageLayer):
    """An image layer whose output has a fixed `height` and `width` (its config too).

    Examples:
        >>> import eagerflow as ef
        >>> ef.layers.CenterCrop(2, 3).compute_output_shape((None, 8, 8, 1))
        (None, 2, 3, 1)
    """

    def __init__(self, height: Any, width: Any, data_format: str | None = None,
                 **kwargs: Any) -> None:
        super().__init__(data_format=data_format, **kwargs)
        self.height = positive_int(height, "height", type(self).__name__)
        self.width = positive_int(width, "width", type(self).__name__)

    def compute_output_shape(self, input_shape: Any) -> Any:
        self._check_rank(input_shape)
        shape = list(input_shape)
        rows, cols = self._spatial_axes(len(shape))
        shape[rows], shape[cols] = self.height, self.width
        return tuple(shape)

    def get_config(self) -> dict:
        return {**super().get_config(), "height": self.height, "width": self.width}


def smart_resize(images, height: int, width: int, interpolation="bilinear", antialias=False):
    """Crops `images` (NHWC) to the target aspect ratio, then resizes to height x width.

    Examples:
        >>> import eagerflow as ef
        >>> from eagerflow.layers import image_preprocessing
        >>> image_preprocessing.smart_resize(ef.ones([1, 4, 8, 3]), 2, 2).shape
        (1, 2, 2, 3)
    """
    images = image_ops.crop_to_aspect_ratio(images, height, width)
    return image_ops.resize(images, [height, width], method=interpolation, antialias=antialias)


class Resizing(SizedImageLayer):
    """Resizes images to ``(height, width)``.

    Floating images come out in the layer's dtype; integer images are resized in it and
    rounded back to their own dtype (saturating), as Keras 3 does.

    Args:
        height, width: the output size.
        interpolation: ``"bilinear"`` (default), ``"nearest"``, ``"bicubic"``,
            ``"lanczos3"``, ``"lanczos5"`` or ``"area"`` (as `ef.image.resize`).
        crop_to_aspect_ratio: first crop the largest centred window with the target aspect
            ratio, so the image is not distorted.
        pad_to_aspect_ratio: first pad the shorter side evenly with `fill_value` up to
            the target aspect ratio (exclusive with `crop_to_aspect_ratio`).
        fill_mode: how padding is filled; only ``"constant"``.
        fill_value: the padding value.
        antialias: filter when downscaling (bilinear only).
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.

    Raises:
        ValueError: for a bad size, interpolation, fill mode, or both aspect-ratio options.

    Examples:
        >>> import eagerflow as ef
        >>> layer = ef.layers.Resizing(1, 2)
        >>> layer(ef.reshape(ef.range(4.0), [1, 1, 4, 1]))[0, 0, :, 0]
        ef.Tensor([0.5 2.5], shape=(2,), dtype=float32)
        >>> ef.layers.Resizing(2, 2, crop_to_aspect_ratio=True)(ef.ones([4, 8, 3])).shape
        (2, 2, 3)
    """

    def __init__(self, height: Any, width: Any, interpolation: str = "bilinear",
                 crop_to_aspect_ratio: bool = False, pad_to_aspect_ratio: bool = False,
                 fill_mode: str = "constant", fill_value: float = 0.0, antialias: bool = False,
                 data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(height, width, data_format=data_format, **kwargs)
        if interpolation not in image_ops.KERAS_RESIZE_METHODS:
            raise ValueError(
                f"Resizing: `interpolation` must be one of {image_ops.KERAS_RESIZE_METHODS}. "
                f"Received: interpolation={interpolation!r}")
        if fill_mode != "constant":
            raise ValueError(
                f"Resizing: only fill_mode='constant' is supported (for the padding of "
                f"pad_to_aspect_ratio). Received: fill_mode={fill_mode!r}")
        if crop_to_aspect_ratio and pad_to_aspect_ratio:
            raise ValueError(
                "Resizing: only one of `pad_to_aspect_ratio` and `crop_to_aspect_ratio` can be "
                "True. Received: both True")
        self.interpolation = interpolation
        self.crop_to_aspect_ratio = bool(crop_to_aspect_ratio)
        self.pad_to_aspect_ratio = bool(pad_to_aspect_ratio)
        self.fill_mode = fill_mode
        self.fill_value = float(fill_value)
        self.antialias = bool(antialias)

    def transform(self, images: Any, training: bool | None) -> Any:
        source = images.dtype
        if source.kind in "iu" and self.interpolation != "nearest":
            images = self.to_compute_dtype(images)
        if self.crop_to_aspect_ratio:
            images = image_ops.crop_to_aspect_ratio(images, self.height, self.width)
        elif self.pad_to_aspect_ratio:
            images = image_ops.pad_to_aspect_ratio(images, self.height, self.width,
                                                   self.fill_value)
        resized = image_ops.resize(images, [self.height, self.width],
                                   method=self.interpolation, antialias=self.antialias)
        if source.kind in "iu" and resized.dtype != source:
            return image_ops.saturate_cast(unary_ops.round(resized), source)
        if resized.dtype.kind == "f" and resized.dtype != self.compute_dtype:
            return math_ops.cast(resized, self.compute_dtype)
        return resized

    def get_config(self) -> dict:
        return {**super().get_config(), "interpolation": self.interpolation,
                "crop_to_aspect_ratio": self.crop_to_aspect_ratio,
                "pad_to_aspect_ratio": self.pad_to_aspect_ratio, "fill_mode": self.fill_mode,
                "fill_value": self.fill_value, "antialias": self.antialias}


class CenterCrop(SizedImageLayer):
    """Crops the central ``(height, width)`` window of each image.

    An image smaller than the target on either side is instead cropped to the target
    aspect ratio and resized (bilinear), as Keras 3 does. Output in the layer's dtype.

    Args:
        height, width: the output size.
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.

    Examples:
        >>> import eagerflow as ef
        >>> x = ef.reshape(ef.range(9.0), [3, 3, 1])
        >>> ef.layers.CenterCrop(1, 1)(x)[..., 0]
        ef.Tensor([[4.]], shape=(1, 1), dtype=float32)
    """

    def transform(self, images: Any, training: bool | None) -> Any:
        images = self.to_compute_dtype(images)
        in_height, in_width = images.shape[1], images.shape[2]
        if in_height < self.height or in_width < self.width:
            return smart_resize(images, self.height, self.width)
        top, left = (in_height - self.height) // 2, (in_width - self.width) // 2
        return images[:, top:top + self.height, left:left + self.width, :]

