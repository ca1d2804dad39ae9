"""DepthwiseConv1D, SeparableConv1D and Conv1DTranspose: the layer contract, values
against NumPy transcriptions of the convolutions (which equal Keras 3.15.1's outputs for
the same weights: checked when the layers were written), configs and errors."""

import numpy as np
import pytest

import eagerflow as ef
from tests.layers.layer_contract import run_layer_test

L = ef.layers
RNG = np.random.default_rng(0)
X = RNG.normal(size=(2, 7, 3))


def _same_pads(length, k, stride, dilation):
    span = (k - 1) * dilation + 1
    out = -(-length // stride)
    total = max((out - 1) * stride + span - length, 0)
    return total // 2, total - total // 2


def depthwise1d_reference(x, kernel, stride, padding, dilation):
    k, c, m = kernel.shape
    if padding == "same":
        x = np.pad(x, [(0, 0), _same_pads(x.shape[1], k, stride, dilation), (0, 0)])
    span = (k - 1) * dilation + 1
    steps = range(0, x.shape[1] - span + 1, stride)
    out = np.stack([np.einsum("bkc,kcm->bcm", x[:, t:t + span:dilation], kernel)
                    for t in steps], 1)
    return out.reshape(x.shape[0], len(steps), c * m)


def conv1d_transpose_reference(x, kernel, stride, padding, output_padding):
    k, filters, _ = kernel.shape
    n, length, _ = x.shape
    full = np.zeros((n, (length - 1) * stride + k, filters))
    for t in range(length):
        full[:, t * stride:t * stride + k] += np.einsum("bc,kfc->bkf", x[:, t], kernel)
    if padding == "valid" and output_padding is None:
        return full
    # Keras's output size; TensorFlow's crop: SAME removes half the excess on the left.
    size = length * stride if output_padding is None else (
        (length - 1) * stride + k - 2 * (k // 2 if padding == "same" else 0) + output_padding)
    pad = max(full.shape[1] - size, 0) // 2 if padding == "same" else 0
    full = np.pad(full, [(0, 0), (0, max(size + pad - full.shape[1], 0)), (0, 0)])
    return full[:, pad:pad + size]


@pytest.mark.parametrize("kwargs", [
    {"kernel_size": 3}, {"kernel_size": 3, "strides": 2, "padding": "same", "depth_multiplier": 2},
    {"kernel_size": 2, "dilation_rate": 2, "depth_multiplier": 3},
])
def test_depthwise_conv1d(kwargs):
    layer = run_layer_test(L.DepthwiseConv1D, kwargs, input_data=X.astype(np.float32),
                           expected_num_trainable_weights=2)
    kernel = RNG.normal(size=layer.depthwise_kernel.shape)
    bias = RNG.normal(size=layer.bias.shape)
    layer.set_weights([kernel, bias])
    expected = depthwise1d_reference(X, kernel, kwargs.get("strides", 1),
                                     kwargs.get("padding", "valid"),
                                     kwargs.get("dilation_rate", 1)) + bias
    np.testing.assert_allclose(layer(X).numpy(), expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("kwargs", [
    {"filters": 4, "kernel_size": 3}, {"filters": 2, "kernel_size": 3, "padding": "same",
                                       "depth_multiplier": 2, "dilation_rate": 2},
])
def test_separable_conv1d(kwargs):
    layer = run_layer_test(L.SeparableConv1D, kwargs, input_data=X.astype(np.float32),
                           expected_num_trainable_weights=3)
    depthwise = RNG.normal(size=layer.depthwise_kernel.shape)
    pointwise = RNG.normal(size=layer.pointwise_kernel.shape)
    bias = RNG.normal(size=layer.bias.shape)
    layer.set_weights([depthwise, pointwise, bias])
    mid = depthwise1d_reference(X, depthwise, 1, kwargs.get("padding", "valid"),
                                kwargs.get("dilation_rate", 1))
    expected = mid @ pointwise[0] + bias
    np.testing.assert_allclose(layer(X).numpy(), expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("kwargs, length", [
    ({"filters": 4, "kernel_size": 3, "strides": 2}, 15),
    ({"filters": 4, "kernel_size": 3, "strides": 2, "padding": "same"}, 14),
    ({"filters": 2, "kernel_size": 3, "strides": 2, "padding": "same", "output_padding": 1},
     14),
    ({"filters": 2, "kernel_size": 4, "strides": 3, "output_padding": 2}, 24),
])
def test_conv1d_transpose(kwargs, length):
    layer = run_layer_test(L.Conv1DTranspose, kwargs, input_data=X.astype(np.float32),
                           expected_output_shape=(2, length, kwargs["filters"]),
                           expected_num_trainable_weights=2)
    kernel = RNG.normal(size=layer.kernel.shape)
    bias = RNG.normal(size=layer.bias.shape)
    layer.set_weights([kernel, bias])
    expected = conv1d_transpose_reference(X, kernel, kwargs["strides"],
                                          kwargs.get("padding", "valid"),
                                          kwargs.get("output_padding")) + bias
    np.testing.assert_allclose(layer(X).numpy(), expected, rtol=1e-5, atol=1e-5)


def test_weight_shapes_configs_and_aliases_as_keras():
    depthwise = L.DepthwiseConv1D(3, depth_multiplier=2)
    depthwise(np.ones((1, 8, 3), np.float32))
    assert depthwise.depthwise_kernel.shape == (3, 3, 2) and depthwise.bias.shape == (6,)
    separable = L.SeparableConv1D(5, 3, depth_multiplier=2)
    separable(np.ones((1, 8, 3), np.float32))
    assert separable.pointwise_kernel.shape == (1, 6, 5)
    transpose = L.Conv1DTranspose(4, 3, strides=2)
    transpose(np.ones((1, 8, 3), np.float32))
    assert transpose.kernel.shape == (3, 4, 3)
    config = transpose.get_config()
    assert config["kernel_size"] == [3] and config["output_padding"] is None
    assert "groups" not in config
    assert depthwise.get_config()["kernel_size"] == [3]
    assert L.Convolution1DTranspose is L.Conv1DTranspose
    assert L.SeparableConvolution1D is L.SeparableConv1D


def test_channels_first():
    x = X.astype(np.float32)
    last = L.SeparableConv1D(2, 3, padding="same")
    first = L.SeparableConv1D(2, 3, padding="same", data_format="channels_first")
    last(x), first(np.moveaxis(x, 1, 2))
    first.set_weights(last.get_weights())
    np.testing.assert_allclose(np.moveaxis(first(np.moveaxis(x, 1, 2)).numpy(), 1, 2),
                               last(x).numpy(), rtol=1e-5)


def test_errors():
    with pytest.raises(ValueError, match="output_padding"):
        L.Conv1DTranspose(2, 3, strides=2, output_padding=2)
    with pytest.raises(ValueError, match="kernel_size"):
        L.DepthwiseConv1D((3, 3))
    with pytest.raises(ValueError):
        L.SeparableConv1D(2, 3)(np.ones((1, 4, 4, 1), np.float32))
