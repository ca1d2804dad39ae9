import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import eagerflow as ef
from tests.metrics.strategies import batches, seeded, split


def mean_iou_reference(labels, predicted, num_classes, weights=None, ignore_class=None):
    """Keras 3's formula: per-class TP / (TP + FP + FN), averaged over present classes."""
    w = np.ones(labels.shape) if weights is None else np.broadcast_to(
        weights.reshape(weights.shape + (1,) * (labels.ndim - weights.ndim)), labels.shape)
    labels, predicted, w = labels.ravel(), predicted.ravel(), w.ravel()
    keep = (labels >= 0) & (labels < num_classes) & (predicted >= 0) & (predicted < num_classes)
    if ignore_class is not None:
        keep &= labels != ignore_class
    cm = np.zeros((num_classes, num_classes))
    np.add.at(cm, (labels[keep], predicted[keep]), w[keep])
    tp = np.diag(cm)
    union = cm.sum(0) + cm.sum(1) - tp
    present = union > 0
    return float(np.sum(tp[present] / union[present]) / max(present.sum(), 1))


@settings(max_examples=60, deadline=None)
@given(batches(), st.integers(0, 2**31), st.booleans(), st.sampled_from([None, 0, -1]))
def test_streaming_mean_iou_matches_the_formula_on_all_data(split_points, seed, weighted,
                                                            ignore_class):
    n, cuts = split_points
    rng = seeded(seed)
    labels = rng.integers(-1, 4, (n, 3))  # -1: out of range (or the ignored class)
    predicted = np.where(rng.uniform(size=(n, 3)) < 0.6, labels, rng.integers(0, 4, (n, 3)))
    weights = rng.uniform(0, 2, n) if weighted else None
    m = ef.metrics.MeanIoU(num_classes=4, ignore_class=ignore_class)
    for batch in split((labels, predicted, weights), cuts):
        m.update_state(*batch[:2], sample_weight=batch[2])
    expected = mean_iou_reference(labels, predicted, 4, weights, ignore_class)
    np.testing.assert_allclose(float(m.result()), expected, rtol=1e-5, atol=1e-7)


def test_dense_inputs_use_the_argmax_along_axis():
    rng = np.random.default_rng(0)
    labels = rng.integers(0, 3, (2, 4, 4))
    scores = rng.uniform(size=(2, 3, 4, 4))  # channels first
    m = ef.metrics.MeanIoU(3, sparse_y_true=False, sparse_y_pred=False, axis=1)
    got = float(m(np.moveaxis(np.eye(3)[labels], -1, 1), scores))
    assert got == pytest.approx(mean_iou_reference(labels, scores.argmax(1), 3), rel=1e-6)


def test_keras_documented_examples_and_reset():
    m = ef.metrics.MeanIoU(num_classes=2)
    assert float(m([0, 0, 1, 1], [0, 1, 0, 1])) == pytest.approx(1 / 3)
    m.reset_state()
    got = float(m([0, 0, 1, 1], [0, 1, 0, 1], sample_weight=[0.3, 0.3, 0.3, 0.1]))
    assert got == pytest.approx((0.3 / 0.9 + 0.1 / 0.7) / 2)
    m.reset_state()
    assert float(m.result()) == 0.0


def test_errors():
    with pytest.raises(ValueError, match=r"MeanIoU: `num_classes` must be a positive int\. "
                                         r"Received: num_classes=0"):
        ef.metrics.MeanIoU(0)
    with pytest.raises(ValueError, match=r"`ignore_class` must be None or an int\. "
                                         r"Received: ignore_class=0.5"):
        ef.metrics.MeanIoU(2, ignore_class=0.5)
    with pytest.raises(ef.errors.InvalidArgumentError,
                       match=r"MeanIoU: y_true and y_pred must hold the same number of class "
                             r"indices\. Received: 3 labels of shape \(3,\) and 2 predictions"):
        ef.metrics.MeanIoU(2)([0, 1, 1], [0, 1])
    with pytest.raises(ef.errors.InvalidArgumentError,
                       match=r"MeanIoU: with sparse_y_pred=False, y_pred needs a class axis"):
        ef.metrics.MeanIoU(2, sparse_y_pred=False)(1, 0.5)
    with pytest.raises(ef.errors.InvalidArgumentError,
                       match=r"MeanIoU: sample_weight of shape \(2,\) cannot be broadcast"):
        ef.metrics.MeanIoU(2)([0, 1, 1], [0, 1, 1], sample_weight=[1.0, 2.0])
