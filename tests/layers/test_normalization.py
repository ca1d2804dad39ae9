"""BatchNormalization and LayerNormalization."""

import numpy as np
import pytest

import eagerflow as ef
from eagerflow.core import tape as tape_lib
from tests.layers.layer_contract import run_layer_test

RNG = np.random.default_rng(0)
X = RNG.standard_normal((6, 4)).astype("float32")
GAMMA = RNG.uniform(0.5, 1.5, 4).astype("float32")
BETA = RNG.standard_normal(4).astype("float32")


def test_batch_normalization_inference_uses_moving_statistics():
    mean, var = RNG.standard_normal(4).astype("float32"), RNG.uniform(0.5, 2, 4).astype("f4")
    expected = GAMMA * (X - mean) / np.sqrt(var + 1e-3) + BETA
    run_layer_test(ef.layers.BatchNormalization, {}, input_data=X, expected_output_shape=(6, 4),
                   expected_num_trainable_weights=2, expected_num_non_trainable_weights=2,
                   weights=[GAMMA, BETA, mean, var], expected_output=expected)


def test_batch_normalization_training_contract():
    mean, var = X.mean(0), X.var(0)
    expected = GAMMA * (X - mean) / np.sqrt(var + 1e-3) + BETA
    run_layer_test(ef.layers.BatchNormalization, {"momentum": 0.9}, input_data=X,
                   call_kwargs={"training": True}, expected_output_shape=(6, 4),
                   expected_num_trainable_weights=2, expected_num_non_trainable_weights=2,
                   weights=[GAMMA, BETA, np.zeros(4, "f4"), np.ones(4, "f4")],
                   expected_output=expected, rtol=1e-4, gradient_order=1)


def test_batch_normalization_updates_moving_statistics_in_training_only():
    layer = ef.layers.BatchNormalization(momentum=0.9)
    layer(X)
    np.testing.assert_allclose(layer.moving_mean.numpy(), 0.0)
    layer(X, training=True)
    np.testing.assert_allclose(layer.moving_mean.numpy(), 0.1 * X.mean(0), rtol=1e-5)
    np.testing.assert_allclose(layer.moving_variance.numpy(), 0.9 + 0.1 * X.var(0), rtol=1e-5)
    assert [v.name.split("/")[1] for v in layer.weights] == ["gamma", "beta", "moving_mean",
                                                             "moving_variance"]


def test_batch_normalization_training_flag_propagates_from_the_model():
    model = ef.Sequential([ef.layers.Dense(4, input_shape=(4,)),
                           ef.layers.BatchNormalization(momentum=0.0)])
    model(X, training=True)
    assert not np.allclose(model.layers[1].moving_mean.numpy(), 0.0)


def test_batch_normalization_frozen_runs_in_inference_mode_unless_told():
    frozen = ef.layers.BatchNormalization(trainable=False)
    out = frozen(X, training=True)
    np.testing.assert_allclose(out.numpy(), X / np.sqrt(1 + 1e-3), rtol=1e-5)
    np.testing.assert_allclose(frozen.moving_mean.numpy(), 0.0)
    assert frozen.trainable_weights == []
    stats = ef.layers.BatchNormalization(trainable=False, freeze_stats=False, momentum=0.5)
    stats(X, training=True)
    np.testing.assert_allclose(stats.moving_mean.numpy(), 0.5 * X.mean(0), rtol=1e-5)
    fixed = ef.layers.BatchNormalization(freeze_stats=True)
    np.testing.assert_allclose(fixed(X, training=True).numpy(), X / np.sqrt(1 + 1e-3),
                               rtol=1e-5)


def test_batch_normalization_on_images_and_channels_first():
    images = RNG.standard_normal((2, 3, 3, 5)).astype("float32")
    out = ef.layers.BatchNormalization(epsilon=0.0)(images, training=True).numpy()
    np.testing.assert_allclose(out.mean((0, 1, 2)), 0.0, atol=1e-5)
    first = ef.layers.BatchNormalization(axis=1)
    first(images)
    assert first.gamma.shape == (3,)
    run_layer_test(ef.layers.BatchNormalization, {"axis": 1}, input_data=images[:, :, :2, :2],
                   expected_output_shape=(2, 3, 2, 2), expected_num_trainable_weights=2,
                   expected_num_non_trainable_weights=2, gradient_order=1)


def test_batch_normalization_masked_statistics_ignore_padding():
    x = np.array([[[1.0], [3.0], [100.0]]], "float32")
    mask = ef.constant([[True, True, False]])
    layer = ef.layers.BatchNormalization(momentum=0.0, epsilon=0.0)
    layer(x, training=True, mask=mask)
    np.testing.assert_allclose(layer.moving_mean.numpy(), [2.0])
    np.testing.assert_allclose(layer.moving_variance.numpy(), [1.0])


def _recorded_ops(layer, x, **kwargs):
    with ef.GradientTape() as tape:
        tape.watch(x)
        y = layer(x, **kwargs)
    return y, {record[0].name for record in tape_lib.recorded(tape)[0] if record}


def test_batch_normalization_takes_the_fused_op_for_one_axis_in_training():
    images = ef.constant(RNG.standard_normal((4, 3, 3, 5)).astype("float32"))
    for kwargs, call_kwargs, fused in [
            ({}, {"training": True}, True),
            ({"axis": 1}, {"training": True}, True),
            ({}, {"training": False}, False),
            ({"axis": [1, 3]}, {"training": True}, False),
            ({}, {"training": True, "mask": ef.ones([4, 3, 3], ef.bool)}, False),
            ({"dtype": "float16"}, {"training": True}, False)]:
        _, ops = _recorded_ops(ef.layers.BatchNormalization(**kwargs), images, **call_kwargs)
        assert ("FusedBatchNorm" in ops) == fused, (kwargs, call_kwargs)


@pytest.mark.parametrize("axis, center, scale", [(-1, True, True), (1, True, True),
                                                 (-1, False, False), (2, True, False)])
def test_batch_normalization_fused_op_matches_the_composite_path(axis, center, scale,
                                                                 kernel_set):
    # A mask of ones takes the composite (masked moments) path with the same statistics.
    x = ef.constant(RNG.normal(2.0, 3.0, (8, 4, 5, 3)).astype("float32"))
    results = []
    for mask in (None, ef.ones([8, 4, 5], ef.bool)):
        ef.random.set_seed(1)
        layer = ef.layers.BatchNormalization(axis=axis, center=center, scale=scale,
                                             momentum=0.7, epsilon=0.01,
                                             gamma_initializer="random_normal",
                                             beta_initializer="random_normal")
        with ef.GradientTape() as tape:
            tape.watch(x)
            y = layer(x, training=True, mask=mask)
            loss = ef.reduce_sum(y * y * ef.cos(y))
        grads = tape.gradient(loss, [x] + layer.trainable_variables)
        results.append([y, *grads, layer.moving_mean, layer.moving_variance])
    for got, want in zip(*results, strict=True):
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-4, atol=1e-4)


# Keras 3.15 (TensorFlow backend): after two epochs of `fit` (SGD(0.1), mse, batch 4, no
# shuffling) of Input((3, 3, 2)) -> BatchNormalization(axis, momentum=0.8, epsilon=0.01) ->
# Flatten -> Dense(2) on the data of `_keras_fit_data`: the normalization layer's weights
# and the predictions for the first two samples.
KERAS_FIT = {
    -1: ([0.9321595430374146, 0.7734262347221375], [0.03335157409310341, 0.015325121581554413],
         [0.822498083114624, 0.9771566390991211], [4.323832035064697, 4.769068717956543],
         [[-1.3465607166290283, -1.0332412719726562], [1.2827740907669067, -0.18297573924064636]]),
    1: ([0.9857911467552185, 0.8266118168830872, 0.8982589244842529],
        [0.07748807966709137, 0.020155690610408783, -0.03484998270869255],
        [0.9719033241271973, 0.849587082862854, 0.8779917359352112],
        [3.97927188873291, 4.641132354736328, 4.9879045486450195],
        [[-1.1265323162078857, -1.1396934986114502], [1.2376072406768799, -0.2570834755897522]]),
}


def _keras_fit_data():
    rng = np.random.default_rng(7)
    x = rng.normal(2.0, 3.0, size=(8, 3, 3, 2)).astype(np.float32)
    y = rng.normal(size=(8, 2)).astype(np.float32)
    kernel = rng.normal(size=(18, 2)).astype(np.float32) * 0.3
    return x, y, kernel


@pytest.mark.parametrize("axis", [-1, 1])
def test_batch_normalization_fit_matches_keras(axis, kernel_set):
    x, y, kernel = _keras_fit_data()
    layer = ef.layers.BatchNormalization(axis=axis, momentum=0.8, epsilon=0.01)
    model = ef.Sequential([ef.layers.Input((3, 3, 2)), layer, ef.layers.Flatten(),
                           ef.layers.Dense(2, kernel_initializer=ef.initializers.Constant(kernel))])
    model.compile(optimizer=ef.optimizers.SGD(0.1), loss="mse")
    model.fit(x, y, batch_size=4, epochs=2, shuffle=False, verbose=0)
    *weights, predictions = KERAS_FIT[axis]
    for variable, want in zip(layer.weights, weights, strict=True):
        np.testing.assert_allclose(variable.numpy(), want, rtol=2e-5, atol=2e-5)
    np.testing.assert_allclose(model.predict(x[:2], verbose=0), predictions, rtol=2e-5,
                               atol=2e-5)


def test_batch_normalization_errors():
    with pytest.raises(ValueError, match="synchronized=True"):
        ef.layers.BatchNormalization(synchronized=True)
    with pytest.raises(ValueError, match="Invalid axis 3"):
        ef.layers.BatchNormalization(axis=3)(X)
    with pytest.raises(ValueError, match="must have a known size"):
        ef.layers.BatchNormalization()(ef.layers.Input(shape=(None,)))


def test_layer_normalization_contract_and_reference():
    x = RNG.standard_normal((3, 2, 4)).astype("float32")
    mean, var = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
    expected = GAMMA * (x - mean) / np.sqrt(var + 1e-3) + BETA
    run_layer_test(ef.layers.LayerNormalization, {}, input_data=x,
                   expected_output_shape=(3, 2, 4), expected_num_trainable_weights=2,
                   weights=[GAMMA, BETA], expected_output=expected, rtol=1e-4)


def test_layer_normalization_over_several_axes_and_rms():
    x = RNG.standard_normal((2, 3, 4)).astype("float32")
    layer = ef.layers.LayerNormalization(axis=[1, 2], epsilon=0.0)
    out = layer(x).numpy()
    np.testing.assert_allclose(out.reshape(2, -1).mean(-1), 0.0, atol=1e-5)
    assert layer.gamma.shape == (3, 4)
    with pytest.warns(DeprecationWarning, match="rms_scaling=True is deprecated"):
        rms = ef.layers.LayerNormalization(rms_scaling=True, epsilon=0.0)
    expected = x / np.sqrt(x.var(-1, keepdims=True))  # Keras 3.15: the variance, uncentered x
    np.testing.assert_allclose(rms(x).numpy(), expected, rtol=1e-5)
    assert [v.name.split("/")[1] for v in rms.weights] == ["gamma"]
    run_layer_test(ef.layers.LayerNormalization, {"axis": [1, 2]}, input_data=x,
                   expected_output_shape=(2, 3, 4), expected_num_trainable_weights=2,
                   gradient_order=1)
