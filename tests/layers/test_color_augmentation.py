"""RandomBrightness, RandomContrast and RandomGrayscale: Keras 3's formulas per image,
training/inference behaviour, seeds, traced steps, configs and errors."""

import numpy as np
import pytest

import eagerflow as ef

L = ef.layers
IMAGES = np.random.default_rng(0).uniform(50, 200, (8, 5, 6, 3)).astype(np.float32)


def test_brightness_adds_one_delta_per_image_and_clips():
    dark = IMAGES / 4  # 12.5 to 50: no clipping below
    y = L.RandomBrightness((-0.04, 0.3), seed=1)(dark).numpy()
    delta = (y - dark).reshape(8, -1)
    np.testing.assert_allclose(delta.min(1), delta.max(1), atol=1e-4)  # one delta per image
    assert np.all(delta[:, 0] >= -0.04 * 255 - 1e-3) and np.all(delta[:, 0] <= 0.3 * 255 + 1e-3)
    assert len(np.unique(delta[:, 0].round(3))) == 8
    clipped = L.RandomBrightness((0.9, 1.0), seed=1)(IMAGES).numpy()
    np.testing.assert_array_equal(clipped, 255.0)
    unit = L.RandomBrightness(1.0, value_range=(0, 1), seed=2)(IMAGES / 255).numpy()
    assert unit.min() >= 0 and unit.max() <= 1
    np.testing.assert_array_equal(L.RandomBrightness(0.5)(IMAGES, training=False).numpy(),
                                  IMAGES)


def test_contrast_scales_the_deviation_from_each_channel_mean():
    layer = L.RandomContrast((0.3, 0.5), value_range=(-1e6, 1e6), seed=3)
    y = layer(IMAGES).numpy()
    mean = IMAGES.mean((1, 2), keepdims=True)
    np.testing.assert_allclose(y.mean((1, 2), keepdims=True), mean, rtol=1e-4)
    ratio = ((y - mean) / (IMAGES - mean)).reshape(8, -1)
    np.testing.assert_allclose(ratio.min(1), ratio.max(1), rtol=1e-3)  # one factor per image
    assert np.all(ratio[:, 0] >= 0.7 - 1e-4) and np.all(ratio[:, 0] <= 1.5 + 1e-4)
    assert L.RandomContrast(0.2).factor == (0.2, 0.2)  # lower = upper, as Keras documents
    clipped = L.RandomContrast(1.0, seed=4)(IMAGES * 2).numpy()
    assert clipped.min() >= 0 and clipped.max() <= 255


def test_grayscale_probability_and_formula():
    gray = (IMAGES * np.array([0.2989, 0.5870, 0.1140], np.float32)).sum(-1, keepdims=True)
    np.testing.assert_allclose(L.RandomGrayscale(1.0)(IMAGES).numpy(),
                               np.broadcast_to(gray, IMAGES.shape), rtol=1e-5)
    np.testing.assert_array_equal(L.RandomGrayscale(0.0)(IMAGES).numpy(), IMAGES)
    many = np.repeat(IMAGES[:1], 400, axis=0)
    y = L.RandomGrayscale(0.5, seed=5)(many).numpy()
    is_gray = np.all(np.isclose(y, gray[:1], rtol=1e-5), axis=(1, 2, 3))
    kept = np.all(y == many, axis=(1, 2, 3))
    assert np.all(is_gray | kept) and 0.4 < is_gray.mean() < 0.6
    first = L.RandomGrayscale(1.0, data_format="channels_first")(
        np.moveaxis(IMAGES, -1, 1)).numpy()
    np.testing.assert_allclose(np.moveaxis(first, 1, -1), np.broadcast_to(gray, IMAGES.shape),
                               rtol=1e-5)
    with pytest.raises(ValueError, match="3 channels"):
        L.RandomGrayscale()(np.ones((1, 2, 2, 1), np.float32))


@pytest.mark.parametrize("layer", [L.RandomBrightness(0.2, seed=7),
                                   L.RandomContrast(0.4, seed=7), L.RandomGrayscale(seed=7)])
def test_seeded_traced_and_in_pipelines(layer):
    def run():
        ef.random.set_seed(11)
        step = ef.function(lambda x: layer(x, training=True))
        return step(IMAGES).numpy(), step(IMAGES).numpy()

    first, second = run()
    again, _ = run()
    np.testing.assert_array_equal(first, again)  # seeded: repeatable
    if not isinstance(layer, L.RandomGrayscale):
        assert not np.array_equal(first, second)  # a new draw on every traced call
    ds = ef.data.Dataset.from_tensor_slices(IMAGES).batch(4).map(layer)
    assert [tuple(b.shape) for b in ds] == [(4, 5, 6, 3), (4, 5, 6, 3)]
    np.testing.assert_array_equal(layer(IMAGES[0], training=False).numpy(), IMAGES[0])
    assert type(layer).from_config(layer.get_config()).get_config() == layer.get_config()


@pytest.mark.parametrize("make, match", [
    (lambda: L.RandomBrightness(1.5), r"\[-1.0, 1.0\]"),
    (lambda: L.RandomBrightness((0.1, 0.2, 0.3)), "pair"),
    (lambda: L.RandomBrightness(0.1, value_range=(0,)), "value_range"),
    (lambda: L.RandomContrast(-0.1), r"\[0.0, 1.0\]"),
    (lambda: L.RandomGrayscale(1.5), r"\[0, 1\]"),
])
def test_bad_arguments(make, match):
    with pytest.raises(ValueError, match=match):
        make()
