"""Image preprocessing and augmentation layers: `Rescaling`, `Resizing`, `CenterCrop`,
`RandomFlip`, `RandomCrop` (Keras 3's arguments and behaviour).

They take images ``(height, width, channels)`` or batches ``(batch, height, width,
channels)`` (channels first with ``data_format="channels_first"``), compute in float32, and
work inside models (``fit`` traces them with the step; the random ones draw new values on
every call, in training only) and in `ef.data` pipelines (``dataset.map(layer)``).

Examples:
    >>> import eagerflow as ef
    >>> x = ef.ones([2, 32, 48, 3]) * 255
    >>> prep = ef.Sequential([ef.layers.Rescaling(1 / 255), ef.layers.CenterCrop(24, 24)])
    >>> out = prep(x)
    >>> out.shape, float(ef.reduce_max(out))
    ((2, 24, 24, 3), 1.0)
"""

from __future__ import annotations

from eagerflow.layers.base import Layer
from eagerflow.layers.core import positive_int
from eagerflow.layers.reshaping import check_data_format
from eagerflow.ops import array as array_ops
from eagerflow.ops import image as image_ops
from eagerflow.ops import indexing as indexing_ops
from eagerflow.ops import math as math_ops
from eagerflow.ops import random as random_ops


class _ImageLayer(Layer):
    """Float32 images in, channels-last inside, the caller's layout out."""

    def __init__(self, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.data_format = check_data_format(data_format, type(self).__name__)
        self.supports_masking = False

    def _to_last(self, images):
        if images.ndim not in (3, 4):
            raise ValueError(
                f"{type(self).__name__} expects images of rank 3 (height, width, channels) "
                f"or 4 (batch, height, width, channels). Received: shape={images.shape}")
        if images.dtype.kind != "f" or images.dtype != self.dtype:
            images = math_ops.cast(images, self.dtype)
        if self.data_format == "channels_first":
            perm = [1, 2, 0] if images.ndim == 3 else [0, 2, 3, 1]
            images = array_ops.transpose(images, perm)
        return images

    def _from_last(self, images):
        if self.data_format == "channels_first":
            perm = [2, 0, 1] if images.ndim == 3 else [0, 3, 1, 2]
            images = array_ops.transpose(images, perm)
        return images

    def _spatial_axes(self, rank: int) -> tuple:
        if self.data_format == "channels_last":
            return (rank - 3, rank - 2)
        return (rank - 2, rank - 1)

    def get_config(self) -> dict:
        return {**super().get_config(), "data_format": self.data_format}


def smart_resize(images, height: int, width: int, interpolation: str = "bilinear"):
    """Keras's ``smart_resize`` (channels last): crop the largest central window with the
    target's aspect ratio, then resize it to ``(height, width)``."""
    in_h, in_w = images.shape[-3], images.shape[-2]
    crop_h = max(min(in_h, int(float(in_w * height) / width)), 1)
    crop_w = max(min(in_w, int(float(in_h * width) / height)), 1)
    top, left = int(float(in_h - crop_h) / 2), int(float(in_w - crop_w) / 2)
    cropped = images[..., top:top + crop_h, left:left + crop_w, :]
    return image_ops.resize(cropped, [height, width], method=interpolation)


class Rescaling(_ImageLayer):
    """``inputs * scale + offset``, in float32 (e.g. ``Rescaling(1 / 255)`` for pixels in
    [0, 1], ``Rescaling(1 / 127.5, offset=-1)`` for [-1, 1]).

    Args:
        scale: a float (or a list broadcast against the channels).
        offset: a float (or a list).

    Examples:
        >>> import eagerflow as ef
        >>> ef.layers.Rescaling(1 / 127.5, offset=-1)([0.0, 255.0]).numpy()
        array([-1.,  1.], dtype=float32)
    """

    def __init__(self, scale, offset=0.0, **kwargs):
        super().__init__(**kwargs)
        self.scale = scale
        self.offset = offset
        self.supports_masking = True

    def call(self, inputs):
        if inputs.dtype != self.dtype:
            inputs = math_ops.cast(inputs, self.dtype)
        return math_ops.add(math_ops.multiply(inputs, self.scale), self.offset)

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(scale=self.scale, offset=self.offset)
        return config


class Resizing(_ImageLayer):
    """Resizes images to ``(height, width)``.

    Args:
        height, width: the output size.
        interpolation: ``"bilinear"`` (default), ``"nearest"`` or ``"area"``.
        crop_to_aspect_ratio: first crop the largest central window with the target's aspect
            ratio (no distortion).
        pad_to_aspect_ratio: first pad (with `fill_value`) to the target's aspect ratio.
        fill_mode: must be ``"constant"`` (the padding mode).
        fill_value: the padding value.
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.

    Raises:
        ValueError: for non-positive sizes, an unknown interpolation, or both
            `crop_to_aspect_ratio` and `pad_to_aspect_ratio`.

    Examples:
        >>> import eagerflow as ef
        >>> ef.layers.Resizing(16, 8, crop_to_aspect_ratio=True)(ef.ones([2, 40, 30, 3])).shape
        (2, 16, 8, 3)
    """

    def __init__(self, height, width, interpolation="bilinear", crop_to_aspect_ratio=False,
                 pad_to_aspect_ratio=False, fill_mode="constant", fill_value=0.0,
                 data_format=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self.height = positive_int(height, "height", "Resizing")
        self.width = positive_int(width, "width", "Resizing")
        if interpolation not in ("bilinear", "nearest", "area"):
            raise ValueError("Resizing: interpolation must be 'bilinear', 'nearest' or 'area'. "
                             f"Received: interpolation={interpolation!r}")
        if crop_to_aspect_ratio and pad_to_aspect_ratio:
            raise ValueError("Resizing: only one of crop_to_aspect_ratio and "
                             "pad_to_aspect_ratio can be True.")
        if fill_mode != "constant":
            raise ValueError("Resizing: fill_mode must be 'constant'. Received: "
                             f"fill_mode={fill_mode!r}")
        self.interpolation = interpolation
        self.crop_to_aspect_ratio = bool(crop_to_aspect_ratio)
        self.pad_to_aspect_ratio = bool(pad_to_aspect_ratio)
        self.fill_mode = fill_mode
        self.fill_value = float(fill_value)

    def call(self, inputs):
        images = self._to_last(inputs)
        if self.crop_to_aspect_ratio:
            return self._from_last(smart_resize(images, self.height, self.width,
                                                self.interpolation))
        if self.pad_to_aspect_ratio:
            in_h, in_w = images.shape[-3], images.shape[-2]
            pad_h = max(int(round(in_w * self.height / self.width)) - in_h, 0)
            pad_w = max(int(round(in_h * self.width / self.height)) - in_w, 0)
            paddings = [[0, 0]] * (images.ndim - 3) + [
                [pad_h // 2, pad_h - pad_h // 2], [pad_w // 2, pad_w - pad_w // 2], [0, 0]]
            images = indexing_ops.pad(images, paddings, constant_values=self.fill_value)
        resized = image_ops.resize(images, [self.height, self.width],
                                   method=self.interpolation)
        return self._from_last(resized)

    def compute_output_shape(self, input_shape):
        shape = list(input_shape)
        rows, cols = self._spatial_axes(len(shape))
        shape[rows], shape[cols] = self.height, self.width
        return tuple(shape)

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(height=self.height, width=self.width, interpolation=self.interpolation,
                      crop_to_aspect_ratio=self.crop_to_aspect_ratio,
                      pad_to_aspect_ratio=self.pad_to_aspect_ratio, fill_mode=self.fill_mode,
                      fill_value=self.fill_value)
        return config


class CenterCrop(_ImageLayer):
    """Crops the central ``(height, width)`` window of each image; an image smaller than
    that is cropped to the target's aspect ratio and resized up instead (Keras 3).

    Args:
        height, width: the output size.
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.

    Examples:
        >>> import eagerflow as ef
        >>> ef.layers.CenterCrop(2, 2)(ef.reshape(ef.range(16.0), [4, 4, 1]))[..., 0].numpy()
        array([[ 5.,  6.],
               [ 9., 10.]], dtype=float32)
    """

    def __init__(self, height, width, data_format=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self.height = positive_int(height, "height", "CenterCrop")
        self.width = positive_int(width, "width", "CenterCrop")

    def call(self, inputs):
        images = self._to_last(inputs)
        in_h, in_w = images.shape[-3], images.shape[-2]
        if in_h >= self.height and in_w >= self.width:
            top, left = (in_h - self.height) // 2, (in_w - self.width) // 2
            out = images[..., top:top + self.height, left:left + self.width, :]
        else:
            out = smart_resize(images, self.height, self.width)
        return self._from_last(out)

    compute_output_shape = Resizing.compute_output_shape

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(height=self.height, width=self.width)
        return config


class RandomFlip(_ImageLayer):
    """Flips each image horizontally and/or vertically with probability 1/2, in training
    only (the identity at inference). As in Keras 3, a call outside a model trains by
    default; `fit` calls it in training mode, `evaluate` and `predict` in inference mode.

    Args:
        mode: ``"horizontal"``, ``"vertical"`` or ``"horizontal_and_vertical"`` (default).
        seed: optional seed of the flips (reproducible under `ef.random.set_seed` either
            way).
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.

    Examples:
        >>> import eagerflow as ef
        >>> layer = ef.layers.RandomFlip("horizontal", seed=0)
        >>> x = ef.reshape(ef.range(4.0), [1, 1, 4, 1])
        >>> layer(x, training=False)[0, 0, :, 0].numpy()  # inference: unchanged
        array([0., 1., 2., 3.], dtype=float32)
    """

    _MODES = ("horizontal", "vertical", "horizontal_and_vertical")

    def __init__(self, mode="horizontal_and_vertical", seed=None, data_format=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        if mode not in self._MODES:
            raise ValueError(f"RandomFlip: mode must be one of {self._MODES}. Received: "
                             f"mode={mode!r}")
        self.mode = mode
        self.seed = seed

    def call(self, inputs, training=True):
        if not training:
            return inputs if inputs.dtype == self.dtype else math_ops.cast(inputs, self.dtype)
        images = self._to_last(inputs)
        if self.mode in ("horizontal", "horizontal_and_vertical"):
            images = image_ops.random_flip_left_right(images, seed=self.seed)
        if self.mode in ("vertical", "horizontal_and_vertical"):
            images = image_ops.random_flip_up_down(images, seed=self.seed)
        return self._from_last(images)

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(mode=self.mode, seed=self.seed)
        return config


class RandomCrop(_ImageLayer):
    """In training, crops a random ``(height, width)`` window (one offset per call, shared
    by the batch); at inference, and for images no larger than the target, crops the
    largest central window with the target's aspect ratio and resizes it, as Keras 3
    documents (Keras 3.15's code returns inference inputs uncropped, so that a model's
    output shape would differ between `fit` and `predict`). A call outside a model trains
    by default, as in Keras.

    Args:
        height, width: the output size.
        seed: optional seed of the offsets.
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.

    Examples:
        >>> import eagerflow as ef
        >>> layer = ef.layers.RandomCrop(4, 4, seed=0)
        >>> layer(ef.ones([2, 8, 8, 3]), training=True).shape
        (2, 4, 4, 3)
    """

    def __init__(self, height, width, seed=None, data_format=None, **kwargs):
        super().__init__(data_format=data_format, **kwargs)
        self.height = positive_int(height, "height", "RandomCrop")
        self.width = positive_int(width, "width", "RandomCrop")
        self.seed = seed

    def call(self, inputs, training=True):
        images = self._to_last(inputs)
        in_h, in_w = images.shape[-3], images.shape[-2]
        if in_h is None or in_w is None:
            raise ValueError("RandomCrop requires the input to have a fully defined height "
                             f"and width. Received: images.shape={inputs.shape}")
        if training and in_h > self.height and in_w > self.width:
            top = random_ops.uniform([], 0, in_h - self.height + 1, dtype="int32",
                                     seed=self.seed)
            left = random_ops.uniform([], 0, in_w - self.width + 1, dtype="int32",
                                      seed=self.seed)
            out = images[..., top:top + self.height, left:left + self.width, :]
        else:
            out = smart_resize(images, self.height, self.width)
        return self._from_last(out)

    compute_output_shape = Resizing.compute_output_shape

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(height=self.height, width=self.width, seed=self.seed)
        return config

