"""The Loss base class, reductions and sample weights."""

import numpy as np
import pytest

import eagerflow as ef
from eagerflow.losses import loss as loss_module


class AbsoluteSum(ef.losses.Loss):
    def call(self, y_true, y_pred):
        return ef.reduce_sum(ef.abs(y_pred - y_true), axis=-1)


def test_subclass_gets_reductions_and_weights():
    y_true, y_pred = np.zeros((3, 2)), np.array([[1.0, 1.0], [2.0, 0.0], [0.0, 3.0]])
    assert float(AbsoluteSum()(y_true, y_pred)) == pytest.approx(7.0 / 3)
    assert float(AbsoluteSum(reduction="sum")(y_true, y_pred, [1.0, 2.0, 0.0])) == 6.0
    assert AbsoluteSum().name == "absolute_sum"


def test_base_class_is_abstract():
    with pytest.raises(TypeError, match="abstract"):
        ef.losses.Loss()


def test_unknown_reduction():
    with pytest.raises(ValueError, match=r"invalid value for argument `reduction`.*"
                                         r"Received: reduction='average'"):
        ef.losses.MeanSquaredError(reduction="average")


def test_sample_weight_shapes():
    values = ef.constant([[1.0, 2.0], [3.0, 4.0]])
    reduce = loss_module.reduce_weighted_values
    np.testing.assert_allclose(reduce(values, [1.0, 0.0], "none").numpy(), [[1, 2], [0, 0]])
    np.testing.assert_allclose(reduce(values, [[1.0], [0.0]], "none").numpy(), [[1, 2], [0, 0]])
    np.testing.assert_allclose(reduce(values, [[0.0, 1.0], [1.0, 0.0]], "sum").numpy(), 5.0)
    np.testing.assert_allclose(reduce(ef.constant([1.0, 2.0]), [[2.0], [1.0]], "sum").numpy(),
                               4.0)
    assert float(reduce(values, 2.0, "sum_over_batch_size")) == 5.0
    # Keras 3.15 keeps the weights' (batch, 1) shape for rank-1 per-sample losses
    unreduced = ef.losses.MeanSquaredError(reduction="none")(
        [[0.0], [1.0]], [[1.0], [3.0]], sample_weight=[[2.0], [0.5]])
    assert unreduced.shape == (2, 1)
    np.testing.assert_allclose(unreduced.numpy(), [[2.0], [2.0]])
    with pytest.raises(ef.errors.InvalidArgumentError,
                       match=r"sample_weight of shape \(3,\) cannot be broadcast to the "
                             r"per-sample losses of shape \(2, 2\)"):
        reduce(values, [1.0, 2.0, 3.0])


def test_empty_batch_and_zero_weights_give_zero_not_nan():
    empty = ef.constant(np.zeros((0,), np.float32))
    assert float(loss_module.reduce_weighted_values(empty)) == 0.0
    values = ef.constant([1.0, 2.0])
    assert float(loss_module.reduce_weighted_values(values, [0.0, 0.0],
                                                    "mean_with_sample_weight")) == 0.0


def test_reductions_are_differentiable():
    w = ef.Variable([1.0, 2.0])
    with ef.GradientTape() as tape:
        value = loss_module.reduce_weighted_values(w * w, [1.0, 3.0], "mean_with_sample_weight")
    np.testing.assert_allclose(tape.gradient(value, w).numpy(), [0.5, 3.0])


def test_loss_function_wrapper_passes_kwargs():
    wrapped = ef.losses.LossFunctionWrapper(ef.losses.huber, delta=0.5, reduction="sum")
    assert wrapped.name == "huber"
    expected = float(ef.reduce_sum(ef.losses.huber([[0.0], [0.0]], [[1.0], [0.2]], 0.5)))
    assert float(wrapped([[0.0], [0.0]], [[1.0], [0.2]])) == pytest.approx(expected)
    assert wrapped.get_config()["delta"] == 0.5


def test_repr():
    assert repr(ef.losses.Huber()) == "<ef.losses.Huber name='huber_loss'>"
