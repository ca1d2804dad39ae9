"""Convolutions: forward against loop references, gradients, TF shapes, errors."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import eagerflow as ef
from eagerflow.ops import conv_ops as conv
from eagerflow.ops.kernels import windows
from tests.ops.opcase import OpCase, check_forward, check_forward_mode, check_gradient, parametrize


# -- loop references (slow, obviously right) ----------------------------------------------
def _same_pads(size, k, s, d):
    effective = (k - 1) * d + 1
    out = -(-size // s)
    total = max((out - 1) * s + effective - size, 0)
    return total // 2, total - total // 2


def ref_conv2d(x, w, strides=(1, 1), dilations=(1, 1), padding="VALID"):
    """Direct cross-correlation, one output pixel at a time; grouped if depth allows."""
    kh, kw, cin, out_c = w.shape
    if padding == "SAME":
        padding = [_same_pads(x.shape[1 + i], w.shape[i], strides[i], dilations[i])
                   for i in range(2)]
    elif padding == "VALID":
        padding = [(0, 0), (0, 0)]
    xp = np.pad(x, ((0, 0), tuple(padding[0]), tuple(padding[1]), (0, 0)))
    groups = x.shape[3] // cin
    per_group = out_c // groups
    oh = (xp.shape[1] - (kh - 1) * dilations[0] - 1) // strides[0] + 1
    ow = (xp.shape[2] - (kw - 1) * dilations[1] - 1) // strides[1] + 1
    out = np.zeros((x.shape[0], oh, ow, out_c), x.dtype)
    for r in range(oh):
        for c in range(ow):
            rows = slice(r * strides[0], r * strides[0] + (kh - 1) * dilations[0] + 1,
                         dilations[0])
            cols = slice(c * strides[1], c * strides[1] + (kw - 1) * dilations[1] + 1,
                         dilations[1])
            for g in range(groups):
                patch = xp[:, rows, cols, g * cin:(g + 1) * cin]
                kernel = w[..., g * per_group:(g + 1) * per_group]
                out[:, r, c, g * per_group:(g + 1) * per_group] = np.einsum(
                    "nijc,ijco->no", patch, kernel)
    return out


def ref_conv2d_transpose(x, w, output_shape, stride, padding):
    """Scatters every input pixel times the kernel into the (padded) output."""
    kh, kw, out_c, _ = w.shape
    n, oh, ow, _ = output_shape
    if padding == "SAME":
        pads = [_same_pads(output_shape[1 + i], w.shape[i], stride, 1) for i in range(2)]
    else:
        pads = [(0, 0), (0, 0)]
    full = np.zeros((n, oh + sum(pads[0]) + kh, ow + sum(pads[1]) + kw, out_c), x.dtype)
    for r in range(x.shape[1]):
        for c in range(x.shape[2]):
            full[:, r * stride:r * stride + kh, c * stride:c * stride + kw] += np.einsum(
                "ni,hwoi->nhwo", x[:, r, c], w)
    return full[:, pads[0][0]:pads[0][0] + oh, pads[1][0]:pads[1][0] + ow]


def ref_depthwise(x, w, stride, padding):
    kh, kw, c, mult = w.shape
    outs = [ref_conv2d(x[..., k:k + 1], w[:, :, k:k + 1], (stride, stride), (1, 1), padding)
            for k in range(c)]
    return np.concatenate(outs, axis=-1)


def ref_conv3d(x, w, strides=(1, 1, 1), dilations=(1, 1, 1), padding="VALID"):
    """Direct 3-D cross-correlation, one output voxel at a time; grouped if depth allows."""
    kernel, cin, out_c = w.shape[:3], w.shape[3], w.shape[4]
    if padding == "SAME":
        padding = [_same_pads(x.shape[1 + i], kernel[i], strides[i], dilations[i])
                   for i in range(3)]
    else:
        padding = [(0, 0)] * 3
    xp = np.pad(x, ((0, 0), *padding, (0, 0)))
    groups, per_group = x.shape[4] // cin, out_c // (x.shape[4] // cin)
    sizes = [(xp.shape[1 + i] - (kernel[i] - 1) * dilations[i] - 1) // strides[i] + 1
             for i in range(3)]
    out = np.zeros((x.shape[0], *sizes, out_c), x.dtype)
    for index in np.ndindex(*sizes):
        window = tuple(slice(o * s, o * s + (k - 1) * d + 1, d) for o, s, k, d in zip(
            index, strides, kernel, dilations, strict=True))
        for g in range(groups):
            patch = xp[(slice(None), *window, slice(g * cin, (g + 1) * cin))]
            out[(slice(None), *index, slice(g * per_group, (g + 1) * per_group))] = np.einsum(
                "ndhwc,dhwco->no", patch, w[..., g * per_group:(g + 1) * per_group])
    return out


CASES = [
    OpCase("conv2d_same", lambda x, w: ef.nn.conv2d(x, w, 1, "SAME"),
           lambda x, w: ref_conv2d(x, w, padding="SAME"), shapes=[(2, 5, 6, 3), (3, 3, 3, 4)]),
    OpCase("conv2d_valid_dilated", lambda x, w: ef.nn.conv2d(x, w, 1, "VALID", dilations=2),
           lambda x, w: ref_conv2d(x, w, dilations=(2, 2)), shapes=[(2, 7, 6, 3), (2, 2, 3, 4)]),
    OpCase("conv2d_single_channel", lambda x, w: ef.nn.conv2d(x, w, 1, "SAME"),
           lambda x, w: ref_conv2d(x, w, padding="SAME"), shapes=[(2, 5, 5, 1), (3, 3, 1, 2)]),
    OpCase("conv2d_strided_dilated_explicit",
           lambda x, w: ef.nn.conv2d(x, w, [1, 2, 1, 1], [[0, 0], [1, 2], [0, 1], [0, 0]],
                                     dilations=[1, 2]),
           lambda x, w: ref_conv2d(x, w, (2, 1), (1, 2), [(1, 2), (0, 1)]),
           shapes=[(2, 7, 6, 2), (2, 3, 2, 3)]),
    # few output channels at stride 1: computed swapped (`windows.swapped_pads`)
    OpCase("conv2d_few_outputs", lambda x, w: ef.nn.conv2d(x, w, 1, "SAME"),
           lambda x, w: ref_conv2d(x, w, padding="SAME"), shapes=[(2, 5, 6, 4), (3, 3, 4, 1)]),
    OpCase("conv2d_few_outputs_dilated_explicit",
           lambda x, w: ef.nn.conv2d(x, w, 1, [[0, 0], [2, 0], [0, 1], [0, 0]], dilations=2),
           lambda x, w: ref_conv2d(x, w, (1, 1), (2, 2), [(2, 0), (0, 1)]),
           shapes=[(2, 6, 5, 5), (2, 3, 5, 2)]),
    OpCase("conv2d_grouped", lambda x, w: ef.nn.conv2d(x, w, 2, "VALID"),
           lambda x, w: ref_conv2d(x, w, (2, 2)), shapes=[(1, 6, 5, 4), (2, 2, 2, 6)]),
    OpCase("conv2d_nchw", lambda x, w: ef.nn.conv2d(x, w, 1, "SAME", data_format="NCHW"),
           lambda x, w: ref_conv2d(x.transpose(0, 2, 3, 1), w, padding="SAME").transpose(
               0, 3, 1, 2), shapes=[(2, 3, 4, 5), (3, 3, 3, 2)]),
    OpCase("conv1d", lambda x, w: ef.nn.conv1d(x, w, 2, "SAME"),
           lambda x, w: ref_conv2d(x[:, None], w[None], (1, 2), padding="SAME")[:, 0],
           shapes=[(2, 9, 3), (3, 3, 4)]),
    OpCase("conv2d_transpose",
           lambda x, w: ef.nn.conv2d_transpose(x, w, [2, 7, 8, 3], 2, "SAME"),
           lambda x, w: ref_conv2d_transpose(x, w, (2, 7, 8, 3), 2, "SAME"),
           shapes=[(2, 4, 4, 5), (3, 3, 3, 5)]),
    OpCase("conv2d_transpose_valid",
           lambda x, w: ef.nn.conv2d_transpose(x, w, [1, 9, 7, 2], 2, "VALID"),
           lambda x, w: ref_conv2d_transpose(x, w, (1, 9, 7, 2), 2, "VALID"),
           shapes=[(1, 4, 3, 3), (3, 2, 2, 3)]),
    OpCase("depthwise_conv2d", lambda x, w: ef.nn.depthwise_conv2d(x, w, [1, 2, 2, 1], "SAME"),
           lambda x, w: ref_depthwise(x, w, 2, "SAME"), shapes=[(2, 5, 6, 3), (3, 3, 3, 2)]),
    OpCase("conv3d_same_strided",
           lambda x, w: ef.nn.conv3d(x, w, [1, 2, 1, 2, 1], "SAME"),
           lambda x, w: ref_conv3d(x, w, (2, 1, 2), padding="SAME"),
           shapes=[(2, 5, 4, 5, 2), (3, 2, 3, 2, 3)]),
    OpCase("conv3d_valid_dilated_grouped",
           lambda x, w: ef.nn.conv3d(x, w, 1, "VALID", dilations=[2, 1, 2]),
           lambda x, w: ref_conv3d(x, w, dilations=(2, 1, 2)),
           shapes=[(1, 5, 3, 5, 4), (2, 2, 2, 2, 4)]),
    OpCase("conv3d_ncdhw", lambda x, w: ef.nn.conv3d(x, w, 1, "SAME", data_format="NCDHW"),
           lambda x, w: ref_conv3d(x.transpose(0, 2, 3, 4, 1), w, padding="SAME").transpose(
               0, 4, 1, 2, 3), shapes=[(1, 2, 3, 4, 3), (2, 2, 2, 2, 2)]),
]


@parametrize(CASES)
def test_forward(case):
    check_forward(case)


@parametrize(CASES)
def test_gradient(case):
    check_gradient(case)


@parametrize(CASES)
def test_jvp(case):
    check_forward_mode(case)


# -- output shapes: TensorFlow's formulas, worked out by hand -------------------------------
# VALID: (in - (k - 1) * d - 1) // s + 1; SAME: ceil(in / s);
# explicit: (in + before + after - (k - 1) * d - 1) // s + 1.
@pytest.mark.parametrize("in_shape, kernel, strides, dilations, padding, expected", [
    ((64, 28, 28, 1), (3, 3), 1, 1, "SAME", (64, 28, 28, 32)),
    ((64, 28, 28, 1), (3, 3), 1, 1, "VALID", (64, 26, 26, 32)),
    ((1, 28, 28, 1), (3, 3), 2, 1, "SAME", (1, 14, 14, 32)),
    ((1, 28, 28, 1), (3, 3), 2, 1, "VALID", (1, 13, 13, 32)),
    ((1, 7, 7, 1), (3, 3), 2, 1, "SAME", (1, 4, 4, 32)),
    ((1, 7, 7, 1), (3, 3), 3, 1, "VALID", (1, 2, 2, 32)),
    ((1, 10, 9, 1), (3, 3), 1, 2, "VALID", (1, 6, 5, 32)),
    ((1, 10, 9, 1), (3, 3), 1, 2, "SAME", (1, 10, 9, 32)),
    ((1, 10, 9, 1), (5, 3), [2, 1], [1, 3], "SAME", (1, 5, 9, 32)),
    ((1, 10, 9, 1), (3, 3), 2, 1, [[0, 0], [1, 1], [2, 0], [0, 0]], (1, 5, 5, 32)),
    ((1, 5, 5, 1), (5, 5), 1, 1, "VALID", (1, 1, 1, 32)),
])
def test_conv2d_output_shape_matches_tensorflow(in_shape, kernel, strides, dilations, padding,
                                                expected):
    x = ef.zeros(in_shape)
    w = ef.zeros(kernel + (in_shape[3], 32))
    assert ef.nn.conv2d(x, w, strides, padding, dilations=dilations).shape == expected


@pytest.mark.parametrize("in_shape, out_shape, strides, padding", [
    ((1, 14, 14, 4), (1, 28, 28, 2), 2, "SAME"),
    ((1, 14, 14, 4), (1, 27, 27, 2), 2, "SAME"),
    ((1, 13, 13, 4), (1, 28, 28, 2), 2, "VALID"),
    ((1, 13, 13, 4), (1, 27, 27, 2), 2, "VALID"),
    ((1, 5, 5, 4), (1, 7, 7, 2), 1, "VALID"),
])
def test_conv2d_transpose_accepts_tensorflow_shapes(in_shape, out_shape, strides, padding):
    y = ef.nn.conv2d_transpose(ef.ones(in_shape), ef.ones([3, 3, 2, 4]), out_shape, strides,
                               padding)
    assert y.shape == out_shape


def test_depthwise_and_conv1d_shapes():
    assert ef.nn.depthwise_conv2d(ef.ones([2, 9, 9, 3]), ef.ones([3, 3, 3, 4]), [1, 2, 2, 1],
                                  "VALID").shape == (2, 4, 4, 12)
    assert ef.nn.conv1d(ef.ones([2, 10, 3]), ef.ones([4, 3, 5]), 3, "SAME").shape == (2, 4, 5)
    assert ef.nn.conv1d(ef.ones([2, 3, 10]), ef.ones([4, 3, 5]), 1, "VALID",
                        data_format="NCW").shape == (2, 5, 7)


# -- behaviour ----------------------------------------------------------------------------
def test_nchw_is_nhwc_transposed():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 6, 6, 3)).astype(np.float32)
    w = rng.standard_normal((3, 3, 3, 4)).astype(np.float32)
    nhwc = ef.nn.conv2d(x, w, 2, "SAME")
    nchw = ef.nn.conv2d(x.transpose(0, 3, 1, 2), w, [1, 1, 2, 2], "SAME", data_format="NCHW")
    np.testing.assert_allclose(nchw.numpy().transpose(0, 2, 3, 1), nhwc.numpy(), rtol=1e-5)


def test_filter_only_gradient_skips_the_input_gradient(monkeypatch):
    calls = []
    original = conv._backprop_input.forward
    monkeypatch.setattr(conv._backprop_input, "forward",
                        lambda *a, **k: calls.append(1) or original(*a, **k))
    x, w = ef.ones([2, 5, 5, 1]), ef.Variable(ef.ones([3, 3, 1, 2]))
    with ef.GradientTape() as tape:
        y = ef.nn.conv2d(x, w, 1, "SAME")
    assert tape.gradient(y, w).shape == (3, 3, 1, 2)
    assert calls == []


@pytest.mark.parametrize("w_shape, dilations, pads", [
    ((3, 3, 32, 1), (1, 1), ((1, 1), (1, 1))),  # the autoencoder's output layer
    ((2, 3, 6, 3), (2, 1), ((0, 2), (1, 0))),
    ((3, 2, 5, 4), (1, 1), ((0, 0), (0, 0))),
])
def test_swapped_forwards_match_the_unswapped_ones(w_shape, dilations, pads, monkeypatch):
    rng = np.random.default_rng(3)
    strides = (1, 1)
    x = rng.standard_normal((3, 9, 8, w_shape[2]))
    w = rng.standard_normal(w_shape)
    assert windows.swapped_pads(w_shape, strides, dilations, pads, 1) is not None
    attrs = {"strides": strides, "dilations": dilations, "pads": pads, "groups": 1}
    sizes = conv._out_sizes(x.shape, w_shape, strides, dilations, pads)
    dy = rng.standard_normal((3,) + sizes + (w_shape[3],))

    def forwards():
        return (conv._conv2d.forward(x, w, **attrs),
                conv._backprop_input.forward(dy, w, x.shape, **attrs),
                conv._backprop_filter.forward(x, dy, w_shape, **attrs))

    swapped = forwards()
    monkeypatch.setattr(windows, "SMALL_OUT", 0)  # no swap: the im2col paths
    for got, want in zip(swapped, forwards(), strict=True):
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10)


def test_conv2d_float32_stays_float32_and_matches_float64():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((4, 9, 9, 8))
    w = rng.standard_normal((3, 3, 8, 16))
    y32 = ef.nn.conv2d(x.astype(np.float32), w.astype(np.float32), 1, "SAME")
    assert y32.dtype == np.float32
    np.testing.assert_allclose(y32.numpy(), ref_conv2d(x, w, padding="SAME"), rtol=1e-4,
                               atol=1e-4)


@settings(max_examples=30, deadline=None)
@given(batch=st.integers(1, 2), size=st.tuples(st.integers(1, 7), st.integers(1, 7)),
       channels=st.integers(1, 3), out_c=st.integers(1, 3),
       kernel=st.tuples(st.integers(1, 3), st.integers(1, 3)),
       strides=st.tuples(st.integers(1, 3), st.integers(1, 3)),
       dilations=st.tuples(st.integers(1, 2), st.integers(1, 2)),
       padding=st.sampled_from(["SAME", "VALID"]))
def test_conv2d_matches_reference_property(batch, size, channels, out_c, kernel, strides,
                                           dilations, padding):
    effective = [(k - 1) * d + 1 for k, d in zip(kernel, dilations, strict=True)]
    if padding == "VALID" and any(e > s for e, s in zip(effective, size, strict=True)):
        return  # no output: covered by the error test
    rng = np.random.default_rng(0)
    x = rng.standard_normal((batch,) + size + (channels,))
    w = rng.standard_normal(kernel + (channels, out_c))
    got = ef.nn.conv2d(x, w, list(strides), padding, dilations=list(dilations))
    np.testing.assert_allclose(got.numpy(), ref_conv2d(x, w, strides, dilations, padding),
                               rtol=1e-10, atol=1e-10)


# -- errors -------------------------------------------------------------------------------
def test_channel_mismatch_names_both_shapes():
    with pytest.raises(ef.errors.InvalidArgumentError,
                       match=r"input depth 3 \(input shape \(1, 5, 5, 3\)\).*in_channels 2 "
                             r"\(filter shape \(3, 3, 2, 4\)\).*\[Op:Conv2D\]"):
        ef.nn.conv2d(ef.ones([1, 5, 5, 3]), ef.ones([3, 3, 2, 4]), 1, "SAME")


@pytest.mark.parametrize("call, match", [
    (lambda: ef.nn.conv3d(ef.ones([1, 4, 5, 5, 3]), ef.ones([2, 3, 3, 2, 4]), 1, "SAME"),
     r"input depth 3 \(input shape \(1, 4, 5, 5, 3\)\).*in_channels 2 \(filter shape "
     r"\(2, 3, 3, 2, 4\)\).*\[Op:Conv3D\]"),
    (lambda: ef.nn.conv3d(ef.ones([1, 5, 5, 3]), ef.ones([2, 3, 3, 3, 4]), 1, "SAME"),
     r"must both be 5-D, got input shape \(1, 5, 5, 3\).*\[Op:Conv3D\]"),
    (lambda: ef.nn.conv3d(ef.ones([1, 2, 5, 5, 3]), ef.ones([3, 3, 3, 3, 4]), 1, "VALID"),
     r"Computed output size would be negative.*spatial dimension 0 \[Op:Conv3D\]"),
    (lambda: ef.nn.conv2d(ef.ones([5, 5, 3]), ef.ones([3, 3, 3, 4]), 1, "SAME"),
     r"must both be 4-D, got input shape \(5, 5, 3\)"),
    (lambda: ef.nn.conv2d(ef.ones([1, 5, 5, 3]), ef.ones([3, 3, 3, 4], ef.float64), 1, "SAME"),
     "same floating-point dtype, got float32 and float64"),
    (lambda: ef.nn.conv2d(ef.ones([1, 5, 5, 4]), ef.ones([3, 3, 2, 3]), 1, "SAME"),
     r"output depth 3 .* divisible by the number of groups 2"),
    (lambda: ef.nn.conv2d(ef.ones([1, 5, 5, 3]), ef.ones([3, 3, 3, 4]), 1, "FULL"),
     "padding must be 'SAME', 'VALID' or a list"),
    (lambda: ef.nn.conv2d(ef.ones([1, 5, 5, 3]), ef.ones([3, 3, 3, 4]), [2, 1, 1, 1], "SAME"),
     "strides in the batch and depth dimensions must be 1"),
    (lambda: ef.nn.conv2d(ef.ones([1, 5, 5, 3]), ef.ones([3, 3, 3, 4]), 0, "SAME"),
     r"strides must be a positive int .* Received: strides=0"),
    (lambda: ef.nn.conv2d(ef.ones([1, 5, 5, 3]), ef.ones([3, 3, 3, 4]), 1,
                          [[1, 0], [1, 1], [1, 1], [0, 0]]),
     "explicit padding of the batch and channel dimensions must be 0"),
    (lambda: ef.nn.conv2d(ef.ones([1, 2, 5, 3]), ef.ones([3, 3, 3, 4]), 1, "VALID"),
     r"Computed output size would be negative: -1 \[input_size: 2, effective_filter_size: 3"),
    (lambda: ef.nn.conv2d(ef.ones([1, 5, 5, 3]), ef.ones([3, 3, 3, 4]), 1, "SAME",
                          data_format="HWCN"),
     "data_format must be 'NHWC' or 'NCHW'"),
    (lambda: ef.nn.conv1d(ef.ones([1, 5, 3]), ef.ones([3, 2, 4]), 1, "SAME"),
     r"input depth 3 \(input shape \(1, 5, 3\)\) does not match .*\(filter shape \(3, 2, 4\)\)"),
    (lambda: ef.nn.depthwise_conv2d(ef.ones([1, 5, 5, 3]), ef.ones([3, 3, 2, 1]), 1, "SAME"),
     r"input depth 3 .* must equal the filter's in_channels 2 \(filter shape \(3, 3, 2, 1\)\)"),
    (lambda: ef.nn.conv2d_transpose(ef.ones([1, 4, 4, 5]), ef.ones([3, 3, 2, 5]), [1, 4, 4], 1),
     "output_shape must have 4 entries"),
    (lambda: ef.nn.conv2d_transpose(ef.ones([1, 4, 4, 5]), ef.ones([3, 3, 2, 6]),
                                    [1, 8, 8, 2], 2),
     r"filter shape \(3, 3, 2, 6\) .* does not fit input shape \(1, 4, 4, 5\)"),
    (lambda: ef.nn.conv2d_transpose(ef.ones([1, 4, 4, 5]), ef.ones([3, 3, 2, 5]),
                                    [1, 10, 10, 2], 2),
     r"output_shape \(1, 10, 10, 2\) is inconsistent with the input shape \(1, 4, 4, 5\)"),
])
def test_errors(call, match):
    with pytest.raises(ef.errors.InvalidArgumentError, match=match):
        call()


def test_window_helpers_reject_malformed_arguments():
    with pytest.raises(ef.errors.InvalidArgumentError, match="dilations must be a positive"):
        windows.spatial_ints([1, 2, 3], "dilations", 2, "Conv2D")
    with pytest.raises(ef.errors.InvalidArgumentError, match="padding must be"):
        windows.parse_padding([[1, 2, 3]], 2, "Conv2D")


def test_conv3d_refuses_a_filter_without_depth():
    x = np.zeros((1, 4, 4, 4, 1), np.float32)
    with pytest.raises(ef.errors.InvalidArgumentError, match="non-empty depth axis"):
        ef.nn.conv3d(x, np.zeros((0, 1, 1, 1, 2), np.float32), [1] * 5, "VALID")
