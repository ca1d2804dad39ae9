"""Image ops (`ef.image`): resizing, flips, crops, rotations, colour adjustments and dtype
conversion on NHWC images, with TensorFlow's signatures and sampling rules.

Examples:
    >>> import eagerflow as ef
    >>> ef.image.resize(ef.ones([4, 4, 3]), [2, 2]).shape
    (2, 2, 3)
"""

from eagerflow import absent as _absent
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

# Written out so that documentation tools can read it; tests/test_api.py checks that it
# names exactly the public names imported above.
__all__ = [
    "adjust_brightness", "adjust_contrast", "central_crop", "convert_image_dtype",
    "flip_left_right", "flip_up_down", "projective_transform", "random_crop",
    "random_flip_left_right", "random_flip_up_down", "resize", "rot90",
]


__getattr__ = _absent.namespace_getattr(__name__, "tf.image")
