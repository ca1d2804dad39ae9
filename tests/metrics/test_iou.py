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


# -- IoU with target classes, BinaryIoU, OneHotIoU, OneHotMeanIoU (values from Keras 3.15.1,
# unweighted: Keras truncates fractional weights in its int64 confusion matrix) ----------
def test_iou_averages_the_target_classes_only():
    m = ef.metrics.IoU(num_classes=3, target_class_ids=[0, 2])
    m.update_state([0, 1, 2, 2, -1], [0, 2, 2, 1, 0])
    assert float(m.result()) == pytest.approx(2 / 3)
    absent = ef.metrics.IoU(num_classes=3, target_class_ids=[1])
    absent.update_state([0, 0], [0, 0])
    assert float(absent.result()) == 0.0


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**31), st.lists(st.integers(0, 3), min_size=1, max_size=4, unique=True))
def test_iou_matches_the_formula(seed, targets):
    rng = seeded(seed)
    labels, predicted = rng.integers(0, 4, 30), rng.integers(0, 4, 30)
    weights = rng.uniform(0, 2, 30)
    m = ef.metrics.IoU(4, targets)
    m.update_state(labels, predicted, sample_weight=weights)
    cm = np.zeros((4, 4))
    np.add.at(cm, (labels, predicted), weights)
    tp = np.diag(cm)
    union = (cm.sum(0) + cm.sum(1) - tp)[targets]
    valid = union > 0
    expected = np.sum(tp[targets][valid] / union[valid]) / max(valid.sum(), 1)
    np.testing.assert_allclose(float(m.result()), expected, rtol=1e-6)


def test_binary_iou_thresholds_predictions_and_truncates_labels():
    m = ef.metrics.BinaryIoU(target_class_ids=[1], threshold=0.5)
    m.update_state([0.0, 1.0, 0.7, 1.0], [0.1, 0.6, 0.4, 0.7])
    assert float(m.result()) == pytest.approx(1.0)
    both = ef.metrics.BinaryIoU(threshold=0.3)
    both.update_state([0, 1, 0, 1], [0.1, 0.2, 0.4, 0.7])
    assert float(both.result()) == pytest.approx(1 / 3)  # Keras 3.15.1 computes the same
    both.reset_state()
    both.update_state([0, 1, 0, 1], [0.1, 0.2, 0.4, 0.7], sample_weight=[0.2, 0.3, 0.4, 0.1])
    # Keras's docstring: 0.17361112 (its int64 matrix computes 0.0)
    assert float(both.result()) == pytest.approx((0.2 / 0.9 + 0.1 / 0.8) / 2)
    assert both.get_config() == {"name": "binary_io_u", "dtype": both.dtype,
                                 "target_class_ids": [0, 1], "threshold": 0.3}


def test_one_hot_variants_take_the_argmax_of_the_labels():
    y_true = np.array([[0, 0, 1], [1, 0, 0], [0, 1, 0], [1, 0, 0]])
    y_pred = np.array([[0.2, 0.3, 0.5], [0.1, 0.2, 0.7], [0.5, 0.3, 0.1], [0.1, 0.4, 0.5]])
    weights = [0.1, 0.2, 0.3, 0.4]
    m = ef.metrics.OneHotIoU(num_classes=3, target_class_ids=[0, 2])
    m.update_state(y_true, y_pred, sample_weight=weights)
    assert float(m.result()) == pytest.approx((0 + 0.1 / 0.7) / 2)  # Keras's docstring: 0.071
    mean = ef.metrics.OneHotMeanIoU(num_classes=3)
    mean.update_state(y_true, y_pred, sample_weight=weights)
    assert float(mean.result()) == pytest.approx(0.1 / 0.7 / 3)  # Keras's docstring: 0.048
    assert "sparse_y_true" not in m.get_config() and "target_class_ids" not in mean.get_config()


@pytest.mark.parametrize("cls, kwargs", [
    (ef.metrics.IoU, {"num_classes": 3, "target_class_ids": [0, 2], "ignore_class": -1}),
    (ef.metrics.BinaryIoU, {"target_class_ids": [1], "threshold": 0.25}),
    (ef.metrics.OneHotIoU, {"num_classes": 3, "target_class_ids": [1]}),
    (ef.metrics.OneHotMeanIoU, {"num_classes": 4, "axis": 1}),
])
def test_config_round_trips(cls, kwargs):
    m = cls(**kwargs)
    clone = cls.from_config(m.get_config())
    assert clone.get_config() == m.get_config()
    assert ef.metrics.deserialize(ef.metrics.serialize(m)).get_config() == m.get_config()


@pytest.mark.parametrize("kwargs, match", [
    ({"num_classes": 2, "target_class_ids": [2]}, r"\[0, num_classes=2\)"),
    ({"num_classes": 2, "target_class_ids": []}, "non-empty"),
    ({"num_classes": 0, "target_class_ids": [0]}, "positive int"),
    ({"num_classes": 2, "target_class_ids": 1}, "list of int"),
])
def test_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        ef.metrics.IoU(**kwargs)
