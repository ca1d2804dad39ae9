"""Image ops (`ef.image`): resizing, flips, rotations, crops, brightness, contrast and dtype
conversion, with TensorFlow's names and conventions (see `eagerflow.ops.image`).

Examples:
    >>> import eagerflow as ef
    >>> ef.image.resize(ef.ones([1, 8, 8, 3]), [4, 4], method="area").shape
    (1, 4, 4, 3)
"""

from eagerflow.ops.image import (
    adjust_brightness,
    adjust_contrast,
    central_crop,
    convert_image_dtype,
    flip_left_right,
    flip_up_down,
    random_crop,
    random_flip_left_right,
    random_flip_up_down,
    resize,
    rot90,
)

# Written out so that documentation tools can read it; tests/test_api.py checks that it
# names exactly the public names imported above.
__all__ = [
    "adjust_brightness", "adjust_contrast", "central_crop", "convert_image_dtype",
    "flip_left_right", "flip_up_down", "random_crop", "random_flip_left_right",
    "random_flip_up_down", "resize", "rot90",
]
