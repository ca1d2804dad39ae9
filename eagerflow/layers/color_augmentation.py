"""Random color augmentation layers: RandomBrightness, RandomContrast and RandomGrayscale
(Keras 3's arguments and defaults).

Like the geometric augmentation layers they transform in training (a direct call, a
``dataset.map``, `fit`) and pass images through at inference; every image of a batch
gets its own draw, from ef random ops, so traced steps draw anew on every call.

Examples:
    >>> import eagerflow as ef
    >>> layer = ef.layers.RandomBrightness(0.2, value_range=(0, 1), seed=1)
    >>> y = layer(ef.fill([2, 4, 4, 3], 0.5))
    >>> bool(ef.reduce_all((y >= 0.3) & (y <= 0.7)))
    True
"""

from __future__ import annotations

from typing import Any

from eagerflow.layers.image_preprocessing import ImageLayer
from eagerflow.ops import array_ops
from eagerflow.ops import creation as creation_ops
from eagerflow.ops import math as math_ops
from eagerflow.ops import random as random_ops
from eagerflow.ops import reduce as reduce_ops

_GRAY = (0.2989, 0.5870, 0.1140)  # ITU-R 601 luma weights, as Keras and TensorFlow


def _value_range(value_range, layer: str) -> tuple:
    if not isinstance(value_range, (list, tuple)) or len(value_range) != 2 or not all(
            isinstance(v, (int, float)) and not isinstance(v, bool) for v in value_range):
        raise ValueError(f"{layer}: `value_range` must be a pair of numbers (low, high). "
                         f"Received: value_range={value_range!r}")
    low, high = sorted(float(v) for v in value_range)
    return low, high


def _factor(factor, layer: str, low: float, high: float) -> tuple:
    """Keras's factor forms: a number f means (-|f|, |f|) clipped to [low, high]; a pair is
    sorted; every value must lie in [low, high]."""
    message = (f"{layer}: `factor` must be a number or a pair of numbers in [{low}, {high}]. "
               f"Received: factor={factor!r}")
    values = list(factor) if isinstance(factor, (list, tuple)) else [factor]
    if len(values) not in (1, 2) or not all(
            isinstance(v, (int, float)) and not isinstance(v, bool) and low <= v <= high
            for v in values):
        raise ValueError(message)
    if len(values) == 2:
        first, second = sorted(float(v) for v in values)
        return first, second
    value = abs(float(values[0]))
    return max(-value, low), value


class _ColorLayer(ImageLayer):
    def __init__(self, seed: int | None = None, data_format: str | None = None,
                 **kwargs: Any) -> None:
        super().__init__(data_format=data_format, **kwargs)
        self.seed = seed

    def call(self, inputs: Any, training: bool | None = True) -> Any:
        # As Keras 3: a call outside a model augments; evaluate and predict do not.
        return super().call(inputs, training=training)

    def draw(self, images: Any, low: float, high: float) -> Any:
        """One uniform draw in ``[low, high)`` per image, shaped to broadcast over it."""
        batch = array_ops.shape(images)[0]
        return random_ops.generator_for(self.seed).uniform(
            array_ops.stack([batch, 1, 1, 1]), low, high, dtype=images.dtype)

    def get_config(self) -> dict:
        return {**super().get_config(), "seed": self.seed}


class RandomBrightness(_ColorLayer):
    """Adds a random delta to each image in training: ``delta = f * (high - low)`` with
    ``f`` drawn from `factor`'s range, then clips to `value_range`.

    Args:
        factor: a number in ``[-1, 1]`` (the range ``(-|f|, |f|)``) or a pair ``(low,
            high)`` of fractions of the value range.
        value_range: the images' value range, ``(0, 255)`` by default.
        seed: seed of the layer's random stream.

    Raises:
        ValueError: for a factor outside ``[-1, 1]`` or a bad value range.

    Examples:
        >>> import eagerflow as ef
        >>> ef.layers.RandomBrightness(0.1).get_config()["factor"]
        [-0.1, 0.1]
    """

    def __init__(self, factor: Any, value_range: Any = (0, 255), seed: int | None = None,
                 **kwargs: Any) -> None:
        super().__init__(seed=seed, **kwargs)
        self.factor = _factor(factor, "RandomBrightness", -1.0, 1.0)
        self.value_range = _value_range(value_range, "RandomBrightness")

    def transform(self, images: Any, training: bool | None) -> Any:
        images = self.to_compute_dtype(images)
        if not training:
            return images
        low, high = self.value_range
        delta = self.draw(images, *self.factor) * (high - low)
        return math_ops.clip_by_value(images + delta, low, high)

    def get_config(self) -> dict:
        return {**super().get_config(), "factor": list(self.factor),
                "value_range": list(self.value_range)}


class RandomContrast(_ColorLayer):
    """Scales each image's deviation from its per-channel mean by a random factor in
    ``[1 - lower, 1 + upper]`` in training, then clips to `value_range`.

    A single number ``f`` means ``lower = upper = f``, as Keras documents (Keras 3.15's
    code draws from ``[1, 1 + f]`` instead).

    Args:
        factor: a number in ``[0, 1]`` or a pair ``(lower, upper)``.
        value_range: the images' value range, ``(0, 255)`` by default.
        seed: seed of the layer's random stream.

    Raises:
        ValueError: for a factor outside ``[0, 1]`` or a bad value range.

    Examples:
        >>> import eagerflow as ef
        >>> ef.layers.RandomContrast(0.2).get_config()["factor"]
        [0.2, 0.2]
    """

    def __init__(self, factor: Any, value_range: Any = (0, 255), seed: int | None = None,
                 **kwargs: Any) -> None:
        super().__init__(seed=seed, **kwargs)
        values = list(factor) if isinstance(factor, (list, tuple)) else [factor, factor]
        checked = [_factor(v, "RandomContrast", 0.0, 1.0)[1] for v in values]
        if len(checked) != 2:
            raise ValueError("RandomContrast: `factor` must be a number or a pair of numbers "
                             f"in [0, 1]. Received: factor={factor!r}")
        self.factor = tuple(checked)
        self.value_range = _value_range(value_range, "RandomContrast")

    def transform(self, images: Any, training: bool | None) -> Any:
        images = self.to_compute_dtype(images)
        if not training:
            return images
        lower, upper = self.factor
        contrast = self.draw(images, 1.0 - lower, 1.0 + upper)
        mean = reduce_ops.reduce_mean(images, axis=[1, 2], keepdims=True)
        return math_ops.clip_by_value((images - mean) * contrast + mean, *self.value_range)

    def get_config(self) -> dict:
        return {**super().get_config(), "factor": list(self.factor),
                "value_range": list(self.value_range)}


class RandomGrayscale(_ColorLayer):
    """Turns each RGB image to grayscale (the luma ``0.2989 R + 0.5870 G + 0.1140 B`` in
    all three channels) with probability `factor` in training.

    Args:
        factor: the probability, in ``[0, 1]`` (default 0.5).
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.
        seed: seed of the layer's random stream.

    Raises:
        ValueError: for a factor outside ``[0, 1]``, or images without 3 channels.

    Examples:
        >>> import eagerflow as ef
        >>> ef.layers.RandomGrayscale(1.0)(ef.constant([[[0.0, 1.0, 2.0]]])).numpy().round(4)
        array([[[0.815, 0.815, 0.815]]], dtype=float32)
    """

    def __init__(self, factor: float = 0.5, data_format: str | None = None,
                 seed: int | None = None, **kwargs: Any) -> None:
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        if isinstance(factor, bool) or not isinstance(factor, (int, float)) or not (
                0 <= factor <= 1):
            raise ValueError(f"RandomGrayscale: `factor` must be a number in [0, 1]. "
                             f"Received: factor={factor!r}")
        self.factor = float(factor)

    def transform(self, images: Any, training: bool | None) -> Any:
        images = self.to_compute_dtype(images)
        if images.shape[-1] != 3:
            raise ValueError(f"RandomGrayscale '{self.name}' expects RGB images (3 channels). "
                             f"Received images of shape {tuple(images.shape)} (channels last)")
        if not training or self.factor == 0:
            return images
        gray = reduce_ops.reduce_sum(images * creation_ops.constant(_GRAY, images.dtype), axis=-1,
                                     keepdims=True)
        chosen = math_ops.cast(self.draw(images, 0.0, 1.0) < self.factor, images.dtype)
        return images + chosen * (gray - images)

    def get_config(self) -> dict:
        return {**super().get_config(), "factor": self.factor}
