"""Pooling: forward against loop references, gradients (incl. ties), TF shapes, errors."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import eagerflow as ef
from eagerflow.ops import pooling
from tests.ops.opcase import OpCase, check_forward, check_forward_mode, check_gradient, parametrize


def ref_pool(x, ksize, strides, padding, reduce):
    """Loops over output pixels; SAME windows keep only their in-bounds cells."""
    n, h, w, c = x.shape
    if padding == "SAME":
        out = (-(-h // strides[0]), -(-w // strides[1]))
        before = [max((o - 1) * s + k - size, 0) // 2
                  for o, s, k, size in zip(out, strides, ksize, (h, w), strict=True)]
    else:
        out = ((h - ksize[0]) // strides[0] + 1, (w - ksize[1]) // strides[1] + 1)
        before = [0, 0]
    result = np.zeros((n,) + out + (c,), x.dtype)
    for r in range(out[0]):
        for col in range(out[1]):
            top, left = r * strides[0] - before[0], col * strides[1] - before[1]
            window = x[:, max(top, 0):top + ksize[0], max(left, 0):left + ksize[1]]
            result[:, r, col] = reduce(window, axis=(1, 2))
    return result


def _pool_grad(pool):
    """The gradient of `pool` with an input-dependent output gradient `u`."""
    def fn(x, u):
        with ef.GradientTape() as tape:
            tape.watch(x)
            y = pool(x)
        return tape.gradient(y, x, output_gradients=u)
    return fn


def _max22(x):
    return ef.nn.max_pool2d(x, 2, 2, "SAME")


def _bias_relu_pool(ksize, strides, padding):
    def fn(x, b):
        return pooling.max_pool2d_bias_relu(x, b, ksize, strides, padding)

    def reference(x, b):
        pair = [ksize] * 2 if isinstance(ksize, int) else ksize
        steps = [strides] * 2 if isinstance(strides, int) else strides
        return ref_pool(np.maximum(x + b, 0), pair, steps, padding, np.max)
    return fn, reference


def _bias_relu_pool_grads(x, b, u):
    """Both gradients of the fused op with an input-dependent output gradient `u`, and so
    the gradient of MaxPoolBiasReluGrad."""
    with ef.GradientTape() as tape:
        tape.watch([x, b])
        y = pooling.max_pool2d_bias_relu(x, b, 2, 2, "SAME")
    return tape.gradient(y, [x, b], output_gradients=u)


CASES = [
    OpCase("max_pool2d_valid", lambda x: ef.nn.max_pool2d(x, 2, 2, "VALID"),
           lambda x: ref_pool(x, (2, 2), (2, 2), "VALID", np.max), shapes=[(2, 6, 4, 3)]),
    # Windows that leave a last row and column out: their gradient must be zero there.
    OpCase("max_pool2d_valid_remainder", lambda x: ef.nn.max_pool2d(x, 2, 2, "VALID"),
           lambda x: ref_pool(x, (2, 2), (2, 2), "VALID", np.max), shapes=[(1, 5, 7, 2)]),
    OpCase("max_pool2d_same_overlapping", lambda x: ef.nn.max_pool2d(x, 3, [1, 2], "SAME"),
           lambda x: ref_pool(x, (3, 3), (1, 2), "SAME", np.max), shapes=[(2, 5, 6, 2)]),
    # MaxPoolGrad with a gradient that depends on the input, and so MaxPoolGradGrad.
    OpCase("max_pool2d_grad", _pool_grad(_max22), shapes=[(1, 5, 5, 2), (1, 3, 3, 2)]),
    OpCase("avg_pool2d_valid", lambda x: ef.nn.avg_pool2d(x, [2, 3], [2, 1], "VALID"),
           lambda x: ref_pool(x, (2, 3), (2, 1), "VALID", np.mean), shapes=[(2, 6, 5, 3)]),
    OpCase("avg_pool2d_same", lambda x: ef.nn.avg_pool2d(x, 3, 2, "SAME"),
           lambda x: ref_pool(x, (3, 3), (2, 2), "SAME", np.mean), shapes=[(2, 6, 5, 3)]),
    OpCase("avg_pool2d_grad", _pool_grad(lambda x: ef.nn.avg_pool2d(x, 2, 1, "SAME")),
           shapes=[(1, 4, 3, 2), (1, 4, 3, 2)]),
    # relu(max pool + bias), fused: tiled 2x2 windows (the compiled fast path), a remainder
    # row and column, and overlapping padded windows.
    OpCase("max_pool2d_bias_relu_tiled", *_bias_relu_pool(2, 2, "VALID"),
           shapes=[(2, 6, 4, 3), (3,)], domain=(-1.0, 1.0)),
    OpCase("max_pool2d_bias_relu_remainder", *_bias_relu_pool(2, 2, "VALID"),
           shapes=[(1, 5, 7, 2), (2,)], domain=(-1.0, 1.0)),
    OpCase("max_pool2d_bias_relu_same_overlapping", *_bias_relu_pool(3, [1, 2], "SAME"),
           shapes=[(2, 5, 6, 2), (2,)], domain=(-1.0, 1.0)),
    OpCase("max_pool2d_bias_relu_grad", _bias_relu_pool_grads,
           shapes=[(1, 5, 5, 2), (2,), (1, 3, 3, 2)], domain=(-1.0, 1.0)),
    OpCase("max_pool1d", lambda x: ef.nn.max_pool1d(x, 3, 2, "SAME"),
           lambda x: ref_pool(x[:, None], (1, 3), (1, 2), "SAME", np.max)[:, 0],
           shapes=[(2, 7, 3)]),
    OpCase("avg_pool1d_ncw", lambda x: ef.nn.avg_pool1d(x, 2, 2, "VALID", data_format="NCW"),
           lambda x: ref_pool(x.transpose(0, 2, 1)[:, None], (1, 2), (1, 2), "VALID",
                              np.mean)[:, 0].transpose(0, 2, 1), shapes=[(2, 3, 6)]),
    OpCase("max_pool2d_nchw", lambda x: ef.nn.max_pool2d(x, 2, 2, "SAME", data_format="NCHW"),
           lambda x: ref_pool(x.transpose(0, 2, 3, 1), (2, 2), (2, 2), "SAME",
                              np.max).transpose(0, 3, 1, 2), shapes=[(2, 3, 5, 4)]),
    OpCase("global_avg_pool2d", ef.nn.global_avg_pool2d, lambda x: x.mean(axis=(1, 2)),
           shapes=[(2, 3, 4, 5)]),
    OpCase("global_max_pool2d_nchw",
           lambda x: ef.nn.global_max_pool2d(x, keepdims=True, data_format="NCHW"),
           lambda x: x.max(axis=(2, 3), keepdims=True), shapes=[(2, 3, 4, 5)]),
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


@pytest.mark.parametrize("in_shape, ksize, strides, padding, expected", [
    ((64, 28, 28, 32), 2, 2, "VALID", (64, 14, 14, 32)),
    ((1, 28, 28, 1), 3, 2, "VALID", (1, 13, 13, 1)),
    ((1, 28, 28, 1), 3, 2, "SAME", (1, 14, 14, 1)),
    ((1, 7, 7, 1), 2, 2, "VALID", (1, 3, 3, 1)),
    ((1, 7, 7, 1), 2, 2, "SAME", (1, 4, 4, 1)),
    ((1, 7, 9, 1), [3, 2], [1, 3], "SAME", (1, 7, 3, 1)),
    ((1, 7, 9, 1), 2, 2, [[0, 0], [1, 1], [0, 1], [0, 0]], (1, 4, 5, 1)),
])
def test_output_shapes_match_tensorflow(in_shape, ksize, strides, padding, expected):
    assert ef.nn.max_pool2d(ef.zeros(in_shape), ksize, strides, padding).shape == expected
    if isinstance(padding, str):
        assert ef.nn.avg_pool2d(ef.zeros(in_shape), ksize, strides, padding).shape == expected


def test_max_pool_gradient_goes_to_the_first_maximum_only():
    x = ef.constant([[[[0.0], [0.0]], [[0.0], [0.0]]]])  # one 2x2 window of ties
    with ef.GradientTape() as tape:
        tape.watch(x)
        y = ef.nn.max_pool2d(x, 2, 2, "VALID")
    np.testing.assert_array_equal(tape.gradient(y, x).numpy().ravel(), [1.0, 0.0, 0.0, 0.0])


def test_same_avg_pool_averages_valid_cells_only():
    y = ef.nn.avg_pool2d(ef.ones([1, 3, 3, 1]) * 6.0, 2, 2, "SAME")
    np.testing.assert_array_equal(y.numpy().ravel(), [6.0, 6.0, 6.0, 6.0])


def test_max_pool_of_integers():
    y = ef.nn.max_pool2d(ef.reshape(ef.range(-16, 0), [1, 4, 4, 1]), 3, 2, "SAME")
    np.testing.assert_array_equal(y.numpy().ravel(), [-6, -5, -2, -1])


@settings(max_examples=30, deadline=None)
@given(size=st.tuples(st.integers(1, 7), st.integers(1, 7)),
       ksize=st.tuples(st.integers(1, 3), st.integers(1, 3)),
       strides=st.tuples(st.integers(1, 3), st.integers(1, 3)),
       padding=st.sampled_from(["SAME", "VALID"]))
def test_pools_match_reference_property(size, ksize, strides, padding):
    if padding == "VALID" and any(k > s for k, s in zip(ksize, size, strict=True)):
        return
    x = np.random.default_rng(0).standard_normal((2,) + size + (2,))
    for pool, reduce in ((ef.nn.max_pool2d, np.max), (ef.nn.avg_pool2d, np.mean)):
        got = pool(x, list(ksize), list(strides), padding)
        np.testing.assert_allclose(got.numpy(), ref_pool(x, ksize, strides, padding, reduce),
                                   rtol=1e-12)


@pytest.mark.parametrize("call, match", [
    (lambda: ef.nn.max_pool2d(ef.ones([4, 4, 1]), 2, 2, "VALID"), "input must be 4-D"),
    (lambda: ef.nn.avg_pool2d(ef.ones([1, 4, 4, 1], ef.int32), 2, 2, "VALID"),
     "AvgPool needs a floating-point input, got int32"),
    (lambda: ef.nn.avg_pool2d(ef.ones([1, 4, 4, 1]), 2, 2, [[0, 0], [1, 1], [1, 1], [0, 0]]),
     "supports padding 'SAME' or 'VALID' only"),
    (lambda: ef.nn.max_pool2d(ef.ones([1, 4, 4, 1]), 2, 2, [[0, 0], [2, 0], [0, 0], [0, 0]]),
     "must be smaller than the window"),
    (lambda: ef.nn.max_pool2d(ef.ones([1, 4, 4, 1]), 2, 2, "VALID", data_format="NWC"),
     "data_format must be 'NHWC' or 'NCHW'"),
    (lambda: ef.nn.max_pool2d(ef.ones([1, 4, 4, 1]), 5, 1, "VALID"),
     "Computed output size would be negative"),
    (lambda: ef.nn.max_pool2d(ef.ones([1, 4, 4, 1]), [1, 2, 2, 2], 1, "VALID"),
     "ksize in the batch and depth dimensions must be 1"),
    (lambda: ef.nn.max_pool1d(ef.ones([1, 4, 4, 1]), 2, 2, "VALID"), "input must be 3-D"),
    (lambda: ef.nn.avg_pool1d(ef.ones([1, 4, 1]), 2, 2, "VALID", data_format="NHWC"),
     "data_format must be 'NWC' or 'NCW'"),
    (lambda: ef.nn.global_avg_pool2d(ef.ones([4, 4])), "input must be 4-D"),
    (lambda: ef.nn.global_max_pool2d(ef.ones([1, 4, 4, 1]), data_format="NWC"),
     "data_format must be 'NHWC' or 'NCHW'"),
])
def test_errors(call, match):
    with pytest.raises(ef.errors.InvalidArgumentError, match=match):
        call()


@pytest.mark.parametrize("call, match", [
    (lambda: pooling.max_pool2d_bias_relu(ef.ones([1, 4, 4, 2]), ef.ones([3]), 2, 2, "VALID"),
     r"one bias per channel of its dtype: input float32 \(1, 4, 4, 2\), bias float32 \(3,\) "
     r"\(expected \(2,\)\)"),
    (lambda: pooling.max_pool2d_bias_relu(ef.ones([1, 4, 4, 2]), ef.ones([2], ef.float64), 2,
                                          2, "VALID"), "bias float64"),
    (lambda: pooling.max_pool2d_bias_relu(ef.ones([1, 4, 4, 2], ef.int32),
                                          ef.ones([2], ef.int32), 2, 2, "VALID"),
     "needs a float input"),
    (lambda: pooling.max_pool2d_bias_relu(ef.ones([4, 4, 2]), ef.ones([2]), 2, 2, "VALID"),
     "input must be 4-D"),
    (lambda: pooling.max_pool2d_bias_relu(ef.ones([1, 4, 4, 2]), ef.ones([2]), 5, 1, "VALID"),
     "Computed output size would be negative"),
])
def test_fused_pool_errors(call, match):
    with pytest.raises(ef.errors.InvalidArgumentError, match=match):
        call()


@pytest.mark.parametrize("padding", ["VALID", "SAME"])
def test_fused_pool_is_the_three_ops_eagerly_on_a_tape_and_traced(padding):
    rng = np.random.default_rng(5)
    # rounded values: ties inside windows, and windows the relu clamps to 0
    x = ef.constant(np.round(rng.normal(size=(2, 7, 6, 3)) * 2).astype(np.float32))
    b = ef.constant(np.array([0.5, -1.0, 0.25], np.float32))
    u = ef.constant(rng.normal(size=(2, 4, 3, 3) if padding == "SAME" else (2, 3, 3, 3))
                    .astype(np.float32))

    def fused(x, b, u):
        with ef.GradientTape() as tape:
            tape.watch([x, b])
            y = pooling.max_pool2d_bias_relu(x, b, 2, 2, padding)
        return (y, *tape.gradient(y, [x, b], output_gradients=u))

    def three_ops(x, b, u):
        with ef.GradientTape() as tape:
            tape.watch([x, b])
            y = ef.nn.max_pool2d(ef.nn.relu(ef.nn.bias_add(x, b)), 2, 2, padding)
        return (y, *tape.gradient(y, [x, b], output_gradients=u))

    want = [t.numpy() for t in three_ops(x, b, u)]
    y = pooling.max_pool2d_bias_relu(x, b, 2, 2, padding)  # no tape: nothing is kept
    np.testing.assert_array_equal(y.numpy(), want[0])
    for got in (fused(x, b, u), ef.function(fused)(x, b, u)):
        np.testing.assert_array_equal(got[0].numpy(), want[0])
        # the winners of x or of relu(x + b): the same cells here (no rounded ties)
        np.testing.assert_array_equal(got[1].numpy(), want[1])
        np.testing.assert_allclose(got[2].numpy(), want[2], rtol=1e-6, atol=1e-6)


def test_saved_and_recomputed_maximum_positions_agree():
    from eagerflow.core.dispatch import execute
    from eagerflow.ops import pooling

    rng = np.random.default_rng(3)
    x = ef.constant(np.maximum(rng.standard_normal((2, 7, 6, 3)), 0.0))  # many ties at 0
    dy = ef.constant(rng.standard_normal((2, 4, 3, 3)))
    with ef.GradientTape() as tape:  # the forward saves where the maxima are
        tape.watch(x)
        y = ef.nn.max_pool2d(x, 3, 2, "SAME")
    saved_path = tape.gradient(y, x, output_gradients=dy).numpy()
    attrs = {"ksize": (3, 3), "strides": (2, 2), "pads": ((1, 1), (0, 1))}
    recomputed = execute(pooling._max_pool_backprop, (x, y, dy), attrs).numpy()
    np.testing.assert_array_equal(saved_path, recomputed)
