"""Image ops (`ef.image`) on NHWC images: one ``[height, width, channels]`` image or a
``[batch, height, width, channels]`` batch.

Resizing is separable: each method (bilinear, nearest, area, antialiased bilinear) is a
fixed ``(out, in)`` weight matrix per spatial axis, built once per size pair with
TensorFlow's half-pixel sampling positions and applied with `einsum` (nearest with
`gather`), so resizing is differentiable for free. Flips, crops, rotations and colour
adjustments are slices and arithmetic on ef ops. Random variants draw with ef random ops,
so a traced function draws anew on every call. `projective_transform` (the rotations,
zooms and shifts of the augmentation layers) is a primitive with the semantics of
TensorFlow's ``ImageProjectiveTransformV3``.

Where TensorFlow returns float32 for a float64 image (resize, brightness, contrast),
eagerflow keeps float64, so that float64 gradient checks and float64 pipelines keep their
precision; every other input dtype behaves as in TensorFlow.

Examples:
    >>> import eagerflow as ef
    >>> image = ef.reshape(ef.range(4.0), [2, 2, 1])
    >>> ef.image.resize(image, [1, 1])[..., 0]
    ef.Tensor([[1.5]], shape=(1, 1), dtype=float32)
    >>> ef.image.flip_left_right(image)[..., 0]
    ef.Tensor(
    [[1. 0.]
     [3. 2.]], shape=(2, 2), dtype=float32)
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from eagerflow.core import buffers, context, dtypes, errors, forwardprop
from eagerflow.core.dispatch import convert_input, execute, primitive
from eagerflow.ops import array_ops as _array
from eagerflow.ops import einsum_ops as _einsum
from eagerflow.ops import indexing as _indexing
from eagerflow.ops import logic as _logic
from eagerflow.ops import math as _math
from eagerflow.ops import random as _random
from eagerflow.ops import reduce as _reduce
from eagerflow.ops.typing import DTypeLike, Tensor, TensorLike

RESIZE_METHODS = ("bilinear", "nearest", "bicubic", "area", "lanczos3", "lanczos5", "gaussian",
                  "mitchellcubic")
# The methods Keras 3's image layers and ops.image.resize accept.
KERAS_RESIZE_METHODS = ("bilinear", "nearest", "lanczos3", "lanczos5", "bicubic", "area")
_RESIZE_OPS = {"bilinear": "ResizeBilinear", "nearest": "ResizeNearestNeighbor",
               "bicubic": "ResizeBicubic", "area": "ResizeArea"}
# tf.image.resize's kernels for ScaleAndTranslate: (radius, kernel of |x|).
_KERNELS = {
    "bilinear": (1.0, lambda x: np.maximum(0.0, 1.0 - x)),  # the triangle
    "bicubic": (2.0, lambda x: np.where(  # Keys' cubic, a = -0.5
        x >= 2.0, 0.0, np.where(x >= 1.0, ((-0.5 * x + 2.5) * x - 4.0) * x + 2.0,
                                (1.5 * x - 2.5) * x * x + 1.0))),
    "lanczos3": (3.0, lambda x: _lanczos(x, 3.0)),
    "lanczos5": (5.0, lambda x: _lanczos(x, 5.0)),
    "gaussian": (1.5, lambda x: np.where(x >= 1.5, 0.0, np.exp(-x * x / 0.5))),  # sigma 0.5
    "mitchellcubic": (2.0, lambda x: np.where(  # Mitchell-Netravali, B = C = 1/3
        x >= 2.0, 0.0, np.where(x >= 1.0, ((-7.0 / 18.0 * x + 2.0) * x - 10.0 / 3.0) * x
                                + 16.0 / 9.0, (7.0 / 6.0 * x - 2.0) * x * x + 8.0 / 9.0))),
}


def _lanczos(x: np.ndarray, radius: float) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        value = radius * np.sin(np.pi * x) * np.sin(np.pi * x / radius) / (np.pi * np.pi * x * x)
    return np.where(x > radius, 0.0, np.where(x <= 1e-3, 1.0, value))


def _scale_and_translate_weights(in_size: int, out_size: int, method: str,
                                 antialias: bool) -> np.ndarray:
    """TensorFlow's ScaleAndTranslate spans: the kernel centred on each output sample
    (widened by the downscaling factor with `antialias`), clamped to the image and
    renormalised over the input pixels it covers."""
    radius, kernel = _KERNELS[method]
    inv_scale = in_size / out_size
    kernel_scale = max(inv_scale, 1.0) if antialias else 1.0
    weights = np.zeros((out_size, in_size))
    for i in range(out_size):
        sample = (i + 0.5) * inv_scale
        first = int(np.clip(np.ceil(sample - radius * kernel_scale - 0.5), 0, in_size - 1))
        last = int(np.clip(np.floor(sample + radius * kernel_scale - 0.5), 0, in_size - 1))
        span = np.arange(first, last + 1)
        taps = kernel(np.abs((span + 0.5 - sample) / kernel_scale))
        total = taps.sum()
        weights[i, span] = taps / total if abs(total) >= 1000 * np.finfo(np.float32).tiny else taps
    return weights


def _keys_cubic_table_weights(in_size: int, out_size: int) -> np.ndarray:
    """TensorFlow's ResizeBicubic with half-pixel centres: Keys' cubic (a = -0.5) read from
    its 1024-entry table, taps outside the image weigh 0 and the rest are renormalised."""
    table = 1024
    scale = np.float32(in_size) / np.float32(out_size)
    weights = np.zeros((out_size, in_size))
    for i in range(out_size):
        source = (np.float32(i) + np.float32(0.5)) * scale - np.float32(0.5)
        base = int(np.floor(source))
        offset = int(np.rint((source - base) * table))
        taps = {base - 1: (offset + table) / table, base: offset / table,
                base + 1: (table - offset) / table, base + 2: (2 * table - offset) / table}
        kept = {j: float(_KERNELS["bicubic"][1](np.float64(d))) for j, d in taps.items()
                if 0 <= j < in_size}
        total = sum(kept.values())
        for j, weight in kept.items():
            weights[i, j] += weight / total if abs(total) > 0 else weight
    return weights

INTERPOLATIONS = ("bilinear", "nearest")
FILL_MODES = ("reflect", "wrap", "constant", "nearest")


def _image(image: TensorLike, op_name: str, ranks: tuple[int, ...] = (3, 4)) -> Tensor:
    """`image` as a tensor of an accepted rank, or an error naming the op and the shape."""
    image = convert_input(image)
    if image.ndim not in ranks:
        wanted = " or ".join(f"{r}-D" for r in ranks)
        raise errors.InvalidArgumentError(
            f"images must be {wanted} ([height, width, channels] or [batch, height, width, "
            f"channels]), got shape {image.shape}", op_name)
    return image


def _float_dtype(dtype) -> np.dtype:
    """The dtype an image is resized and adjusted in: float64 stays, the rest is float32."""
    return dtypes.float64 if dtype == dtypes.float64 else dtypes.float32


# -- resize -------------------------------------------------------------------------------
def _check_size(size, op_name: str) -> tuple:
    try:
        values = buffers.read(convert_input(size))
    except (TypeError, ValueError):
        values = np.asarray([])
    if values.shape != (2,) or values.dtype.kind not in "iu" or (values <= 0).any():
        raise errors.InvalidArgumentError(
            f"size must be a 1-D int32 Tensor of 2 positive elements: new_height, new_width; "
            f"got {size!r}", op_name)
    return int(values[0]), int(values[1])


@functools.lru_cache(maxsize=256)
def _resize_weights(in_size: int, out_size: int, method: str, antialias: bool) -> np.ndarray:
    """The ``(out_size, in_size)`` float64 matrix of one axis of a resize (read-only)."""
    weights = np.zeros((out_size, in_size))
    rows = np.arange(out_size)
    # Nearest picks pixels with TensorFlow's float32 arithmetic, so that ties at pixel
    # edges fall the same way; the weighted methods use exact float64 positions (float32
    # ones would put ~1e-7 relative error into float64 images).
    wide = method != "nearest"
    scale = in_size / out_size if wide else np.float32(in_size) / np.float32(out_size)
    centers = rows + 0.5 if wide else rows.astype(np.float32) + np.float32(0.5)
    if method == "nearest":
        # Half-pixel centres, rounded down and clamped.
        source = np.minimum(np.floor(centers * scale).astype(np.int64), in_size - 1)
        weights[rows, np.maximum(source, 0)] = 1.0
    elif method == "area":
        # Each output pixel averages the input span [i * scale, (i + 1) * scale).
        start, stop = rows * scale, (rows + 1) * scale
        for i in range(out_size):
            for j in range(int(np.floor(start[i])), int(np.ceil(stop[i]))):
                overlap = min(j + 1, stop[i]) - max(j, start[i])
                weights[i, min(j, in_size - 1)] += overlap / scale
    elif method == "bicubic" and not antialias:
        weights = _keys_cubic_table_weights(in_size, out_size)
    elif method != "bilinear" or (antialias and out_size < in_size):
        # ScaleAndTranslate (the kernel methods, and bilinear with antialias, where a
        # triangle stretched by the downscaling factor matters only when shrinking).
        weights = _scale_and_translate_weights(in_size, out_size, method, antialias)
    else:
        # Bilinear with half-pixel centres: linear between the two nearest pixel centres.
        source = centers * scale - 0.5
        lower = np.floor(source)
        lerp = source - lower
        low = np.maximum(lower.astype(np.int64), 0)
        high = np.minimum(np.ceil(source).astype(np.int64), in_size - 1)
        np.add.at(weights, (rows, low), 1.0 - lerp)
        np.add.at(weights, (rows, high), lerp)
    weights.setflags(write=False)
    return weights


def _resize_axis(images: Tensor, axis: int, out_size: int, method: str,
                 antialias: bool) -> Tensor:
    in_size = images.shape[axis]
    if in_size == out_size and method in ("nearest", "bilinear", "area", "bicubic"):
        return images  # these map each pixel to itself (the other kernels smooth)
    if method == "nearest":
        rows = np.argmax(_resize_weights(in_size, out_size, method, False), axis=1)
        return _indexing.gather(images, rows.astype(np.int32), axis=axis)
    matrix = _resize_weights(in_size, out_size, method, antialias).astype(images.dtype)
    equation = "oh,nhwc->nowc" if axis == 1 else "ow,nhwc->nhoc"
    return _einsum.einsum(equation, matrix, images)


def resize(images: TensorLike, size: Any, method: str = "bilinear",
           preserve_aspect_ratio: bool = False, antialias: bool = False,
           name: str | None = None) -> Tensor:
    """Resizes images to `size` with half-pixel centres, as ``tf.image.resize``.

    Args:
        images: ``[height, width, channels]`` or ``[batch, height, width, channels]``.
        size: ``[new_height, new_width]``, positive ints.
        method: ``"bilinear"``, ``"nearest"``, ``"bicubic"`` (Keys' cubic, a = -0.5),
            ``"area"``, ``"lanczos3"``, ``"lanczos5"``, ``"gaussian"`` or
            ``"mitchellcubic"``, each computed as TensorFlow computes it.
        preserve_aspect_ratio: scale both sides by the same factor, the largest that fits
            inside `size`.
        antialias: when downscaling, widen the kernel by the downscaling factor (bilinear,
            bicubic and the kernel methods; no effect on nearest and area).

    Returns:
        The resized images: `images`' dtype for ``"nearest"``, float64 for float64 images,
        float32 otherwise. Differentiable with respect to `images`.

    Raises:
        InvalidArgumentError: for a rank other than 3 or 4, a bad `size` or `method`.

    Examples:
        >>> import eagerflow as ef
        >>> x = ef.reshape(ef.range(4.0), [1, 1, 4, 1])
        >>> ef.image.resize(x, [1, 2])[0, 0, :, 0]
        ef.Tensor([0.5 2.5], shape=(2,), dtype=float32)
        >>> ef.image.resize(x, [1, 2], method="nearest")[0, 0, :, 0]
        ef.Tensor([1. 3.], shape=(2,), dtype=float32)
    """
    if method not in RESIZE_METHODS:
        raise errors.InvalidArgumentError(
            f"method must be one of {RESIZE_METHODS}, got {method!r}", "Resize")
    op_name = _RESIZE_OPS.get(method, "ScaleAndTranslate")
    if antialias and method in ("bilinear", "bicubic"):
        op_name = "ScaleAndTranslate"
    images = _image(images, op_name)
    height, width = _check_size(size, op_name)
    batched = images.ndim == 4
    if not batched:
        images = _array.expand_dims(images, 0)
    in_height, in_width = images.shape[1], images.shape[2]
    if preserve_aspect_ratio:
        factor = min(np.float32(height) / np.float32(in_height),
                     np.float32(width) / np.float32(in_width))
        height = int(np.round(factor * np.float32(in_height)))
        width = int(np.round(factor * np.float32(in_width)))
    if in_height == 0 or in_width == 0:
        raise errors.InvalidArgumentError(
            f"cannot resize an empty image of shape {images.shape}", op_name)
    budget = context.thread.load_budget
    if budget is not None:  # loading a file: bound the output first
        shape = (images.shape[0], height, width, images.shape[3])
        budget.charge(shape, np.float64, f"op {op_name}: output of shape {shape}", transient=True)
    if method != "nearest" and images.dtype != _float_dtype(images.dtype):
        images = _math.cast(images, _float_dtype(images.dtype))
    images = _resize_axis(images, 1, height, method, antialias)
    images = _resize_axis(images, 2, width, method, antialias)
    return images if batched else _array.squeeze(images, 0)



def crop_to_aspect_ratio(images: Any, height: int, width: int) -> Any:
    """The largest centred window of `images` (NHWC tensors or arrays) with the aspect ratio
    height:width, as Keras's `crop_to_aspect_ratio` (the `Resizing` layer, `smart_resize`
    and `image_dataset_from_directory` crop with it).

    Examples:
        >>> import eagerflow as ef
        >>> from eagerflow.ops import image_ops
        >>> image_ops.crop_to_aspect_ratio(ef.ones([1, 4, 8, 3]), 1, 1).shape
        (1, 4, 4, 3)
    """
    in_height, in_width = images.shape[1], images.shape[2]
    crop_height = max(min(in_height, int(in_width * height / width)), 1)
    crop_width = max(min(in_width, int(in_height * width / height)), 1)
    top, left = (in_height - crop_height) // 2, (in_width - crop_width) // 2
    if (crop_height, crop_width) == (in_height, in_width):
        return images
    return images[:, top:top + crop_height, left:left + crop_width, :]

def pad_to_aspect_ratio(images: Any, height: int, width: int, fill_value: float = 0.0) -> Any:
    """`images` (NHWC) padded evenly on both sides of the shorter side with `fill_value` up
    to the aspect ratio height:width, as Keras's `pad_to_aspect_ratio` (the `Resizing`
    layer and `ops.image.resize` pad with it).

    Examples:
        >>> import eagerflow as ef
        >>> from eagerflow.ops import image_ops
        >>> image_ops.pad_to_aspect_ratio(ef.ones([1, 2, 4, 1]), 1, 1).shape
        (1, 4, 4, 1)
    """
    in_height, in_width = images.shape[1], images.shape[2]
    padded_height = max(in_height, int(in_width * height / width))
    padded_width = max(in_width, int(in_height * width / height))
    top, left = (padded_height - in_height) // 2, (padded_width - in_width) // 2
    if not top and not left:
        return images
    # Keras pads the same amount on both sides.
    return _indexing.pad(images, [[0, 0], [top, top], [left, left], [0, 0]],
                         constant_values=fill_value)


# -- flips, rotations, crops --------------------------------------------------------------
_REVERSED = slice(None, None, -1)


def _flip(image, axis_from_end: int, op_name: str):
    image = _image(image, op_name)
    key = (Ellipsis, _REVERSED) + (slice(None),) * (axis_from_end - 1)
    return _array.getitem(image, key)


def flip_left_right(image: TensorLike, name: str | None = None) -> Tensor:
    """Mirrors images horizontally (reverses the width axis).

    Args:
        image: a 3-D image or a 4-D batch (NHWC).

    Raises:
        InvalidArgumentError: for a rank other than 3 or 4.

    Examples:
        >>> import eagerflow as ef
        >>> ef.image.flip_left_right(ef.reshape(ef.range(3), [1, 3, 1]))[0, :, 0]
        ef.Tensor([2 1 0], shape=(3,), dtype=int32)
    """
    return _flip(image, 2, "FlipLeftRight")


def flip_up_down(image: TensorLike, name: str | None = None) -> Tensor:
    """Mirrors images vertically (reverses the height axis).

    Examples:
        >>> import eagerflow as ef
        >>> ef.image.flip_up_down(ef.reshape(ef.range(3), [3, 1, 1]))[:, 0, 0]
        ef.Tensor([2 1 0], shape=(3,), dtype=int32)
    """
    return _flip(image, 3, "FlipUpDown")


def _random_flip(image, seed, axis_from_end: int, op_name: str):
    image = _image(image, op_name)
    flipped = _flip(image, axis_from_end, op_name)
    count = image.shape[0] if image.ndim == 4 else 1
    draws = _random.generator_for(seed).uniform([count])
    mask = _logic.less(draws, 0.5)  # one coin per image
    mask = _array.reshape(mask, [count, 1, 1, 1] if image.ndim == 4 else [1, 1, 1])
    return _math.where(mask, flipped, image)


def random_flip_left_right(image: TensorLike,
                           seed: int | _random.Generator | None = None) -> Tensor:
    """Mirrors each image horizontally with probability 1/2 (one coin per image).

    Args:
        image: a 3-D image or a 4-D batch (NHWC).
        seed: op seed (see `ef.random.set_seed`).

    Examples:
        >>> import eagerflow as ef
        >>> x = ef.reshape(ef.range(2), [1, 2, 1])
        >>> sorted(set(tuple(ef.image.random_flip_left_right(x)[0, :, 0].numpy().tolist())
        ...            for _ in range(20)))
        [(0, 1), (1, 0)]
    """
    return _random_flip(image, seed, 2, "RandomFlipLeftRight")


def random_flip_up_down(image: TensorLike, seed: int | _random.Generator | None = None) -> Tensor:
    """Mirrors each image vertically with probability 1/2 (one coin per image).

    Examples:
        >>> import eagerflow as ef
        >>> ef.image.random_flip_up_down(ef.ones([2, 3, 3, 1]), seed=1).shape
        (2, 3, 3, 1)
    """
    return _random_flip(image, seed, 3, "RandomFlipUpDown")


def rot90(image: TensorLike, k: int = 1, name: str | None = None) -> Tensor:
    """Rotates images counter-clockwise by `k` quarter turns.

    Args:
        image: a 3-D image or a 4-D batch (NHWC).
        k: number of quarter turns (a Python int; negative turns clockwise).

    Raises:
        InvalidArgumentError: for a rank other than 3 or 4, or a `k` that is not an int.

    Examples:
        >>> import eagerflow as ef
        >>> x = ef.reshape(ef.range(4), [2, 2, 1])
        >>> ef.image.rot90(x)[..., 0]
        ef.Tensor(
        [[1 3]
         [0 2]], shape=(2, 2), dtype=int32)
    """
    image = _image(image, "Rot90")
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
        raise errors.InvalidArgumentError(
            f"k must be a Python int (the number of quarter turns), got {k!r}", "Rot90")
    turns = int(k) % 4
    swap = [1, 0, 2] if image.ndim == 3 else [0, 2, 1, 3]
    if turns == 1:
        return _array.transpose(_flip(image, 2, "Rot90"), swap)
    if turns == 2:
        return _flip(_flip(image, 2, "Rot90"), 3, "Rot90")
    if turns == 3:
        return _flip(_array.transpose(image, swap), 2, "Rot90")
    return image


def central_crop(image: TensorLike, central_fraction: Any) -> Tensor:
    """Keeps the central `central_fraction` of each spatial side (TensorFlow's rounding).

    Args:
        image: a 3-D image or a 4-D batch (NHWC).
        central_fraction: a float in ``(0, 1]``.

    Raises:
        InvalidArgumentError: for a rank other than 3 or 4 or a fraction outside ``(0, 1]``.

    Examples:
        >>> import eagerflow as ef
        >>> ef.image.central_crop(ef.ones([10, 6, 3]), 0.5).shape
        (6, 4, 3)
    """
    image = _image(image, "CentralCrop")
    fraction = float(central_fraction)
    if not 0.0 < fraction <= 1.0:
        raise errors.InvalidArgumentError(
            f"central_fraction must be within (0, 1], got {central_fraction!r}", "CentralCrop")
    if fraction == 1.0:
        return image
    height, width = image.shape[-3], image.shape[-2]
    top = int((height - height * fraction) / 2)
    left = int((width - width * fraction) / 2)
    key = (Ellipsis, slice(top, height - top), slice(left, width - left), slice(None))
    return _array.getitem(image, key)


def random_crop(value: TensorLike, size: Any, seed: int | _random.Generator | None = None,
                name: str | None = None) -> Tensor:
    """Crops a random `size` block out of `value` (any rank), one offset for all of it.

    The offset is drawn with ef random ops, so a traced function crops somewhere new on
    every call.

    Args:
        value: the tensor to crop.
        size: the block's shape, one int per axis of `value`, each at most that axis's size.
        seed: op seed.

    Raises:
        InvalidArgumentError: when `size` has the wrong length or exceeds `value`'s shape.

    Examples:
        >>> import eagerflow as ef
        >>> ef.image.random_crop(ef.ones([5, 5, 3]), [3, 2, 3], seed=1).shape
        (3, 2, 3)
    """
    value = convert_input(value)
    sizes = buffers.read(convert_input(size))
    if sizes.shape != (value.ndim,) or sizes.dtype.kind not in "iu" or (sizes < 0).any() or (
            sizes > np.asarray(value.shape, dtype=np.int64)).any():
        raise errors.InvalidArgumentError(
            f"Need value.shape >= size with one non-negative size per axis, got value.shape "
            f"{value.shape} and size {sizes.tolist()}", "RandomCrop")
    limits = np.asarray(value.shape, np.int64) - sizes + 1
    draws = _random.generator_for(seed).uniform([value.ndim], 0, 2**31 - 1, dtype=dtypes.int32)
    offsets = _math.mod(draws, limits.astype(np.int32))
    for axis, (extent, limit) in enumerate(zip(sizes.tolist(), limits.tolist(), strict=True)):
        if limit > 1:
            positions = _math.add(offsets[axis], np.arange(extent, dtype=np.int32))
            value = _indexing.gather(value, positions, axis=axis)
    return value


# -- colour -------------------------------------------------------------------------------
def _to_float(image, op_name: str, min_rank: int = 0):
    image = convert_input(image)
    if image.ndim < min_rank:
        raise errors.InvalidArgumentError(
            f"images must be at least {min_rank}-D (..., height, width, channels), got shape "
            f"{image.shape}", op_name)
    if image.dtype.kind == "f":
        return image, image.dtype
    return convert_image_dtype(image, dtypes.float32), image.dtype


def adjust_brightness(image: TensorLike, delta: Any) -> Tensor:
    """Adds `delta` to every pixel; integer images go through float32 and saturate back.

    Args:
        image: an image tensor (any shape).
        delta: the amount to add (on the ``[0, 1)`` scale for integer images).

    Examples:
        >>> import eagerflow as ef
        >>> ef.image.adjust_brightness(ef.zeros([1, 1, 2]), 0.25)[0, 0]
        ef.Tensor([0.25 0.25], shape=(2,), dtype=float32)
    """
    flt, dtype = _to_float(image, "AdjustBrightness")
    adjusted = _math.add(flt, _math.cast(delta, flt.dtype))
    return adjusted if dtype == flt.dtype else convert_image_dtype(adjusted, dtype, True)


def adjust_contrast(images: TensorLike, contrast_factor: Any) -> Tensor:
    """Scales each channel's deviation from its mean over height and width.

    ``(x - mean) * contrast_factor + mean`` per image and channel; integer images go
    through float32 and saturate back.

    Args:
        images: images of rank >= 3; the last three axes are height, width, channels.
        contrast_factor: the multiplier of the deviations.

    Examples:
        >>> import eagerflow as ef
        >>> ef.image.adjust_contrast(ef.reshape([0.0, 2.0], [1, 2, 1]), 2.0)[0, :, 0]
        ef.Tensor([-1.  3.], shape=(2,), dtype=float32)
    """
    flt, dtype = _to_float(images, "AdjustContrastv2", min_rank=3)
    mean = _reduce.reduce_mean(flt, axis=[-3, -2], keepdims=True)
    factor = _math.cast(contrast_factor, flt.dtype)
    adjusted = _math.add(_math.multiply(_math.subtract(flt, mean), factor), mean)
    return adjusted if dtype == flt.dtype else convert_image_dtype(adjusted, dtype, True)


def saturate_cast(value, dtype):
    """Clamps to `dtype`'s range (as representable in `value`'s dtype), then casts.

    Examples:
        >>> import eagerflow as ef
        >>> from eagerflow.ops import image_ops as image
        >>> image.saturate_cast(ef.constant([-3.0, 300.0]), ef.uint8)
        ef.Tensor([  0 255], shape=(2,), dtype=uint8)
    """
    value, dtype = convert_input(value), dtypes.as_dtype(dtype)
    limits = np.iinfo(dtype) if dtype.kind in "iu" else np.finfo(dtype)
    source = np.iinfo(value.dtype) if value.dtype.kind in "iu" else np.finfo(value.dtype)
    low, high = max(limits.min, source.min), min(limits.max, source.max)
    if value.dtype.kind == "f":
        low, high = np.asarray(low, value.dtype), np.asarray(high, value.dtype)
        if dtype.kind in "iu" and float(high) > int(limits.max):  # 2**31 - 1 rounds up in f32
            high = np.nextafter(high, np.asarray(0, value.dtype))
    value = _math.clip_by_value(value, low, high) if (
        low > source.min or high < source.max) else value
    return _math.cast(value, dtype)


def convert_image_dtype(image: TensorLike, dtype: DTypeLike, saturate: bool = False,
                        name: str | None = None) -> Tensor:
    """Converts between image dtypes, rescaling values as ``tf.image.convert_image_dtype``.

    Floats hold values in ``[0, 1]``; integers in ``[0, dtype max]``. Integer to float
    multiplies by ``1 / max``; float to integer multiplies by ``max + 0.5`` and truncates;
    integer to integer shifts by the ratio of the two ranges; float to float only casts.

    Args:
        image: an image tensor (any shape).
        dtype: the target dtype (float16/32/64, (u)int8/16/32/64).
        saturate: clamp to the target range before casting, so out-of-range values do not
            wrap around.

    Raises:
        InvalidArgumentError: for a bool or other non-numeric dtype.

    Examples:
        >>> import eagerflow as ef
        >>> ef.image.convert_image_dtype(ef.constant([0, 255], ef.uint8), ef.float32)
        ef.Tensor([0. 1.], shape=(2,), dtype=float32)
        >>> ef.image.convert_image_dtype([0.5, 1.2], ef.uint8, saturate=True)
        ef.Tensor([127 255], shape=(2,), dtype=uint8)
    """
    image = convert_input(image)
    target = dtypes.as_dtype(dtype)
    for candidate in (image.dtype, target):
        if candidate.kind not in "iuf":
            raise errors.InvalidArgumentError(
                f"convert_image_dtype converts between integer and float image dtypes, got "
                f"{image.dtype.name} -> {target.name}", "ConvertImageDtype")
    if image.dtype == target:
        return image
    if image.dtype.kind in "iu" and target.kind in "iu":
        in_max, out_max = int(np.iinfo(image.dtype).max), int(np.iinfo(target).max)
        if in_max > out_max:
            # Divide first: the input's maximum lands between out_max and out_max + 1.
            scaled = _math.floordiv(image, (in_max + 1) // (out_max + 1))
            return saturate_cast(scaled, target) if saturate else _math.cast(scaled, target)
        cast = saturate_cast(image, target) if saturate else _math.cast(image, target)
        return _math.multiply(cast, (out_max + 1) // (in_max + 1))
    if image.dtype.kind == "f" and target.kind == "f":
        return _math.cast(image, target)
    if image.dtype.kind in "iu":
        return _math.multiply(_math.cast(image, target), 1.0 / int(np.iinfo(image.dtype).max))
    scaled = _math.multiply(image, float(np.iinfo(target).max) + 0.5)
    return saturate_cast(scaled, target) if saturate else _math.cast(scaled, target)


# -- projective transforms ----------------------------------------------------------------
def _map_coordinates(coords: np.ndarray, length: int, fill_mode: str) -> np.ndarray:
    """Folds out-of-image sampling positions back in, as TensorFlow's fill modes do."""
    if fill_mode == "constant":
        return coords
    if length <= 1:
        return np.zeros_like(coords)
    top = np.float32(length - 1)
    if fill_mode == "reflect":  # d c b a | a b c d | d c b a
        period = np.float32(2 * length)
        below = np.trunc(-coords / period) * period + coords
        below = np.where(below < -length, below + period, -below - np.float32(1))
        above = coords - np.trunc(coords / period) * period
        above = np.where(above >= length, period - above - np.float32(1), above)
        coords = np.where(coords < 0, below, np.where(coords > top, above, coords))
    elif fill_mode == "wrap":  # a b c d | a b c d | a b c d
        below = coords + np.float32(length) * (np.trunc(-coords / top) + np.float32(1))
        above = coords - np.float32(length) * np.trunc(coords / top)
        coords = np.where(coords < 0, below, np.where(coords > top, above, coords))
    return np.clip(coords, np.float32(0), top)


def _taps(transforms, image_shape, output_shape, interpolation, fill_mode):
    """The input pixels each output pixel reads: ``[(flat index, weight, inside), ...]``
    (arrays of shape ``[batch, out_height, out_width]``) and the degenerate-pixel mask."""
    batch, height, width = image_shape[0], image_shape[1], image_shape[2]
    out_height, out_width = output_shape
    transforms = np.broadcast_to(transforms.astype(np.float32), (batch, 8))
    a0, a1, a2, b0, b1, b2, c0, c1 = (transforms[:, i, None, None] for i in range(8))
    ys, xs = np.meshgrid(np.arange(out_height, dtype=np.float32),
                         np.arange(out_width, dtype=np.float32), indexing="ij")
    with np.errstate(divide="ignore", invalid="ignore"):
        projection = c0 * xs + c1 * ys + np.float32(1)
        degenerate = projection == 0
        safe = np.where(degenerate, np.float32(1), projection)
        x = _map_coordinates((a0 * xs + a1 * ys + a2) / safe, width, fill_mode)
        y = _map_coordinates((b0 * xs + b1 * ys + b2) / safe, height, fill_mode)
    if interpolation == "nearest":
        # std::round: halves away from zero.
        corners = [(np.sign(y) * np.floor(np.abs(y) + 0.5),
                    np.sign(x) * np.floor(np.abs(x) + 0.5), np.ones_like(x))]
    else:
        y0, x0 = np.floor(y), np.floor(x)
        # The four distances in float32 as TensorFlow has them; their products in float64,
        # so float64 images lose nothing more.
        up, left = (y0 + 1 - y).astype(np.float64), (x0 + 1 - x).astype(np.float64)
        down, right = (y - y0).astype(np.float64), (x - x0).astype(np.float64)
        corners = [(y0, x0, up * left), (y0, x0 + 1, up * right),
                   (y0 + 1, x0, down * left), (y0 + 1, x0 + 1, down * right)]
    taps = []
    for row, col, weight in corners:
        inside = (row >= 0) & (row < height) & (col >= 0) & (col < width) & ~degenerate
        index = (np.clip(row, 0, height - 1).astype(np.int64) * width
                 + np.clip(col, 0, width - 1).astype(np.int64))
        taps.append((index, weight, inside))
    return taps, degenerate


@primitive("ImageProjectiveTransformV3", fresh=True)
def _transform(images, transforms, output_shape, interpolation, fill_mode, fill_value):
    batch, height, width, channels = images.shape
    taps, degenerate = _taps(transforms, images.shape, output_shape, interpolation, fill_mode)
    flat = images.reshape(batch, height * width, channels)
    out = np.zeros((batch, *output_shape, channels), np.result_type(images.dtype, np.float32))
    for index, weight, inside in taps:
        values = np.take_along_axis(flat, index.reshape(batch, -1, 1), axis=1)
        values = np.where(inside.reshape(batch, -1, 1), values, images.dtype.type(fill_value))
        out += weight[..., None] * values.reshape(out.shape)
    out[degenerate] = fill_value
    return out.astype(images.dtype, copy=False)


_transform.jvp(forwardprop.FROM_VJP)  # JVP: the transposed gradient rule


@_transform.gradient
def _transform_grad(dy, out, images, transforms, output_shape, interpolation, fill_mode,
                    fill_value):
    # The output is linear in the image (plus a constant fill): the gradient is the
    # transpose of the sampling, a scatter-add of dy onto the pixels each output read.
    dx = execute(_transform_grad_op, (dy, transforms),
                 {"image_shape": images.shape, "interpolation": interpolation,
                  "fill_mode": fill_mode})
    return dx, None


@primitive("ImageProjectiveTransformV3Grad", fresh=True)
def _transform_grad_op(dy, transforms, image_shape, interpolation, fill_mode):
    batch, height, width, channels = image_shape
    taps, _ = _taps(transforms, image_shape, dy.shape[1:3], interpolation, fill_mode)
    offsets = (np.arange(batch) * height * width)[:, None, None]
    grad = np.zeros((batch * height * width, channels))
    flat_dy = dy.reshape(-1, channels).astype(np.float64)
    for index, weight, inside in taps:
        keep = inside.reshape(-1)
        where = (index + offsets).reshape(-1)[keep]
        scaled = flat_dy[keep] * weight.reshape(-1)[keep, None]
        for channel in range(channels):
            grad[:, channel] += np.bincount(where, scaled[:, channel], batch * height * width)
    return grad.reshape(image_shape).astype(dy.dtype)


_transform_grad_op.jvp(forwardprop.FROM_VJP)  # JVP: the transposed gradient rule


@_transform_grad_op.gradient
def _transform_grad_op_grad(ddx, out, dy, transforms, image_shape, interpolation, fill_mode):
    return execute(_transform, (ddx, transforms),
                   {"output_shape": tuple(dy.shape[1:3]), "interpolation": interpolation,
                    "fill_mode": fill_mode, "fill_value": 0.0}), None


def projective_transform(images: TensorLike, transforms: Any, output_shape: Any = None,
                         interpolation: str = "bilinear", fill_mode: str = "constant",
                         fill_value: float = 0.0) -> Tensor:
    """Samples each image at projectively transformed positions (``ImageProjectiveTransformV3``).

    Output pixel ``(x, y)`` reads input position ``((a0 x + a1 y + a2) / k,
    (b0 x + b1 y + b2) / k)`` with ``k = c0 x + c1 y + 1`` from its row
    ``[a0, a1, a2, b0, b1, b2, c0, c1]`` of `transforms`. Positions outside the image are
    folded back in by `fill_mode` (``"reflect"``, ``"wrap"``, ``"nearest"``) or read as
    `fill_value` (``"constant"``). Differentiable with respect to `images`.

    Args:
        images: ``[batch, height, width, channels]`` floats.
        transforms: ``[batch, 8]`` or ``[1, 8]`` (float32; may be a traced tensor).
        output_shape: ``(height, width)`` of the result (default: the input's).
        interpolation: ``"bilinear"`` or ``"nearest"``.

    Raises:
        InvalidArgumentError: for bad shapes, dtypes or modes.

    Examples:
        >>> import eagerflow as ef
        >>> x = ef.reshape(ef.range(3.0), [1, 1, 3, 1])
        >>> shift = [[1.0, 0.0, -1.0, 0.0, 1.0, 0.0, 0.0, 0.0]]  # read one pixel left
        >>> ef.image.projective_transform(x, shift)[0, 0, :, 0]
        ef.Tensor([0. 0. 1.], shape=(3,), dtype=float32)
    """
    images = _image(images, "ImageProjectiveTransformV3", ranks=(4,))
    transforms = _math.cast(transforms, dtypes.float32)
    if images.dtype.kind != "f":
        raise errors.InvalidArgumentError(
            f"images must be floating point, got {images.dtype.name}",
            "ImageProjectiveTransformV3")
    if transforms.ndim != 2 or transforms.shape[1] != 8 or transforms.shape[0] not in (
            1, images.shape[0]):
        raise errors.InvalidArgumentError(
            f"transforms must be [batch, 8] or [1, 8] for images of shape {images.shape}, got "
            f"shape {transforms.shape}", "ImageProjectiveTransformV3")
    if interpolation not in INTERPOLATIONS or fill_mode not in FILL_MODES:
        raise errors.InvalidArgumentError(
            f"interpolation must be one of {INTERPOLATIONS} and fill_mode one of {FILL_MODES}, "
            f"got interpolation={interpolation!r}, fill_mode={fill_mode!r}",
            "ImageProjectiveTransformV3")
    output_shape = tuple(images.shape[1:3]) if output_shape is None else (
        _check_size(output_shape, "ImageProjectiveTransformV3"))
    return execute(_transform, (images, transforms),
                   {"output_shape": output_shape, "interpolation": interpolation,
                    "fill_mode": fill_mode, "fill_value": float(fill_value)})

