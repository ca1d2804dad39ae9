"""3-D pooling (eagerflow/ops/pooling3d.py): a brute-force NumPy transcription of
TensorFlow's max_pool3d/avg_pool3d (SAME/VALID windows, averages over valid cells),
gradients by central differences, first-maximum routing on ties, data formats, errors."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import eagerflow as ef
from eagerflow.testing import check_gradients


def _windows(size, k, s, padding):
    if padding == "VALID":
        out = (size - k) // s + 1
        return [(i * s, i * s + k) for i in range(out)]
    out = -(-size // s)
    before = max((out - 1) * s + k - size, 0) // 2
    return [(max(i * s - before, 0), min(i * s - before + k, size)) for i in range(out)]


def pool3d_reference(x, ksize, strides, padding, kind):
    n, *sizes, c = x.shape
    axes = [_windows(size, k, s, padding)
            for size, k, s in zip(sizes, ksize, strides, strict=True)]
    out = np.empty((n, *(len(a) for a in axes), c), x.dtype)
    for index in itertools.product(*(range(len(a)) for a in axes)):
        (d0, d1), (h0, h1), (w0, w1) = (a[i] for a, i in zip(axes, index, strict=True))
        box = x[:, d0:d1, h0:h1, w0:w1].reshape(n, -1, c)
        out[(slice(None), *index)] = box.max(1) if kind == "max" else box.mean(1)
    return out


_OPS = {"max": ef.nn.max_pool3d, "avg": ef.nn.avg_pool3d}


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(["max", "avg"]), st.sampled_from(["SAME", "VALID"]),
       st.tuples(*[st.integers(1, 3)] * 3), st.tuples(*[st.integers(1, 3)] * 3),
       st.tuples(*[st.integers(3, 6)] * 3), st.integers(0, 2**31))
def test_values_match_the_brute_force_reference(kind, padding, ksize, strides, sizes, seed):
    x = np.random.default_rng(seed).normal(size=(2, *sizes, 2)).astype(np.float32)
    got = _OPS[kind](x, list(ksize), list(strides), padding).numpy()
    np.testing.assert_allclose(got, pool3d_reference(x, ksize, strides, padding, kind),
                               rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("kind", ["max", "avg"])
@pytest.mark.parametrize("ksize, strides, padding", [((2, 2, 2), (2, 2, 2), "VALID"),
                                                     ((3, 2, 3), (1, 2, 2), "SAME")])
def test_gradients(kind, ksize, strides, padding):
    x = np.random.default_rng(0).permutation(2 * 4 * 5 * 5 * 2).reshape(2, 4, 5, 5, 2) / 10.0
    check_gradients(lambda v: _OPS[kind](v, list(ksize), list(strides), padding), x,
                    order=2 if kind == "avg" else 1)


def test_max_gradient_goes_to_the_first_maximum_of_a_tied_box():
    x = ef.constant(np.array([0, 1, 1, 0, 0, 1, 0, 0], np.float32).reshape(1, 2, 2, 2, 1))
    with ef.GradientTape() as tape:
        tape.watch(x)
        y = ef.nn.max_pool3d(x, 2, 2, "VALID")
    # (depth, height, width) order: cell 1 is the first of the three maxima. TensorFlow's
    # MaxPool3DGrad gives every tied maximum the whole gradient instead.
    np.testing.assert_array_equal(tape.gradient(y, x).numpy().ravel(), [0, 1, 0, 0, 0, 0, 0, 0])


@pytest.mark.parametrize("op", [ef.nn.max_pool3d, ef.nn.avg_pool3d])
def test_channels_first_equals_channels_last(op):
    x = np.random.default_rng(1).normal(size=(2, 3, 4, 5, 6)).astype(np.float32)
    last = op(x, [2, 2, 3], [1, 2, 2], "SAME").numpy()
    first = op(np.moveaxis(x, -1, 1), [1, 1, 2, 2, 3], [1, 1, 1, 2, 2], "SAME",
               data_format="NCDHW").numpy()
    np.testing.assert_allclose(np.moveaxis(first, 1, -1), last, rtol=1e-6)


def test_global_pools():
    x = np.random.default_rng(2).normal(size=(2, 3, 4, 5, 6))
    np.testing.assert_allclose(ef.nn.global_avg_pool3d(x).numpy(), x.mean((1, 2, 3)))
    np.testing.assert_allclose(ef.nn.global_max_pool3d(x, keepdims=True).numpy(),
                               x.max((1, 2, 3), keepdims=True))
    np.testing.assert_allclose(ef.nn.global_max_pool3d(x, data_format="NCDHW").numpy(),
                               x.max((2, 3, 4)))


def test_traced_equals_eager():
    x = np.random.default_rng(3).normal(size=(2, 4, 4, 4, 3)).astype(np.float32)
    for op in _OPS.values():
        traced = ef.function(lambda v, op=op: op(v, 2, 2, "SAME"))(x).numpy()
        np.testing.assert_array_equal(traced, op(x, 2, 2, "SAME").numpy())


@pytest.mark.parametrize("call, match", [
    (lambda: ef.nn.max_pool3d(np.ones((1, 4, 4, 1)), 2, 2, "VALID"), "must be 5-D"),
    (lambda: ef.nn.avg_pool3d(np.ones((1, 4, 4, 4, 1)), 2, 2, "FULL"), "'SAME' or 'VALID'"),
    (lambda: ef.nn.max_pool3d(np.ones((1, 4, 4, 4, 1)), 2, 2, "VALID", "NHWC"), "NDHWC"),
    (lambda: ef.nn.global_avg_pool3d(np.ones((1, 4, 4, 1))), "must be 5-D"),
    (lambda: ef.nn.max_pool3d(np.ones((1, 4, 4, 4, 1)), [2, 2], 2, "VALID"), "ksize"),
])
def test_errors(call, match):
    with pytest.raises(ef.errors.InvalidArgumentError, match=match):
        call()
