"""Rescaling, Resizing, CenterCrop, RandomFlip, RandomCrop and Normalization: values (the
resizing ones equal Keras 3.15's outputs when written), training vs inference, seeds,
fresh randomness in traced steps, Dataset.map, configs and saved statistics."""

import json

import numpy as np
import pytest

import eagerflow as ef

RNG = np.random.default_rng(0)
IMAGES = (RNG.random((2, 9, 13, 3)) * 255).astype("float32")


def _config_round_trip(layer):
    config = json.loads(json.dumps(layer.get_config()))
    clone = type(layer).from_config(config)
    assert clone.get_config() == layer.get_config()


def test_rescaling():
    layer = ef.layers.Rescaling(1 / 127.5, offset=-1)
    np.testing.assert_allclose(layer(IMAGES).numpy(), IMAGES / 127.5 - 1, rtol=1e-6,
                               atol=1e-6)
    assert layer(np.array([0, 255], np.uint8)).dtype == np.float32
    _config_round_trip(layer)


def test_resizing_crop_and_pad_to_the_aspect_ratio():
    plain = ef.layers.Resizing(5, 7)(IMAGES)
    np.testing.assert_allclose(plain.numpy(), ef.image.resize(IMAGES, [5, 7]).numpy())
    # crop_to_aspect_ratio: the largest central 9x12 window (7/5 of 9 rows), then resized.
    cropped = ef.layers.Resizing(5, 7, crop_to_aspect_ratio=True)(IMAGES)
    np.testing.assert_allclose(cropped.numpy(),
                               ef.image.resize(IMAGES[:, :, 0:12], [5, 7]).numpy(), rtol=1e-6)
    padded = ef.layers.Resizing(8, 8, pad_to_aspect_ratio=True)(IMAGES)
    expected = ef.image.resize(np.pad(IMAGES, [(0, 0), (2, 2), (0, 0), (0, 0)]), [8, 8])
    np.testing.assert_allclose(padded.numpy(), expected.numpy(), rtol=1e-6)
    first = ef.layers.Resizing(5, 7, data_format="channels_first")(
        np.transpose(IMAGES, (0, 3, 1, 2)))
    np.testing.assert_allclose(first.numpy(), np.transpose(plain.numpy(), (0, 3, 1, 2)),
                               rtol=1e-6)
    assert ef.layers.Resizing(5, 7).compute_output_shape((None, 9, 13, 3)) == (None, 5, 7, 3)
    _config_round_trip(ef.layers.Resizing(5, 7, interpolation="nearest"))


def test_center_crop_and_its_upsampling_of_small_images():
    np.testing.assert_array_equal(ef.layers.CenterCrop(4, 6)(IMAGES).numpy(),
                                  IMAGES[:, 2:6, 3:9])
    # Smaller than the target: the largest central window with its aspect ratio (all 9 rows,
    # 7 of the 13 columns), resized up.
    up = ef.layers.CenterCrop(12, 10)(IMAGES)
    np.testing.assert_allclose(up.numpy(),
                               ef.image.resize(IMAGES[:, :, 3:10], [12, 10]).numpy(), rtol=1e-6)


def test_random_flip_in_training_only_and_seeded():
    layer = ef.layers.RandomFlip("horizontal", seed=4)
    images = np.broadcast_to(np.arange(5, dtype=np.float32)[None, None, :, None],
                             (64, 2, 5, 1))
    np.testing.assert_array_equal(layer(images, training=False).numpy(), images)
    flipped = layer(images).numpy()  # a call outside a model trains, as in Keras
    firsts = set(flipped[:, 0, 0, 0].tolist())
    assert firsts == {0.0, 4.0}
    vertical = ef.layers.RandomFlip("vertical", seed=1)(images).numpy()
    np.testing.assert_array_equal(vertical, images)  # rows are equal: nothing to see
    with pytest.raises(ValueError, match="mode must be one of"):
        ef.layers.RandomFlip("diagonal")
    _config_round_trip(layer)


def test_random_crop_training_and_inference():
    layer = ef.layers.RandomCrop(4, 6, seed=0)
    out = layer(IMAGES).numpy()
    assert out.shape == (2, 4, 6, 3)
    found = [(i, j) for i in range(6) for j in range(8)
             if np.array_equal(IMAGES[:, i:i + 4, j:j + 6], out)]
    assert len(found) == 1  # one window, shared by the batch
    inference = layer(IMAGES, training=False).numpy()
    expected = ef.layers.Resizing(4, 6, crop_to_aspect_ratio=True)(IMAGES).numpy()
    np.testing.assert_allclose(inference, expected, rtol=1e-6)
    _config_round_trip(layer)


def test_augmentation_in_traced_steps_draws_new_values_every_call():
    crop = ef.layers.RandomCrop(2, 2, seed=3)
    flip = ef.layers.RandomFlip(seed=3)
    step = ef.function(lambda x: flip(crop(x, training=True), training=True))
    image = np.arange(16, dtype=np.float32).reshape(1, 4, 4, 1)
    outputs = {tuple(step(image).numpy().ravel().tolist()) for _ in range(40)}
    assert len(outputs) > 4
    assert step.experimental_get_tracing_count() == 1
    model = ef.Sequential([ef.Input((4, 4, 1)), ef.layers.RandomCrop(2, 2, seed=3),
                           ef.layers.Flatten(), ef.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    x = np.repeat(image, 32, axis=0)
    history = model.fit(x, np.zeros((32, 1)), batch_size=4, epochs=2, verbose=0)
    assert np.isfinite(history.history["loss"]).all()
    assert model.predict(x[:2], verbose=0).shape == (2, 1)  # inference: no random crop


def test_in_a_dataset_pipeline():
    dataset = ef.data.Dataset.from_tensor_slices(IMAGES).batch(2).map(
        ef.layers.Resizing(4, 4))
    (batch,) = list(dataset)
    assert batch.shape == (2, 4, 4, 3) and batch.dtype == np.float32


def test_normalization_adapts_on_arrays_and_datasets():
    data = RNG.standard_normal((100, 3)) * [1.0, 10.0, 0.1] + [5.0, -2.0, 0.0]
    layer = ef.layers.Normalization()
    layer.adapt(data, batch_size=7)  # streamed in batches: the same statistics
    np.testing.assert_allclose(layer.mean.numpy(), data.mean(axis=0), rtol=1e-5)
    np.testing.assert_allclose(layer.variance.numpy(), data.var(axis=0), rtol=1e-5)
    out = layer(data).numpy()
    np.testing.assert_allclose(out.mean(axis=0), 0, atol=1e-5)
    np.testing.assert_allclose(out.std(axis=0), 1, rtol=1e-4)
    from_dataset = ef.layers.Normalization()
    from_dataset.adapt(ef.data.Dataset.from_tensor_slices(data).batch(16))
    np.testing.assert_allclose(from_dataset.variance.numpy(), data.var(axis=0), rtol=1e-5)
    inverse = ef.layers.Normalization(mean=layer.mean.numpy(), variance=layer.variance.numpy(),
                                      invert=True)
    np.testing.assert_allclose(inverse(out).numpy(), data, rtol=1e-4, atol=1e-4)
    images = ef.layers.Normalization(axis=-1)
    images.adapt(IMAGES)
    assert images.mean.shape == (3,)
    np.testing.assert_allclose(images.mean.numpy(), IMAGES.mean(axis=(0, 1, 2)), rtol=1e-5)
    _config_round_trip(ef.layers.Normalization(axis=(1, 2), mean=0.5, variance=2.0))


def test_normalization_statistics_are_saved_with_the_model(tmp_path):
    data = RNG.standard_normal((50, 2)) * 3 + 1
    norm = ef.layers.Normalization()
    norm.adapt(data)
    model = ef.Sequential([ef.Input((2,)), norm, ef.layers.Dense(1)])
    model.compile(loss="mse")
    path = str(tmp_path / "model.h5")
    model.save(path)
    restored = ef.models.load_model(path)
    np.testing.assert_allclose(restored.predict(data, verbose=0),
                               model.predict(data, verbose=0), rtol=1e-6)
    assert [w.name.rsplit("/", 1)[-1] for w in norm.non_trainable_weights] == [
        "mean", "variance"]


def test_normalization_errors():
    with pytest.raises(ValueError, match="both `mean` and `variance`"):
        ef.layers.Normalization(mean=1.0)
    with pytest.raises(ValueError, match=r"map\(lambda x, y: x\)"):
        ef.layers.Normalization().adapt(
            ef.data.Dataset.from_tensor_slices((np.ones((4, 2)), np.ones(4))).batch(2))
    with pytest.raises(ValueError, match="the data is empty"):
        ef.layers.Normalization().adapt(np.zeros((0, 3)))
