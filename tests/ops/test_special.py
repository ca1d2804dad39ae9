"""erf, softplus, log_sigmoid: accuracy against the math module, gradients, stability."""

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import eagerflow as ef
from eagerflow.ops import special
from tests.ops.opcase import OpCase, check_forward, check_forward_mode, check_gradient, parametrize

_erf = np.vectorize(math.erf, otypes=[float])
_erfc = np.vectorize(math.erfc, otypes=[float])

CASES = [
    OpCase("erf", ef.math.erf, _erf, shapes=[(4, 6)], domain=(-4.0, 4.0)),
    OpCase("erfc", ef.math.erfc, _erfc, shapes=[(4, 6)], domain=(-4.0, 8.0)),
    OpCase("softplus", ef.math.softplus, lambda x: np.log1p(np.exp(x)), shapes=[(4, 6)],
           domain=(-20.0, 20.0)),
    OpCase("log_sigmoid", ef.math.log_sigmoid, lambda x: -np.log1p(np.exp(-x)),
           shapes=[(5,)], domain=(-20.0, 20.0)),
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


def test_erf_is_within_two_ulp_of_math_erf():
    x = np.concatenate([np.linspace(-7.0, 7.0, 200_001), np.geomspace(1e-300, 1.0, 1000),
                        [0.0, 1.0, 3.5, 6.0, np.nextafter(1.0, 0.0), np.nextafter(6.0, 0.0)]])
    x = np.concatenate([x, -x])
    got = ef.math.erf(x).numpy()
    want = _erf(x)
    ulps = np.abs(got - want) / np.spacing(np.maximum(np.abs(want), np.finfo(float).tiny))
    assert ulps.max() <= 2.0, (ulps.max(), x[np.argmax(ulps)])


def test_float32_erf_is_within_one_float32_ulp():
    x = np.linspace(-6.0, 6.0, 100_001, dtype=np.float32)
    got = ef.math.erf(x).numpy().astype(np.float64)
    want = _erf(x.astype(np.float64)).astype(np.float32)
    ulps = np.abs(got - want) / np.spacing(np.maximum(np.abs(want), 1e-30)).astype(np.float64)
    assert ulps.max() <= 1.0


@settings(max_examples=200, deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=True))
def test_erf_matches_math_erf_property(value):
    got = float(special.erf_array(np.array([value]))[0])
    assert got == pytest.approx(math.erf(value), rel=5e-16, abs=1e-300)


def test_erf_special_values_and_dtypes():
    got = ef.math.erf(np.array([np.nan, np.inf, -np.inf, -0.0])).numpy()
    assert np.isnan(got[0]) and got[1] == 1.0 and got[2] == -1.0
    assert got[3] == 0.0 and np.signbit(got[3])
    for dtype in (np.float16, np.float32, np.float64):
        assert ef.math.erf(np.ones(3, dtype)).dtype == dtype
    assert ef.math.erf(np.zeros((0, 3))).shape == (0, 3)
    assert ef.erf is ef.math.erf and ef.softplus is ef.math.softplus


def test_softplus_and_log_sigmoid_are_stable():
    x = ef.constant([-1000.0, 0.0, 1000.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_allclose(ef.math.softplus(x).numpy(), [0.0, math.log(2), 1000.0])
        np.testing.assert_allclose(ef.math.log_sigmoid(x).numpy(), [-1000.0, -math.log(2), 0.0])
        with ef.GradientTape() as tape:
            tape.watch(x)
            y = ef.math.softplus(x)
        np.testing.assert_allclose(tape.gradient(y, x).numpy(), [0.0, 0.5, 1.0])


@pytest.mark.parametrize("fn, op", [(ef.math.erf, "Erf"), (ef.math.softplus, "Softplus")])
def test_integer_inputs_are_rejected(fn, op):
    with pytest.raises(ef.errors.InvalidArgumentError,
                       match=rf"{op} needs a floating-point input, got dtype int32"):
        fn([1, 2])


def test_erfc_keeps_its_digits_in_the_tail():
    # 1 - erf(3) kept 3 digits in float32 (TensorFlow's erfc(3) is 2.2090497e-05).
    x = np.concatenate([np.linspace(-6.0, 26.0, 3201), [0.0, 3.0, 12.0]])
    got, want = ef.math.erfc(x).numpy(), _erfc(x)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    np.testing.assert_allclose(float(ef.ops.erfc(np.float32(3.0))), 2.2090497e-05, rtol=2e-7)
    ends = ef.math.erfc([np.inf, -np.inf, np.nan, 30.0]).numpy()
    assert ends[0] == 0.0 and ends[1] == 2.0 and np.isnan(ends[2]) and ends[3] == 0.0


def test_exp2_is_a_power_of_two():
    x = np.array([-100.0, -1.0, 0.5, 100.0], np.float32)
    np.testing.assert_allclose(ef.ops.exp2(x).numpy(), np.exp2(x), rtol=2e-7)
