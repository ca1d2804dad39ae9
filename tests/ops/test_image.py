"""ef.image: values equal TensorFlow 2.21's (numbers recorded from it for a small image,
rounded to 6 digits), gradients against finite differences, seeds, and errors."""

import numpy as np
import pytest

import eagerflow as ef

IMAGE = (np.arange(12, dtype=np.float32).reshape(1, 3, 4, 1)) / 10

# tf.image.resize(IMAGE, size, method)[0, :, :, 0], rounded to 6 digits.
TF_RESIZE = {
    ("bilinear", (2, 3)): [[0.116667, 0.25, 0.383333], [0.716667, 0.85, 0.983333]],
    ("nearest", (2, 3)): [[0.0, 0.2, 0.3], [0.8, 1.0, 1.1]],
    ("area", (2, 3)): [[0.158333, 0.283333, 0.408333], [0.691667, 0.816667, 0.941667]],
    ("bilinear", (5, 6)): [
        [0.0, 0.05, 0.116667, 0.183333, 0.25, 0.3],
        [0.16, 0.21, 0.276667, 0.343333, 0.41, 0.46],
        [0.4, 0.45, 0.516667, 0.583333, 0.65, 0.7],
        [0.64, 0.69, 0.756667, 0.823333, 0.89, 0.94],
        [0.8, 0.85, 0.916667, 0.983333, 1.05, 1.1]],
    ("nearest", (5, 6)): [
        [0.0, 0.1, 0.1, 0.2, 0.3, 0.3], [0.0, 0.1, 0.1, 0.2, 0.3, 0.3],
        [0.4, 0.5, 0.5, 0.6, 0.7, 0.7], [0.8, 0.9, 0.9, 1.0, 1.1, 1.1],
        [0.8, 0.9, 0.9, 1.0, 1.1, 1.1]],
    ("area", (5, 6)): [
        [0.0, 0.05, 0.1, 0.2, 0.25, 0.3],
        [0.133333, 0.183333, 0.233333, 0.333333, 0.383333, 0.433333],
        [0.4, 0.45, 0.5, 0.6, 0.65, 0.7],
        [0.666667, 0.716667, 0.766667, 0.866667, 0.916667, 0.966667],
        [0.8, 0.85, 0.9, 1.0, 1.05, 1.1]],
}


@pytest.mark.parametrize("method, size", sorted(TF_RESIZE))
def test_resize_equals_tensorflow(method, size):
    out = ef.image.resize(IMAGE, size, method=method)
    assert out.shape == (1, *size, 1) and out.dtype == np.float32
    np.testing.assert_allclose(out.numpy()[0, :, :, 0], TF_RESIZE[method, size], atol=2e-6)
    single = ef.image.resize(IMAGE[0], size, method=method)  # an unbatched image
    np.testing.assert_allclose(single.numpy(), out.numpy()[0], rtol=1e-6)


@pytest.mark.parametrize("method", ["bilinear", "nearest", "area"])
def test_resize_gradients(method):
    image = np.random.default_rng(0).standard_normal((1, 3, 4, 2))
    ef.testing.check_gradients(lambda x: ef.image.resize(x, [5, 2], method=method), image)


def test_resize_preserving_the_aspect_ratio_and_integer_images():
    assert ef.image.resize(ef.ones([10, 20, 3]), [8, 8], preserve_aspect_ratio=True).shape \
        == (4, 8, 3)
    out = ef.image.resize(np.full((2, 2, 1), 7, np.uint8), [3, 3])
    assert out.dtype == np.float32 and np.allclose(out.numpy(), 7.0)


def test_flips_rotations_and_crops():
    image = np.random.default_rng(1).random((2, 5, 6, 3)).astype("float32")
    np.testing.assert_array_equal(ef.image.flip_left_right(image).numpy(), image[:, :, ::-1])
    np.testing.assert_array_equal(ef.image.flip_up_down(image).numpy(), image[:, ::-1])
    for k in range(-1, 6):
        np.testing.assert_array_equal(ef.image.rot90(image, k).numpy(),
                                      np.rot90(image, k, axes=(1, 2)))
        np.testing.assert_array_equal(ef.image.rot90(image[0], k).numpy(),
                                      np.rot90(image[0], k))
    # TensorFlow: cut int((size - size * fraction) / 2) on each side.
    np.testing.assert_array_equal(ef.image.central_crop(image, 0.6).numpy(),
                                  image[:, 1:4, 1:5])
    ef.testing.check_gradients(lambda x: ef.image.rot90(ef.image.central_crop(x, 0.5), 1),
                               image[0].astype(np.float64))


def test_brightness_and_contrast():
    image = np.random.default_rng(2).random((2, 4, 5, 3))
    np.testing.assert_allclose(ef.image.adjust_brightness(image, 0.2).numpy(), image + 0.2)
    mean = image.mean(axis=(1, 2), keepdims=True)
    np.testing.assert_allclose(ef.image.adjust_contrast(image, 1.7).numpy(),
                               (image - mean) * 1.7 + mean, rtol=1e-12)
    ef.testing.check_gradients(lambda x: ef.image.adjust_contrast(x, 0.5), image[:1])
    pixels = np.array([[[10, 250]]], np.uint8).reshape(1, 2, 1)
    np.testing.assert_array_equal(ef.image.adjust_brightness(pixels, 0.1).numpy().ravel(),
                                  [35, 255])  # through float and back, saturated


def test_convert_image_dtype_scaling():
    assert ef.image.convert_image_dtype(np.array([0, 255], np.uint8), "float32").numpy() \
        .tolist() == [0.0, 1.0]
    assert ef.image.convert_image_dtype(np.array([0.0, 0.5, 1.0]), "uint8").numpy() \
        .tolist() == [0, 127, 255]
    assert ef.image.convert_image_dtype(np.array([-0.5, 1.5]), "uint8", saturate=True) \
        .numpy().tolist() == [0, 255]
    assert ef.image.convert_image_dtype(np.array([255], np.uint8), "int32").numpy().tolist() \
        == [255 * 8388608]  # TensorFlow: times (2 ** 31) // 256
    assert ef.image.convert_image_dtype(np.array([2 ** 30], np.int32), "uint8").numpy() \
        .tolist() == [128]  # divided by (2 ** 31) // 256


def test_random_ops_are_seeded_and_cover_every_choice():
    images = ef.ones([64, 2, 3, 1]) * np.arange(3, dtype=np.float32).reshape(1, 1, 3, 1)
    flipped = ef.image.random_flip_left_right(images, seed=3).numpy()
    first = flipped[:, 0, 0, 0]
    assert set(first.tolist()) == {0.0, 2.0}  # some flipped, some not
    np.testing.assert_array_equal(
        ef.image.random_flip_left_right(images, seed=3).numpy()[:, 0, 0, 0] * 0 + first,
        first)
    value = np.arange(10)
    seen = {int(ef.image.random_crop(value, [3]).numpy()[0]) for _ in range(200)}
    assert seen == set(range(8))


@pytest.mark.parametrize("call, message", [
    (lambda: ef.image.resize(ef.ones([4, 4]), [2, 2]), "must be 3-D"),
    (lambda: ef.image.resize(ef.ones([4, 4, 1]), [2, 2], method="cubic"), "method"),
    (lambda: ef.image.resize(ef.ones([4, 4, 1]), [2, 0]), "two positive ints"),
    (lambda: ef.image.resize(ef.ones([4, 4, 1]), [2, 2], antialias=True), "antialias"),
    (lambda: ef.image.central_crop(ef.ones([4, 4, 1]), 0.0), r"within \(0, 1\]"),
    (lambda: ef.image.random_crop(ef.ones([4, 4]), [5, 2]), "fit in its shape"),
    (lambda: ef.image.rot90(ef.ones([4, 4, 1]), 1.5), "k must be an int"),
])
def test_errors(call, message):
    with pytest.raises(ef.errors.InvalidArgumentError, match=message):
        call()


def test_random_crop_draws_a_new_offset_on_every_traced_call():
    crop = ef.function(lambda v: ef.image.random_crop(v, [3]))
    seen = {int(crop(np.arange(10)).numpy()[0]) for _ in range(100)}
    assert seen == set(range(8))
