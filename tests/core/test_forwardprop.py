"""Forward mode (eagerflow/core/forwardprop.py, ef.autodiff): the accumulator's contract,
its errors, nesting with tapes, custom gradients, and the functional conveniences."""

import numpy as np
import pytest

import eagerflow as ef
from eagerflow.core import dispatch


def test_jvp_of_a_composite_function_matches_the_closed_form():
    x = ef.constant([0.3, -1.2])
    out, tangent = ef.jvp(lambda x: ef.reduce_sum(ef.tanh(x) * x), [x], [ef.constant([1.0, 2.0])])
    expected = np.sum((1 - np.tanh(x.numpy()) ** 2) * x.numpy() * [1, 2] + np.tanh(x.numpy())
                      * [1, 2])
    np.testing.assert_allclose(float(tangent), expected, rtol=1e-6)
    assert out.shape == ()


def test_jvp_of_an_output_that_ignores_the_primals():
    x = ef.constant(1.0)
    _, none = ef.jvp(lambda x: ef.constant(2.0), [x], [1.0])
    _, zero = ef.jvp(lambda x: ef.constant(2.0), [x], [1.0], unconnected_gradients="zero")
    assert none is None and float(zero) == 0.0


def test_hessian_vector_product_matches_the_dense_hessian():
    a = np.array([[2.0, 1.0], [1.0, 3.0]], np.float32)

    def f(x):
        return 0.5 * ef.reduce_sum(x * ef.reshape(ef.matmul(a, ef.reshape(x, [2, 1])), [2]))

    (hvp,) = ef.hessian_vector_product(f, [ef.constant([1.0, -1.0])], [ef.constant([1.0, 2.0])])
    np.testing.assert_allclose(hvp.numpy(), a @ [1.0, 2.0])


def test_hessian_vector_product_of_a_linear_function_is_zero_and_unused_is_none():
    hvp = ef.hessian_vector_product(lambda x, y: ef.reduce_sum(x * 3.0),
                                    [ef.constant([1.0]), ef.constant([2.0])],
                                    [ef.constant([1.0]), ef.constant([1.0])])
    assert float(hvp[0][0]) == 0.0 and hvp[1] is None


def test_accumulator_inside_a_traced_function():
    @ef.function
    def hvp(x, v):
        return ef.hessian_vector_product(lambda x: ef.reduce_sum(x**3), [x], [v])[0]

    np.testing.assert_allclose(hvp(ef.constant([1.0, 2.0]), ef.constant([1.0, 1.0])).numpy(),
                               [6.0, 12.0])


def test_jvp_through_a_custom_gradient_uses_its_gradient_function():
    @ef.custom_gradient
    def f(x):
        return ef.sin(x), lambda dy: dy * 10.0  # a deliberately "wrong" gradient

    x = ef.constant(0.5)
    with ef.autodiff.ForwardAccumulator(x, 2.0) as acc:
        y = f(x)
    assert float(acc.jvp(y)) == 20.0  # the transposed grad_fn, as TensorFlow


def test_outer_accumulator_differentiates_the_inner_ones_tangent():
    x = ef.constant(2.0)
    with ef.autodiff.ForwardAccumulator(x, 1.0) as outer:
        with ef.autodiff.ForwardAccumulator(x, 1.0) as inner:
            y = x**3
        dy = inner.jvp(y)
    assert float(dy) == 12.0 and float(outer.jvp(dy)) == 12.0
    assert inner.jvp(outer.jvp(y)) is None  # the inner one never sees the outer's ops


def test_variables_as_primals_and_their_jvp():
    v = ef.Variable([1.0, 2.0])
    with ef.autodiff.ForwardAccumulator(v, [1.0, 0.0]) as acc:
        y = ef.reduce_sum(v * v)
    assert float(acc.jvp(y)) == 2.0
    np.testing.assert_array_equal(acc.jvp(v).numpy(), [1.0, 0.0])


def test_an_op_without_a_jvp_rule_raises_naming_it():
    op = dispatch.Op("NoJvpForTest", lambda x: x * 2)
    op.gradient(lambda dy, y, x: dy * 2)
    dispatch.OPS["NoJvpForTest"] = op
    try:
        x = ef.constant(1.0)
        with ef.autodiff.ForwardAccumulator(x, 1.0):
            with pytest.raises(ef.errors.UnimplementedError,
                               match=r"No JVP \(forward-mode\) rule .* NoJvpForTest"):
                dispatch.execute(op, (x,))
    finally:
        del dispatch.OPS["NoJvpForTest"]


def test_a_non_differentiable_op_refuses_a_jvp_rule():
    with pytest.raises(ef.errors.InternalError, match="not differentiable"):
        dispatch.OPS["Equal"].jvp(lambda *args: None)


def test_bad_primals_and_tangents_are_refused():
    x = ef.constant([1.0, 2.0])
    with pytest.raises(ValueError, match="2 primals but 1 tangents"):
        ef.autodiff.ForwardAccumulator([x, ef.constant(1.0)], [x])
    with pytest.raises(ValueError, match="multiple times"):
        ef.autodiff.ForwardAccumulator([x, x], [x, x])
    with pytest.raises(ValueError, match=r"tangent of shape \(3,\) for a primal of shape \(2,\)"):
        ef.autodiff.ForwardAccumulator(x, [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="primal of dtype int32"):
        ef.autodiff.ForwardAccumulator(ef.constant(1), 1)
    with pytest.raises(TypeError, match="must be Tensors or Variables, got float"):
        ef.autodiff.ForwardAccumulator(1.0, 1.0)
    with pytest.raises(ValueError, match="unconnected_gradients must be"):
        ef.autodiff.ForwardAccumulator(x, x).jvp(x, unconnected_gradients="maybe")


def test_entering_twice_is_refused():
    acc = ef.autodiff.ForwardAccumulator(ef.constant(1.0), 1.0)
    with acc:
        with pytest.raises(ValueError, match="already recording"):
            acc.__enter__()


def test_jvp_through_traced_control_flow():
    @ef.function
    def f(x):
        with ef.autodiff.ForwardAccumulator(x, 1.0) as acc:
            y = ef.cond(x > 0, lambda: x * x, lambda: -x)
            z = ef.while_loop(lambda i, s: i < 3, lambda i, s: (i + 1, s * x), (0, y))[1]
        return acc.jvp(y), acc.jvp(z)

    dy, dz = f(ef.constant(2.0))
    assert float(dy) == 4.0 and float(dz) == 5 * 2.0**4  # z = x^5
