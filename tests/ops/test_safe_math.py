"""ef.math's safe products and quotients: forward against NumPy away from the zeros,
gradients (order 2) and JVPs, and TensorFlow's gradients at the zeros."""

import numpy as np
import pytest

import eagerflow as ef
from tests.ops.opcase import OpCase, check_forward, check_forward_mode, check_gradient, parametrize

CASES = [
    OpCase("divide_no_nan", ef.math.divide_no_nan, np.divide, shapes=[(3, 4), (4,)],
           domain=(0.5, 2.0)),
    OpCase("multiply_no_nan", ef.math.multiply_no_nan, np.multiply, shapes=[(3, 4), (4,)]),
    OpCase("reciprocal_no_nan", ef.math.reciprocal_no_nan, np.reciprocal, shapes=[(5,)],
           domain=(0.5, 2.0)),
    OpCase("xlogy", ef.math.xlogy, lambda x, y: x * np.log(y), shapes=[(3,), (3,)],
           domain=(0.5, 2.0)),
    OpCase("xlog1py", ef.math.xlog1py, lambda x, y: x * np.log1p(y), shapes=[(3,), (3,)],
           domain=(0.5, 2.0)),
    OpCase("xdivy", ef.math.xdivy, np.divide, shapes=[(3,), (3,)], domain=(0.5, 2.0)),
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


def _grads(f, x, y):
    x, y = ef.constant(np.asarray(x, np.float64)), ef.constant(np.asarray(y, np.float64))
    with ef.GradientTape() as tape:
        tape.watch([x, y])
        out = ef.reduce_sum(f(x, y))
    return [g.numpy() for g in tape.gradient(out, [x, y])]


def test_gradients_at_the_zeros_are_tensorflows():
    # recorded from tf.GradientTape (TensorFlow 2.21)
    gx, gy = _grads(ef.math.multiply_no_nan, [5.0, 2.0], [0.0, 4.0])
    np.testing.assert_allclose(gx, [0.0, 4.0])
    np.testing.assert_allclose(gy, [5.0, 2.0])
    gx, gy = _grads(ef.math.xlogy, [0.0, 2.0], [0.0, 4.0])
    np.testing.assert_allclose(gx, [0.0, np.log(4.0)])
    np.testing.assert_allclose(gy, [0.0, 0.5])


def test_mul_no_nan_jvp_with_both_tangents():
    x, y = ef.constant([2.0, 3.0], ef.float64), ef.constant([0.0, 4.0], ef.float64)
    with ef.autodiff.ForwardAccumulator([x, y], [ef.ones_like(x), ef.ones_like(y)]) as acc:
        out = ef.math.multiply_no_nan(x, y)
    np.testing.assert_allclose(acc.jvp(out).numpy(), [2.0, 7.0])


def test_integer_inputs_are_refused():
    with pytest.raises(ef.errors.InvalidArgumentError, match="DivNoNan expects floating"):
        ef.math.divide_no_nan([1, 2], [0, 1])
