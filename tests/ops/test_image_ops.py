"""ef.image: forward against NumPy transcriptions of TensorFlow's kernels and against values
recorded from TensorFlow 2.21, gradients against finite differences (float64)."""

import math

import numpy as np
import pytest

import eagerflow as ef
from tests.ops.opcase import (
    OpCase,
    check_forward,
    check_forward_mode,
    check_gradient,
    parametrize,
    squared,
)

# -- NumPy transcriptions (one output pixel at a time, as the C++ kernels loop) ------------


def _np_resize_axis(x, axis, out, method, antialias=False):
    x = np.moveaxis(x, axis, 0)
    n = x.shape[0]
    scale = n / out
    rows = []
    for i in range(out):
        centre = (i + 0.5) * scale
        if method == "nearest":  # TensorFlow picks the pixel in float32 arithmetic
            pick = (np.float32(i) + np.float32(0.5)) * (np.float32(n) / np.float32(out))
            rows.append(x[max(min(int(math.floor(pick)), n - 1), 0)])
        elif method == "area":
            lo, hi = i * scale, (i + 1) * scale
            acc = 0.0
            for j in range(int(math.floor(lo)), int(math.ceil(hi))):
                acc = acc + (min(j + 1, hi) - max(j, lo)) * x[min(j, n - 1)]
            rows.append(acc / scale)
        elif antialias and out < n:
            taps = {j: max(0.0, 1 - abs((j + 0.5 - centre) / scale)) for j in range(n)}
            total = sum(taps.values())
            rows.append(sum(w * x[j] for j, w in taps.items()) / total)
        else:
            src = centre - 0.5
            lo = math.floor(src)
            frac = src - lo
            rows.append(x[max(lo, 0)] * (1 - frac) + x[min(math.ceil(src), n - 1)] * frac)
    return np.moveaxis(np.stack(rows), 0, axis)


def _np_resize(x, size, method="bilinear", antialias=False):
    y = _np_resize_axis(x, x.ndim - 3, size[0], method, antialias)
    return _np_resize_axis(y, x.ndim - 2, size[1], method, antialias)


def _np_contrast(x, factor):
    mean = x.mean(axis=(-3, -2), keepdims=True)
    return (x - mean) * factor + mean


def _np_map(c, n, mode):
    # TensorFlow's fill modes, one coordinate at a time.
    if mode == "constant":
        return c
    if mode == "nearest":
        return min(max(c, 0.0), n - 1.0)
    if c < 0:
        if mode == "reflect":
            c = 2 * n * int(-c / (2 * n)) + c
            c = c + 2 * n if c < -n else -c - 1
        else:
            c = c + n * (int(-c / (n - 1)) + 1)
    elif c > n - 1:
        if mode == "reflect":
            c = c - 2 * n * int(c / (2 * n))
            c = 2 * n - c - 1 if c >= n else c
        else:
            c = c - n * int(c / (n - 1))
    return min(max(c, 0.0), n - 1.0)


def _np_transform(images, transform, interpolation, mode, fill=0.0):
    batch, height, width, channels = images.shape
    out = np.zeros_like(images)

    def read(b, y, x):
        inside = 0 <= y < height and 0 <= x < width
        return images[b, y, x] if inside else np.full(channels, fill)

    for b in range(batch):
        a0, a1, a2, b0, b1, b2, c0, c1 = transform[min(b, len(transform) - 1)]
        for oy in range(height):
            for ox in range(width):
                k = c0 * ox + c1 * oy + 1
                x = _np_map((a0 * ox + a1 * oy + a2) / k, width, mode)
                y = _np_map((b0 * ox + b1 * oy + b2) / k, height, mode)
                if interpolation == "nearest":
                    rx, ry = (int(math.copysign(math.floor(abs(v) + 0.5), v)) for v in (x, y))
                    out[b, oy, ox] = read(b, ry, rx)
                else:
                    fx, fy = math.floor(x), math.floor(y)
                    top = (fx + 1 - x) * read(b, fy, fx) + (x - fx) * read(b, fy, fx + 1)
                    bottom = (fx + 1 - x) * read(b, fy + 1, fx) + (x - fx) * read(
                        b, fy + 1, fx + 1)
                    out[b, oy, ox] = (fy + 1 - y) * top + (y - fy) * bottom
    return out


_SHEAR = np.array([[0.9, -0.3, 1.2, 0.35, 1.1, -2.3, 0.01, -0.02],
                   [1.3, 0.2, -4.1, -0.1, 0.8, 3.7, 0.0, 0.0]], np.float32)


def _transform_case(interpolation, mode):
    def fn(x):
        return ef.image.projective_transform(x, _SHEAR, None, interpolation, mode, 0.5)

    def reference(x):
        # Positions and weights in float32, as TensorFlow (and eagerflow) compute them.
        return _np_transform(x, _SHEAR, interpolation, mode, 0.5)

    return OpCase(f"transform_{interpolation}_{mode}", fn, reference, shapes=[(2, 4, 5, 2)],
                  rtol=1e-4, atol=1e-5)


def _seeded(fn):
    """`fn` drawing the same random numbers on every call (for finite differences)."""
    def run(x):
        ef.random.set_seed(7)
        return fn(x)
    return run


CASES = [
    OpCase("resize_bilinear_down", lambda x: ef.image.resize(x, [3, 2]),
           lambda x: _np_resize(x, (3, 2)), shapes=[(2, 5, 4, 3)]),
    OpCase("resize_bilinear_up_3d", lambda x: ef.image.resize(x, [5, 7]),
           lambda x: _np_resize(x, (5, 7)), shapes=[(3, 4, 2)]),
    OpCase("resize_nearest", lambda x: ef.image.resize(x, [5, 3], method="nearest"),
           lambda x: _np_resize(x, (5, 3), "nearest"), shapes=[(1, 3, 4, 2)]),
    OpCase("resize_area", lambda x: ef.image.resize(x, [2, 3], method="area"),
           lambda x: _np_resize(x, (2, 3), "area"), shapes=[(2, 5, 4, 1)]),
    OpCase("resize_area_up", lambda x: ef.image.resize(x, [4, 5], method="area"),
           lambda x: _np_resize(x, (4, 5), "area"), shapes=[(1, 3, 2, 1)]),
    OpCase("resize_antialias", lambda x: ef.image.resize(x, [2, 3], antialias=True),
           lambda x: _np_resize(x, (2, 3), antialias=True), shapes=[(1, 7, 8, 2)]),
    OpCase("flip_left_right", ef.image.flip_left_right, lambda x: x[:, :, ::-1],
           shapes=[(2, 3, 4, 2)]),
    OpCase("flip_up_down_3d", ef.image.flip_up_down, lambda x: x[::-1], shapes=[(3, 4, 2)]),
    OpCase("rot90_1", ef.image.rot90, lambda x: np.rot90(x, 1, axes=(1, 2)),
           shapes=[(2, 3, 4, 1)]),
    OpCase("rot90_2_3d", lambda x: ef.image.rot90(x, 2), lambda x: np.rot90(x, 2),
           shapes=[(3, 4, 2)]),
    OpCase("rot90_minus_1", lambda x: ef.image.rot90(x, -1),
           lambda x: np.rot90(x, -1, axes=(1, 2)), shapes=[(1, 3, 4, 2)]),
    OpCase("central_crop", lambda x: ef.image.central_crop(x, 0.5),
           lambda x: x[:, 1:6, 1:3], shapes=[(2, 7, 4, 1)]),
    OpCase("adjust_brightness", lambda x, d: ef.image.adjust_brightness(x, d),
           lambda x, d: x + d, shapes=[(2, 3, 3, 2), ()]),
    OpCase("adjust_contrast", lambda x, f: ef.image.adjust_contrast(x, f),
           _np_contrast, shapes=[(2, 3, 4, 2), ()]),
    OpCase("random_crop", _seeded(lambda x: ef.image.random_crop(x, [2, 3, 2], seed=3)),
           shapes=[(4, 5, 2)]),
    OpCase("random_flip", _seeded(lambda x: ef.image.random_flip_left_right(x, seed=2)),
           shapes=[(4, 2, 3, 1)]),
    *[_transform_case(i, m) for i in ("bilinear", "nearest")
      for m in ("reflect", "wrap", "constant", "nearest")],
    squared(_transform_case("bilinear", "reflect")),
]


@parametrize(CASES)
def test_forward(case):
    check_forward(case)


@parametrize(CASES)
def test_gradient(case):
    check_gradient(case)


@parametrize(CASES)
def test_jvp(case):
    check_forward_mode(case)


# -- values recorded from TensorFlow 2.21 ---------------------------------------------------
_GRID = np.arange(12, dtype=np.float32).reshape(1, 3, 4, 1)


@pytest.mark.parametrize("method, antialias, size, expected", [
    ("bilinear", False, (2, 3), [[1.1667, 2.5, 3.8333], [7.1667, 8.5, 9.8333]]),
    ("bilinear", True, (2, 3), [[1.8, 3.0, 4.2], [6.8, 8.0, 9.2]]),
    ("area", False, (2, 3), [[1.5833, 2.8333, 4.0833], [6.9167, 8.1667, 9.4167]]),
    ("nearest", False, (5, 3), [[0, 2, 3], [0, 2, 3], [4, 6, 7], [8, 10, 11], [8, 10, 11]]),
    ("bilinear", False, (4, 6), [[0.0, 0.5, 1.1667, 1.8333, 2.5, 3.0],
                                 [2.5, 3.0, 3.6667, 4.3333, 5.0, 5.5],
                                 [5.5, 6.0, 6.6667, 7.3333, 8.0, 8.5],
                                 [8.0, 8.5, 9.1667, 9.8333, 10.5, 11.0]]),
])
def test_resize_matches_tensorflow(method, antialias, size, expected):
    got = ef.image.resize(_GRID, size, method=method, antialias=antialias)
    assert got.dtype == ef.float32
    np.testing.assert_allclose(got.numpy()[0, :, :, 0], expected, atol=1e-4)


_ROTATION = np.array([[0.8, -0.6, 1.0, 0.6, 0.8, -1.5, 0, 0]], np.float32)


@pytest.mark.parametrize("interpolation, mode, expected", [
    ("bilinear", "reflect", [[3.5, 1.8, 2.6, 4.9, 8.5], [0.4, 1.2, 4.5, 8.3, 12.1],
                             [0.5, 4.1, 7.9, 11.7, 15.5], [4.5, 7.5, 11.3, 15.1, 17.4]]),
    ("bilinear", "wrap", [[13.5, 16.8, 17.6, 4.9, 4.5], [15.4, 16.2, 4.5, 8.3, 12.1],
                          [4.5, 4.1, 7.9, 11.7, 15.5], [8.5, 7.5, 11.3, 15.1, 2.4]]),
    ("bilinear", "constant", [[-1.0, -0.72, 1.52, 4.9, 6.6], [-0.58, 0.98, 4.5, 8.3, 12.1],
                              [0.2, 4.1, 7.9, 11.7, 15.5], [0.1, 7.5, 11.3, 15.1, 11.88]]),
    ("nearest", "reflect", [[6, 2, 3, 3, 9], [0, 1, 7, 8, 14], [0, 6, 6, 12, 18],
                            [5, 10, 11, 17, 17]]),
    ("nearest", "wrap", [[16, 17, 18, 3, 5], [15, 16, 7, 8, 14], [4, 6, 6, 12, 18],
                         [9, 10, 11, 17, 2]]),
    ("nearest", "nearest", [[1, 2, 3, 3, 9], [0, 1, 7, 8, 14], [0, 6, 6, 12, 18],
                            [5, 10, 11, 17, 17]]),
])
def test_projective_transform_matches_tensorflow(interpolation, mode, expected):
    image = np.arange(20, dtype=np.float32).reshape(1, 4, 5, 1)
    got = ef.image.projective_transform(image, _ROTATION, None, interpolation, mode, -1.0)
    np.testing.assert_allclose(got.numpy()[0, :, :, 0], expected, atol=1e-4)


def test_projective_transform_degenerate_pixels_get_the_fill_value():
    # k = c0 * x + 1 is zero at x = 2: that column lies at infinity.
    transform = [[1.0, 0.0, 0.0, 0.0, 1.0, 0.0, -0.5, 0.0]]
    got = ef.image.projective_transform(ef.ones([1, 2, 3, 1]), transform, fill_value=7.0)
    np.testing.assert_array_equal(got.numpy()[0, :, 2, 0], [7.0, 7.0])


def test_resize_dtypes_and_shapes():
    u8 = np.arange(48, dtype=np.uint8).reshape(4, 4, 3)
    assert ef.image.resize(u8, [2, 2]).dtype == ef.float32
    assert ef.image.resize(u8, [2, 2], method="nearest").dtype == ef.uint8
    assert ef.image.resize(u8.astype(np.float64), [3, 3]).dtype == ef.float64
    assert ef.image.resize(ef.ones([1, 10, 20, 1]), [4, 4],
                           preserve_aspect_ratio=True).shape == (1, 2, 4, 1)
    same = np.random.default_rng(0).standard_normal((1, 3, 3, 2)).astype(np.float32)
    np.testing.assert_array_equal(ef.image.resize(same, [3, 3]).numpy(), same)


def test_central_crop_rounding_matches_tensorflow():
    # TensorFlow: start = int((side - side * fraction) / 2), size = side - 2 * start.
    assert ef.image.central_crop(ef.ones([2, 5, 7, 3]), 0.33).shape == (2, 3, 3, 3)
    assert ef.image.central_crop(ef.ones([4, 4, 1]), 1.0).shape == (4, 4, 1)


@pytest.mark.parametrize("source, target, saturate, values, expected", [
    ("uint8", "float32", False, [0, 51, 255], [0.0, 0.2, 1.0]),
    ("float32", "uint8", False, [0.0, 0.3, 1.0], [0, 76, 255]),
    ("float32", "uint8", True, [-0.5, 1.5], [0, 255]),
    ("float32", "int32", True, [1.0, 1.5], [2147483520, 2147483520]),
    ("float32", "int8", True, [-0.5, 0.3, 0.999, 1.5], [-63, 38, 127, 127]),
    ("uint8", "int16", False, [0, 1, 255], [0, 128, 32640]),
    ("int32", "uint8", False, [0, 2**20, 2**31 - 1], [0, 0, 255]),
    ("int32", "int8", False, [2**31 - 1], [127]),
    ("int8", "float32", False, [127, 1], [1.0, 1 / 127]),
    ("float32", "float64", False, [0.25], [0.25]),
])
def test_convert_image_dtype_matches_tensorflow(source, target, saturate, values, expected):
    got = ef.image.convert_image_dtype(np.array(values, source), np.dtype(target), saturate)
    assert got.dtype == np.dtype(target)
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-6)


def test_integer_colour_adjustments_saturate():
    u8 = np.array([[[10, 200, 250]]], np.uint8)
    bright = ef.image.adjust_brightness(u8, 0.1)
    assert bright.dtype == ef.uint8
    np.testing.assert_array_equal(bright.numpy(), [[[35, 225, 255]]])
    contrast = ef.image.adjust_contrast(np.array([[[0], [100]], [[200], [255]]], np.uint8), 3.0)
    # Mean 0.544 on the [0, 1] scale: 100 / 255 moves to 0.088, i.e. 22 (TensorFlow too).
    np.testing.assert_array_equal(contrast.numpy()[..., 0], [[0, 22], [255, 255]])


def test_random_ops_draw_per_image_and_repeat_with_seeds():
    batch = np.arange(64, dtype=np.float32).reshape(32, 1, 2, 1)
    flipped = ef.image.random_flip_left_right(batch, seed=5).numpy()
    swapped = flipped[:, 0, 0, 0] > flipped[:, 0, 1, 0]
    assert 0 < swapped.sum() < 32  # each image has its own coin
    ef.random.set_seed(1)
    first = ef.image.random_crop(np.arange(100).reshape(10, 10), [3, 3], seed=4).numpy()
    ef.random.set_seed(1)
    again = ef.image.random_crop(np.arange(100).reshape(10, 10), [3, 3], seed=4).numpy()
    np.testing.assert_array_equal(first, again)
    assert first[0, 0] // 10 <= 7 and first[0, 0] % 10 <= 7
    np.testing.assert_array_equal(first, first[0, 0] + np.array([[0, 1, 2], [10, 11, 12],
                                                                  [20, 21, 22]]))


def test_random_ops_draw_anew_inside_a_traced_function():
    crop = ef.function(lambda x: ef.image.random_crop(x, [1]))
    data = ef.range(50)
    assert len({int(crop(data)[0]) for _ in range(20)}) > 1
    flip = ef.function(lambda x: ef.image.random_flip_up_down(x))
    image = ef.reshape(ef.range(2.0), [2, 1, 1])
    assert len({float(flip(image)[0, 0, 0]) for _ in range(20)}) == 2


@pytest.mark.parametrize("call, match", [
    (lambda: ef.image.resize(ef.ones([4, 4]), [2, 2]), r"3-D or 4-D.*\(4, 4\)"),
    (lambda: ef.image.resize(ef.ones([4, 4, 1]), [2, 0]), r"2 positive elements.*\[2, 0\]"),
    (lambda: ef.image.resize(ef.ones([4, 4, 1]), [2, 2], method="cubic"),
     r"method must be one of .*'cubic'"),
    (lambda: ef.image.resize(ef.ones([1, 0, 4, 1]), [2, 2]), r"empty image.*\(1, 0, 4, 1\)"),
    (lambda: ef.image.flip_left_right(ef.ones([3])), r"FlipLeftRight"),
    (lambda: ef.image.rot90(ef.ones([2, 2, 1]), 1.5), r"k must be a Python int.*1.5"),
    (lambda: ef.image.central_crop(ef.ones([2, 2, 1]), 0.0), r"within \(0, 1\].*0.0"),
    (lambda: ef.image.random_crop(ef.ones([2, 2, 1]), [3, 2, 1]),
     r"value.shape >= size.*\(2, 2, 1\).*\[3, 2, 1\]"),
    (lambda: ef.image.adjust_contrast(ef.ones([2, 2]), 2.0), r"at least 3-D.*\(2, 2\)"),
    (lambda: ef.image.convert_image_dtype(ef.ones([2]), ef.bool), r"float32 -> bool"),
    (lambda: ef.image.projective_transform(ef.ones([2, 2, 2, 1]), ef.ones([3, 8])),
     r"\[batch, 8\].*\(3, 8\)"),
    (lambda: ef.image.projective_transform(ef.ones([1, 2, 2, 1], ef.int32), ef.ones([1, 8])),
     r"floating point, got int32"),
    (lambda: ef.image.projective_transform(ef.ones([1, 2, 2, 1]), ef.ones([1, 8]),
                                           fill_mode="mirror"), r"fill_mode='mirror'"),
])
def test_errors(call, match):
    with pytest.raises(ef.errors.InvalidArgumentError, match=match):
        call()


def test_the_namespace():
    assert ef.image.__all__ == sorted(
        "adjust_brightness adjust_contrast central_crop convert_image_dtype flip_left_right "
        "flip_up_down projective_transform random_crop random_flip_left_right "
        "random_flip_up_down resize rot90".split())
    assert "image" in ef.__all__ and ef.image.resize is ef.ops.image_ops.resize


def test_errors_name_the_resize_kernel():
    with pytest.raises(ef.errors.InvalidArgumentError, match=r"\[Op:ResizeArea\]"):
        ef.image.resize(ef.ones([2, 2]), [1, 1], method="area")
    with pytest.raises(ef.errors.InvalidArgumentError, match=r"\[Op:ScaleAndTranslate\]"):
        ef.image.resize(ef.ones([2, 2, 1]), [0, 1], antialias=True)
