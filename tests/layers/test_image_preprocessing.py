"""Resizing and CenterCrop: the layer contract, Keras 3 values, dtypes and errors."""

import numpy as np
import pytest

import eagerflow as ef
from tests.layers.layer_contract import run_layer_test

_IMAGE = np.arange(20, dtype=np.float32).reshape(1, 4, 5, 1)


@pytest.mark.parametrize("cls, kwargs, in_shape, out_shape", [
    (ef.layers.Resizing, {"height": 3, "width": 2}, (2, 4, 5, 3), (2, 3, 2, 3)),
    (ef.layers.Resizing, {"height": 6, "width": 7, "interpolation": "nearest"}, (2, 4, 5, 1),
     (2, 6, 7, 1)),
    (ef.layers.Resizing, {"height": 2, "width": 2, "crop_to_aspect_ratio": True}, (2, 4, 6, 2),
     (2, 2, 2, 2)),
    (ef.layers.Resizing, {"height": 2, "width": 2, "pad_to_aspect_ratio": True,
                          "fill_value": 1.0}, (2, 4, 6, 2), (2, 2, 2, 2)),
    (ef.layers.Resizing, {"height": 2, "width": 3, "antialias": True,
                          "data_format": "channels_first"}, (2, 1, 5, 6), (2, 1, 2, 3)),
    (ef.layers.CenterCrop, {"height": 2, "width": 3}, (2, 4, 5, 3), (2, 2, 3, 3)),
    (ef.layers.CenterCrop, {"height": 6, "width": 3}, (2, 4, 5, 1), (2, 6, 3, 1)),
])
def test_layer_contract(cls, kwargs, in_shape, out_shape):
    run_layer_test(cls, kwargs, input_shape=in_shape, expected_output_shape=out_shape,
                   expected_num_trainable_weights=0)


# Values from Keras 3.15 (TensorFlow backend).
@pytest.mark.parametrize("layer, expected", [
    (ef.layers.Resizing(2, 2, crop_to_aspect_ratio=True), [[3.0, 5.0], [13.0, 15.0]]),
    (ef.layers.CenterCrop(6, 3), [[1.0, 1.5, 2.0], [3.5, 4.0, 4.5], [6.8333, 7.3333, 7.8333],
                                  [10.1667, 10.6667, 11.1667], [13.5, 14.0, 14.5],
                                  [16.0, 16.5, 17.0]]),
    (ef.layers.CenterCrop(2, 3), [[6.0, 7.0, 8.0], [11.0, 12.0, 13.0]]),
    (ef.layers.Resizing(2, 4, pad_to_aspect_ratio=True, fill_value=-1.0),
     [[0.3125, 3.625, 5.375, 1.8125], [4.0625, 13.625, 15.375, 5.5625]]),
    (ef.layers.Resizing(4, 2, pad_to_aspect_ratio=True, fill_value=-1.0),
     [[-1.0, -1.0], [2.0, 4.5], [14.5, 17.0], [-1.0, -1.0]]),
])
def test_values_match_keras(layer, expected):
    np.testing.assert_allclose(layer(_IMAGE).numpy()[0, :, :, 0], expected, atol=1e-3)


def test_integer_images():
    u8 = np.array([[[0], [255]], [[255], [255]]], np.uint8)
    resized = ef.layers.Resizing(3, 3)(u8)
    assert resized.dtype == ef.uint8  # rounded and saturated back, as Keras 3
    np.testing.assert_array_equal(resized.numpy()[..., 0],
                                  [[0, 128, 255], [128, 191, 255], [255, 255, 255]])
    assert ef.layers.Resizing(3, 3, interpolation="nearest")(u8).dtype == ef.uint8
    assert ef.layers.CenterCrop(1, 1)(u8).dtype == ef.float32
    assert ef.layers.Resizing(3, 3)(u8.astype(np.float64)).dtype == ef.float32


def test_in_a_model_and_a_dataset():
    model = ef.Sequential([ef.layers.Input((8, 8, 3)), ef.layers.Resizing(4, 4),
                           ef.layers.CenterCrop(2, 2), ef.layers.Flatten(),
                           ef.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    x = np.random.default_rng(0).uniform(0, 1, (6, 8, 8, 3)).astype(np.float32)
    history = model.fit(x, np.zeros((6, 1), np.float32), batch_size=3, epochs=2, verbose=0)
    assert len(history.history["loss"]) == 2
    ds = ef.data.Dataset.from_tensor_slices(x).map(ef.layers.Resizing(5, 6)).batch(4)
    assert [tuple(b.shape) for b in ds] == [(4, 5, 6, 3), (2, 5, 6, 3)]


@pytest.mark.parametrize("make, match", [
    (lambda: ef.layers.Resizing(0, 2), r"`height` of Resizing, expected a positive.*=0"),
    (lambda: ef.layers.Resizing(2, 2.5), r"`width` of Resizing.*width=2.5"),
    (lambda: ef.layers.Resizing(2, 2, interpolation="gaussian"),  # (Keras refuses it too)
     r"interpolation.*'gaussian'"),
    (lambda: ef.layers.Resizing(2, 2, fill_mode="reflect"), r"fill_mode='reflect'"),
    (lambda: ef.layers.Resizing(2, 2, crop_to_aspect_ratio=True, pad_to_aspect_ratio=True),
     r"only one of"),
    (lambda: ef.layers.CenterCrop(2, 2)(ef.ones([4, 4])),
     r"CenterCrop 'center_crop.*rank 3 or 4.*\(4, 4\)"),
    (lambda: ef.layers.CenterCrop(2, 2).compute_output_shape((4, 4)), r"rank 3 or 4"),
])
def test_errors(make, match):
    with pytest.raises(ValueError, match=match):
        make()
