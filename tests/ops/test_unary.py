"""Unary elementwise ops (eagerflow/ops/unary.py): exp, log, roots, trigonometry, ..."""

import numpy as np

import eagerflow as ef
from tests.ops.opcase import (
    OpCase,
    check_forward,
    check_forward_mode,
    check_gradient,
    gradient,
    parametrize,
    squared,
    unary_cases,
)


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


CASES = [
    *unary_cases("negative", ef.negative, np.negative),
    *unary_cases("abs", ef.abs, np.abs),
    *unary_cases("sign", ef.sign, np.sign),
    *unary_cases("exp", ef.exp, np.exp),
    *unary_cases("expm1", ef.expm1, np.expm1),
    *unary_cases("log", ef.log, np.log, domain=(0.1, 4.0)),
    *unary_cases("log1p", ef.log1p, np.log1p, domain=(-0.5, 3.0)),
    *unary_cases("sqrt", ef.sqrt, np.sqrt, domain=(0.1, 4.0)),
    *unary_cases("rsqrt", ef.rsqrt, lambda x: 1 / np.sqrt(x), domain=(0.1, 4.0)),
    *unary_cases("reciprocal", ef.math.reciprocal, np.reciprocal, domain=(0.5, 3.0)),
    OpCase("reciprocal-negative", ef.math.reciprocal, np.reciprocal, shapes=[(4,)],
           domain=(-3.0, -0.5)),
    *unary_cases("square", ef.square, np.square),
    *unary_cases("sin", ef.sin, np.sin, domain=(-3.0, 3.0)),
    *unary_cases("cos", ef.cos, np.cos, domain=(-3.0, 3.0)),
    *unary_cases("tan", ef.tan, np.tan, domain=(-1.2, 1.2)),
    *unary_cases("tanh", ef.tanh, np.tanh, domain=(-3.0, 3.0)),
    *unary_cases("sinh", ef.sinh, np.sinh, domain=(-3.0, 3.0)),
    *unary_cases("cosh", ef.cosh, np.cosh, domain=(-3.0, 3.0)),
    *unary_cases("asin", ef.asin, np.arcsin, domain=(-0.9, 0.9)),
    *unary_cases("acos", ef.acos, np.arccos, domain=(-0.9, 0.9)),
    *unary_cases("atan", ef.atan, np.arctan, domain=(-3.0, 3.0)),
    *unary_cases("asinh", ef.asinh, np.arcsinh, domain=(-3.0, 3.0)),
    *unary_cases("acosh", ef.acosh, np.arccosh, domain=(1.2, 4.0)),
    *unary_cases("atanh", ef.atanh, np.arctanh, domain=(-0.9, 0.9)),
    *unary_cases("sigmoid", ef.sigmoid, _sigmoid, domain=(-6.0, 6.0)),
    *unary_cases("floor", ef.floor, np.floor, order=0),
    *unary_cases("ceil", ef.ceil, np.ceil, order=0),
    *unary_cases("round", ef.round, np.round, order=0),
    OpCase("round-half-to-even", ef.round, np.round, inputs=[[0.5, 1.5, 2.5, -0.5, -1.5]],
           order=0),
]

# Linear ones squared, so that order 2 runs the gradients of their gradient rules.
CASES += [squared(case) for case in CASES if case.name.startswith("negative") and case.order]


@parametrize(CASES)
def test_forward(case):
    check_forward(case)


@parametrize(CASES)
def test_gradient(case):
    check_gradient(case)


@parametrize(CASES)
def test_jvp(case):
    check_forward_mode(case)


def test_abs_and_sign_at_zero():
    dx = gradient(ef.abs, [-2.0, 0.0, 2.0])
    np.testing.assert_array_equal(dx, [-1.0, 0.0, 1.0])
    dx = gradient(ef.sign, [-2.0, 0.0, 2.0])
    np.testing.assert_array_equal(dx, [0.0, 0.0, 0.0])


def test_sigmoid_is_stable_for_large_inputs():
    x = ef.constant([-1000.0, -50.0, 0.0, 50.0, 1000.0])
    y = ef.sigmoid(x).numpy()
    assert np.isfinite(y).all()
    np.testing.assert_allclose(y, [0.0, np.exp(-50.0), 0.5, 1.0, 1.0], rtol=1e-6, atol=0)
    dx = gradient(ef.sigmoid, [-1000.0, 1000.0])
    np.testing.assert_array_equal(dx, [0.0, 0.0])


def test_expm1_and_log1p_are_accurate_for_tiny_inputs():
    x = ef.constant([1e-10], dtype=ef.float64)
    # exp(x) - 1 and log(1 + x) would lose every digit here.
    np.testing.assert_allclose(ef.expm1(x).numpy(), [1e-10], rtol=1e-9)
    np.testing.assert_allclose(ef.log1p(x).numpy(), [1e-10], rtol=1e-9)


def test_inverse_and_hyperbolic_functions_keep_their_precision():
    # Formulas of exp and log lose these (log(x + sqrt(x^2 + 1)) is -inf at -1e4 in
    # float32); TensorFlow 2.21 / Keras 3.15 give the values below.
    x = np.array([-1e4, -100.0, 1e-8, 3e4], np.float32)
    np.testing.assert_allclose(ef.asinh(x).numpy(), [-9.903487, -5.298342, 1e-8, 11.0021],
                               rtol=1e-6)
    np.testing.assert_allclose(ef.ops.arcsinh(x).numpy(), ef.asinh(x).numpy())
    np.testing.assert_allclose(ef.ops.arccosh(np.float32(1e20)).numpy(), 46.74485, rtol=1e-6)
    assert float(ef.ops.arctanh(np.float32(1e-8))) == np.float32(1e-8)
    assert float(ef.ops.sinh(np.float32(1e-8))) == np.float32(1e-8)


def test_atan2_follows_tensorflow_argument_order_and_broadcasts():
    y, x = np.array([[1.0], [-2.0]]), np.array([0.5, -3.0, 2.0])
    np.testing.assert_allclose(ef.atan2(y, x).numpy(), np.arctan2(y, x), rtol=1e-12)
    ef.testing.check_gradients(ef.atan2, y, x, order=2)
    assert ef.ops.arctan2(np.int32(1), np.int32(2)).dtype == ef.float32


def test_hypot_neither_overflows_nor_underflows():
    # Keras 3.15 (TensorFlow backend) gives these; sqrt(x^2 + y^2) gives inf and 0.
    big, tiny = np.float32(1e30), np.float32(1e-30)
    np.testing.assert_allclose(float(ef.ops.hypot(big, big)), 1.4142135e30, rtol=1e-6)
    np.testing.assert_allclose(float(ef.ops.hypot(tiny, tiny)), 1.4142136e-30, rtol=1e-6)
    assert float(ef.ops.hypot(0.0, 0.0)) == 0.0
    ef.testing.check_gradients(ef.ops.hypot, np.array([3.0, -1.0]), np.array([4.0, 2.0]),
                               order=2)
