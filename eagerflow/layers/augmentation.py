"""Random image augmentation layers: RandomFlip, RandomCrop, RandomRotation, RandomZoom and
RandomTranslation (Keras 3's arguments and defaults).

As in Keras 3 they transform in training: a direct call (``layer(x)``, or
``dataset.map(layer)``) and `fit` augment; ``training=False``, `evaluate` and `predict`
leave images as they are (RandomCrop excepted: it resizes to its size). All randomness is
drawn with ef random ops, so a step traced by `ef.function` (as `fit` does) draws new
flips, angles, zooms and shifts on every call; a `seed` plus `ef.random.set_seed` makes
runs repeat.

Examples:
    >>> import eagerflow as ef
    >>> layer = ef.layers.RandomFlip("horizontal", seed=1)
    >>> x = ef.reshape(ef.range(4.0), [1, 1, 4, 1])
    >>> layer(x, training=False)[0, 0, :, 0]  # inference: unchanged
    ef.Tensor([0. 1. 2. 3.], shape=(4,), dtype=float32)
    >>> layer(x).shape  # a direct call augments, as in Keras
    (1, 1, 4, 1)
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from eagerflow.layers.image_preprocessing import ImageLayer, SizedImageLayer, smart_resize
from eagerflow.ops import array as array_ops
from eagerflow.ops import image as image_ops
from eagerflow.ops import math as math_ops
from eagerflow.ops import random as random_ops
from eagerflow.ops import unary as unary_ops

HORIZONTAL, VERTICAL = "horizontal", "vertical"
HORIZONTAL_AND_VERTICAL = "horizontal_and_vertical"


class RandomFlip(ImageLayer):
    """Flips each image horizontally and/or vertically with probability 1/2 in training.

    With ``"horizontal_and_vertical"`` the two flips are drawn independently (as in
    Keras 2), so each of the four orientations is equally likely.

    Args:
        mode: ``"horizontal"``, ``"vertical"`` or ``"horizontal_and_vertical"`` (default).
        seed: seed of the layer's random stream.
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.

    Raises:
        ValueError: for an unknown mode.

    Examples:
        >>> import eagerflow as ef
        >>> ef.layers.RandomFlip("vertical").get_config()["mode"]
        'vertical'
    """

    def __init__(self, mode: str = HORIZONTAL_AND_VERTICAL,
                 seed: int | random_ops.Generator | None = None, data_format: str | None = None,
                 **kwargs: Any) -> None:
        super().__init__(data_format=data_format, **kwargs)
        if mode not in (HORIZONTAL, VERTICAL, HORIZONTAL_AND_VERTICAL):
            raise ValueError(
                f"RandomFlip: `mode` must be one of '{HORIZONTAL}', '{VERTICAL}', "
                f"'{HORIZONTAL_AND_VERTICAL}'. Received: mode={mode!r}")
        self.mode = mode
        self.seed = seed


    def call(self, inputs: Any, training: bool | None = True) -> Any:
        # As Keras 3: a call outside a model augments; fit calls it in training mode,
        # evaluate and predict in inference mode (the identity, or RandomCrop's resize).
        return super().call(inputs, training=training)

    def transform(self, images: Any, training: bool | None) -> Any:
        images = self.to_compute_dtype(images)
        if not training:
            return images
        if self.mode != VERTICAL:
            images = image_ops.random_flip_left_right(images, seed=self.seed)
        if self.mode != HORIZONTAL:
            images = image_ops.random_flip_up_down(images, seed=self.seed)
        return images

    def get_config(self) -> dict:
        return {**super().get_config(), "mode": self.mode, "seed": self.seed}


class RandomCrop(SizedImageLayer):
    """Crops a random ``(height, width)`` window in training (one offset per batch).

    At inference, and in training when the image is smaller than the window, the image
    is instead cropped to the window's aspect ratio and resized to it, so the output
    size is always ``(height, width)``.

    Args:
        height, width: the window size.
        seed: seed of the layer's random stream.
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.

    Examples:
        >>> import eagerflow as ef
        >>> layer = ef.layers.RandomCrop(2, 3, seed=0)
        >>> layer(ef.ones([4, 5, 5, 1]), training=True).shape
        (4, 2, 3, 1)
        >>> layer(ef.ones([4, 5, 5, 1])).shape
        (4, 2, 3, 1)
    """

    def __init__(self, height: Any, width: Any, seed: int | random_ops.Generator | None = None,
                 data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(height, width, data_format=data_format, **kwargs)
        self.seed = seed


    def call(self, inputs: Any, training: bool | None = True) -> Any:
        # As Keras 3: a call outside a model augments; fit calls it in training mode,
        # evaluate and predict in inference mode (the identity, or RandomCrop's resize).
        return super().call(inputs, training=training)

    def transform(self, images: Any, training: bool | None) -> Any:
        images = self.to_compute_dtype(images)
        batch, in_height, in_width, channels = images.shape
        if training and in_height >= self.height and in_width >= self.width:
            return image_ops.random_crop(images, [batch, self.height, self.width, channels],
                                         seed=self.seed)
        if (in_height, in_width) == (self.height, self.width):
            return images
        return smart_resize(images, self.height, self.width)

    def get_config(self) -> dict:
        return {**super().get_config(), "seed": self.seed}


def _factor_pair(factor, what: str, layer: str, low: float, low_open: bool = False) -> tuple:
    """Keras's factor forms: a number f means (-|f|, |f|); a pair is sorted; every value
    must lie in [low, 1] (or (low, 1])."""
    def check(value):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value > 1 or (
                value < low or (low_open and value == low)):
            bracket = "(" if low_open else "["
            raise ValueError(
                f"{layer}: `{what}` must be a number or a pair of numbers in {bracket}{low}, 1]. "
                f"Received: {what}={factor!r}")
        return float(value)

    if isinstance(factor, (list, tuple)):
        if len(factor) != 2:
            raise ValueError(f"{layer}: `{what}` must be a number or a pair of numbers. "
                             f"Received: {what}={factor!r}")
        first, second = sorted(check(v) for v in factor)
        return first, second
    value = abs(check(factor))
    return max(-value, low), value


class _AffineLayer(ImageLayer):
    """Shared by the rotation, zoom and translation layers: fill and interpolation
    arguments, and sampling through `projective_transform` in training with the
    ``[batch, 8]`` output-to-input rows that the subclass's ``transforms(batch, height,
    width)`` draws."""

    transforms: Callable[[int, Any, Any], Any]  # each subclass's random matrices
    """``transforms(batch, height, width)``: one random ``[batch, 8]`` row per image,
    mapping output pixels to input pixels (the layout of `ef.image` projective
    transforms); `transform` samples the images through them in training."""

    def __init__(self, fill_mode: str = "reflect", interpolation: str = "bilinear",
                 seed: int | random_ops.Generator | None = None, fill_value: float = 0.0,
                 data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(data_format=data_format, **kwargs)
        name = type(self).__name__
        if fill_mode not in image_ops.FILL_MODES:
            raise ValueError(f"{name}: `fill_mode` must be one of {image_ops.FILL_MODES}. "
                             f"Received: fill_mode={fill_mode!r}")
        if interpolation not in image_ops.INTERPOLATIONS:
            raise ValueError(
                f"{name}: `interpolation` must be one of {image_ops.INTERPOLATIONS}. "
                f"Received: interpolation={interpolation!r}")
        self.fill_mode = fill_mode
        self.interpolation = interpolation
        self.seed = seed
        self.fill_value = float(fill_value)


    def call(self, inputs: Any, training: bool | None = True) -> Any:
        # As Keras 3: a call outside a model augments; fit calls it in training mode,
        # evaluate and predict in inference mode (the identity, or RandomCrop's resize).
        return super().call(inputs, training=training)

    def uniform(self, count: int, low: float, high: float) -> Any:
        """``[count, 1]`` float32 draws from ``[low, high)`` on the layer's stream."""
        return random_ops.generator_for(self.seed).uniform([count, 1], low, high)

    def transform(self, images: Any, training: bool | None) -> Any:
        images = self.to_compute_dtype(images)
        if not training:
            return images
        batch, height, width, _ = images.shape
        return image_ops.projective_transform(
            images, self.transforms(batch, height, width), None, self.interpolation,
            self.fill_mode, self.fill_value)

    def get_config(self) -> dict:
        return {**super().get_config(), "fill_mode": self.fill_mode,
                "interpolation": self.interpolation, "seed": self.seed,
                "fill_value": self.fill_value}


def _rows(*columns):
    """``[batch, 8]`` from eight ``[batch, 1]`` tensors or Python numbers."""
    batch = next(c.shape[0] for c in columns if hasattr(c, "shape"))
    full = [c if hasattr(c, "shape") else np.full((batch, 1), c, np.float32) for c in columns]
    return array_ops.concat(full, axis=1)


class RandomRotation(_AffineLayer):
    """Rotates each image by a random angle about its centre in training.

    Args:
        factor: a fraction of a full turn: a number f draws angles in ``[-f, f] * 360``
            degrees, a pair ``(low, high)`` in ``[low, high] * 360``; within ``[-1, 1]``.
            Positive angles turn counter-clockwise.
        fill_mode: how to fill outside the image: ``"reflect"`` (default), ``"wrap"``,
            ``"constant"`` or ``"nearest"``.
        interpolation: ``"bilinear"`` (default) or ``"nearest"``.
        seed: seed of the layer's random stream.
        fill_value: the value outside the image with ``fill_mode="constant"``.
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.

    Raises:
        ValueError: for a factor out of range or unknown modes.

    Examples:
        >>> import eagerflow as ef
        >>> ef.layers.RandomRotation(0.1).factor
        (-0.1, 0.1)
    """

    def __init__(self, factor: Any, fill_mode: str = "reflect", interpolation: str = "bilinear",
                 seed: int | random_ops.Generator | None = None, fill_value: float = 0.0,
                 data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(fill_mode, interpolation, seed, fill_value, data_format, **kwargs)
        self.factor = _factor_pair(factor, "factor", "RandomRotation", -1.0)

    def transforms(self, batch: int, height: Any, width: Any) -> Any:
        turns = self.uniform(batch, self.factor[0], self.factor[1])
        angle = math_ops.multiply(turns, 2.0 * math.pi)
        cos, sin = unary_ops.cos(angle), unary_ops.sin(angle)
        # Rotate about the centre: input = R (output - c) + c.
        cx, cy = (width - 1) / 2.0, (height - 1) / 2.0
        a2 = math_ops.add(math_ops.subtract(cx, math_ops.multiply(cos, cx)),
                          math_ops.multiply(sin, cy))
        b2 = math_ops.subtract(math_ops.subtract(cy, math_ops.multiply(sin, cx)),
                               math_ops.multiply(cos, cy))
        return _rows(cos, unary_ops.negative(sin), a2, sin, cos, b2, 0.0, 0.0)

    def get_config(self) -> dict:
        return {**super().get_config(), "factor": list(self.factor)}


class RandomZoom(_AffineLayer):
    """Zooms each image by a random factor about its centre in training.

    Args:
        height_factor: a number f draws vertical zooms in ``[1 - f, 1 + f]``, a pair
            ``(low, high)`` in ``[1 + low, 1 + high]``; values in ``(-1, 1]``. Positive
            values zoom out (the image shrinks), negative ones zoom in.
        width_factor: the same for the horizontal zoom; None (default) zooms both ways
            by the vertical factor, keeping the aspect ratio.
        fill_mode, interpolation, seed, fill_value, data_format: as `RandomRotation`.

    Examples:
        >>> import eagerflow as ef
        >>> ef.layers.RandomZoom(0.2)(ef.ones([2, 4, 4, 1]), training=True).shape
        (2, 4, 4, 1)
    """

    def __init__(self, height_factor: Any, width_factor: Any = None, fill_mode: str = "reflect",
                 interpolation: str = "bilinear", seed: int | random_ops.Generator | None = None,
                 fill_value: float = 0.0, data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(fill_mode, interpolation, seed, fill_value, data_format, **kwargs)
        self.height_factor = height_factor
        self.width_factor = width_factor
        self._height_range = _factor_pair(height_factor, "height_factor", "RandomZoom", -1.0,
                                          low_open=True)
        self._width_range = None if width_factor is None else _factor_pair(
            width_factor, "width_factor", "RandomZoom", -1.0, low_open=True)

    def transforms(self, batch: int, height: Any, width: Any) -> Any:
        low, high = self._height_range
        zoom_y = self.uniform(batch, 1.0 + low, 1.0 + high)
        if self._width_range is None:
            zoom_x = zoom_y
        else:
            zoom_x = self.uniform(batch, 1.0 + self._width_range[0], 1.0 + self._width_range[1])
        # Scale about the centre: input = z (output - c) + c.
        x_offset = math_ops.multiply(math_ops.subtract(1.0, zoom_x), (width - 1) / 2.0)
        y_offset = math_ops.multiply(math_ops.subtract(1.0, zoom_y), (height - 1) / 2.0)
        return _rows(zoom_x, 0.0, x_offset, 0.0, zoom_y, y_offset, 0.0, 0.0)

    def get_config(self) -> dict:
        return {**super().get_config(), "height_factor": _plain(self.height_factor),
                "width_factor": _plain(self.width_factor)}


class RandomTranslation(_AffineLayer):
    """Shifts each image by a random fraction of its size in training.

    Args:
        height_factor: a number f draws vertical shifts in ``[-f, f] * height``, a pair
            ``(low, high)`` in ``[low, high] * height``; values in ``[-1, 1]``. Positive
            shifts move the image down.
        width_factor: the same for horizontal shifts (positive: right).
        fill_mode, interpolation, seed, fill_value, data_format: as `RandomRotation`.

    Examples:
        >>> import eagerflow as ef
        >>> layer = ef.layers.RandomTranslation((0.5, 0.5), 0.0, fill_mode="constant")
        >>> layer(ef.reshape(ef.range(1.0, 5.0), [1, 4, 1, 1]), training=True)[0, :, 0, 0]
        ef.Tensor([0. 0. 1. 2.], shape=(4,), dtype=float32)
    """

    def __init__(self, height_factor: Any, width_factor: Any, fill_mode: str = "reflect",
                 interpolation: str = "bilinear", seed: int | random_ops.Generator | None = None,
                 fill_value: float = 0.0, data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(fill_mode, interpolation, seed, fill_value, data_format, **kwargs)
        self.height_factor = height_factor
        self.width_factor = width_factor
        self._height_range = _factor_pair(height_factor, "height_factor", "RandomTranslation",
                                          -1.0)
        self._width_range = _factor_pair(width_factor, "width_factor", "RandomTranslation", -1.0)

    def transforms(self, batch: int, height: Any, width: Any) -> Any:
        shift_y = math_ops.multiply(self.uniform(batch, *self._height_range), float(height))
        shift_x = math_ops.multiply(self.uniform(batch, *self._width_range), float(width))
        return _rows(1.0, 0.0, unary_ops.negative(shift_x), 0.0, 1.0,
                     unary_ops.negative(shift_y), 0.0, 0.0)

    def get_config(self) -> dict:
        return {**super().get_config(), "height_factor": _plain(self.height_factor),
                "width_factor": _plain(self.width_factor)}


def _plain(factor):
    """A factor as JSON-friendly data (tuples become lists)."""
    return list(factor) if isinstance(factor, (list, tuple)) else factor

