"""Masking (with a recurrent layer behind it) and SpatialDropout1D/2D."""

import numpy as np
import pytest

import eagerflow as ef


def test_masking_zeroes_padded_steps_and_masks_them_downstream():
    x = np.array([[[1.0, 2.0], [0.0, 0.0], [3.0, 1.0]]], "float32")
    layer = ef.layers.Masking()
    np.testing.assert_array_equal(layer(ef.constant(x)), x)
    np.testing.assert_array_equal(layer.compute_mask(ef.constant(x)), [[True, False, True]])
    x2 = np.array([[[1.0, 2.0], [5.0, 5.0]]], "float32")
    np.testing.assert_array_equal(ef.layers.Masking(mask_value=5.0)(ef.constant(x2)),
                                  [[[1.0, 2.0], [0.0, 0.0]]])
    inputs = ef.layers.Input((3, 2))
    pooled = ef.layers.GlobalAveragePooling1D()(ef.layers.Masking()(inputs))
    model = ef.Model(inputs, pooled)
    np.testing.assert_allclose(model(x), [[2.0, 1.5]], rtol=1e-6)  # the padded step ignored
    assert ef.layers.Masking.from_config(layer.get_config()).mask_value == 0.0


@pytest.mark.parametrize("make, shape, channel_axis", [
    (lambda: ef.layers.SpatialDropout1D(0.5, seed=2), (4, 6, 8), 2),
    (lambda: ef.layers.SpatialDropout2D(0.5, seed=2), (4, 3, 3, 8), 3),
    (lambda: ef.layers.SpatialDropout2D(0.5, data_format="channels_first", seed=2),
     (4, 8, 3, 3), 1),
])
def test_spatial_dropout_drops_whole_channels(make, shape, channel_axis):
    layer = make()
    ones = ef.ones(shape)
    np.testing.assert_array_equal(layer(ones), np.ones(shape))  # inference: identity
    out = layer(ones, training=True).numpy()
    kept = np.moveaxis(out, channel_axis, -1).reshape(shape[0], -1, shape[channel_axis])
    # every channel is either all zeros or all 2.0 (kept and scaled) over its positions
    assert np.all((kept == 0).all(axis=1) | (kept == 2.0).all(axis=1))
    assert 0 < (kept == 0).all(axis=1).mean() < 1
    assert type(layer).from_config(layer.get_config()).get_config() == layer.get_config()
