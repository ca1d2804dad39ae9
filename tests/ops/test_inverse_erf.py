"""ef.math.erfinv and ndtri: values in the tails, at the ends and outside the domain
recorded from TensorFlow 2.21, round trips through erf and the normal CDF, gradients and
JVPs to order 2."""

import math

import numpy as np
import pytest

import eagerflow as ef
from tests.ops.opcase import OpCase, check_forward, check_forward_mode, check_gradient, parametrize

NAN, INF = float("nan"), float("inf")
_P = np.array([-0.5, 0.0, 1e-300, 1e-20, 1e-5, 0.025, 0.3, 0.5, 0.7, 0.975, 1 - 1e-12, 1.0, 1.5,
               NAN])
_E = np.array([-1.5, -1.0, -0.999999, -0.5, -1e-10, 0.0, 0.3, 0.9, 1 - 1e-15, 1.0, NAN])
# recorded from TensorFlow 2.21 in float64
_NDTRI = [NAN, -INF, -37.0470962993612, -9.262340089798409, -4.264890793922825, -1.9599639845400545, -0.5244005127080409, 0.0, 0.5244005127080407, 1.959963984540054, 7.0344869100478356, INF, NAN, NAN]
_ERFINV = [NAN, -INF, -3.4589107372754997, -0.4769362762044699, -8.862269987795027e-11, 0.0, 0.27246271472675443, 1.1630871536766738, 5.68612844131039, INF, NAN]

CASES = [
    OpCase("erfinv", ef.math.erfinv, None, shapes=[(2, 3)], domain=(-0.95, 0.95)),
    OpCase("ndtri", ef.math.ndtri, None, shapes=[(5,)], domain=(0.02, 0.98)),
    OpCase("erfcinv", ef.math.erfcinv, None, shapes=[(4,)], domain=(0.05, 1.95)),
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


def test_values_match_tensorflow():
    np.testing.assert_allclose(ef.math.ndtri(_P).numpy(), _NDTRI, rtol=1e-12)
    # TensorFlow's erfinv(-1e-10) is 1e-8 off in relative terms (sqrt(pi)/2 * 1e-10 is exact
    # to 1e-20): compare to 1e-7 there.
    np.testing.assert_allclose(ef.math.erfinv(_E).numpy(), _ERFINV, rtol=1e-7)
    assert ef.math.erfinv(_E.astype(np.float32)).dtype == np.float32


def test_round_trips():
    y = np.linspace(-0.999, 0.999, 41)
    np.testing.assert_allclose(np.vectorize(math.erf)(ef.math.erfinv(y).numpy()), y, rtol=1e-14,
                               atol=1e-16)
    p = np.logspace(-250, -1, 30)
    x = ef.math.ndtri(p).numpy()
    np.testing.assert_allclose(0.5 * np.vectorize(math.erfc)(-x / math.sqrt(2)), p, rtol=1e-12)


def test_gradients_match_tensorflow():
    for fn, at, want in [(ef.math.erfinv, [-0.5, 0.0, 0.9], [1.112584818972, 0.886226925453, 3.428042811452]),
                         (ef.math.ndtri, [0.01, 0.5, 0.9], [37.520436157295, 2.506628274631, 5.698059856117])]:
        x = ef.constant(at, ef.float64)
        with ef.GradientTape() as tape:
            tape.watch(x)
            y = fn(x)
        np.testing.assert_allclose(tape.gradient(y, x).numpy(), want, rtol=1e-9)


def test_bad_input_names_the_problem():
    with pytest.raises(ef.errors.InvalidArgumentError, match="Erfinv needs a floating-point"):
        ef.math.erfinv([0, 1])
    with pytest.raises(ef.errors.InvalidArgumentError, match="Ndtri needs a floating-point"):
        ef.math.ndtri([0, 1])
