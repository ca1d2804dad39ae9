"""The 3-D layers: MaxPooling3D, AveragePooling3D, GlobalAveragePooling3D,
GlobalMaxPooling3D, ZeroPadding3D, Cropping3D, UpSampling3D and SpatialDropout3D (the
layer contract, Keras 3.15.1's configs and values, errors)."""

import numpy as np
import pytest

import eagerflow as ef
from tests.layers.layer_contract import run_layer_test

L = ef.layers
X = np.random.default_rng(0).normal(size=(2, 4, 4, 4, 3))


@pytest.mark.parametrize("cls, kwargs, out_shape, reference", [
    (L.MaxPooling3D, {}, (2, 2, 2, 2, 3),
     lambda x: x.reshape(2, 2, 2, 2, 2, 2, 2, 3).max((2, 4, 6))),
    (L.AveragePooling3D, {"pool_size": 2}, (2, 2, 2, 2, 3),
     lambda x: x.reshape(2, 2, 2, 2, 2, 2, 2, 3).mean((2, 4, 6))),
    (L.AveragePooling3D, {"pool_size": (2, 1, 2), "data_format": "channels_first"},
     (2, 4, 2, 4, 1), None),
    (L.GlobalAveragePooling3D, {}, (2, 3), lambda x: x.mean((1, 2, 3))),
    (L.GlobalMaxPooling3D, {"keepdims": True}, (2, 1, 1, 1, 3),
     lambda x: x.max((1, 2, 3), keepdims=True)),
    (L.ZeroPadding3D, {"padding": (1, 0, 2)}, (2, 6, 4, 8, 3),
     lambda x: np.pad(x, [(0, 0), (1, 1), (0, 0), (2, 2), (0, 0)])),
    (L.Cropping3D, {}, (2, 2, 2, 2, 3), lambda x: x[:, 1:-1, 1:-1, 1:-1]),
    (L.UpSampling3D, {"size": (1, 2, 1)}, (2, 4, 8, 4, 3), lambda x: x.repeat(2, axis=2)),
])
def test_contract_and_values(cls, kwargs, out_shape, reference):
    layer = run_layer_test(cls, kwargs, input_data=X.astype(np.float32),
                           expected_output_shape=out_shape, expected_num_trainable_weights=0,
                           gradient_order=1)
    if reference is not None:
        np.testing.assert_allclose(layer(X).numpy(), reference(X), rtol=1e-6)


def test_configs_match_keras():
    assert L.MaxPooling3D().get_config()["pool_size"] == [2, 2, 2]
    assert L.MaxPooling3D().get_config()["strides"] == [2, 2, 2]
    assert L.ZeroPadding3D().get_config()["padding"] == [[1, 1], [1, 1], [1, 1]]
    assert L.Cropping3D().get_config()["cropping"] == [[1, 1], [1, 1], [1, 1]]
    config = L.UpSampling3D().get_config()
    assert config["size"] == [2, 2, 2] and config["data_format"] == "channels_last"
    assert L.SpatialDropout3D(0.5).get_config()["data_format"] == "channels_last"
    assert L.GlobalMaxPooling3D().get_config()["keepdims"] is False
    assert L.MaxPool3D is L.MaxPooling3D and L.GlobalAvgPool3D is L.GlobalAveragePooling3D


def test_spatial_dropout_3d_drops_whole_volumes():
    x = np.ones((4, 3, 3, 3, 16), np.float32)
    y = L.SpatialDropout3D(0.5, seed=1)(x, training=True).numpy()
    per_channel = y.reshape(4, -1, 16)
    assert np.all(per_channel.min(1) == per_channel.max(1))  # one draw per (sample, channel)
    assert set(np.unique(y)) <= {0.0, 2.0} and 0 < (y == 0).mean() < 1
    first = L.SpatialDropout3D(0.5, data_format="channels_first", seed=1)(
        np.ones((2, 4, 3, 3, 3), np.float32), training=True).numpy()
    assert np.all(first.reshape(2, 4, -1).min(2) == first.reshape(2, 4, -1).max(2))
    np.testing.assert_array_equal(L.SpatialDropout3D(0.5)(x).numpy(), x)  # inference


def test_errors():
    with pytest.raises(ValueError, match="nothing of axis"):
        L.Cropping3D(2)(np.ones((1, 4, 4, 4, 1), np.float32))
    with pytest.raises(ValueError):
        L.MaxPooling3D()(np.ones((1, 4, 4, 1), np.float32))
    with pytest.raises(TypeError):
        L.AveragePooling3D()  # pool_size is required, as in Keras
    with pytest.raises(ValueError, match="size"):
        L.UpSampling3D((2, 2))
