"""`ef.custom_gradient` against TensorFlow 2.21's `tf.custom_gradient`.

Cases from TensorFlow's custom-gradient tests (`CustomGradientTest` in
`tensorflow/python/ops/gradients_test.py`, eager parts): grad_fn with `variables` (keyword-only
or after `*dys`), several outputs, None gradients, captures, use inside `ef.function`, second
order, and the misuse errors. Values and exception classes were recorded from TensorFlow;
eagerflow's messages differ (they name the function and the counts).
"""

import numpy as np
import pytest

import eagerflow as ef


def _grad(target, sources, output_gradients=None):
    with ef.GradientTape(persistent=True) as tape:
        tape.watch(sources)
        y = target()
    return y, tape.gradient(y, sources, output_gradients=output_gradients)


def _floats(values):
    return [None if v is None else np.asarray(v).tolist() for v in values]


@pytest.mark.parametrize("varargs", [False, True])
def test_grad_fn_with_variables(varargs):
    captured = ef.Variable(3.0)

    @ef.custom_gradient
    def f(x):
        def actual(dy, variables):
            assert len(variables) == 1 and variables[0] is captured
            return 4.0 * captured * dy, [5.0 * x * dy]

        if varargs:
            return x * captured, lambda *dys, variables=None: actual(dys[0], variables)
        return x * captured, lambda dy, *, variables=None: actual(dy, variables)

    x = ef.Variable(6.0)
    _, grads = _grad(lambda: f(x), [x, captured])
    assert _floats(grads) == [12.0, 30.0]


def test_grad_fn_without_variables_keyword_is_a_type_error():
    captured = ef.Variable(3.0)

    @ef.custom_gradient
    def f(x):
        return x * captured, lambda dy: dy

    x = ef.constant(6.0)
    with ef.GradientTape() as tape:
        tape.watch(x)
        with pytest.raises(TypeError, match="variables"):
            f(x)


def test_missing_variable_gradient_is_a_value_error():
    captured = ef.Variable(3.0)

    @ef.custom_gradient
    def f(x):
        return x * captured, lambda dy, variables=None: (dy, [])

    x = ef.constant(6.0)
    with ef.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    with pytest.raises(ValueError, match="variable gradients"):
        tape.gradient(y, x)


def test_too_many_gradients_is_a_value_error():
    @ef.custom_gradient
    def f(a):
        return a * 2.0, lambda dy: (dy, dy)

    a = ef.constant(2.0)
    with ef.GradientTape() as tape:
        tape.watch(a)
        y = f(a)
    with pytest.raises(ValueError, match="returned 2 input gradients"):
        tape.gradient(y, a)


def test_function_not_returning_a_pair_is_a_type_error():
    @ef.custom_gradient
    def f(a):
        return a * 2.0

    with pytest.raises(TypeError, match=r"must return \(output, grad_fn\)"):
        f(ef.constant(1.0))


def test_several_outputs():
    @ef.custom_gradient
    def f(a, b):
        return (a * b, a + b), lambda da, db: (da + 2.0 * db, 3.0 * da)

    a, b = ef.constant(2.0), ef.constant(5.0)

    def loss():
        y, z = f(a, b)
        return y + z

    assert _floats(_grad(loss, [a, b])[1]) == [3.0, 3.0]


def test_unused_output_gets_a_zero_gradient():
    @ef.custom_gradient
    def f(a):
        return (a * 2.0, a * 3.0), lambda da, db: da * 10.0 + db * 100.0

    a = ef.constant(2.0)
    assert _floats(_grad(lambda: f(a)[0], [a])[1]) == [10.0]


def test_none_gradient_and_captured_tensor():
    @ef.custom_gradient
    def f(a, b):
        return a * b, lambda dy: (dy * b, None)

    a, b = ef.constant(2.0), ef.constant(5.0)
    assert _floats(_grad(lambda: f(a, b), [a, b])[1]) == [5.0, None]
    w = ef.constant(3.0)

    @ef.custom_gradient
    def g(x):
        return x * w, lambda dy: dy * w * 2.0

    x = ef.constant(1.0)
    # A captured tensor is not an input of the custom gradient: no gradient reaches it.
    assert _floats(_grad(lambda: g(x), [x, w])[1]) == [6.0, None]


def test_inside_function_and_second_order():
    @ef.custom_gradient
    def f(x):
        return ef.identity(x), lambda dy: 3.0 * dy

    @ef.function
    def h(x):
        with ef.GradientTape() as tape:
            tape.watch(x)
            y = f(x) * x
        return tape.gradient(y, x)

    assert float(h(ef.constant(2.0))) == 8.0

    @ef.custom_gradient
    def square(x):
        return x * x, lambda dy: dy * 2.0 * x

    x = ef.constant(3.0)
    with ef.GradientTape() as outer:
        outer.watch(x)
        with ef.GradientTape() as inner:
            inner.watch(x)
            y = square(x)
        d = inner.gradient(y, x)
    assert float(d) == 6.0 and float(outer.gradient(d, x)) == 2.0


def test_vector_keyword_argument_no_tape_and_output_gradients():
    @ef.custom_gradient
    def f(x):
        return x * 2.0, lambda dy: dy * 5.0

    x = ef.constant([1.0, 2.0])
    assert _floats(_grad(lambda: ef.reduce_sum(f(x)), [x])[1]) == [[5.0, 5.0]]
    assert f(x).numpy().tolist() == [2.0, 4.0]  # no tape: grad_fn is never called

    @ef.custom_gradient
    def scaled(x, scale=2.0):
        return x * scale, lambda dy: dy * 7.0

    x = ef.constant(1.0)
    y, grads = _grad(lambda: scaled(x, scale=3.0), [x])
    assert float(y) == 3.0 and _floats(grads) == [7.0]

    @ef.custom_gradient
    def g(x):
        return x * 2.0, lambda dy: dy * 4.0

    x = ef.constant([1.0, 2.0])
    _, grads = _grad(lambda: g(x), x, output_gradients=ef.constant([1.0, 10.0]))
    assert grads.numpy().tolist() == [4.0, 40.0]


def test_non_trainable_variable_needs_no_variables_keyword():
    captured = ef.Variable(3.0, trainable=False)

    @ef.custom_gradient
    def f(x):
        return x * captured, lambda dy: dy * 9.0

    x = ef.constant(6.0)
    assert _floats(_grad(lambda: f(x), [x])[1]) == [9.0]

    @ef.custom_gradient
    def g(x):
        return x * 2.0, lambda dy: [dy * 4.0]

    assert _floats(_grad(lambda: g(x), [x])[1]) == [4.0]
