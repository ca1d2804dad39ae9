import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import eagerflow as ef
from tests.metrics.strategies import batches, seeded, split


def _ratio(numerator, denominator):
    return np.divide(numerator, denominator, out=np.zeros_like(numerator),
                     where=denominator != 0)


def fbeta_reference(y_true, y_pred, beta=1.0, average=None, threshold=None, weights=None):
    """Keras 3's documented F-beta over all the data (zero denominators give 0)."""
    if threshold is None:
        predicted = (y_pred >= y_pred.max(-1, keepdims=True)) & (np.abs(y_pred) > 1e-9)
    else:
        predicted = y_pred.astype(np.float32) > np.float32(threshold)
    predicted = predicted.astype(np.float64)
    w = np.ones((len(y_true), 1)) if weights is None else weights.reshape(len(y_true), -1)
    axis = None if average == "micro" else 0
    tp = np.sum(w * predicted * y_true, axis=axis)
    fp = np.sum(w * predicted * (1 - y_true), axis=axis)
    fn = np.sum(w * (1 - predicted) * y_true, axis=axis)
    support = np.sum(w * y_true, axis=axis)
    precision, recall = _ratio(tp, tp + fp), _ratio(tp, tp + fn)
    b2 = beta**2
    score = (1 + b2) * _ratio(precision * recall, b2 * precision + recall)
    if average == "weighted":
        return np.sum(score * _ratio(support, np.sum(support)))
    return score if average is None else np.mean(score)


@settings(max_examples=60, deadline=None)
@given(batches(), st.integers(0, 2**31), st.booleans(),
       st.sampled_from([None, "micro", "macro", "weighted"]),
       st.sampled_from([None, 0.3, 0.5]), st.sampled_from([0.5, 1.0, 2.0]))
def test_streaming_fbeta_matches_the_formula_on_all_data(split_points, seed, weighted, average,
                                                         threshold, beta):
    n, cuts = split_points
    rng = seeded(seed)
    labels = (rng.uniform(size=(n, 4)) < 0.4).astype(np.float64)
    scores = np.round(rng.uniform(size=(n, 4)), 2)
    weights = rng.uniform(0, 2, n) if weighted else None
    m = ef.metrics.FBetaScore(average=average, beta=beta, threshold=threshold)
    for batch in split((labels, scores, weights), cuts):
        m.update_state(*batch[:2], sample_weight=batch[2])
    expected = fbeta_reference(labels, scores.astype(np.float32), beta,
                               average, threshold, weights)
    np.testing.assert_allclose(m.result().numpy(), expected, rtol=1e-5, atol=1e-6)


def test_f1_is_fbeta_with_beta_one_and_argmax_rows_by_default():
    rng = np.random.default_rng(0)
    labels = np.eye(3)[rng.integers(0, 3, 20)]
    scores = rng.uniform(size=(20, 3))
    f1 = ef.metrics.F1Score()(labels, scores).numpy()
    np.testing.assert_allclose(f1, fbeta_reference(labels, scores), rtol=1e-6)
    np.testing.assert_allclose(f1, ef.metrics.FBetaScore(beta=1.0)(labels, scores).numpy())
    assert f1.shape == (3,)


def test_ties_with_the_row_maximum_are_all_positive_but_not_an_all_zero_row():
    m = ef.metrics.F1Score(average="micro")
    m([[1, 0], [0, 1]], [[0.5, 0.5], [0.0, 0.0]])
    # row 1: both classes predicted (tp 1, fp 1); row 2: nothing predicted (fn 1)
    assert float(m.result()) == pytest.approx(0.5)


def test_weights_per_class_cell():
    labels = np.array([[1.0, 0.0], [1.0, 1.0]])
    scores = np.array([[0.9, 0.8], [0.2, 0.7]])
    weights = np.array([[1.0, 0.0], [2.0, 1.0]])
    got = ef.metrics.F1Score(threshold=0.5)(labels, scores, sample_weight=weights).numpy()
    np.testing.assert_allclose(got, fbeta_reference(labels, scores, threshold=0.5,
                                                    weights=weights), rtol=1e-6)


def test_reset_keeps_the_shape_and_zeroes_the_counts():
    m = ef.metrics.FBetaScore(beta=0.5, average="weighted", threshold=0.5)
    assert float(m.result()) == 0.0  # nothing seen yet
    m([[1, 0, 1]], [[0.9, 0.1, 0.2]])
    assert float(m.result()) > 0
    m.reset_state()
    assert float(m.result()) == 0.0
    assert [v.shape for v in m.variables] == [(3,)] * 4


def test_errors():
    with pytest.raises(ValueError, match=r"FBetaScore: `average` must be one of \[None, "
                                         r"'micro', 'macro', 'weighted'\]\. Received: "
                                         r"average='binary'"):
        ef.metrics.FBetaScore(average="binary")
    with pytest.raises(ValueError, match=r"`beta` must be a number > 0. Received: beta=0"):
        ef.metrics.FBetaScore(beta=0)
    with pytest.raises(ValueError, match=r"F1Score: `threshold` must be None or a number in "
                                         r"\(0, 1\]\. Received: threshold=1.5"):
        ef.metrics.F1Score(threshold=1.5)
    m = ef.metrics.F1Score()
    with pytest.raises(ef.errors.InvalidArgumentError,
                       match=r"F1Score expects y_true and y_pred of the same shape \(batch_size"
                             r", num_classes\)\. Received: y_true.shape=\(3,\), "
                             r"y_pred.shape=\(3,\)"):
        m([1, 0, 1], [0.2, 0.3, 0.9])
    m([[1, 0]], [[0.3, 0.6]])
    with pytest.raises(ef.errors.InvalidArgumentError,
                       match="F1Score was first updated with 2 classes; this batch has 3"):
        m([[1, 0, 0]], [[0.3, 0.6, 0.1]])
    with pytest.raises(ef.errors.InvalidArgumentError,
                       match=r"F1Score: sample_weight of shape \(3,\) cannot be broadcast"):
        m([[1, 0]], [[0.3, 0.6]], sample_weight=[1.0, 2.0, 3.0])
