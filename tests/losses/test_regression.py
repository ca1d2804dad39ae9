"""Regression losses against hand-computed NumPy values (Keras 3 formulas)."""

import numpy as np
import pytest

import eagerflow as ef

RNG = np.random.default_rng(0)
Y_TRUE = RNG.standard_normal((5, 3)).astype(np.float32)
Y_PRED = (RNG.standard_normal((5, 3)) * 2).astype(np.float32)


def test_mean_squared_error():
    expected = np.mean((Y_TRUE - Y_PRED) ** 2, axis=-1)
    np.testing.assert_allclose(ef.losses.mean_squared_error(Y_TRUE, Y_PRED).numpy(), expected,
                               rtol=1e-6)
    np.testing.assert_allclose(float(ef.losses.MeanSquaredError()(Y_TRUE, Y_PRED)),
                               expected.mean(), rtol=1e-6)


def test_mean_absolute_error():
    expected = np.mean(np.abs(Y_TRUE - Y_PRED), axis=-1)
    np.testing.assert_allclose(ef.losses.mean_absolute_error(Y_TRUE, Y_PRED).numpy(), expected,
                               rtol=1e-6)
    np.testing.assert_allclose(float(ef.losses.MeanAbsoluteError(reduction="sum")(
        Y_TRUE, Y_PRED)), expected.sum(), rtol=1e-6)


@pytest.mark.parametrize("delta", [0.5, 1.0, 3.0])
def test_huber(delta):
    error = np.abs(Y_PRED - Y_TRUE)
    elementwise = np.where(error <= delta, 0.5 * error**2, delta * error - 0.5 * delta**2)
    np.testing.assert_allclose(ef.losses.huber(Y_TRUE, Y_PRED, delta).numpy(),
                               elementwise.mean(-1), rtol=1e-6)
    np.testing.assert_allclose(float(ef.losses.Huber(delta)(Y_TRUE, Y_PRED)),
                               elementwise.mean(), rtol=1e-6)


def test_trailing_axis_of_size_one_is_aligned():
    y_true = np.array([1.0, 2.0, 3.0], np.float32)
    y_pred = np.array([[1.5], [2.0], [1.0]], np.float32)
    np.testing.assert_allclose(ef.losses.mean_squared_error(y_true, y_pred).numpy(),
                               [0.25, 0.0, 4.0])


def test_shape_mismatch_is_an_error_not_a_broadcast():
    with pytest.raises(ef.errors.InvalidArgumentError,
                       match=r"mean_squared_error: y_true and y_pred must have the same "
                             r"shape\. Received: y_true.shape=\(4, 1\), y_pred.shape=\(4, 3\)"):
        ef.losses.mean_squared_error(np.zeros((4, 1)), np.zeros((4, 3)))
    with pytest.raises(ef.errors.InvalidArgumentError, match="huber"):
        ef.losses.huber(np.zeros((3,)), np.zeros((4,)))


def test_integer_inputs_become_float32():
    loss = ef.losses.mean_absolute_error([[1, 2]], [[2, 4]])
    assert loss.dtype == np.float32 and float(loss[0]) == 1.5


def test_float64_data_gives_the_loss_dtype():
    # As in Keras 3: a loss object casts its inputs to its dtype (floatx unless given).
    assert ef.losses.MeanSquaredError()(np.zeros((2, 2)), np.ones((2, 2))).dtype == np.float32
    loss = ef.losses.MeanSquaredError(dtype="float64")(np.zeros((2, 2)), np.ones((2, 2)))
    assert loss.dtype == np.float64


@pytest.mark.parametrize("fn", [ef.losses.mean_squared_error, ef.losses.mean_absolute_error,
                                lambda t, p: ef.losses.huber(t, p, 0.7)])
def test_gradients(fn):
    y_true = RNG.standard_normal((3, 4))
    y_pred = y_true + RNG.uniform(0.2, 1.5, (3, 4)) * RNG.choice([-1, 1], (3, 4))
    ef.testing.check_gradients(fn, y_true, y_pred, order=2)


def test_bad_delta():
    with pytest.raises(ValueError, match=r"Huber: `delta` must be > 0. Received: delta=0"):
        ef.losses.Huber(delta=0)
    with pytest.raises(ValueError, match=r"huber: `delta` must be > 0"):
        ef.losses.huber([1.0], [1.0], delta=-1.0)


def test_differentiable_through_the_class_in_a_training_step():
    w = ef.Variable([[0.0], [0.0]])
    x = ef.constant([[1.0, 2.0], [3.0, 4.0]])
    with ef.GradientTape() as tape:
        value = ef.losses.MeanSquaredError()([[1.0], [2.0]], ef.matmul(x, w))
    grad = tape.gradient(value, w)
    # d/dw mean((xw - y)^2) = 2/n x^T (xw - y) = x^T (-y) at w = 0
    np.testing.assert_allclose(grad.numpy(), [[-7.0], [-10.0]], rtol=1e-6)
