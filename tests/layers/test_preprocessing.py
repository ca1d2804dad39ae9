"""Rescaling and Normalization: the layer contract, adapt on arrays, tensors, datasets and
iterables (streamed statistics equal the one-pass ones), Keras 3's config, and errors."""

import numpy as np
import pytest

import eagerflow as ef
from tests.layers.layer_contract import run_layer_test

_DATA = np.random.default_rng(0).normal(3.0, 2.0, (50, 4, 3))


def test_rescaling_contract_and_values():
    run_layer_test(ef.layers.Rescaling, {"scale": 0.5, "offset": -1.0}, input_shape=(2, 3),
                   expected_output_shape=(2, 3), expected_num_trainable_weights=0)
    run_layer_test(ef.layers.Rescaling, {"scale": [1.0, 2.0, 3.0]}, input_shape=(2, 2, 3),
                   expected_output_shape=(2, 2, 3), expected_num_trainable_weights=0)
    layer = ef.layers.Rescaling(np.array([1.0, 0.5]), offset=1)
    np.testing.assert_allclose(layer(np.array([[2, 4]], np.uint8)).numpy(), [[3.0, 3.0]])
    assert layer.get_config()["scale"] == [1.0, 0.5]
    assert layer(np.array([1.0])).dtype == ef.float32


@pytest.mark.parametrize("kwargs, in_shape", [
    ({"mean": [1.0, 2.0, 3.0], "variance": [1.0, 4.0, 9.0]}, (2, 3)),
    ({"mean": 2.0, "variance": 4.0, "axis": None, "invert": True}, (2, 3)),
    ({"axis": (1, 2)}, (2, 3, 4)),
])
def test_normalization_contract(kwargs, in_shape):
    adapted = "mean" not in kwargs
    run_layer_test(ef.layers.Normalization, kwargs, input_shape=in_shape,
                   expected_output_shape=in_shape, expected_num_trainable_weights=0,
                   expected_num_non_trainable_weights=3 if adapted else 0)


@pytest.mark.parametrize("axis, kept", [(-1, (2,)), (None, ()), ((1, 2), (1, 2)), (1, (1,))])
def test_adapt_on_an_array(axis, kept):
    layer = ef.layers.Normalization(axis=axis)
    layer.adapt(_DATA)
    reduce = tuple(a for a in range(3) if a not in kept)
    np.testing.assert_allclose(layer.adapt_mean.numpy(), _DATA.mean(axis=reduce), rtol=1e-6)
    np.testing.assert_allclose(layer.adapt_variance.numpy(), _DATA.var(axis=reduce), rtol=1e-5)
    out = layer(_DATA).numpy()
    np.testing.assert_allclose(out.mean(axis=reduce), 0.0, atol=1e-5)
    np.testing.assert_allclose(out.std(axis=reduce), 1.0, rtol=1e-5)
    assert int(layer.count.numpy()) == int(np.prod([_DATA.shape[a] for a in reduce]))


@pytest.mark.parametrize("source", ["tensor", "chunks", "dataset", "labelled", "iterable"])
def test_streamed_statistics_equal_the_one_pass_ones(source):
    whole = ef.layers.Normalization()
    whole.adapt(_DATA)
    layer = ef.layers.Normalization()
    if source == "tensor":
        layer.adapt(ef.constant(_DATA))
    elif source == "chunks":
        layer.adapt(_DATA, batch_size=7)
    elif source == "dataset":
        layer.adapt(ef.data.Dataset.from_tensor_slices(_DATA).batch(8))
    elif source == "labelled":
        layer.adapt(ef.data.Dataset.from_tensor_slices((_DATA, np.zeros(50))).batch(16))
    else:
        layer.adapt(_DATA[i:i + 11] for i in range(0, 50, 11))
    np.testing.assert_allclose(layer.adapt_mean.numpy(), whole.adapt_mean.numpy(), rtol=1e-6)
    np.testing.assert_allclose(layer.adapt_variance.numpy(), whole.adapt_variance.numpy(), rtol=1e-5)


def test_adapt_steps_and_unbatched_feature_datasets():
    layer = ef.layers.Normalization()
    layer.adapt(ef.data.Dataset.from_tensor_slices(_DATA).batch(10), steps=1)
    np.testing.assert_allclose(layer.adapt_mean.numpy(), _DATA[:10].mean(axis=(0, 1)), rtol=1e-6)
    vectors = _DATA.reshape(-1, 3)
    layer = ef.layers.Normalization()
    layer.adapt(ef.data.Dataset.from_tensor_slices(vectors))  # elements of rank 1
    np.testing.assert_allclose(layer.adapt_mean.numpy(), vectors.mean(axis=0), rtol=1e-6)


def test_adapted_statistics_are_checkpointed_and_used_in_a_model(tmp_path):
    layer = ef.layers.Normalization()
    layer.adapt(_DATA.reshape(-1, 3))
    model = ef.Sequential([ef.layers.Input((3,)), layer, ef.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    model.fit(_DATA.reshape(-1, 3), np.zeros((200, 1)), epochs=1, verbose=0)
    np.testing.assert_allclose(layer.adapt_mean.numpy(), _DATA.reshape(-1, 3).mean(axis=0),
                               rtol=1e-6)  # fit does not train the statistics
    path = str(tmp_path / "weights.h5")
    model.save_weights(path)
    clone = ef.Sequential([ef.layers.Input((3,)), ef.layers.Normalization(),
                           ef.layers.Dense(1)])
    clone.load_weights(path)
    np.testing.assert_allclose(clone.predict(_DATA[0], verbose=0),
                               model.predict(_DATA[0], verbose=0), rtol=1e-6)


def test_invert_round_trips_and_config_matches_keras():
    layer = ef.layers.Normalization(mean=[1.0, 2.0], variance=[4.0, 9.0])
    inverse = ef.layers.Normalization(mean=[1.0, 2.0], variance=[4.0, 9.0], invert=True)
    x = np.array([[3.0, -1.0]], np.float32)
    np.testing.assert_allclose(layer(x).numpy(), [[1.0, -1.0]])
    np.testing.assert_allclose(inverse(layer(x)).numpy(), x, rtol=1e-6)
    config = layer.get_config()
    assert {k: config[k] for k in ("axis", "invert", "mean", "variance")} == {
        "axis": [-1], "invert": False, "mean": [1.0, 2.0], "variance": [4.0, 9.0]}
    # A zero variance divides by epsilon, not zero.
    flat = ef.layers.Normalization(mean=1.0, variance=0.0, axis=None)
    assert np.isfinite(flat(np.array([2.0])).numpy()).all()


@pytest.mark.parametrize("make, error, match", [
    (lambda: ef.layers.Normalization(mean=1.0), ValueError, r"both `mean` and `variance`"),
    (lambda: ef.layers.Normalization(mean=[1.0, 2.0], variance=[1.0]), ValueError,
     r"same shape.*\(2,\).*\(1,\)"),
    (lambda: ef.layers.Normalization(axis=None, mean=[1.0], variance=[1.0]), ValueError,
     r"rank of `mean` \(1\)"),
    (lambda: ef.layers.Normalization(axis=3)(ef.ones([2, 3])), ValueError,
     r"axis.*\[-2, 2\).*\(2, 3\).*\(3,\)"),
    (lambda: ef.layers.Normalization(mean=0.0, variance=1.0).adapt(_DATA), ValueError,
     r"cannot be used on a layer given `mean`"),
    (lambda: ef.layers.Normalization().adapt(iter([])), ValueError, r"received no data"),
    (lambda: ef.layers.Normalization().adapt(3.0), TypeError, r"data of type float"),
    (lambda: ef.layers.Normalization().adapt([np.ones((2, 3)), np.ones((2, 4))]), ValueError,
     r"batch of shape \(2, 4\).*keeps axes \(1,\) of inputs shaped \(2, 3\)"),
])
def test_errors(make, error, match):
    with pytest.raises(error, match=match):
        make()


@pytest.mark.parametrize("shape, kwargs, stats_shape, weight_shape", [
    # Keras 3.15's `layer.mean.shape` and weight shapes after adapt.
    ((6, 1), {}, (1, 1), (1,)),
    ((6, 2), {}, (1, 2), (2,)),
    ((2, 3, 4), {}, (1, 1, 4), (4,)),
    ((2, 3, 4), {"axis": (1, 2)}, (1, 3, 4), (3, 4)),
    ((2, 3, 4), {"axis": None}, (1, 1, 1), ()),
    ((2, 3, 4), {"axis": 1}, (1, 3, 1), (3,)),
])
def test_mean_has_keras_broadcast_shape(shape, kwargs, stats_shape, weight_shape):
    layer = ef.layers.Normalization(**kwargs)
    layer.adapt(np.arange(np.prod(shape), dtype="float64").reshape(shape))
    assert tuple(layer.mean.shape) == tuple(layer.variance.shape) == stats_shape
    assert tuple(layer.adapt_mean.shape) == weight_shape
    given = ef.layers.Normalization(mean=[1.0, 2.0], variance=[1.0, 4.0])
    given.build((None, 2))
    assert tuple(given.mean.shape) == (1, 2)
