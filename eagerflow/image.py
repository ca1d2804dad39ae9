"""Image ops (`ef.image`): resizing, flips, crops, rotations, colour adjustments and dtype
conversion on NHWC images, with TensorFlow's signatures and sampling rules.

Example:
    >>> import eagerflow as ef
    >>> ef.image.resize(ef.ones([4, 4, 3]), [2, 2]).shape
    (2, 2, 3)
"""

from eagerflow.ops.image import (
    adjust_brightness,
    adjust_contrast,
    central_crop,
    convert_image_dtype,
    flip_left_right,
    flip_up_down,
    projective_transform,
    random_crop,
    random_flip_left_right,
    random_flip_up_down,
    resize,
    rot90,
)

# Each name is declared once, by its import above.
__all__ = sorted(name for name in dir() if not name.startswith("_"))
