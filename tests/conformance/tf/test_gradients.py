"""Cases of TensorFlow's `gradients_test.py` on `ef.gradients` (symbolic gradients inside
`ef.function`), with the values TensorFlow 2.21 gives."""

import pytest

import eagerflow as ef


def test_gradients_of_intermediate_and_argument():
    @ef.function
    def f(x):
        y = x * x
        z = ef.sin(y)
        return ef.gradients(z, [x, y])

    dx, dy = f(ef.constant(3.0))
    assert float(dx) == pytest.approx(-5.4667816)  # TF
    assert float(dy) == pytest.approx(-0.91113025)  # TF


def test_gradients_sum_ys_with_grad_ys():
    @ef.function
    def f(x):
        y = x * x
        return ef.gradients([ef.sin(y), y], x, grad_ys=[ef.constant(2.0), ef.constant(1.0)])

    (dx,) = f(ef.constant(3.0))
    assert float(dx) == pytest.approx(-4.933563)  # TF


def test_gradients_of_variables_and_unconnected():
    v = ef.Variable(2.0)

    @ef.function
    def f(x):
        return ef.gradients(v * x, [v, x, ef.constant(1.0)])

    dv, dx, unconnected = f(ef.constant(3.0))
    assert (float(dv), float(dx), unconnected) == (3.0, 2.0, None)  # TF

    @ef.function
    def g(x):
        return ef.gradients(v * x, [ef.constant(1.0)], unconnected_gradients="zero")

    assert float(g(ef.constant(3.0))[0]) == 0.0  # TF


def test_second_order_gradients():
    @ef.function
    def f(x):
        (first,) = ef.gradients(x * x * x, x)
        return ef.gradients(first, x)

    assert float(f(ef.constant(3.0))[0]) == 18.0  # TF


def test_gradients_eagerly_raise_runtime_error():
    with pytest.raises(RuntimeError, match="not supported when eager execution is enabled"):
        ef.gradients(ef.constant(1.0), ef.constant(1.0))  # TF: RuntimeError


def test_gradients_with_stop_gradients_is_refused():
    f = ef.function(lambda x: ef.gradients(x * x, x, stop_gradients=[x]))
    with pytest.raises(ef.errors.UnimplementedError, match="stop_gradients"):
        f(ef.constant(1.0))
