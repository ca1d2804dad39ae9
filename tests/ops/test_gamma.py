"""ef.math.lgamma, digamma and polygamma: values at the poles, tails and NaN recorded from
TensorFlow 2.21 (`tf.math.lgamma`, `digamma`, `polygamma`; the cases of TensorFlow's
`cwise_ops_unary_test.py`), gradients and JVPs to order 2 against finite differences."""

import numpy as np
import pytest

import eagerflow as ef
from tests.ops.opcase import OpCase, check_forward, check_forward_mode, check_gradient, parametrize

NAN, INF = float("nan"), float("inf")
_X = np.array([-2.5, -1.0, 0.0, 1e-8, 0.5, 1.0, 2.5, 10.0, 1e6, INF, -INF, NAN])
# recorded from TensorFlow 2.21 on _X in float64
_LGAMMA = [-0.05624371649767407, INF, INF, 18.42068073818021, 0.5723649429247001, 0.0, 0.2846828704729192, 12.80182748008147, 12815504.569147611, INF, INF, NAN]
_DIGAMMA = [1.1031566406452433, NAN, NAN, -100000000.57721566, -1.9635100260214227, -0.5772156649015323, 0.7031566406452434, 2.2517525890667214, 13.81551005796419, INF, NAN, NAN]

CASES = [
    OpCase("lgamma", ef.math.lgamma, None, shapes=[(5,)], domain=(0.2, 4.0)),
    OpCase("lgamma_negative", ef.math.lgamma, None, shapes=[(4,)], domain=(-2.9, -2.1)),
    OpCase("digamma", ef.math.digamma, None, shapes=[(2, 3)], domain=(0.2, 25.0)),
    OpCase("digamma_negative", ef.math.digamma, None, shapes=[(3,)], domain=(-0.9, -0.1)),
    OpCase("lbeta", ef.math.lbeta, None, shapes=[(2, 3)], domain=(0.3, 3.0)),
    OpCase("polygamma", lambda x: ef.math.polygamma(2, x), None, shapes=[(4,)],
           domain=(0.5, 30.0), grad_tol=(1e-4, 1e-4)),
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


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_values_match_tensorflow(dtype):
    rtol = 1e-12 if dtype == np.float64 else 1e-6
    np.testing.assert_allclose(ef.math.lgamma(_X.astype(dtype)).numpy(), _LGAMMA, rtol=rtol)
    np.testing.assert_allclose(ef.math.digamma(_X.astype(dtype)).numpy(), _DIGAMMA, rtol=rtol,
                               atol=1e-6 if dtype == np.float32 else 0)
    assert ef.math.lgamma(_X.astype(dtype)).dtype == dtype


def test_polygamma_matches_tensorflow():
    np.testing.assert_allclose(ef.math.polygamma(1.0, np.array([-2.5, 0.3, 1.0, 7.5])).numpy(),
                               [9.539246559143, 12.245363235474, 1.644934058189, 0.142615884542], rtol=1e-6)
    np.testing.assert_allclose(ef.math.polygamma(3, np.array([0.3, 1.0, 7.5, 30.0])).numpy(),
                               [743.141662597656, 6.493940353394, 0.005772436038, 7.7860037e-05], rtol=1e-6)
    np.testing.assert_allclose(ef.math.polygamma(0, [1.0]).numpy(), ef.math.digamma([1.0]))


def test_gradients_match_tensorflow():
    for fn, want in [(ef.math.lgamma, [-3.5025242222, 0.703156640645, 0.703156640645]),
                     (ef.math.digamma, [12.245364546108, 0.4903577561, 9.379246644989])]:
        x = ef.constant([0.3, 2.5, -1.5], ef.float64)
        with ef.GradientTape() as tape:
            tape.watch(x)
            y = fn(x)
        np.testing.assert_allclose(tape.gradient(y, x).numpy(), want, rtol=1e-9)


def test_bad_input_names_the_problem():
    with pytest.raises(ef.errors.InvalidArgumentError, match="Lgamma needs a floating-point"):
        ef.math.lgamma([1, 2])
    with pytest.raises(ef.errors.InvalidArgumentError, match="one non-negative whole order"):
        ef.math.polygamma([1.0, 2.0], [1.0, 1.0])


def test_scalar_mul_needs_a_scalar():
    with pytest.raises(ValueError, match="`scalar` must be a 0-D value"):
        ef.math.scalar_mul([1.0, 2.0], [1.0, 2.0])
