"""ef.math.bessel_i0/i0e/i1/i1e and ef.ops.i0: values (tails, 0, +-inf, NaN) and gradients
recorded from TensorFlow 2.21 and Keras 3.15; gradients and JVPs to order 2 against finite
differences."""

import numpy as np
import pytest

import eagerflow as ef
from tests.ops.opcase import OpCase, check_forward, check_forward_mode, check_gradient, parametrize

NAN, INF = float("nan"), float("inf")
_X = np.array([-30.0, -3.0, -0.1, 0.0, 1e-5, 0.5, 5.0, 19.9, 20.1, 50.0, INF, -INF, NAN])
# recorded from tf.math on _X (float64)
EXPECTED = {
    "bessel_i0": [781672297823.9774, 4.880792585865024, 1.0025015629340954, 1.0, 1.0000000000249998, 1.0634833707413238, 27.23987182360444, 39513376.52006682, 48017874.107136495, 2.9325537838493355e+20, NAN, NAN, NAN],
    "bessel_i0e": [0.07314594648223728, 0.24300035416182536, 0.9071009257823008, 1.0, 0.9999900000749995, 0.6450352704491502, 0.1835408126093283, 0.09000858886438959, 0.08955376362061343, 0.056561626647454184, 0.0, 0.0, NAN],
    "bessel_i1": [-768532038938.9568, -3.9533702174026093, -0.0500625260470927, 0.0, 5.0000000000625e-06, 0.2578943053908962, 24.335642142450535, 38507423.874862276, 46807739.53302988, 2.9030785901035566e+20, NAN, NAN, NAN],
    "bessel_i1e": [-0.07191633059864753, -0.19682671329730084, -0.04529844680880933, 0.0, 4.999950000312499e-06, 0.15642080318487162, 0.16397226694454242, 0.08771710213170608, 0.08729685184320159, 0.0559931238928954, 0.0, -0.0, NAN],
}
_POINTS = np.array([-2.0, 0.0, 0.7, 25.0])
GRADIENTS = {
    "bessel_i0": [-1.5906368546373295, 0.0, 0.37187967777700875, 5657865129.878701],
    "bessel_i0e": [0.0932390333047333, 0.0, -0.37463554374432095, -0.0016206602281439442],
    "bessel_i1": [1.484266875017402, 1.0, 0.5950463357682253, 5548246001.271162],
    "bessel_i1e": [-0.014395611319735546, 0.5, 0.11082128265468177, -0.001522384304627769],
}

CASES = [
    OpCase("bessel_i0e", ef.math.bessel_i0e, None, shapes=[(2, 3)], domain=(-25.0, 25.0)),
    OpCase("bessel_i1e", ef.math.bessel_i1e, None, shapes=[(6,)], domain=(-25.0, 25.0)),
    OpCase("bessel_i1e_near_zero", ef.math.bessel_i1e, None, shapes=[(4,)],
           domain=(-0.01, 0.01)),
    OpCase("bessel_i0", ef.math.bessel_i0, None, shapes=[(4,)], domain=(-3.0, 3.0)),
    OpCase("bessel_i1", ef.math.bessel_i1, None, shapes=[(4,)], domain=(-3.0, 3.0)),
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


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_values_and_gradients_match_tensorflow(name):
    fn = getattr(ef.math, name)
    np.testing.assert_allclose(fn(_X).numpy(), EXPECTED[name], rtol=1e-12)
    x = ef.constant(_POINTS)
    with ef.GradientTape() as tape:
        tape.watch(x)
        y = fn(x)
    want = np.array(GRADIENTS[name])
    if name == "bessel_i1":
        # TensorFlow's rule gives 1.0 at x = 0; I1'(0) is 1/2 (the series x/2 + x^3/16 ...),
        # which the finite-difference checks above confirm.
        assert want[1] == 1.0
        want[1] = 0.5
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), want, rtol=1e-10)


def test_keras_i0():
    got = ef.ops.i0(np.array([0, 1, 2], np.int32))
    assert got.dtype == np.float32  # Keras 3.15: 'float32'
    np.testing.assert_allclose(got.numpy(), [1.0, 1.2660659551620483, 2.279585361480713], rtol=1e-6)
    np.testing.assert_allclose(ef.ops.i0(np.array([0.5, -1.5], np.float32)).numpy(),
                               [1.063483476638794, 1.6467232704162598], rtol=1e-6)


def test_integer_input_is_refused():
    with pytest.raises(ef.errors.InvalidArgumentError, match="BesselI0e needs a floating"):
        ef.math.bessel_i0e([1, 2])
    with pytest.raises(ef.errors.InvalidArgumentError, match="BesselI1e needs a floating"):
        ef.math.bessel_i1e([1, 2])
