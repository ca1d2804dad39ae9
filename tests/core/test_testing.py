"""The gradient checker itself (eagerflow/testing.py): it passes and it fails."""

import numpy as np
import pytest

import eagerflow as ef
from eagerflow import testing


def test_passes_on_correct_gradients():
    testing.check_gradients(lambda x: ef.sin(x) * x, [0.3, 1.2], order=2)
    testing.check_gradients(lambda x, y: ef.matmul(x, y), np.ones((2, 3)), np.ones((3, 2)))
    testing.check_gradients(lambda x: ef.exp(x) * ef.tanh(x), 0.7, order=3)
    testing.check_gradients(lambda x: [x * x, {"s": ef.reduce_sum(x)}], [1.0, 2.0], order=2)


def test_integer_arguments_pass_through_unchecked():
    testing.check_gradients(lambda p, i: ef.gather(p, i) ** 2, [1.0, 2.0, 3.0],
                            np.array([2, 0]), order=2)


def test_float32_data_is_checked_in_float64():
    seen = []

    def f(x):
        seen.append(x.dtype)
        return x * x

    testing.check_gradients(f, np.ones(2, np.float32), order=1)
    assert set(seen) == {np.dtype("float64")}


@ef.custom_gradient
def _wrong_first_order(x):
    # Correct would be 2x; element 2 gets 5 extra.
    return x * x, lambda dy: dy * (2.0 * x + ef.constant([0.0, 0.0, 5.0], ef.float64))


def test_fails_naming_the_input_and_the_worst_element_at_first_order():
    with pytest.raises(AssertionError,
                       match=r"^order-1 gradient of _wrong_first_order w\.r\.t\. input 0 "
                             r"disagrees with finite differences: tape gives 11, numeric 6 at "
                             r"element "
                             r"\(2,\) \(input shape \(3,\)\)$"):
        testing.check_gradients(_wrong_first_order, [1.0, 2.0, 3.0], order=1)


@ef.custom_gradient
def _wrong_second_input(x, y):
    def grad(dy):
        return dy * y, dy * x * 3.0  # d(xy)/dy is x, not 3x

    return x * y, grad


def test_fails_naming_the_second_input():
    with pytest.raises(AssertionError,
                       match=r"order-1 gradient of _wrong_second_input w\.r\.t\. input 1 .* tape "
                             r"gives 6, numeric 2 at element \(1, 0\) \(input shape \(2, 1\)\)"):
        testing.check_gradients(_wrong_second_input, np.array([[1.0], [2.0]]),
                                np.array([[1.0], [1.0]]))


@ef.custom_gradient
def _wrong_second_order(x):
    # The first derivative 3x^2 is right, but stop_gradient hides its dependence on x, so
    # the second derivative comes out 0 instead of 6x.
    return x * x * x, lambda dy: dy * 3.0 * ef.stop_gradient(x * x)


def test_fails_at_second_order_only():
    testing.check_gradients(_wrong_second_order, [1.0, -2.0], order=1)
    # At order 2 the checked function is the first-order VJP with random output weights,
    # so the numbers reported are 6x times those weights.
    with pytest.raises(AssertionError,
                       match=r"^order-2 gradient of _wrong_second_order w\.r\.t\. input 0 "
                             r"disagrees with finite differences: tape gives 0 \(gradient was "
                             r"None\), numeric -?[0-9.]+ at element \(1,\) \(input shape "
                             r"\(2,\)\)$"):
        testing.check_gradients(_wrong_second_order, [1.0, -2.0], order=2)


def test_a_missing_gradient_is_reported_as_none():
    with pytest.raises(AssertionError, match=r"tape gives 0 \(gradient was None\), numeric 2 at "
                                             r"element \(0,\)"):
        testing.check_gradients(lambda x: ef.stop_gradient(x) * 2.0, [1.0], order=1)


def test_needs_a_floating_point_argument():
    with pytest.raises(ValueError, match=r"check_gradients needs at least one floating-point "
                                         r"argument"):
        testing.check_gradients(lambda i: i * 2, np.array([1, 2]))


def test_numeric_gradient():
    x = ef.constant(np.array([1.0, 2.0, 3.0]))
    grad = testing.numeric_gradient(lambda t: t * t, [x], 0, [np.array([1.0, 1.0, 2.0])])
    np.testing.assert_allclose(grad, [2.0, 4.0, 12.0], rtol=1e-6)


def test_assert_allclose_accepts_tensors_and_variables():
    testing.assert_allclose(ef.constant([1.0, 2.0]), ef.Variable([1.0, 2.0]))
    testing.assert_allclose(ef.constant([1.0]), [1.0 + 1e-9], rtol=1e-6)
    with pytest.raises(AssertionError, match=r"custom context"):
        testing.assert_allclose(ef.constant([1.0]), [1.1], err_msg="custom context")
