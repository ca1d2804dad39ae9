"""TensorFlow guide "Advanced automatic differentiation", ported step by step with `tf.`
turned into `ef.` (`tf.keras.layers` is `ef.layers`; the step names follow the guide's
sections; cells that only plot are left out)."""

import numpy as np
import pytest

import eagerflow as ef


def _dense_relu(x, layer):
    kernel, bias = (v.numpy() for v in layer.trainable_variables)
    return np.maximum(np.asarray(x) @ kernel + bias, 0.0)


def test_stop_recording():
    x = ef.Variable(2.0)
    y = ef.Variable(3.0)

    with ef.GradientTape() as t:
        x_sq = x * x
        with t.stop_recording():
            y_sq = y * y
        z = x_sq + y_sq

    grad = t.gradient(z, {"x": x, "y": y})
    assert float(grad["x"]) == 4.0  # 2*x => 4
    assert grad["y"] is None


def test_reset_start_recording_from_scratch():
    x = ef.Variable(2.0)
    y = ef.Variable(3.0)
    reset = True

    with ef.GradientTape() as t:
        y_sq = y * y
        if reset:
            # Throw out all the tape recorded so far.
            t.reset()
        z = x * x + y_sq

    grad = t.gradient(z, {"x": x, "y": y})
    assert float(grad["x"]) == 4.0
    assert grad["y"] is None


def test_stop_gradient_flow_with_precision():
    x = ef.Variable(2.0)
    y = ef.Variable(3.0)

    with ef.GradientTape() as t:
        y_sq = y**2
        z = x**2 + ef.stop_gradient(y_sq)

    grad = t.gradient(z, {"x": x, "y": y})
    assert float(grad["x"]) == 4.0
    assert grad["y"] is None


# Establish an identity operation, but clip during the gradient pass.
@ef.custom_gradient
def clip_gradients(y):
    def backward(dy):
        return ef.clip_by_norm(dy, 0.5)
    return y, backward


def test_custom_gradients():
    v = ef.Variable(2.0)
    with ef.GradientTape() as t:
        output = clip_gradients(v * v)
    # calls "backward", which clips 4 to 2
    np.testing.assert_allclose(t.gradient(output, v), 2.0)
    assert float(output) == 4.0


def test_custom_gradients_in_saved_model(tmp_path):
    # A difference on purpose: eagerflow's graphs have a static rank, so `TensorSpec(None)`
    # is refused with the fix; and its files hold forward graphs only, so a graph whose
    # gradient is a custom one is refused rather than saved with a different gradient.
    with pytest.raises(ef.errors.InvalidArgumentError, match="unknown rank; give its shape"):
        class MyModule(ef.Module):

            @ef.function(input_signature=[ef.TensorSpec(None)])
            def call_custom_grad(self, x):
                return clip_gradients(x)

    class MyModule(ef.Module):

        @ef.function(input_signature=[ef.TensorSpec([])])
        def call_custom_grad(self, x):
            return clip_gradients(x)

    model = MyModule()
    path = str(tmp_path / "saved_model")
    with pytest.raises(ef.errors.InvalidArgumentError,
                       match=r"'call_custom_grad' uses the @custom_gradient function\(s\) "
                             r"\['clip_gradients'\]; eagerflow does not export"):
        ef.saved_model.save(
            model,
            path,
            options=ef.saved_model.SaveOptions(experimental_custom_gradients=True))

    # In Python (not loaded from a file) the traced function keeps the custom gradient.
    v = ef.Variable(2.0)
    with ef.GradientTape() as t:
        output = model.call_custom_grad(v * v)
    np.testing.assert_allclose(t.gradient(output, v), 2.0)


def test_multiple_tapes():
    x0 = ef.constant(0.0)
    x1 = ef.constant(0.0)

    with ef.GradientTape() as tape0, ef.GradientTape() as tape1:
        tape0.watch(x0)
        tape1.watch(x1)

        y0 = ef.math.sin(x0)
        y1 = ef.nn.sigmoid(x1)

        y = y0 + y1

        ys = ef.reduce_sum(y)

    assert tape0.gradient(ys, x0).numpy() == pytest.approx(1.0)   # cos(x) => 1.0
    assert tape1.gradient(ys, x1).numpy() == pytest.approx(0.25)  # sigmoid' => 0.25


def test_higher_order_gradients():
    x = ef.Variable(1.0)  # Create a Tensorflow variable initialized to 1.0

    with ef.GradientTape() as t2:
        with ef.GradientTape() as t1:
            y = x * x * x

        # Compute the gradient inside the outer `t2` context manager
        # which means the gradient computation is differentiable as well.
        dy_dx = t1.gradient(y, x)
    d2y_dx2 = t2.gradient(dy_dx, x)

    assert dy_dx.numpy() == 3.0    # 3 * x**2 => 3.0
    assert d2y_dx2.numpy() == 6.0  # 6 * x => 6.0


def test_input_gradient_regularization():
    x = ef.random.normal([7, 5], seed=1)

    layer = ef.layers.Dense(10, activation=ef.nn.relu)

    with ef.GradientTape() as t2:
        # The inner tape only takes the gradient with respect to the input,
        # not the variables.
        with ef.GradientTape(watch_accessed_variables=False) as t1:
            t1.watch(x)
            y = layer(x)
            out = ef.reduce_sum(layer(x)**2)
        # 1. Calculate the input gradient.
        g1 = t1.gradient(out, x)
        # 2. Calculate the magnitude of the input gradient.
        g1_mag = ef.norm(g1)

    # 3. Calculate the gradient of the magnitude with respect to the model.
    dg1_mag = t2.gradient(g1_mag, layer.trainable_variables)

    assert [var.shape for var in dg1_mag] == [(5, 10), (10,)]
    assert y.shape == (7, 10)
    # g1 = 2 relu(xW + b) W^T; check it and the kernel gradient of its norm with NumPy
    kernel = layer.kernel.numpy().astype(np.float64)
    hidden = _dense_relu(x, layer)
    np.testing.assert_allclose(g1, 2 * hidden @ kernel.T, rtol=1e-4, atol=1e-5)

    def magnitude(w):
        h = np.maximum(np.asarray(x, np.float64) @ w + layer.bias.numpy(), 0.0)
        return np.linalg.norm(2 * h @ w.T)

    eps = 1e-6  # central differences in float64, one kernel entry at a time
    numeric = np.zeros(kernel.shape)
    for index in np.ndindex(*kernel.shape):
        step = np.zeros(kernel.shape)
        step[index] = eps
        numeric[index] = (magnitude(kernel + step) - magnitude(kernel - step)) / (2 * eps)
    np.testing.assert_allclose(dg1_mag[0], numeric, rtol=1e-4, atol=1e-4)


def test_jacobians_scalar_source():
    x = ef.linspace(-10.0, 10.0, 200+1)
    delta = ef.Variable(0.0)

    with ef.GradientTape() as tape:
        y = ef.nn.sigmoid(x+delta)

    dy_dx = tape.jacobian(y, delta)

    assert y.shape == (201,)
    assert dy_dx.shape == (201,)
    s = 1 / (1 + np.exp(-np.linspace(-10.0, 10.0, 201)))
    np.testing.assert_allclose(dy_dx, s * (1 - s), rtol=1e-4, atol=1e-6)


def test_jacobians_tensor_source():
    x = ef.random.normal([7, 5], seed=2)
    layer = ef.layers.Dense(10, activation=ef.nn.relu)

    with ef.GradientTape(persistent=True) as tape:
        y = layer(x)

    assert y.shape == (7, 10)
    assert layer.kernel.shape == (5, 10)
    j = tape.jacobian(y, layer.kernel)
    assert j.shape == (7, 10, 5, 10)

    g = tape.gradient(y, layer.kernel)
    assert g.shape == (5, 10)

    j_sum = ef.reduce_sum(j, axis=[0, 1])
    delta = ef.reduce_max(abs(g - j_sum)).numpy()
    assert delta < 1e-3
    # dy[b, o] / dW[i, o'] = x[b, i] * (o == o') where the unit is active
    active = (_dense_relu(x, layer) > 0).astype(np.float32)
    expected = np.einsum("bi,bo,op->bopi", np.asarray(x), active, np.eye(10)).transpose(
        0, 1, 3, 2)
    np.testing.assert_allclose(j, expected, rtol=1e-5, atol=1e-6)


def test_hessian():
    x = ef.random.normal([7, 5], seed=3)
    layer1 = ef.layers.Dense(8, activation=ef.nn.relu)
    layer2 = ef.layers.Dense(6, activation=ef.nn.relu)

    with ef.GradientTape() as t2:
        with ef.GradientTape() as t1:
            x = layer1(x)
            x = layer2(x)
            loss = ef.reduce_mean(x**2)

        g = t1.gradient(loss, layer1.kernel)

    h = t2.jacobian(g, layer1.kernel)

    assert layer1.kernel.shape == (5, 8)
    assert h.shape == (5, 8, 5, 8)

    n_params = ef.reduce_prod(layer1.kernel.shape)

    g_vec = ef.reshape(g, [n_params, 1])
    h_mat = ef.reshape(h, [n_params, n_params])
    assert g_vec.shape == (40, 1) and h_mat.shape == (40, 40)
    np.testing.assert_allclose(h_mat, np.transpose(h_mat), rtol=1e-4, atol=1e-6)  # symmetric

    eps = 1e-3
    eye_eps = ef.eye(h_mat.shape[0])*eps

    # X(k+1) = X(k) - (∇²f(X(k)))^-1 @ ∇f(X(k))
    update = ef.linalg.solve(h_mat + eye_eps, g_vec)
    np.testing.assert_allclose(
        np.asarray(h_mat + eye_eps) @ np.asarray(update), g_vec, rtol=1e-3, atol=1e-5)

    # Reshape the update and apply it to the variable.
    before = layer1.kernel.numpy()
    _ = layer1.kernel.assign_sub(ef.reshape(update, layer1.kernel.shape))
    np.testing.assert_allclose(
        layer1.kernel.numpy(), before - np.reshape(update, (5, 8)), rtol=1e-6)


def test_batch_jacobian():
    x = ef.random.normal([7, 5], seed=4)

    layer1 = ef.layers.Dense(8, activation=ef.nn.elu)
    layer2 = ef.layers.Dense(6, activation=ef.nn.elu)

    with ef.GradientTape(persistent=True, watch_accessed_variables=False) as tape:
        tape.watch(x)
        y = layer1(x)
        y = layer2(y)

    assert y.shape == (7, 6)
    j = tape.jacobian(y, x)
    assert j.shape == (7, 6, 7, 5)

    # plot_as_patches: reorder and pad the slices (the plot itself is left out)
    pj = ef.transpose(j, [1, 0, 3, 2])
    lim = ef.reduce_max(abs(pj))
    pj = ef.pad(pj, [[0, 0], [1, 1], [0, 0], [1, 1]], constant_values=-lim)
    s = pj.shape
    pj = ef.reshape(pj, [s[0]*s[1], s[2]*s[3]])
    assert pj.shape == (6 * 9, 5 * 9)

    j_sum = ef.reduce_sum(j, axis=2)
    assert j_sum.shape == (7, 6, 5)
    j_select = ef.einsum("bxby->bxy", j)
    assert j_select.shape == (7, 6, 5)

    jb = tape.batch_jacobian(y, x)
    assert jb.shape == (7, 6, 5)

    error = ef.reduce_max(abs(jb - j_sum))
    assert error < 1e-3
    np.testing.assert_allclose(jb, j_select, rtol=1e-6, atol=1e-7)
    # the (batch, batch) slices are diagonal
    off_diagonal = np.asarray(j) * (1 - np.eye(7))[:, None, :, None]
    assert np.abs(off_diagonal).max() == 0.0

    x = ef.random.normal([7, 5], seed=5)

    layer1 = ef.layers.Dense(8, activation=ef.nn.elu)
    bn = ef.layers.BatchNormalization()
    layer2 = ef.layers.Dense(6, activation=ef.nn.elu)

    with ef.GradientTape(persistent=True, watch_accessed_variables=False) as tape:
        tape.watch(x)
        y = layer1(x)
        y = bn(y, training=True)
        y = layer2(y)

    j = tape.jacobian(y, x)
    assert j.shape == (7, 6, 7, 5)
    # batch normalization mixes the examples: the slices are not diagonal
    off_diagonal = np.asarray(j) * (1 - np.eye(7))[:, None, :, None]
    assert np.abs(off_diagonal).max() > 1e-4

    jb = tape.batch_jacobian(y, x)
    assert jb.shape == (7, 6, 5)
