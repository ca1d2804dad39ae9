"""Conv1D, Conv2D, Conv2DTranspose against loop-based NumPy references."""

import numpy as np
import pytest

import eagerflow as ef
from tests.layers.layer_contract import run_layer_test

RNG = np.random.default_rng(0)


def conv2d_reference(x, kernel, stride=1, padding="valid"):
    kh, kw = kernel.shape[:2]
    if padding == "same":
        out_h, out_w = -(-x.shape[1] // stride), -(-x.shape[2] // stride)
        pad_h = max((out_h - 1) * stride + kh - x.shape[1], 0)
        pad_w = max((out_w - 1) * stride + kw - x.shape[2], 0)
        x = np.pad(x, ((0, 0), (pad_h // 2, pad_h - pad_h // 2),
                       (pad_w // 2, pad_w - pad_w // 2), (0, 0)))
    out_h = (x.shape[1] - kh) // stride + 1
    out_w = (x.shape[2] - kw) // stride + 1
    out = np.zeros((x.shape[0], out_h, out_w, kernel.shape[-1]))
    for i in range(out_h):
        for j in range(out_w):
            patch = x[:, i * stride:i * stride + kh, j * stride:j * stride + kw, :]
            out[:, i, j, :] = np.tensordot(patch, kernel, axes=([1, 2, 3], [0, 1, 2]))
    return out


def test_conv2d_contract_and_reference():
    x = RNG.standard_normal((2, 5, 5, 2)).astype("float32")
    kernel = RNG.standard_normal((3, 3, 2, 3)).astype("float32")
    bias = RNG.standard_normal(3).astype("float32")
    run_layer_test(ef.layers.Conv2D, {"filters": 3, "kernel_size": 3, "activation": "relu"},
                   input_data=x, expected_output_shape=(2, 3, 3, 3),
                   expected_num_trainable_weights=2, weights=[kernel, bias],
                   expected_output=np.maximum(conv2d_reference(x, kernel) + bias, 0),
                   gradient_order=1, rtol=1e-4)


def test_conv2d_same_padding_strides():
    x = RNG.standard_normal((1, 6, 6, 1)).astype("float32")
    kernel = RNG.standard_normal((3, 3, 1, 2)).astype("float32")
    run_layer_test(ef.layers.Conv2D, {"filters": 2, "kernel_size": (3, 3), "strides": 2,
                                      "padding": "same", "use_bias": False},
                   input_data=x, expected_output_shape=(1, 3, 3, 2),
                   expected_num_trainable_weights=1, weights=[kernel],
                   expected_output=conv2d_reference(x, kernel, 2, "same"), rtol=1e-4)


def test_conv2d_groups_and_channels_first():
    layer = ef.layers.Conv2D(4, 3, groups=2)
    layer(ef.ones([1, 5, 5, 6]))
    assert layer.kernel.shape == (3, 3, 3, 4)
    x = RNG.standard_normal((1, 2, 5, 5)).astype("float32")
    first = ef.layers.Conv2D(3, 3, data_format="channels_first")
    out = first(x)
    kernel, bias = first.get_weights()
    expected = conv2d_reference(x.transpose(0, 2, 3, 1), kernel) + bias
    np.testing.assert_allclose(out.numpy(), expected.transpose(0, 3, 1, 2), rtol=1e-4,
                               atol=1e-5)


def test_conv1d_contract_causal():
    x = RNG.standard_normal((2, 5, 2)).astype("float32")
    kernel = RNG.standard_normal((2, 2, 3)).astype("float32")
    padded = np.pad(x, ((0, 0), (1, 0), (0, 0)))
    expected = np.stack([np.tensordot(padded[:, t:t + 2], kernel, axes=([1, 2], [0, 1]))
                         for t in range(5)], 1)
    run_layer_test(ef.layers.Conv1D, {"filters": 3, "kernel_size": 2, "padding": "causal",
                                      "use_bias": False},
                   input_data=x, expected_output_shape=(2, 5, 3),
                   expected_num_trainable_weights=1, weights=[kernel],
                   expected_output=expected, rtol=1e-4)


def conv2d_transpose_reference(x, kernel, stride, out_h, out_w, pad_top=0, pad_left=0):
    """Scatters each input pixel times the kernel into the output, then crops."""
    kh, kw, filters, _ = kernel.shape
    full = np.zeros((x.shape[0], (x.shape[1] - 1) * stride + kh + out_h,
                     (x.shape[2] - 1) * stride + kw + out_w, filters))
    for i in range(x.shape[1]):
        for j in range(x.shape[2]):
            contribution = np.einsum("bc,hwfc->bhwf", x[:, i, j, :], kernel)
            full[:, i * stride:i * stride + kh, j * stride:j * stride + kw, :] += contribution
    return full[:, pad_top:pad_top + out_h, pad_left:pad_left + out_w, :]


def test_conv2d_transpose_contract_and_reference():
    x = RNG.standard_normal((2, 3, 3, 2)).astype("float32")
    kernel = RNG.standard_normal((3, 3, 4, 2)).astype("float32")
    bias = RNG.standard_normal(4).astype("float32")
    expected = conv2d_transpose_reference(x, kernel, 2, 7, 7) + bias
    run_layer_test(ef.layers.Conv2DTranspose, {"filters": 4, "kernel_size": 3, "strides": 2},
                   input_data=x, expected_output_shape=(2, 7, 7, 4),
                   expected_num_trainable_weights=2, weights=[kernel, bias],
                   expected_output=expected, gradient_order=1, rtol=1e-4)


def test_conv2d_transpose_same_padding_and_output_padding():
    x = RNG.standard_normal((1, 4, 4, 1)).astype("float32")
    same = ef.layers.Conv2DTranspose(2, 3, strides=2, padding="same")
    assert same(x).shape == (1, 8, 8, 2)
    padded = ef.layers.Conv2DTranspose(2, 3, strides=2, output_padding=1)
    assert padded(x).shape == (1, 10, 10, 2)
    with pytest.raises(ValueError, match="output_padding"):
        ef.layers.Conv2DTranspose(2, 3, strides=2, output_padding=2)
    with pytest.raises(ValueError, match="does not support groups"):
        ef.layers.Conv2DTranspose(2, 3, groups=2)


def test_conv_argument_errors():
    with pytest.raises(ValueError, match="filters=0"):
        ef.layers.Conv2D(0, 3)
    with pytest.raises(ValueError, match=r"kernel_size=\(3, 3, 3\)"):
        ef.layers.Conv2D(2, (3, 3, 3))
    with pytest.raises(ValueError, match="padding='full'"):
        ef.layers.Conv2D(2, 3, padding="full")
    with pytest.raises(ValueError, match="padding='causal'"):
        ef.layers.Conv2D(2, 3, padding="causal")
    with pytest.raises(ValueError, match="divisible by the number of groups"):
        ef.layers.Conv2D(3, 3, groups=2)
    with pytest.raises(ValueError, match="in conjunction with `dilation_rate > 1`"):
        ef.layers.Conv2D(2, 3, strides=2, dilation_rate=2)
    with pytest.raises(ValueError, match="input channels of Conv2D must be divisible"):
        ef.layers.Conv2D(4, 3, groups=2)(ef.ones([1, 5, 5, 3]))
    with pytest.raises(ValueError, match="channel dimension of the inputs to Conv2D"):
        ef.layers.Conv2D(4, 3)(ef.layers.Input(shape=(5, 5, None)))
    with pytest.raises(ValueError, match="expected ndim=4, found ndim=3"):
        ef.layers.Conv2D(4, 3)(ef.ones([5, 5, 3]))
    layer = ef.layers.Conv2D(4, 3)
    layer(ef.ones([1, 5, 5, 3]))
    with pytest.raises(ValueError, match=r"value 3 .*shape \(1, 5, 5, 2\)"):
        layer(ef.ones([1, 5, 5, 2]))


def test_conv3d_contract_and_reference():
    from tests.ops.test_conv_ops import ref_conv3d

    x = RNG.standard_normal((1, 4, 3, 4, 2)).astype("float32")
    kernel = RNG.standard_normal((2, 2, 3, 2, 3)).astype("float32")
    bias = RNG.standard_normal(3).astype("float32")
    expected = ref_conv3d(x, kernel, (2, 1, 1), padding="SAME") + bias
    run_layer_test(ef.layers.Conv3D, {"filters": 3, "kernel_size": (2, 2, 3),
                                      "strides": (2, 1, 1), "padding": "same"},
                   input_data=x, expected_output_shape=(1, 2, 3, 4, 3),
                   expected_num_trainable_weights=2, weights=[kernel, bias],
                   expected_output=expected, rtol=1e-4)
    assert ef.layers.Conv3D(2, 3).compute_output_shape((None, 5, 6, 7, 1)) == (
        None, 3, 4, 5, 2)
    with pytest.raises(ValueError, match=r"kernel_size=\(3, 3\)"):
        ef.layers.Conv3D(2, (3, 3))
    with pytest.raises(ValueError, match="expected ndim=5, found ndim=4"):
        ef.layers.Conv3D(2, 3)(ef.ones([1, 5, 5, 3]))


def test_binary_crossentropy_of_a_sigmoid_conv_output_uses_its_logits():
    # An autoencoder's output layer: Keras 3.15 (TensorFlow 2.21) computes the loss from
    # the conv's logits (75 at every pixel here), giving 37.5; from the probabilities,
    # clipped to 1 - 1e-7, it would be -log(1e-7) / 2 = 8.06.
    x = np.array([[[[1.0], [-2.0]], [[0.5], [3.0]]]], np.float32)
    y = np.array([[[[1.0], [0.0]], [[0.0], [1.0]]]], np.float32)
    layer = ef.layers.Conv2D(1, 3, activation="sigmoid", padding="same",
                             kernel_initializer=ef.initializers.Constant(30.0))
    loss = ef.losses.BinaryCrossentropy()(y, layer(x))
    np.testing.assert_allclose(float(loss), 37.5, rtol=1e-6)
