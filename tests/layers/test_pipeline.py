"""Pipeline: layers in order, training reaching the augmentation layers, masks passed on,
Dataset.map, config round trip, errors."""

import numpy as np
import pytest

import eagerflow as ef

L = ef.layers


def test_applies_the_layers_in_order():
    pipeline = L.Pipeline([L.Rescaling(0.5), L.Rescaling(1.0, offset=1.0)])
    np.testing.assert_allclose(pipeline(np.array([[4.0]], np.float32)).numpy(), [[3.0]])
    assert pipeline.compute_output_shape((None, 1)) == (None, 1)


def test_training_reaches_augmentation_and_masks_pass_on():
    x = np.arange(16, dtype=np.float32).reshape(1, 4, 4, 1)
    flip = L.Pipeline([L.RandomFlip("horizontal", seed=0)])
    np.testing.assert_array_equal(flip(x, training=False).numpy(), x)
    flips = {flip(x).numpy()[0, 0, 0, 0] for _ in range(20)}
    assert flips == {0.0, 3.0}  # training by default, as Keras
    tokens = np.array([[3, 4, 0]])
    embedded = L.Pipeline([L.Embedding(6, 2, mask_zero=True)])(tokens)
    np.testing.assert_array_equal(ef.layers.masking.get_mask(embedded).numpy(),
                                  [[True, True, False]])


def test_in_a_dataset_and_config_round_trip():
    pipeline = L.Pipeline([L.Rescaling(1 / 255), L.CenterCrop(2, 2)], name="prep")
    images = np.full((6, 4, 4, 3), 255.0, np.float32)
    batches = list(ef.data.Dataset.from_tensor_slices(images).batch(3).map(pipeline))
    assert [tuple(b.shape) for b in batches] == [(3, 2, 2, 3)] * 2
    config = pipeline.get_config()
    assert config["name"] == "prep" and len(config["layers"]) == 2
    clone = L.Pipeline.from_config(config)
    assert [type(x).__name__ for x in clone.layers] == ["Rescaling", "CenterCrop"]
    np.testing.assert_allclose(clone(images).numpy(), pipeline(images).numpy())


def test_errors():
    with pytest.raises(ValueError, match="list of layers"):
        L.Pipeline(L.Rescaling(1.0))
    with pytest.raises(ValueError, match="must be a layer"):
        L.Pipeline([lambda x: x])
