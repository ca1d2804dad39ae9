"""DepthwiseConv2D and SeparableConv2D: the layer contract, values against a direct NumPy
transcription (equal to Keras 3.15's outputs with copied weights when written), and errors."""

import numpy as np
import pytest

import eagerflow as ef
from tests.layers.layer_contract import run_layer_test

RNG = np.random.default_rng(0)


def _depthwise(x, kernel, stride=1, padding="valid", dilation=1):
    """Direct depthwise convolution (NHWC): channel k * m + j is input k with filter j."""
    kh, kw, channels, multiplier = kernel.shape
    span_h, span_w = (kh - 1) * dilation + 1, (kw - 1) * dilation + 1
    if padding == "same":
        out_h, out_w = -(-x.shape[1] // stride), -(-x.shape[2] // stride)
        pad_h = max((out_h - 1) * stride + span_h - x.shape[1], 0)
        pad_w = max((out_w - 1) * stride + span_w - x.shape[2], 0)
        x = np.pad(x, [(0, 0), (pad_h // 2, pad_h - pad_h // 2),
                       (pad_w // 2, pad_w - pad_w // 2), (0, 0)])
    out_h = (x.shape[1] - span_h) // stride + 1
    out_w = (x.shape[2] - span_w) // stride + 1
    out = np.zeros((x.shape[0], out_h, out_w, channels * multiplier))
    for i in range(out_h):
        for j in range(out_w):
            patch = x[:, i * stride:i * stride + span_h:dilation,
                      j * stride:j * stride + span_w:dilation, :]
            out[:, i, j, :] = np.einsum("bhwc,hwcm->bcm", patch, kernel).reshape(
                x.shape[0], -1)
    return out


def test_depthwise_layer_contract_and_values():
    kernel = RNG.standard_normal((3, 3, 2, 2))
    bias = RNG.standard_normal(4)
    x = RNG.standard_normal((2, 7, 7, 2)).astype("float32")
    expected = _depthwise(x.astype(np.float64), kernel, stride=2, padding="same") + bias
    run_layer_test(ef.layers.DepthwiseConv2D,
                   {"kernel_size": 3, "strides": 2, "padding": "same", "depth_multiplier": 2},
                   input_data=x, expected_output_shape=(2, 4, 4, 4),
                   expected_num_trainable_weights=2,
                   weights=[kernel.astype("float32"), bias.astype("float32")],
                   expected_output=expected, gradient_order=1)


def test_separable_layer_contract_and_values():
    depthwise = RNG.standard_normal((3, 2, 3, 2))
    pointwise = RNG.standard_normal((1, 1, 6, 4))
    bias = RNG.standard_normal(4)
    x = RNG.standard_normal((2, 8, 7, 3)).astype("float32")
    expected = np.einsum("bhwc,cf->bhwf", _depthwise(x.astype(np.float64), depthwise,
                                                     dilation=2), pointwise[0, 0]) + bias
    run_layer_test(ef.layers.SeparableConv2D,
                   {"filters": 4, "kernel_size": (3, 2), "dilation_rate": 2,
                    "depth_multiplier": 2, "activation": "linear"},
                   input_data=x, expected_output_shape=(2, 4, 5, 4),
                   expected_num_trainable_weights=3,
                   weights=[w.astype("float32") for w in (depthwise, pointwise, bias)],
                   expected_output=expected, gradient_order=1)


def test_channels_first_equals_channels_last():
    x = RNG.standard_normal((1, 6, 6, 3)).astype("float32")
    last = ef.layers.SeparableConv2D(2, 3, padding="same", use_bias=False)
    first = ef.layers.SeparableConv2D(2, 3, padding="same", use_bias=False,
                                      data_format="channels_first")
    last(x)
    first(np.transpose(x, (0, 3, 1, 2)))
    first.set_weights(last.get_weights())
    np.testing.assert_allclose(first(np.transpose(x, (0, 3, 1, 2))).numpy(),
                               np.transpose(last(x).numpy(), (0, 3, 1, 2)), rtol=1e-5,
                               atol=1e-6)
    assert first.compute_output_shape((None, 3, 6, 6)) == (None, 2, 6, 6)


@pytest.mark.parametrize("make, message", [
    (lambda: ef.layers.DepthwiseConv2D(3, depth_multiplier=0), "depth_multiplier"),
    (lambda: ef.layers.DepthwiseConv2D(3, strides=2, dilation_rate=2), "dilation_rate > 1"),
    (lambda: ef.layers.SeparableConv2D(0, 3), "filters"),
    (lambda: ef.layers.SeparableConv2D(2, 3, padding="causal"), "padding"),
])
def test_bad_arguments(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_bad_inputs():
    with pytest.raises(ValueError, match="expected ndim=4"):
        ef.layers.DepthwiseConv2D(3)(ef.ones([1, 5, 5]))
