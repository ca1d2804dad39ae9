"""Masks on the model's outputs in compiled losses and metrics (Keras 3: masked steps
weigh 0 and the loss is divided by the number of unmasked values). The expected numbers
were computed with Keras 3.15 on the same inputs and weights."""

import numpy as np
import pytest

import eagerflow as ef
from eagerflow.core import masks

X = np.array([[[1., 2.], [0., 0.], [3., -1.]],
              [[2., 1.], [1., 1.], [0., 0.]],
              [[-1., 0.5], [0., 0.], [0., 0.]]], "float32")
Y = np.array([[[1., 0.], [5., 5.], [2., 1.]],
              [[0., 1.], [1., 2.], [9., 9.]],
              [[1., 1.], [7., 7.], [3., 3.]]], "float32")


def _masking_model():
    model = ef.Sequential([ef.Input((3, 2)), ef.layers.Masking(0.0), ef.layers.Dense(2)])
    model.set_weights([np.array([[1., 0.5], [-0.5, 1.]], "float32"),
                       np.array([0.1, -0.2], "float32")])
    return model


@pytest.mark.parametrize("run_eagerly", [False, True])
def test_masking_model_loss_and_metric_skip_masked_steps(run_eagerly):
    model = _masking_model()
    model.compile(loss="mse", metrics=["mae"], run_eagerly=run_eagerly)
    logs = model.evaluate(X, Y, batch_size=2, return_dict=True, verbose=0)
    assert logs["loss"] == pytest.approx(2.09375, rel=1e-5)  # Keras 3.15
    assert logs["mae"] == pytest.approx(1.235, rel=1e-5)


def test_embedding_mask_zero_sparse_crossentropy_and_accuracy():
    tokens = np.array([[1, 2, 0, 0], [3, 1, 2, 0], [2, 0, 0, 0]])
    labels = np.array([[0, 1, 2, 2], [1, 1, 0, 0], [2, 0, 1, 1]])
    model = ef.Sequential([ef.Input((4,), dtype="int32"),
                           ef.layers.Embedding(4, 3, mask_zero=True), ef.layers.Dense(3)])
    model.set_weights([
        np.array([[0, 0, 0], [1., 0, -1], [0, 2., 0.5], [-1., 1, 1]], "float32"),
        np.array([[1., 0, 0.5], [0, 1., -0.5], [0.3, 0.2, 1.]], "float32"),
        np.zeros(3, "float32")])
    model.compile(loss=ef.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])
    logs = model.evaluate(tokens, labels, batch_size=2, return_dict=True, verbose=0)
    assert logs["loss"] == pytest.approx(1.5566047, rel=1e-5)  # Keras 3.15
    assert logs["accuracy"] == pytest.approx(0.5, rel=1e-6)


def _masked(values, mask):
    pred = ef.constant(values)
    masks.set_mask(pred, ef.constant(mask))
    return pred


def test_loss_reductions_with_a_mask_and_sample_weights():
    y_true = np.zeros((2, 3, 1), "float32")
    pred = _masked(np.array([[[1.], [2.], [3.]], [[4.], [5.], [6.]]], "float32"),
                   [[True, True, False], [True, False, False]])
    mse = ef.losses.MeanSquaredError
    # unmasked squared errors 1, 4, 16: the mean over the 3 unmasked values
    assert float(mse()(y_true, pred)) == pytest.approx(7.0)
    assert float(mse(reduction="sum")(y_true, pred)) == pytest.approx(21.0)
    assert float(mse()(y_true, pred, sample_weight=[2.0, 0.5])) == pytest.approx(18.0 / 3)
    assert float(mse(reduction="mean_with_sample_weight")(
        y_true, pred, sample_weight=[2.0, 0.5])) == pytest.approx(18.0 / 4.5)
    np.testing.assert_allclose(mse(reduction="none")(y_true, pred),
                               [[1.0, 4.0, 0.0], [16.0, 0.0, 0.0]])
    everything_masked = _masked(np.ones((1, 2, 1), "float32"), [[False, False]])
    assert float(mse()(np.zeros((1, 2, 1)), everything_masked)) == 0.0


def test_mean_metric_wrapper_with_a_mask_and_sample_weights():
    pred = _masked(np.array([[[1.], [2.], [3.]], [[4.], [5.], [6.]]], "float32"),
                   [[True, True, False], [True, False, False]])
    metric = ef.metrics.MeanAbsoluteError()
    metric.update_state(np.zeros((2, 3, 1)), pred)
    assert float(metric.result()) == pytest.approx(7.0 / 3)
    metric.reset_state()
    metric.update_state(np.zeros((2, 3, 1)), pred, sample_weight=[1.0, 3.0])
    assert float(metric.result()) == pytest.approx((1 + 2 + 12) / 5)


def test_a_mask_that_does_not_cover_the_losses_is_a_clear_error():
    pred = _masked(np.ones((2, 3), "float32"), [[True, True, False], [True, False, False]])
    with pytest.raises(ef.errors.InvalidArgumentError,
                       match=r"mean_squared_error: y_pred carries a mask of shape \(2, 3\)"):
        ef.losses.MeanSquaredError()(np.zeros((2, 3)), pred)  # losses of shape (2,)


def test_training_on_a_masked_loss_matches_keras():
    model = _masking_model()
    model.compile(optimizer=ef.optimizers.SGD(0.1), loss="mse", metrics=["mae"])
    history = model.fit(X, Y, batch_size=2, epochs=2, verbose=0, shuffle=False).history
    np.testing.assert_allclose(history["loss"], [2.025802, 1.299298], rtol=1e-5)  # Keras 3.15
    np.testing.assert_allclose(history["mae"], [1.2285, 0.994752], rtol=1e-5)
    kernel, bias = model.get_weights()
    np.testing.assert_allclose(kernel, [[0.420117, 0.254443], [-0.236065, 0.86251]],
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(bias, [0.390749, -0.023503], rtol=1e-5, atol=1e-6)


def test_class_weight_on_sparse_and_one_hot_sequence_labels_agree():
    tokens = np.array([[1, 2, 0, 0], [3, 1, 2, 0], [2, 0, 0, 0]])
    labels = np.array([[0, 1, 2, 2], [1, 1, 0, 0], [2, 0, 1, 1]])
    class_weight = {0: 1.0, 1: 3.0, 2: 0.5}
    step_weights = np.vectorize(class_weight.get)(labels).astype("float32")
    results = []
    for loss, targets in [
            (ef.losses.SparseCategoricalCrossentropy(from_logits=True), labels),
            (ef.losses.CategoricalCrossentropy(from_logits=True),
             np.eye(3, dtype="float32")[labels])]:
        model = ef.Sequential([ef.Input((4,), dtype="int32"), ef.layers.Embedding(4, 3),
                               ef.layers.Dense(3)])
        model.set_weights([np.arange(12, dtype="float32").reshape(4, 3) / 10 - 0.5,
                           np.eye(3, dtype="float32"), np.zeros(3, "float32")])
        model.compile(optimizer=ef.optimizers.SGD(0.0), loss=loss)
        history = model.fit(tokens, targets, class_weight=class_weight, batch_size=3,
                            epochs=1, verbose=0, shuffle=False).history
        expected = float(loss(targets, model(tokens), sample_weight=step_weights))
        assert history["loss"][0] == pytest.approx(expected, rel=1e-5)
        results.append(history["loss"][0])
    assert results[0] == pytest.approx(results[1], rel=1e-5)
