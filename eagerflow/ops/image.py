"""Image ops (`ef.image`), TensorFlow's names and conventions: images are ``(height, width,
channels)`` or batches ``(batch, height, width, channels)``.

`resize` applies one interpolation matrix per spatial axis (bilinear and nearest with
TensorFlow 2's half-pixel centers, area as box-filter coverage), so it is differentiable
with respect to the image for every method, like TensorFlow's; flips, `rot90` and crops are
slices and transposes; brightness and contrast are arithmetic. Each is checked against
TensorFlow 2.21's output in the tests.

Examples:
    >>> import eagerflow as ef
    >>> image = ef.ones([4, 6, 3])
    >>> ef.image.resize(image, [2, 3]).shape, ef.image.flip_left_right(image).shape
    ((2, 3, 3), (4, 6, 3))
"""

from __future__ import annotations

import math

import numpy as np

from eagerflow.core import dtypes, errors
from eagerflow.core.dispatch import convert_input
from eagerflow.ops import array as array_ops
from eagerflow.ops import creation
from eagerflow.ops import einsum as einsum_ops
from eagerflow.ops import logic as logic_ops
from eagerflow.ops import math as math_ops
from eagerflow.ops import random as random_ops
from eagerflow.ops import reduce as reduce_ops


def _image(image, op_name: str):
    """`image` as a tensor of rank 3 or 4, and whether it is a batch."""
    image = convert_input(image)
    if image.ndim not in (3, 4):
        raise errors.InvalidArgumentError(
            f"image must be 3-D (height, width, channels) or 4-D (batch, height, width, "
            f"channels); got shape {image.shape}", op_name)
    return image, image.ndim == 4


# -- resizing ---------------------------------------------------------------------------
def _bilinear(in_size: int, out_size: int) -> np.ndarray:
    scale = in_size / out_size
    matrix = np.zeros((out_size, in_size))
    for i in range(out_size):
        position = (i + 0.5) * scale - 0.5
        below = math.floor(position)
        lerp = position - below
        lower, upper = max(below, 0), min(math.ceil(position), in_size - 1)
        matrix[i, lower] += 1.0 - lerp
        matrix[i, upper] += lerp
    return matrix


def _nearest(in_size: int, out_size: int) -> np.ndarray:
    scale = in_size / out_size
    matrix = np.zeros((out_size, in_size))
    for i in range(out_size):
        matrix[i, min(int(math.floor((i + 0.5) * scale)), in_size - 1)] = 1.0
    return matrix


def _area(in_size: int, out_size: int) -> np.ndarray:
    scale = in_size / out_size
    matrix = np.zeros((out_size, in_size))
    for i in range(out_size):
        start, end = i * scale, (i + 1) * scale
        for j in range(int(math.floor(start)), min(int(math.ceil(end)), in_size)):
            matrix[i, j] = (min(end, j + 1) - max(start, j)) / scale
    return matrix


_METHODS = {"bilinear": _bilinear, "nearest": _nearest, "area": _area}


def resize(images, size, method="bilinear", preserve_aspect_ratio=False, antialias=False,
           name=None):
    """Resizes images to `size` = ``(height, width)``.

    Args:
        images: ``(height, width, channels)`` or ``(batch, height, width, channels)``.
        size: the new ``(height, width)``, positive ints.
        method: ``"bilinear"`` (TensorFlow 2's half-pixel centers), ``"nearest"`` or
            ``"area"`` (each output pixel the mean of the input area it covers).
        preserve_aspect_ratio: fit inside `size` keeping the aspect ratio.
        antialias: must be False (eagerflow has no antialiasing kernels); downsampling
            with ``"area"`` averages instead.
        name: ignored.

    Returns:
        The resized images, float32 (float64 input stays float64), differentiable with
        respect to the images.

    Raises:
        InvalidArgumentError: for a bad rank, size or method, or antialias=True.

    Examples:
        >>> import eagerflow as ef
        >>> ef.image.resize([[[0.0], [1.0]]], [1, 4])[0, :, 0].numpy()
        array([0.  , 0.25, 0.75, 1.  ], dtype=float32)
    """
    images, _ = _image(images, "ResizeImages")
    if method not in _METHODS:
        raise errors.InvalidArgumentError(
            f"method must be one of {sorted(_METHODS)}, got {method!r}", "ResizeImages")
    if antialias:
        raise errors.InvalidArgumentError(
            "antialias=True is not supported; use method='area' to average when "
            "downsampling", "ResizeImages")
    size = tuple(size.numpy().tolist() if hasattr(size, "numpy") else size)
    if len(size) != 2 or any(isinstance(s, bool) or not isinstance(s, (int, np.integer))
                             or s <= 0 for s in size):
        raise errors.InvalidArgumentError(
            f"size must be two positive ints (height, width), got {size!r}", "ResizeImages")
    height, width = images.shape[-3], images.shape[-2]
    out_h, out_w = int(size[0]), int(size[1])
    if preserve_aspect_ratio:
        factor = min(out_h / height, out_w / width)
        out_h, out_w = max(int(round(height * factor)), 1), max(int(round(width * factor)), 1)
    if images.dtype.kind != "f":
        images = math_ops.cast(images, "float32")
    rows = creation.constant(_METHODS[method](height, out_h), images.dtype)
    cols = creation.constant(_METHODS[method](width, out_w), images.dtype)
    return einsum_ops.einsum("hH,...HWc,wW->...hwc", rows, images, cols)


# -- flips, rotations, crops -------------------------------------------------------------
def flip_left_right(image, name=None):
    """Mirrors images horizontally (reverses the width axis).

    Examples:
        >>> import eagerflow as ef
        >>> ef.image.flip_left_right([[[1], [2], [3]]])[0, :, 0].numpy()
        array([3, 2, 1], dtype=int32)
    """
    image, _ = _image(image, "ReverseV2")
    return image[..., ::-1, :]


def flip_up_down(image, name=None):
    """Mirrors images vertically (reverses the height axis).

    Examples:
        >>> import eagerflow as ef
        >>> ef.image.flip_up_down([[[1]], [[2]]])[:, 0, 0].numpy()
        array([2, 1], dtype=int32)
    """
    image, _ = _image(image, "ReverseV2")
    return image[..., ::-1, :, :]


def _random_flip(image, seed, flip, op_name):
    image, batched = _image(image, op_name)
    count = image.shape[0] if batched else 1
    if batched and count is None:
        raise errors.InvalidArgumentError("the batch size must be known", op_name)
    coins = random_ops.uniform([count], seed=seed)
    flipped = flip(image)
    chosen = logic_ops.less(coins, 0.5)
    if batched:
        chosen = array_ops.reshape(chosen, [count, 1, 1, 1])
    else:
        chosen = array_ops.reshape(chosen, [1, 1, 1])
    return math_ops.where(chosen, flipped, image)


def random_flip_left_right(image, seed=None):
    """Mirrors each image horizontally with probability 1/2 (independently per image).

    Examples:
        >>> import eagerflow as ef
        >>> ef.image.random_flip_left_right(ef.ones([2, 4, 4, 3]), seed=1).shape
        (2, 4, 4, 3)
    """
    return _random_flip(image, seed, flip_left_right, "RandomFlipLeftRight")


def random_flip_up_down(image, seed=None):
    """Mirrors each image vertically with probability 1/2 (independently per image).

    Examples:
        >>> import eagerflow as ef
        >>> ef.image.random_flip_up_down(ef.ones([4, 4, 3]), seed=1).shape
        (4, 4, 3)
    """
    return _random_flip(image, seed, flip_up_down, "RandomFlipUpDown")


def rot90(image, k=1, name=None):
    """Rotates images counterclockwise by ``k * 90`` degrees.

    Examples:
        >>> import eagerflow as ef
        >>> ef.image.rot90([[[1], [2]], [[3], [4]]])[..., 0].numpy()
        array([[2, 4],
               [1, 3]], dtype=int32)
    """
    image, batched = _image(image, "Rot90")
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
        raise errors.InvalidArgumentError(f"k must be an int, got {k!r}", "Rot90")
    k = int(k) % 4
    height, width = (1, 2) if batched else (0, 1)
    perm = list(range(image.ndim))
    perm[height], perm[width] = width, height
    for _ in range(k):  # one counterclockwise turn: transpose, then flip vertically
        image = flip_up_down(array_ops.transpose(image, perm))
    return image


def central_crop(image, central_fraction):
    """Keeps the central `central_fraction` of each image's height and width (TensorFlow's
    rounding: the border cut on each side is ``int((size - size * fraction) / 2)``).

    Raises:
        InvalidArgumentError: unless ``0 < central_fraction <= 1``.

    Examples:
        >>> import eagerflow as ef
        >>> ef.image.central_crop(ef.ones([10, 8, 3]), 0.5).shape
        (6, 4, 3)
    """
    image, _ = _image(image, "CentralCrop")
    fraction = float(central_fraction)
    if not 0.0 < fraction <= 1.0:
        raise errors.InvalidArgumentError(
            f"central_fraction must be within (0, 1], got {central_fraction!r}",
            "CentralCrop")
    if fraction == 1.0:
        return image
    height, width = image.shape[-3], image.shape[-2]
    top, left = int((height - height * fraction) / 2), int((width - width * fraction) / 2)
    return image[..., top:height - top, left:width - left, :]


def random_crop(value, size, seed=None, name=None):
    """A random ``size``-shaped slice of `value` (TensorFlow's: the offset is uniform over
    every position where the slice fits).

    Raises:
        InvalidArgumentError: if `size` has another rank or does not fit in `value`.

    Examples:
        >>> import eagerflow as ef
        >>> ef.image.random_crop(ef.ones([10, 8, 3]), [4, 4, 3], seed=0).shape
        (4, 4, 3)
    """
    value = convert_input(value)
    size = [int(s) for s in (size.numpy() if hasattr(size, "numpy") else size)]
    if len(size) != value.ndim or any(s > n or s < 0 for s, n in zip(size, value.shape,
                                                                    strict=True)):
        raise errors.InvalidArgumentError(
            f"size {size} must have the rank of the value and fit in its shape "
            f"{value.shape}", "RandomCrop")
    limits = [n - s + 1 for s, n in zip(size, value.shape, strict=True)]
    offsets = random_ops.uniform([len(size)], 0, 2 ** 31 - 1, dtype=dtypes.int64, seed=seed)
    offsets = math_ops.mod(offsets, creation.constant(limits, dtypes.int64))
    # Slices with tensor bounds: inside ef.function the offsets are drawn on every call.
    key = tuple(slice(offsets[i], offsets[i] + s) for i, s in enumerate(size))
    return value[key]


# -- colour ------------------------------------------------------------------------------
def adjust_brightness(image, delta):
    """Adds `delta` to every pixel (of a float image; integer images are converted to float
    in [0, 1] first and back after, as TensorFlow does).

    Examples:
        >>> import eagerflow as ef
        >>> ef.image.adjust_brightness([[[0.25]]], 0.5).numpy().ravel()
        array([0.75], dtype=float32)
    """
    image, _ = _image(image, "AdjustBrightness")
    if image.dtype.kind == "f":
        return math_ops.add(image, delta)
    as_float = convert_image_dtype(image, "float32")
    return convert_image_dtype(math_ops.add(as_float, delta), image.dtype, saturate=True)


def adjust_contrast(images, contrast_factor):
    """Moves each channel of each image away from (or toward) its mean:
    ``(x - mean) * contrast_factor + mean``, the mean over height and width.

    Examples:
        >>> import eagerflow as ef
        >>> ef.image.adjust_contrast([[[0.0], [1.0]]], 2.0).numpy().ravel()
        array([-0.5,  1.5], dtype=float32)
    """
    images, _ = _image(images, "AdjustContrastv2")
    if images.dtype.kind != "f":
        as_float = convert_image_dtype(images, "float32")
        return convert_image_dtype(adjust_contrast(as_float, contrast_factor), images.dtype,
                                   saturate=True)
    mean = reduce_ops.reduce_mean(images, axis=[-3, -2], keepdims=True)
    return math_ops.add(math_ops.multiply(math_ops.subtract(images, mean), contrast_factor),
                        mean)


def convert_image_dtype(image, dtype, saturate=False, name=None):
    """Converts between image dtypes with TensorFlow's scaling: integers span
    ``[0, max]`` of their type, floats ``[0, 1]``.

    Args:
        image: an image (any rank).
        dtype: the target dtype.
        saturate: clip to the target range before converting a float to an integer type
            (without it, out-of-range values wrap, as in TensorFlow).

    Examples:
        >>> import eagerflow as ef, numpy as np
        >>> ef.image.convert_image_dtype(np.array([0, 255], np.uint8), ef.float32).numpy()
        array([0., 1.], dtype=float32)
        >>> ef.image.convert_image_dtype([0.0, 0.5, 1.0], "uint8").numpy()
        array([  0, 127, 255], dtype=uint8)
    """
    image = convert_input(image)
    target = dtypes.as_dtype(dtype)
    source = image.dtype
    if target == source:
        return image
    if source.kind in "iu" and target.kind in "iu":
        source_max, target_max = np.iinfo(source).max, np.iinfo(target).max
        if source_max > target_max:
            scale = (source_max + 1) // (target_max + 1)
            return math_ops.cast(math_ops.floordiv(image, scale), target)
        scale = (target_max + 1) // (source_max + 1)
        return math_ops.multiply(math_ops.cast(image, target), scale)
    if source.kind == "f" and target.kind == "f":
        return math_ops.cast(image, target)
    if source.kind in "iu":  # integer -> float
        return math_ops.divide(math_ops.cast(image, target), float(np.iinfo(source).max))
    # float -> integer: scale by max + 0.5, as TensorFlow does, then truncate.
    info = np.iinfo(target)
    scaled = math_ops.multiply(image, float(info.max) + 0.5)
    if saturate:
        scaled = math_ops.minimum(math_ops.maximum(scaled, float(info.min)), float(info.max))
    return math_ops.cast(scaled, target)
