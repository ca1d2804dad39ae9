"""Function-style gradients and custom gradients."""

import numpy as np
import pytest

import eagerflow as ef


def square(x):
    return ef.multiply(x, x)


def test_gradients_function_orders():
    grad = ef.gradients_function(square)
    assert float(square(3.0)) == 9.0
    assert [float(g) for g in grad(3.0)] == [6.0]
    gradgrad = ef.gradients_function(lambda x: grad(x)[0])
    assert [float(g) for g in gradgrad(3.0)] == [2.0]
    gradgradgrad = ef.gradients_function(lambda x: gradgrad(x)[0])
    assert gradgradgrad(3.0) == [None]


def test_python_control_flow_in_differentiated_function():
    def abs_(x):
        return x if x > 0.0 else -x

    grad = ef.gradients_function(abs_)
    assert float(grad(2.0)[0]) == 1.0
    assert float(grad(-2.0)[0]) == -1.0


def test_params_by_index_and_name():
    f = lambda x, y: x * y * y  # noqa: E731
    assert [float(g) for g in ef.gradients_function(f, params=[1])(2.0, 3.0)] == [12.0]
    assert [float(g) for g in ef.gradients_function(f, params=["x"])(2.0, 3.0)] == [9.0]
    with pytest.raises(ValueError, match="out of range"):
        ef.gradients_function(f, params=[5])(2.0, 3.0)
    with pytest.raises(ValueError, match="not an argument"):
        ef.gradients_function(f, params=["z"])(2.0, 3.0)


def test_python_ints_become_float32():
    value, grads = ef.value_and_gradients_function(square)(3)
    assert value.dtype == np.float32 and float(grads[0]) == 6.0


def test_value_and_gradients_function_errors():
    with pytest.raises(ValueError, match="returned None"):
        ef.value_and_gradients_function(lambda x: None)(1.0)


def test_implicit_gradients():
    vx = ef.Variable(1.0)
    vy = ef.Variable(5.0)
    grads_and_vars = ef.implicit_gradients(lambda x: 2 * vx * x)(2.0)
    assert len(grads_and_vars) == 1
    grad, var = grads_and_vars[0]
    assert var is vx and float(grad) == 4.0
    value, gv = ef.implicit_value_and_gradients(lambda: vx * vy)()
    assert float(value) == 5.0 and [float(g) for g, _ in gv] == [5.0, 1.0]
    with pytest.raises(ValueError, match="No trainable variables were accessed"):
        ef.implicit_gradients(lambda x: x * 2)(1.0)


def test_custom_gradient_fixes_nan():
    def log1pexp(x):
        return ef.log(1 + ef.exp(x))

    with np.errstate(over="ignore", invalid="ignore"):
        assert np.isnan(float(ef.gradients_function(log1pexp)(100.0)[0]))

    @ef.custom_gradient
    def stable(x):
        e = ef.exp(x)

        def grad(dy):
            return dy * (1 - 1 / (1 + e))

        return ef.log(1 + e), grad

    assert float(ef.gradients_function(stable)(0.0)[0]) == 0.5
    with np.errstate(over="ignore"):
        assert float(ef.gradients_function(stable)(100.0)[0]) == 1.0


def test_custom_gradient_with_none_and_list_result():
    @ef.custom_gradient
    def clip_gradient_by_norm(x, norm):
        y = ef.identity(x)

        def grad_fn(dresult):
            return [ef.clip_by_norm(dresult, norm), None]

        return y, grad_fn

    x = ef.constant([3.0, 4.0])
    with ef.GradientTape() as tape:
        tape.watch(x)
        y = ef.reduce_sum(clip_gradient_by_norm(x, 1.0) * 10.0)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [0.70710677, 0.70710677])


def test_custom_gradient_second_order_through_captured_values():
    @ef.custom_gradient
    def cube(x):
        def grad(dy):
            return dy * 3.0 * x * x

        return x * x * x, grad

    x = ef.constant(2.0)
    with ef.GradientTape() as outer:
        outer.watch(x)
        with ef.GradientTape() as inner:
            inner.watch(x)
            y = cube(x)
        g = inner.gradient(y, x)
    assert float(g) == 12.0 and float(outer.gradient(g, x)) == 12.0


def test_custom_gradient_overrides_the_forward_ops_gradient():
    @ef.custom_gradient
    def fake(x):
        return x * x, lambda dy: dy * 100.0

    assert float(ef.gradients_function(fake)(3.0)[0]) == 100.0


def test_custom_gradient_multiple_outputs():
    @ef.custom_gradient
    def both(x):
        return (x * 2.0, x * 3.0), lambda d1, d2: d1 * 2.0 + d2 * 3.0

    x = ef.constant(1.0)
    with ef.GradientTape() as tape:
        tape.watch(x)
        a, b = both(x)
        y = a + b
    assert float(tape.gradient(y, x)) == 5.0


def test_custom_gradient_with_variables():
    w = ef.Variable(3.0)

    @ef.custom_gradient
    def scale(x):
        def grad(dy, variables=None):
            assert variables == [w] or list(variables)[0] is w
            return dy * w, [dy * x * 10.0]

        return x * w, grad

    x = ef.constant(2.0)
    with ef.GradientTape() as tape:
        tape.watch(x)
        y = scale(x)
    gx, gw = tape.gradient(y, [x, w])
    assert float(gx) == 3.0 and float(gw) == 20.0


def test_custom_gradient_contract_errors():
    w = ef.Variable(3.0)

    @ef.custom_gradient
    def no_variables_kwarg(x):
        return x * w, lambda dy: dy

    x = ef.constant(1.0)
    with ef.GradientTape() as tape:
        tape.watch(x)
        with pytest.raises(TypeError, match="must accept a keyword argument `variables`"):
            no_variables_kwarg(x)

    @ef.custom_gradient
    def wrong_count(x, y):
        return x * y, lambda dy: dy

    with ef.GradientTape() as tape:
        tape.watch(x)
        z = wrong_count(x, ef.constant(2.0))
    with pytest.raises(ef.errors.InvalidArgumentError, match="expected 2"):
        tape.gradient(z, x)

    @ef.custom_gradient
    def not_a_pair(x):
        return x

    with pytest.raises(TypeError, match="must return \\(output, grad_fn\\)"):
        not_a_pair(ef.constant(1.0))


def test_custom_gradient_without_tape_just_runs():
    @ef.custom_gradient
    def f(x):
        return x * 2.0, lambda dy: dy

    assert float(f(ef.constant(1.0))) == 2.0


def test_stop_gradient():
    x = ef.constant(3.0)
    with ef.GradientTape() as tape:
        tape.watch(x)
        y = x * ef.stop_gradient(x)
    assert float(tape.gradient(y, x)) == 3.0


def test_one_tensor_passed_as_two_arguments_gets_two_gradients_like_tf():
    # TF 2.21's backprop.gradients_function(lambda a, b: a * b)(x, x): [[1, 1], [1, 1]].
    x = ef.constant([1.0, 1.0])
    grads = ef.gradients_function(lambda a, b: a * b)(x, x)
    assert [g.numpy().tolist() for g in grads] == [[1.0, 1.0], [1.0, 1.0]]
