import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import eagerflow as ef
from tests.metrics.strategies import batches, seeded, split


def _counts(labels, scores, threshold, weights=None):
    weights = np.ones(labels.shape) if weights is None else weights
    positive, predicted = labels != 0, scores > threshold
    tp = np.sum(weights * (positive & predicted))
    fp = np.sum(weights * (~positive & predicted))
    fn = np.sum(weights * (positive & ~predicted))
    return tp, fp, fn


def test_precision_and_recall_match_counts():
    rng = np.random.default_rng(0)
    labels = rng.integers(0, 2, 30)
    scores = rng.uniform(0, 1, 30)
    weights = rng.uniform(0, 2, 30)
    tp, fp, fn = _counts(labels, scores, 0.5, weights)
    assert float(ef.metrics.Precision()(labels, scores, weights)) == pytest.approx(
        tp / (tp + fp), rel=1e-6)
    assert float(ef.metrics.Recall()(labels, scores, weights)) == pytest.approx(
        tp / (tp + fn), rel=1e-6)


def test_several_thresholds_give_a_vector_in_their_order():
    labels = np.array([1, 0, 1, 1, 0])
    scores = np.array([0.9, 0.8, 0.6, 0.3, 0.1])
    thresholds = [0.7, 0.2, 0.5]
    got = ef.metrics.Precision(thresholds=thresholds)(labels, scores).numpy()
    expected = []
    for t in thresholds:
        tp, fp, _ = _counts(labels, scores, t)
        expected.append(tp / (tp + fp))
    np.testing.assert_allclose(got, expected, rtol=1e-6)


def test_prediction_equal_to_threshold_is_negative():
    assert float(ef.metrics.Recall(thresholds=0.5)([1, 1], [0.5, 0.51])) == 0.5


def test_top_k_and_class_id():
    labels = np.array([[0, 1, 0], [1, 0, 0], [0, 0, 1]])
    scores = np.array([[0.1, 0.7, 0.2], [0.3, 0.6, 0.1], [0.4, 0.4, 0.5]])
    # top_k=1 keeps each row's best score: predicted classes 1, 1, 2 -> 2 of 3 correct.
    assert float(ef.metrics.Precision(top_k=1)(labels, scores)) == pytest.approx(2 / 3)
    assert float(ef.metrics.Recall(top_k=2)(labels, scores)) == 1.0
    # class 0 only: labels [0, 1, 0], scores [0.1, 0.3, 0.4] at threshold 0.25
    assert float(ef.metrics.Precision(thresholds=0.25, class_id=0)(labels, scores)) == 0.5


def test_nan_scores_are_never_positive():
    assert float(ef.metrics.Recall()([1, 1], [np.nan, 0.9])) == 0.5


def test_no_positives_gives_zero():
    assert float(ef.metrics.Precision()([1, 0], [0.1, 0.2])) == 0.0
    assert float(ef.metrics.Recall().result()) == 0.0


def test_errors():
    with pytest.raises(ValueError, match=r"threshold values must be in \[0, 1\]"):
        ef.metrics.Precision(thresholds=[0.5, 1.5])
    with pytest.raises(ValueError, match="`top_k` must be a positive int"):
        ef.metrics.Recall(top_k=0)
    with pytest.raises(ef.errors.InvalidArgumentError, match="Precision: y_true and y_pred"):
        ef.metrics.Precision()([1, 0, 1], [0.5, 0.5])
    with pytest.raises(ef.errors.InvalidArgumentError, match="class_id=3 needs y_pred"):
        ef.metrics.Recall(class_id=3)(np.eye(3), np.eye(3))
    with pytest.raises(ef.errors.InvalidArgumentError,
                       match=r"Recall: sample_weight of shape \(2,\) cannot be broadcast"):
        ef.metrics.Recall()([1, 0, 1], [0.5, 0.5, 0.5], sample_weight=[1.0, 1.0])


@settings(max_examples=60, deadline=None)
@given(batches(), st.integers(0, 2**31), st.booleans(),
       st.sampled_from([ef.metrics.Precision, ef.metrics.Recall]))
def test_streaming_equals_all_data(split_points, seed, weighted, cls):
    n, cuts = split_points
    rng = seeded(seed)
    labels = rng.integers(0, 2, n)
    scores = np.round(rng.uniform(0, 1, n), 2)
    weights = rng.uniform(0, 2, n) if weighted else None
    streaming = cls(thresholds=[0.3, 0.5, 0.8])
    for batch in split((labels, scores, weights), cuts):
        streaming.update_state(*batch[:2], sample_weight=batch[2])
    expected = []
    for t in (0.3, 0.5, 0.8):
        tp, fp, fn = _counts(labels, scores.astype(np.float32), t, weights)
        denominator = tp + (fp if cls is ef.metrics.Precision else fn)
        expected.append(tp / denominator if denominator else 0.0)
    np.testing.assert_allclose(streaming.result().numpy(), expected, rtol=1e-5, atol=1e-7)


COUNTS = {"TruePositives": "tp", "FalsePositives": "fp", "TrueNegatives": "tn",
          "FalseNegatives": "fn"}


def _all_counts(labels, scores, threshold, weights=None):
    weights = np.ones(labels.shape) if weights is None else weights
    positive = labels != 0
    predicted = scores.astype(np.float32) > np.float32(threshold)
    return {"tp": np.sum(weights * (positive & predicted)),
            "fp": np.sum(weights * (~positive & predicted)),
            "tn": np.sum(weights * (~positive & ~predicted)),
            "fn": np.sum(weights * (positive & ~predicted))}


@settings(max_examples=60, deadline=None)
@given(batches(), st.integers(0, 2**31), st.booleans(), st.sampled_from(sorted(COUNTS)))
def test_streaming_counts_equal_counts_of_all_data(split_points, seed, weighted, name):
    n, cuts = split_points
    rng = seeded(seed)
    labels = rng.integers(0, 2, n)
    scores = np.round(rng.uniform(0, 1, n), 2)
    weights = rng.uniform(0, 2, n) if weighted else None
    streaming = getattr(ef.metrics, name)(thresholds=[0.3, 0.5, 0.8])
    single = getattr(ef.metrics, name)()
    for batch in split((labels, scores, weights), cuts):
        streaming.update_state(*batch[:2], sample_weight=batch[2])
        single.update_state(*batch[:2], sample_weight=batch[2])
    expected = [_all_counts(labels, scores, t, weights)[COUNTS[name]] for t in (0.3, 0.5, 0.8)]
    np.testing.assert_allclose(streaming.result().numpy(), expected, rtol=1e-5, atol=1e-6)
    assert single.result().shape == ()
    np.testing.assert_allclose(float(single.result()),
                               _all_counts(labels, scores, 0.5, weights)[COUNTS[name]],
                               rtol=1e-5, atol=1e-6)


def test_counts_of_a_multi_label_batch_and_reset():
    m = ef.metrics.TrueNegatives()
    m([[0, 1], [0, 0]], [[0.2, 0.9], [0.7, 0.1]])
    assert float(m.result()) == 2.0
    m.reset_state()
    assert float(m.result()) == 0.0


def test_count_errors():
    with pytest.raises(ValueError, match=r"FalseNegatives: threshold values must be in "
                                         r"\[0, 1\]\. Received: thresholds=-0.1"):
        ef.metrics.FalseNegatives(thresholds=-0.1)
    with pytest.raises(ef.errors.InvalidArgumentError,
                       match=r"TruePositives: y_true and y_pred must have the same shape"):
        ef.metrics.TruePositives()([1, 0], [[0.1, 0.2, 0.3]])
    with pytest.raises(ef.errors.InvalidArgumentError,
                       match=r"FalsePositives: sample_weight of shape \(3,\) cannot be "
                             r"broadcast to the predictions of shape \(2,\)"):
        ef.metrics.FalsePositives()([1, 0], [0.6, 0.7], sample_weight=[1.0, 1.0, 1.0])
