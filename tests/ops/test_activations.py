"""Activations: forward against NumPy, gradients to second order, stability, errors."""

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import eagerflow as ef
from tests.ops.opcase import OpCase, check_forward, check_forward_mode, check_gradient, parametrize

_erf = np.vectorize(math.erf, otypes=[float])
SELU_ALPHA, SELU_SCALE = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946


def np_sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


_erfc = np.vectorize(math.erfc, otypes=[float])


def np_gelu(x):
    # erfc, not 1 + erf, which loses digits for negative x (as gelu itself no longer does)
    return 0.5 * x * _erfc(-x / math.sqrt(2.0))


def np_gelu_tanh(x):
    return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))


REFERENCES = {
    "relu6": (ef.nn.relu6, lambda x: np.clip(x, 0, 6)),
    "leaky_relu": (ef.nn.leaky_relu, lambda x: np.where(x > 0, x, 0.2 * x)),
    "elu": (ef.nn.elu, lambda x: np.where(x > 0, x, np.expm1(np.minimum(x, 0)))),
    "selu": (ef.nn.selu, lambda x: SELU_SCALE * np.where(x > 0, x, SELU_ALPHA * np.expm1(
        np.minimum(x, 0)))),
    "gelu": (ef.nn.gelu, np_gelu),
    "silu": (ef.nn.silu, lambda x: x * np_sigmoid(x)),
    "softsign": (ef.nn.softsign, lambda x: x / (1 + np.abs(x))),
}

CASES = [
    OpCase("relu6", ef.nn.relu6, REFERENCES["relu6"][1], shapes=[(4, 5)], domain=(-3.0, 9.0)),
    OpCase("leaky_relu", ef.nn.leaky_relu, REFERENCES["leaky_relu"][1], shapes=[(4, 5)]),
    OpCase("leaky_relu_alpha", lambda x: ef.nn.leaky_relu(x, alpha=0.5),
           lambda x: np.where(x > 0, x, 0.5 * x), shapes=[(3,)]),
    OpCase("elu", ef.nn.elu, REFERENCES["elu"][1], shapes=[(4, 5)], domain=(-4.0, 2.0)),
    OpCase("selu", ef.nn.selu, REFERENCES["selu"][1], shapes=[(4, 5)], domain=(-4.0, 2.0)),
    OpCase("gelu", ef.nn.gelu, np_gelu, shapes=[(4, 5)], domain=(-5.0, 5.0)),
    OpCase("gelu_tanh", lambda x: ef.nn.gelu(x, approximate=True), np_gelu_tanh,
           shapes=[(4, 5)], domain=(-5.0, 5.0)),
    OpCase("silu", ef.nn.silu, REFERENCES["silu"][1], shapes=[(4, 5)], domain=(-6.0, 6.0)),
    OpCase("silu_beta", lambda x: ef.nn.silu(x, beta=2.0), lambda x: x * np_sigmoid(2 * x),
           shapes=[(3,)]),
    OpCase("softsign", ef.nn.softsign, REFERENCES["softsign"][1], shapes=[(4,)]),
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


@pytest.mark.parametrize("name", sorted(REFERENCES))
@settings(max_examples=25, deadline=None)
@given(x=arrays(np.float64, st.integers(0, 12),
                elements=st.floats(-50, 50, allow_nan=False, allow_subnormal=False)))
def test_matches_numpy_property(name, x):
    fn, reference = REFERENCES[name]
    np.testing.assert_allclose(fn(x).numpy(), reference(x), rtol=1e-12, atol=1e-300)


def test_extreme_inputs_are_finite_and_warning_free():
    x = ef.constant([-1000.0, -80.0, 0.0, 80.0, 1000.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for fn in (ef.nn.elu, ef.nn.selu, ef.nn.gelu, ef.nn.silu, ef.nn.relu6, ef.nn.softsign):
            assert np.isfinite(fn(x).numpy()).all(), fn.__name__
            with ef.GradientTape() as tape:
                tape.watch(x)
                y = fn(x)
            assert np.isfinite(tape.gradient(y, x).numpy()).all(), fn.__name__
    np.testing.assert_array_equal(ef.nn.elu(x).numpy()[[0, 4]], [-1.0, 1000.0])
    np.testing.assert_array_equal(ef.nn.silu(x).numpy()[[0, 4]], [0.0, 1000.0])


def test_dtypes_are_kept():
    for dtype in (ef.float16, ef.float32, ef.float64):
        x = ef.constant([-1.0, 2.0], dtype)
        for fn in (ef.nn.relu6, ef.nn.leaky_relu, ef.nn.elu, ef.nn.selu, ef.nn.gelu,
                   ef.nn.silu):
            assert fn(x).dtype == dtype, (fn.__name__, dtype)


def test_swish_is_silu():
    assert ef.nn.swish is ef.nn.silu


@pytest.mark.parametrize("fn, op", [(ef.nn.elu, "Elu"), (ef.nn.selu, "Selu"),
                                    (ef.nn.gelu, "Gelu"), (ef.nn.silu, "Silu")])
def test_integer_inputs_are_rejected(fn, op):
    with pytest.raises(ef.errors.InvalidArgumentError,
                       match=rf"{op} needs a floating-point input, got dtype int32 \[Op:{op}\]"):
        fn([1, 2])


@pytest.mark.parametrize("fn, expected", [
    (ef.nn.relu, [0.0, 1.0]),
    (ef.nn.relu6, [0.0, 0.0]),
    (ef.nn.leaky_relu, [0.2, 1.0]),
    (ef.nn.elu, [1.0, 1.0]),
    (ef.nn.selu, [SELU_SCALE, SELU_SCALE]),
])
def test_gradients_at_the_kinks_follow_tensorflow(fn, expected):
    x = ef.constant([0.0, 6.0])
    with ef.GradientTape() as tape:
        tape.watch(x)
        y = fn(x)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), expected, rtol=1e-6)


def test_gelu_keeps_its_digits_for_negative_inputs():
    # 1 + tanh(z) and 1 + erf(z) cancel for negative x: float32 lost ~10 ulp at x = -3.
    x = np.float32(-3.0)
    exact = 0.5 * -3.0 * math.erfc(3.0 / math.sqrt(2.0))
    tanh_form = -1.5 * (1.0 + math.tanh(math.sqrt(2.0 / math.pi) * (-3.0 - 0.044715 * 27.0)))
    np.testing.assert_allclose(float(ef.nn.gelu(x)), exact, rtol=2e-7)
    np.testing.assert_allclose(float(ef.nn.gelu(x, approximate=True)), tanh_form, rtol=1e-6)
