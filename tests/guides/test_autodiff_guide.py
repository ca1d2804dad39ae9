"""TensorFlow guide "Introduction to gradients and automatic differentiation", ported
step by step with `tf.` turned into `ef.` (the step names follow the guide's sections)."""

import numpy as np
import pytest

import eagerflow as ef


def test_computing_gradients():
    x = ef.Variable(3.0)
    with ef.GradientTape() as tape:
        y = x ** 2
    dy_dx = tape.gradient(y, x)
    assert float(dy_dx) == 6.0


def test_gradients_with_respect_to_tensors_lists_and_dicts():
    w = ef.Variable(ef.random.normal((3, 2)), name="w")
    b = ef.Variable(ef.zeros(2, dtype=ef.float32), name="b")
    x = [[1.0, 2.0, 3.0]]
    with ef.GradientTape(persistent=True) as tape:
        y = x @ w + b
        loss = ef.reduce_mean(y ** 2)
    [dl_dw, dl_db] = tape.gradient(loss, [w, b])
    assert dl_dw.shape == w.shape and dl_db.shape == b.shape
    my_vars = {"w": w, "b": b}
    grad = tape.gradient(loss, my_vars)
    np.testing.assert_allclose(grad["b"], dl_db)


def test_gradients_with_respect_to_a_model():
    layer = ef.layers.Dense(2, activation="relu")
    x = ef.constant([[1.0, 2.0, 3.0]])
    with ef.GradientTape() as tape:
        y = layer(x)
        loss = ef.reduce_mean(y ** 2)
    grad = tape.gradient(loss, layer.trainable_variables)
    assert [g.shape for g in grad] == [(3, 2), (2,)]
    assert [v.name.split("/")[-1] for v in layer.trainable_variables] == ["kernel", "bias"]


def test_controlling_what_the_tape_watches():
    x0 = ef.Variable(3.0, name="x0")                       # a trainable variable
    x1 = ef.Variable(3.0, name="x1", trainable=False)      # not trainable
    x2 = ef.Variable(2.0, name="x2") + 1.0                  # a tensor, not a variable
    x3 = ef.constant(3.0, name="x3")                        # not a variable
    with ef.GradientTape() as tape:
        y = (x0 ** 2) + (x1 ** 2) + (x2 ** 2)
    grad = tape.gradient(y, [x0, x1, x2, x3])
    assert float(grad[0]) == 6.0 and grad[1] is None and grad[2] is None and grad[3] is None
    assert [v.name for v in tape.watched_variables()] == ["x0"]

    x = ef.constant(3.0)
    with ef.GradientTape() as tape:
        tape.watch(x)
        y = x ** 2
    assert float(tape.gradient(y, x)) == 6.0

    x0, x1 = ef.Variable(0.0), ef.Variable(10.0)
    with ef.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(x1)
        y0 = ef.math.sin(x0)
        ys = ef.nn.softplus(x1)
        y = y0 + ys
        ys = ef.reduce_sum(ys)
    grad = tape.gradient(y, {"x0": x0, "x1": x1})
    assert grad["x0"] is None
    np.testing.assert_allclose(grad["x1"], 1 / (1 + np.exp(-10.0)), rtol=1e-6)


def test_intermediate_results_and_persistent_tapes():
    x = ef.constant(3.0)
    with ef.GradientTape() as tape:
        tape.watch(x)
        y = x * x
        z = y * y
    assert float(tape.gradient(z, y)) == 18.0

    x = ef.constant([1.0, 3.0])
    with ef.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        z = y * y
    np.testing.assert_array_equal(tape.gradient(z, x), [4.0, 108.0])
    np.testing.assert_array_equal(tape.gradient(y, x), [2.0, 6.0])
    del tape


def test_gradients_of_non_scalar_targets():
    x = ef.Variable(2.0)
    with ef.GradientTape(persistent=True) as tape:
        y0 = x ** 2
        y1 = 1 / x
    assert float(tape.gradient(y0, x)) == 4.0
    assert float(tape.gradient(y1, x)) == -0.25
    with ef.GradientTape() as tape:
        y0 = x ** 2
        y1 = 1 / x
    assert float(tape.gradient({"y0": y0, "y1": y1}, x)) == 3.75
    with ef.GradientTape() as tape:
        y = x * [3.0, 4.0]
    assert float(tape.gradient(y, x)) == 7.0

    x = ef.linspace(-10.0, 10.0, 200 + 1)
    with ef.GradientTape() as tape:
        tape.watch(x)
        y = ef.nn.sigmoid(x)
    dy_dx = tape.gradient(y, x)
    s = 1 / (1 + np.exp(-np.linspace(-10, 10, 201)))
    np.testing.assert_allclose(dy_dx, s * (1 - s), rtol=1e-4, atol=1e-6)


def test_control_flow():
    x = ef.constant(1.0)
    v0, v1 = ef.Variable(2.0), ef.Variable(2.0)
    with ef.GradientTape(persistent=True) as tape:
        tape.watch(x)
        if x > 0.0:
            result = v0
        else:
            result = v1 ** 2
    dv0, dv1 = tape.gradient(result, [v0, v1])
    assert float(dv0) == 1.0 and dv1 is None
    assert tape.gradient(result, x) is None  # the condition is not differentiable


def test_cases_where_gradient_returns_none():
    x = ef.Variable(2.0)
    y = ef.Variable(3.0)
    with ef.GradientTape() as tape:
        z = y * y
    assert tape.gradient(z, x) is None  # not connected

    x = ef.Variable(2.0)
    for _ in range(2):
        with ef.GradientTape() as tape:
            y = x + 1
        assert tape.gradient(y, x) is not None
        x = x + 1  # replaces the variable by a tensor: the next step's gradient is None
        break
    with ef.GradientTape() as tape:
        y = x + 1
    assert tape.gradient(y, x) is None

    x = ef.Variable([[1.0, 2.0], [3.0, 4.0]], dtype=ef.float32)
    with ef.GradientTape() as tape:
        x2 = x ** 2
        y = np.mean(x2, axis=0)  # through NumPy: the tape does not see it
        y = ef.reduce_mean(y, axis=0)
    assert tape.gradient(y, x) is None

    x = ef.constant(10)
    with pytest.warns(ef.errors.EagerflowWarning, match="int32 tensor"):  # TF warns too
        with ef.GradientTape() as g:
            g.watch(x)
            y = x * x
    assert g.gradient(y, x) is None  # integers are not differentiable

    x0 = ef.Variable(3.0)
    x1 = ef.Variable(0.0)
    with ef.GradientTape() as tape:
        x1.assign_add(x0)  # a stateful update: the tape does not differentiate it
        y = x1 ** 2
    assert tape.gradient(y, x0) is None


def test_zeros_instead_of_none():
    x = ef.Variable([2.0, 2.0])
    y = ef.Variable(3.0)
    with ef.GradientTape() as tape:
        z = y ** 2
    grad = tape.gradient(z, x, unconnected_gradients=ef.UnconnectedGradients.ZERO)
    np.testing.assert_array_equal(grad, [0.0, 0.0])
