"""Keras 3's image ops (`keras.ops.image`): resize, grayscale, padding and cropping with
Keras's signatures (`interpolation=`, `data_format="channels_last"|"channels_first"`).

Examples:
    >>> import eagerflow as ef
    >>> ef.ops.image.resize(ef.ones((1, 2, 2, 3)), (4, 4)).shape
    (1, 4, 4, 3)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from eagerflow.ops import array_ops as _array
from eagerflow.ops import image_ops as _image
from eagerflow.ops import indexing as _indexing
from eagerflow.ops import keras_core as _core
from eagerflow.ops import keras_missing as _keras_missing
from eagerflow.ops import linalg_ops as _linalg
from eagerflow.ops.typing import Tensor, TensorLike

_INTERPOLATIONS = ("bilinear", "nearest", "lanczos3", "lanczos5", "bicubic", "area")


def _first(images: Tensor, data_format: str | None, op_name: str) -> bool:
    fmt = data_format or "channels_last"
    if fmt not in ("channels_last", "channels_first"):
        raise ValueError(f"{op_name}: `data_format` must be 'channels_last' or "
                         f"'channels_first'. Received: data_format={data_format!r}")
    if images.ndim not in (3, 4):
        raise ValueError(f"{op_name}: `images` must have rank 3 (one image) or 4 (a batch). "
                         f"Received: images.shape={images.shape}")
    return fmt == "channels_first"


def _last(images: Tensor) -> Tensor:
    return _array.transpose(images, [1, 2, 0] if images.ndim == 3 else [0, 2, 3, 1])


def _back(images: Tensor) -> Tensor:
    return _array.transpose(images, [2, 0, 1] if images.ndim == 3 else [0, 3, 1, 2])


def resize(images: TensorLike, size: Sequence[int], interpolation: str = "bilinear",
           antialias: bool = False, crop_to_aspect_ratio: bool = False,
           pad_to_aspect_ratio: bool = False, fill_mode: str = "constant",
           fill_value: float = 0.0, data_format: str | None = None) -> Tensor:
    """`images` resized to `size` = (height, width) (`keras.ops.image.resize`), computed as
    ``tf.image.resize`` computes it; with `crop_to_aspect_ratio` the largest centred window
    of the target's aspect ratio is resized, with `pad_to_aspect_ratio` the images are
    first padded evenly with `fill_value` to it.

    Raises:
        ValueError: for an interpolation other than Keras's (bilinear, nearest, lanczos3,
            lanczos5, bicubic, area), a `fill_mode` other than "constant", both aspect
            ratio options, a `size` that is not two ints, or a rank other than 3 or 4.
    """
    x = _core.convert_to_tensor(images)
    first = _first(x, data_format, "resize")
    if interpolation not in _INTERPOLATIONS:
        raise ValueError(f"resize: `interpolation` must be one of {_INTERPOLATIONS}. "
                         f"Received: interpolation={interpolation!r}")
    if fill_mode != "constant":
        raise ValueError(f"resize: only fill_mode='constant' is supported (as in Keras). "
                         f"Received: fill_mode={fill_mode!r}")
    if crop_to_aspect_ratio and pad_to_aspect_ratio:
        raise ValueError("resize: only one of `pad_to_aspect_ratio` and "
                         "`crop_to_aspect_ratio` can be True")
    if len(size) != 2:
        raise ValueError(f"resize: `size` must be (height, width). Received: size={size!r}")
    x = _last(x) if first else x
    single = x.ndim == 3
    if single:
        x = _array.expand_dims(x, 0)
    height, width = int(size[0]), int(size[1])
    if crop_to_aspect_ratio:
        x = _image.crop_to_aspect_ratio(x, height, width)
    elif pad_to_aspect_ratio:
        x = _image.pad_to_aspect_ratio(x, height, width, fill_value=fill_value)
    out = _image.resize(x, [height, width], method=interpolation, antialias=antialias)
    if out.dtype != x.dtype and x.dtype.kind == "f":
        out = _core.cast(out, x.dtype)
    out = _array.squeeze(out, 0) if single else out
    return _back(out) if first else out


def rgb_to_grayscale(images: TensorLike, data_format: str | None = None) -> Tensor:
    """Luma `0.2989 R + 0.5870 G + 0.1140 B`, one channel (`keras.ops.image.rgb_to_grayscale`)."""
    x = _core.as_float(images)
    first = _first(x, data_format, "rgb_to_grayscale")
    axis = (-3 if first else -1) % x.ndim
    weights = _core.as_tensor([0.2989, 0.5870, 0.1140], x.dtype)
    gray = _linalg.tensordot(x, weights, axes=[[axis], [0]])
    return _array.expand_dims(gray, axis)


def _edges(name: str, before: int | None, after: int | None, length: int,
           target: int | None, grow: bool) -> tuple[int, int]:
    if target is None:
        return int(before or 0), int(after or 0)
    change = target - length if grow else length - target
    if before is None and after is None:
        edge = "paddings" if grow else "croppings"
        raise ValueError(f"{name}: give one of the two {edge} besides the target size")
    if before is None:
        return change - int(after or 0), int(after or 0)
    return int(before), change - int(before)


def pad_images(images: TensorLike, top_padding: int | None = None,
               left_padding: int | None = None, bottom_padding: int | None = None,
               right_padding: int | None = None, target_height: int | None = None,
               target_width: int | None = None, data_format: str | None = None) -> Tensor:
    """`images` padded with zeros (`keras.ops.image.pad_images`).

    Raises:
        ValueError: if the paddings and targets do not determine the padding, or a
            padding is negative.
    """
    x = _core.convert_to_tensor(images)
    first = _first(x, data_format, "pad_images")
    x = _last(x) if first else x
    height, width = x.shape[-3], x.shape[-2]
    top, bottom = _edges("pad_images", top_padding, bottom_padding, height, target_height, True)
    left, right = _edges("pad_images", left_padding, right_padding, width, target_width, True)
    if min(top, bottom, left, right) < 0:
        raise ValueError(f"pad_images: the paddings must be >= 0. Received: top={top}, "
                         f"bottom={bottom}, left={left}, right={right}")
    widths = [[top, bottom], [left, right], [0, 0]]
    out = _indexing.pad(x, widths if x.ndim == 3 else [[0, 0], *widths])
    return _back(out) if first else out


def crop_images(images: TensorLike, top_cropping: int | None = None,
                left_cropping: int | None = None, bottom_cropping: int | None = None,
                right_cropping: int | None = None, target_height: int | None = None,
                target_width: int | None = None, data_format: str | None = None) -> Tensor:
    """`images` with rows and columns cut from the edges (`keras.ops.image.crop_images`).

    Raises:
        ValueError: if the croppings and targets do not determine the crop, or a
            cropping is negative.
    """
    x = _core.convert_to_tensor(images)
    first = _first(x, data_format, "crop_images")
    x = _last(x) if first else x
    height, width = x.shape[-3], x.shape[-2]
    top, bottom = _edges("crop_images", top_cropping, bottom_cropping, height, target_height,
                         False)
    left, right = _edges("crop_images", left_cropping, right_cropping, width, target_width,
                         False)
    if min(top, bottom, left, right) < 0 or top + bottom >= height or left + right >= width:
        raise ValueError(f"crop_images: the croppings must be >= 0 and leave pixels. "
                         f"Received: top={top}, bottom={bottom}, left={left}, right={right} "
                         f"for images of height {height} and width {width}")
    out = x[..., top:height - bottom, left:width - right, :]
    return _back(out) if first else out


__all__ = [
    "crop_images", "pad_images", "resize", "rgb_to_grayscale",
]


def __getattr__(name: str) -> Any:
    raise _keras_missing.missing("image", name)
