"""The compiled convolution kernels (eagerflow/ops/kernels/conv_jit.py) against the NumPy
forwards of Conv2D, Conv2DBackpropInput and Conv2DBackpropFilter, on every path a kernel
takes (packed BLAS blocks, dot products for few output channels, direct grouped loops,
depthwise), and the gradients of the convolutions built on them under the numba set."""

import numpy as np
import pytest

pytest.importorskip("numba")

import eagerflow as ef  # noqa: E402 - after the skip: these tests need numba
from eagerflow.ops import conv_ops  # noqa: E402, F401 - registers the convolution ops
from eagerflow.ops.kernels import conv_jit, kernel_sets, windows  # noqa: E402

# (input shape, filter shape, strides, dilations, padding): the filter's in_channels
# divide the input depth (groups = depth / in_channels).
CASES = {
    "packed": ((2, 7, 6, 5), (3, 3, 5, 6), (1, 1), (1, 1), "SAME"),
    "packed-strided-dilated": ((3, 9, 8, 5), (3, 2, 5, 7), (2, 1), (1, 2), "VALID"),
    "packed-explicit-pads": ((1, 6, 7, 5), (2, 3, 5, 6), (1, 2), (2, 1), ((2, 0), (1, 3))),
    "few-outputs": ((2, 8, 7, 6), (3, 3, 6, 1), (1, 1), (1, 1), "SAME"),
    "few-outputs-strided": ((1, 9, 9, 5), (3, 3, 5, 3), (2, 2), (1, 1), "SAME"),
    "few-outputs-dilated": ((2, 9, 8, 5), (3, 3, 5, 2), (1, 1), (2, 1), "SAME"),
    "few-outputs-valid": ((3, 7, 8, 6), (2, 3, 6, 1), (1, 1), (1, 1), "VALID"),
    "few-outputs-wide-pads": ((1, 5, 6, 4), (2, 2, 4, 1), (1, 1), (1, 1), ((2, 0), (0, 3))),
    "one-input-channel": ((2, 6, 6, 1), (3, 3, 1, 8), (1, 1), (1, 1), "SAME"),
    "one-input-channel-strided": ((3, 7, 7, 1), (3, 3, 1, 4), (2, 2), (1, 1), "SAME"),
    "grouped": ((2, 6, 5, 6), (3, 3, 3, 10), (1, 1), (1, 1), "SAME"),
    "depthwise": ((1, 7, 6, 4), (3, 3, 1, 4), (2, 2), (1, 1), "SAME"),
    "depthwise-multiplier": ((2, 5, 6, 3), (3, 2, 1, 6), (1, 1), (2, 1), "VALID"),
    "one-by-one": ((2, 4, 3, 7), (1, 1, 7, 5), (1, 1), (1, 1), "VALID"),
}


def _arrays(case, dtype):
    x_shape, w_shape, strides, dilations, padding = CASES[case]
    rng = np.random.default_rng(len(case))
    out_sizes, pads = windows.resolve(x_shape[1:3], w_shape[:2], strides, dilations, padding)
    attrs = {"strides": strides, "dilations": dilations, "pads": pads,
             "groups": x_shape[3] // w_shape[2]}
    x = rng.normal(size=x_shape).astype(dtype)
    w = rng.normal(size=w_shape).astype(dtype)
    dy = rng.normal(size=(x_shape[0],) + tuple(out_sizes) + (w_shape[3],)).astype(dtype)
    return x, w, dy, attrs


def _compare(op_name, kernel, args, attrs, dtype):
    want = kernel_sets.numpy_forward(op_name)(*args, **attrs)
    got = kernel(*args, **attrs)
    assert got.shape == want.shape and got.dtype == want.dtype
    tol = 2e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * np.abs(want).max())


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", sorted(CASES))
def test_kernels_match_the_numpy_forwards(case, dtype):
    x, w, dy, attrs = _arrays(case, dtype)
    _compare("Conv2D", conv_jit.conv2d, (x, w), attrs, dtype)
    _compare("Conv2DBackpropInput", conv_jit.backprop_input, (dy, w),
             {"input_shape": x.shape, **attrs}, dtype)
    _compare("Conv2DBackpropFilter", conv_jit.backprop_filter, (x, dy),
             {"filter_shape": w.shape, **attrs}, dtype)


@pytest.mark.parametrize("case", ["packed", "packed-explicit-pads"])
def test_many_blocks_and_views(case, monkeypatch):
    monkeypatch.setattr(conv_jit, "BLOCK_BYTES", 1)  # one image per BLAS block
    x, w, dy, attrs = _arrays(case, np.float64)
    x = np.asfortranarray(x)  # not C-contiguous: the kernels take any layout
    _compare("Conv2D", conv_jit.conv2d, (x, w), attrs, np.float64)
    _compare("Conv2DBackpropInput", conv_jit.backprop_input, (dy, w[::-1, ::-1][::-1, ::-1]),
             {"input_shape": x.shape, **attrs}, np.float64)
    _compare("Conv2DBackpropFilter", conv_jit.backprop_filter, (x, dy),
             {"filter_shape": w.shape, **attrs}, np.float64)


def test_the_swap_applies_to_stride_1_convolutions_with_few_outputs_only():
    same = ((1, 1), (1, 1))
    assert windows.swapped_pads((3, 3, 32, 1), (1, 1), (1, 1), same, 1) == same
    assert windows.swapped_pads((3, 3, 8, 2), (1, 1), (2, 1), same, 1) == ((3, 3), (1, 1))
    assert windows.swapped_pads((3, 3, 32, 1), (2, 2), (1, 1), same, 1) is None  # strided
    assert windows.swapped_pads((3, 3, 32, 8), (1, 1), (1, 1), same, 1) is None  # many outputs
    assert windows.swapped_pads((3, 3, 4, 1), (1, 1), (1, 1), same, 2) is None  # grouped
    # a padding wider than the window: the flipped filter would need a negative one
    assert windows.swapped_pads((2, 2, 4, 1), (1, 1), (1, 1), ((2, 0), (0, 3)), 1) is None


def test_other_dtypes_run_the_numpy_forward():
    x, w, dy, attrs = _arrays("packed", np.float16)
    np.testing.assert_array_equal(conv_jit.conv2d(x, w, **attrs),
                                  kernel_sets.numpy_forward("Conv2D")(x, w, **attrs))


def test_nan_and_inf_propagate():
    x, w, dy, attrs = _arrays("packed", np.float32)
    x[0, 2, 3, 1], x[1, 0, 0, 0] = np.nan, np.inf
    got, want = conv_jit.conv2d(x, w, **attrs), kernel_sets.numpy_forward("Conv2D")(x, w, **attrs)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_array_equal(np.isinf(got), np.isinf(want))


def test_gradients_of_every_convolution(numba_kernels):
    rng = np.random.default_rng(0)
    x4, x3, x5 = (rng.normal(size=s) for s in [(1, 5, 4, 6), (2, 6, 5), (1, 3, 4, 3, 5)])
    ef.testing.check_gradients(
        lambda x, w: ef.nn.conv2d(x, w, 2, "SAME", dilations=1), x4, rng.normal(size=(3, 3, 6, 5)))
    ef.testing.check_gradients(
        lambda x, w: ef.nn.conv2d(x, w, 1, "VALID", dilations=2), x4,
        rng.normal(size=(2, 2, 3, 6)), order=1)  # grouped, 2 groups
    ef.testing.check_gradients(
        lambda x, w: ef.nn.conv2d_transpose(x, w, [1, 10, 8, 5], 2), x4,
        rng.normal(size=(3, 3, 5, 6)))
    ef.testing.check_gradients(  # few outputs at stride 1: the swapped one-channel GEMMs
        lambda x, w: ef.nn.conv2d(x, w, 1, "SAME"), x4, rng.normal(size=(3, 3, 6, 1)))
    ef.testing.check_gradients(  # one input channel: NumPy's window matrix on one thread
        lambda x, w: ef.nn.conv2d(x, w, 1, "SAME"), x4[..., :1], rng.normal(size=(3, 3, 1, 4)))
    ef.testing.check_gradients(
        lambda x, w: ef.nn.depthwise_conv2d(x, w, 1, "SAME"), x4, rng.normal(size=(3, 3, 6, 2)),
        order=1)
    ef.testing.check_gradients(
        lambda x, w: ef.nn.conv1d(x, w, 1, "SAME"), x3, rng.normal(size=(3, 5, 1)), order=1)
    ef.testing.check_gradients(
        lambda x, w: ef.nn.conv3d(x, w, 1, "SAME"), x5, rng.normal(size=(2, 2, 2, 5, 6)),
        order=1)
