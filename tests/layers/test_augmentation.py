"""The random augmentation layers: the layer contract at inference, TensorFlow/Keras values
in training, fresh randomness in traced steps and in `fit`, seeds, and their errors."""

import numpy as np
import pytest

import eagerflow as ef
from tests.layers.layer_contract import run_layer_test

_IMAGE = np.arange(20, dtype=np.float32).reshape(1, 4, 5, 1)


@pytest.mark.parametrize("cls, kwargs, in_shape, out_shape", [
    (ef.layers.RandomFlip, {"seed": 1}, (2, 4, 5, 3), (2, 4, 5, 3)),
    (ef.layers.RandomCrop, {"height": 3, "width": 2, "seed": 1}, (2, 4, 5, 3), (2, 3, 2, 3)),
    (ef.layers.RandomRotation, {"factor": 0.2}, (2, 4, 5, 1), (2, 4, 5, 1)),
    (ef.layers.RandomZoom, {"height_factor": 0.2, "width_factor": (-0.1, 0.3)}, (2, 4, 5, 1),
     (2, 4, 5, 1)),
    (ef.layers.RandomTranslation, {"height_factor": 0.2, "width_factor": 0.1,
                                   "fill_mode": "constant"}, (2, 4, 5, 1), (2, 4, 5, 1)),
])
def test_layer_contract_at_inference(cls, kwargs, in_shape, out_shape):
    layer = run_layer_test(cls, kwargs, input_shape=in_shape, expected_output_shape=out_shape,
                           expected_num_trainable_weights=0, call_kwargs={"training": False})
    data = np.random.default_rng(0).standard_normal(in_shape).astype(np.float32)
    if cls is not ef.layers.RandomCrop:  # inference is the identity
        np.testing.assert_array_equal(layer(data, training=False).numpy(), data)
    assert layer.compute_output_shape((None, *in_shape[1:])) == (None, *out_shape[1:])
    model = ef.Sequential([ef.Input(in_shape[1:]), layer])
    assert model.predict(data, verbose=0).shape == out_shape  # predict: inference mode


def test_a_direct_call_augments_as_in_keras():
    batch = np.broadcast_to(np.arange(5, dtype=np.float32)[None, None, :, None], (64, 2, 5, 1))
    flipped = ef.layers.RandomFlip("horizontal", seed=4)(batch).numpy()
    assert set(flipped[:, 0, 0, 0].tolist()) == {0.0, 4.0}


# Values from Keras 3.15 (TensorFlow backend) with a zero-width factor range, so that the
# draw is fixed.
@pytest.mark.parametrize("layer, expected", [
    (ef.layers.RandomZoom((-0.5, -0.5), fill_mode="constant"),
     [[4.75, 5.25, 5.75, 6.25, 6.75], [7.25, 7.75, 8.25, 8.75, 9.25],
      [9.75, 10.25, 10.75, 11.25, 11.75], [12.25, 12.75, 13.25, 13.75, 14.25]]),
    (ef.layers.RandomZoom((0.5, 0.5), (0.25, 0.25), fill_mode="reflect"),
     [[0.0, 0.75, 2.0, 3.25, 4.0], [3.75, 4.5, 5.75, 7.0, 7.75],
      [11.25, 12.0, 13.25, 14.5, 15.25], [15.0, 15.75, 17.0, 18.25, 19.0]]),
    (ef.layers.RandomTranslation((0.25, 0.25), (-0.2, -0.2), fill_mode="wrap"),
     [[16, 17, 18, 19, 15], [1, 2, 3, 4, 0], [6, 7, 8, 9, 5], [11, 12, 13, 14, 10]]),
    (ef.layers.RandomRotation((0.125, 0.125), fill_mode="nearest"),
     [[1.6464, 2.3536, 5.2574, 9.5, 13.2678], [0.9393, 3.8431, 8.0858, 12.3284, 16.5711],
      [2.4289, 6.6716, 10.9142, 15.1569, 18.0607], [5.7322, 9.5, 13.7426, 16.6464, 17.3536]]),
])
def test_training_values_match_keras(layer, expected):
    got = layer(_IMAGE, training=True)
    np.testing.assert_allclose(got.numpy()[0, :, :, 0], expected, atol=1e-3)


def test_random_flip_modes_and_independent_coins():
    batch = np.tile(np.arange(4, dtype=np.float32).reshape(1, 2, 2, 1), (64, 1, 1, 1))
    out = ef.layers.RandomFlip(seed=3)(batch, training=True).numpy()
    corners = {tuple(image.reshape(-1)) for image in out}
    # All four orientations (none, left-right, up-down, both) occur.
    assert corners == {(0, 1, 2, 3), (1, 0, 3, 2), (2, 3, 0, 1), (3, 2, 1, 0)}
    only_h = ef.layers.RandomFlip("horizontal", seed=3)(batch, training=True).numpy()
    assert {tuple(image.reshape(-1)) for image in only_h} == {(0, 1, 2, 3), (1, 0, 3, 2)}


def test_random_crop_picks_one_window_per_batch_and_resizes_at_inference():
    batch = np.arange(2 * 6 * 8, dtype=np.float32).reshape(2, 6, 8, 1)
    layer = ef.layers.RandomCrop(4, 5, seed=2)
    out = layer(batch, training=True).numpy()[..., 0]
    np.testing.assert_array_equal(out[1] - out[0], 48)  # the same window in both images
    first = int(out[0, 0, 0])
    row, col = divmod(first, 8)
    assert row <= 2 and col <= 3
    np.testing.assert_array_equal(out[0], batch[0, row:row + 4, col:col + 5, 0])
    # Inference: the largest centred 4:5 window (6 x 7 here), resized to 4 x 5.
    expected = ef.image.resize(batch[:, :, 0:7], [4, 5]).numpy()
    np.testing.assert_allclose(layer(batch, training=False).numpy(), expected, rtol=1e-6)
    # Training on an image smaller than the window resizes too.
    assert layer(batch[:, :3], training=True).shape == (2, 4, 5, 1)


def test_seeded_layers_repeat_and_differ_between_calls():
    layer = ef.layers.RandomRotation(0.3, seed=5)
    data = np.random.default_rng(1).standard_normal((2, 5, 5, 1)).astype(np.float32)
    ef.random.set_seed(11)
    first, second = layer(data, training=True).numpy(), layer(data, training=True).numpy()
    ef.random.set_seed(11)
    np.testing.assert_array_equal(layer(data, training=True).numpy(), first)
    assert not np.allclose(first, second)


@pytest.mark.parametrize("layer", [
    ef.layers.RandomFlip(), ef.layers.RandomCrop(3, 3), ef.layers.RandomRotation(0.5),
    ef.layers.RandomZoom(0.5), ef.layers.RandomTranslation(0.4, 0.4),
])
def test_a_traced_step_draws_new_randomness_on_every_call(layer):
    data = ef.constant(np.random.default_rng(2).standard_normal((4, 6, 6, 2)).astype(
        np.float32))
    traces = []

    @ef.function
    def step(x):
        traces.append(1)
        return layer(x, training=True)

    outputs = [step(data).numpy() for _ in range(4)]
    assert len(traces) == 1  # one graph, run four times
    assert any(not np.array_equal(outputs[0], other) for other in outputs[1:])


def test_fit_augments_every_step_and_predict_does_not():
    seen = []

    class Probe(ef.layers.Layer):
        def call(self, inputs):
            return ef.py_function(lambda x: (seen.append(x.numpy()), x)[1], [inputs],
                                  ef.float32)

    x = np.random.default_rng(3).standard_normal((8, 6, 6, 1)).astype(np.float32)
    y = np.zeros((8, 1), np.float32)
    model = ef.Sequential([ef.layers.Input((6, 6, 1)), ef.layers.RandomRotation(0.5, seed=1),
                           Probe(), ef.layers.Flatten(), ef.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    model.fit(x, y, batch_size=8, epochs=3, verbose=0, shuffle=False)
    assert len(seen) >= 3
    assert not np.allclose(seen[-1], seen[-2])  # a new rotation each step
    seen.clear()
    model.predict(x, verbose=0)
    np.testing.assert_array_equal(seen[-1], x)


def test_in_a_dataset_pipeline():
    images = np.random.default_rng(4).uniform(0, 255, (6, 8, 8, 3)).astype(np.uint8)
    aug = ef.layers.RandomTranslation(0.2, 0.2, seed=3)
    ds = (ef.data.Dataset.from_tensor_slices((images, np.arange(6))).batch(3)
          .map(lambda x, y: (aug(ef.layers.Rescaling(1 / 255)(x), training=True), y)))
    batches = list(ds)
    assert [tuple(b[0].shape) for b in batches] == [(3, 8, 8, 3)] * 2
    assert batches[0][0].dtype == ef.float32
    assert float(ef.reduce_max(batches[0][0])) <= 1.0


def test_channels_first():
    data = np.random.default_rng(5).standard_normal((2, 3, 6, 4)).astype(np.float32)
    layer = ef.layers.RandomCrop(2, 3, data_format="channels_first")
    assert layer(data, training=True).shape == (2, 3, 2, 3)
    assert layer.compute_output_shape((None, 3, 6, 4)) == (None, 3, 2, 3)
    flip = ef.layers.RandomFlip("horizontal", data_format="channels_first", seed=1)
    out = flip(data, training=True).numpy()
    for image, source in zip(out, data, strict=True):
        assert np.array_equal(image, source) or np.array_equal(image, source[:, :, ::-1])


def _seeded(layer):
    def run(x):
        ef.random.set_seed(9)
        return layer(x, training=True)
    run.__name__ = type(layer).__name__
    return run


@pytest.mark.parametrize("layer", [
    ef.layers.RandomFlip(seed=2, dtype="float64"),
    ef.layers.RandomCrop(2, 3, seed=2, dtype="float64"),
    ef.layers.RandomRotation(0.3, seed=2, dtype="float64"),
    ef.layers.RandomZoom(0.3, interpolation="nearest", seed=2, dtype="float64"),
    ef.layers.RandomTranslation(0.3, 0.3, fill_mode="wrap", seed=2, dtype="float64"),
])
def test_training_gradients(layer):
    data = np.random.default_rng(6).standard_normal((2, 4, 4, 1))
    ef.testing.check_gradients(_seeded(layer), data, order=2)


@pytest.mark.parametrize("make, error, match", [
    (lambda: ef.layers.RandomFlip("diagonal"), ValueError, r"mode.*'diagonal'"),
    (lambda: ef.layers.RandomCrop(0, 2), ValueError, r"`height` of RandomCrop.*height=0"),
    (lambda: ef.layers.RandomRotation(1.5), ValueError, r"factor.*\[-1.0, 1\].*1.5"),
    (lambda: ef.layers.RandomRotation((0.1, 0.2, 0.3)), ValueError, r"pair.*\(0.1, 0.2, 0.3\)"),
    (lambda: ef.layers.RandomZoom(-1.0), ValueError, r"height_factor.*\(-1.0, 1\]"),
    (lambda: ef.layers.RandomTranslation(0.1, "x"), ValueError, r"width_factor='x'"),
    (lambda: ef.layers.RandomZoom(0.1, fill_mode="mirror"), ValueError, r"fill_mode='mirror'"),
    (lambda: ef.layers.RandomRotation(0.1, interpolation="bicubic"), ValueError,
     r"interpolation='bicubic'"),
    (lambda: ef.layers.RandomFlip(data_format="nhwc"), ValueError, r"data_format='nhwc'"),
    (lambda: ef.layers.RandomFlip()(ef.ones([2, 3])), ValueError,
     r"RandomFlip 'random_flip.*rank 3 or 4.*\(2, 3\)"),
])
def test_errors(make, error, match):
    with pytest.raises(error, match=match):
        make()
