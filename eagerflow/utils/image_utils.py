"""Images as arrays and files: `array_to_img`, `img_to_array`, `save_img`, `load_img`
(Keras's ``keras.utils`` image helpers; they need Pillow, ``pip install 'eagerflow[plot]'``).

Examples:
    >>> import eagerflow as ef, numpy as np
    >>> img = ef.utils.array_to_img(np.zeros((4, 6, 3)))
    >>> img.size, img.mode
    ((6, 4), 'RGB')
    >>> ef.utils.img_to_array(img).shape
    (4, 6, 3)
"""

from __future__ import annotations

import io
import os
from typing import Any

import numpy as np

from eagerflow.ops.typing import DTypeLike
from eagerflow.saving import fileio

_MODES = {1: "L", 3: "RGB", 4: "RGBA"}


def _pil_image(caller):
    try:
        from PIL import Image
    except ImportError as e:
        raise ImportError(
            f"ef.utils.{caller} needs Pillow, which is not installed. Install it with: "
            "pip install 'eagerflow[plot]'"
        ) from e
    return Image


def _data_format(data_format, caller) -> str:
    data_format = data_format or "channels_last"
    if data_format not in ("channels_last", "channels_first"):
        raise ValueError(f"ef.utils.{caller}: data_format must be 'channels_last' or "
                         f"'channels_first', got {data_format!r}.")
    return data_format


def array_to_img(x: Any, data_format: str | None = None, scale: bool = True,
                 dtype: DTypeLike = None) -> Any:
    """Converts a 3-D array (height, width, channels) to a Pillow image.

    Args:
        x: an array or tensor of rank 3 with 1 (grayscale), 3 (RGB) or 4 (RGBA) channels.
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.
        scale: rescale the values to 0-255 (subtract the minimum, divide by the maximum);
            with False the values are used as they are (they must lie in 0-255).
        dtype: the dtype the array is converted to first (default float32).

    Returns:
        A ``PIL.Image.Image``.

    Raises:
        ValueError: for another rank or channel count.
        ImportError: if Pillow is not installed.

    Examples:
        >>> import eagerflow as ef, numpy as np
        >>> ef.utils.array_to_img(np.ones((2, 2, 1)), scale=False).getpixel((0, 0))
        1
    """
    image = _pil_image("array_to_img")
    data_format = _data_format(data_format, "array_to_img")
    x = np.asarray(x.numpy() if hasattr(x, "numpy") else x, dtype=dtype or "float32")
    if x.ndim != 3:
        raise ValueError("ef.utils.array_to_img expects an image of rank 3 (height, width, "
                         f"channels); got an array of shape {x.shape}.")
    if data_format == "channels_first":
        x = x.transpose(1, 2, 0)
    channels = x.shape[2]
    if channels not in _MODES:
        raise ValueError("ef.utils.array_to_img: the channel axis must have 1, 3 or 4 "
                         f"entries (grayscale, RGB, RGBA); got shape {x.shape} "
                         f"({data_format}).")
    if not np.all(np.isfinite(x)):
        raise ValueError("ef.utils.array_to_img: the image holds NaN or infinite values.")
    if scale:
        x = x - np.min(x)
        peak = np.max(x)
        if peak != 0:
            x = x / peak
        x = x * 255
    elif x.size and (x.min() < 0 or x.max() > 255):
        raise ValueError("ef.utils.array_to_img with scale=False needs values in 0-255; got "
                         f"{x.min()} to {x.max()}. Pass scale=True to rescale them.")
    pixels = x.astype("uint8")
    if channels == 1:
        return image.fromarray(pixels[:, :, 0], "L")
    return image.fromarray(pixels, _MODES[channels])


def img_to_array(img: Any, data_format: str | None = None, dtype: DTypeLike = None) -> np.ndarray:
    """Converts a Pillow image to a 3-D float32 array (height, width, channels).

    Examples:
        >>> import eagerflow as ef, numpy as np
        >>> ef.utils.img_to_array(ef.utils.array_to_img(np.ones((2, 3, 1)))).shape
        (2, 3, 1)
    """
    data_format = _data_format(data_format, "img_to_array")
    x = np.asarray(img, dtype=dtype or "float32")
    if x.ndim == 2:
        x = x[:, :, None]
    if x.ndim != 3:
        raise ValueError(f"ef.utils.img_to_array: unsupported image shape {x.shape}.")
    return x.transpose(2, 0, 1) if data_format == "channels_first" else x


def save_img(path: str | os.PathLike[str], x: Any, data_format: str | None = None,
             file_format: Any = None, scale: bool = True, **kwargs: Any) -> None:
    """Saves an array (see `array_to_img`) as an image file, written atomically.

    Args:
        path: the file; its extension picks the format unless `file_format` is given.
        x: the image array.
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.
        file_format: e.g. ``"png"`` or ``"jpeg"``.
        scale: rescale the values to 0-255 (see `array_to_img`).
        **kwargs: passed to Pillow's ``Image.save`` (e.g. ``quality=90``).

    Examples:
        >>> import eagerflow as ef, numpy as np, os, tempfile
        >>> path = os.path.join(tempfile.mkdtemp(), "x.png")
        >>> ef.utils.save_img(path, np.eye(4)[:, :, None])
        >>> ef.utils.load_img(path, color_mode="grayscale").size
        (4, 4)
    """
    img = array_to_img(x, data_format=data_format, scale=scale)
    path = os.fspath(path)
    if file_format is None:
        file_format = os.path.splitext(path)[1].lstrip(".") or None
    if file_format is None:
        raise ValueError(f"ef.utils.save_img: {path!r} has no extension; pass file_format "
                         "(e.g. 'png').")
    if img.mode == "RGBA" and file_format.lower() in ("jpg", "jpeg"):
        img = img.convert("RGB")  # JPEG has no alpha channel
    file_format = "jpeg" if file_format.lower() == "jpg" else file_format

    def write(tmp):
        with open(tmp, "wb") as f:
            img.save(f, format=file_format, **kwargs)

    fileio.atomic_write(path, write)


def load_img(path: str | os.PathLike[str], color_mode: str = "rgb", target_size: Any = None,
             interpolation: str = "nearest", keep_aspect_ratio: bool = False) -> Any:
    """Loads an image file as a Pillow image.

    Args:
        path: the file.
        color_mode: ``"grayscale"``, ``"rgb"`` or ``"rgba"``.
        target_size: ``(height, width)`` to resize to, or None.
        interpolation: ``"nearest"``, ``"bilinear"``, ``"bicubic"``, ``"lanczos"``,
            ``"box"`` or ``"hamming"``.
        keep_aspect_ratio: crop the centre to the target's aspect ratio before resizing.

    Examples:
        >>> import eagerflow as ef, numpy as np, os, tempfile
        >>> path = os.path.join(tempfile.mkdtemp(), "x.png")
        >>> ef.utils.save_img(path, np.ones((4, 6, 3)))
        >>> ef.utils.load_img(path, target_size=(2, 3)).size
        (3, 2)
    """
    image = _pil_image("load_img")
    modes = {"grayscale": "L", "rgb": "RGB", "rgba": "RGBA"}
    if color_mode not in modes:
        raise ValueError(f"ef.utils.load_img: color_mode must be one of {sorted(modes)}, "
                         f"got {color_mode!r}.")
    methods = {"nearest": image.Resampling.NEAREST, "bilinear": image.Resampling.BILINEAR,
               "bicubic": image.Resampling.BICUBIC, "lanczos": image.Resampling.LANCZOS,
               "box": image.Resampling.BOX, "hamming": image.Resampling.HAMMING}
    if interpolation not in methods:
        raise ValueError(f"ef.utils.load_img: interpolation must be one of "
                         f"{sorted(methods)}, got {interpolation!r}.")
    with open(os.fspath(path), "rb") as f:
        img = image.open(io.BytesIO(f.read()))
        img.load()
    if img.mode != modes[color_mode]:
        img = img.convert(modes[color_mode])
    if target_size is not None:
        height, width = (int(v) for v in target_size)
        if keep_aspect_ratio:
            scale = min(img.width / width, img.height / height)
            crop_w, crop_h = int(width * scale), int(height * scale)
            left, top = (img.width - crop_w) // 2, (img.height - crop_h) // 2
            img = img.crop((left, top, left + crop_w, top + crop_h))
        if img.size != (width, height):
            img = img.resize((width, height), methods[interpolation])
    return img
