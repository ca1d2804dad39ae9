import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import eagerflow as ef
from tests.metrics.strategies import batches, seeded, split


def exact_roc_auc(labels, scores, weights=None):
    """P(score of a positive > score of a negative), ties counting 1/2 (Mann-Whitney)."""
    weights = np.ones(len(labels)) if weights is None else weights
    pos, neg = labels == 1, labels == 0
    greater = scores[pos][:, None] > scores[neg][None, :]
    ties = scores[pos][:, None] == scores[neg][None, :]
    pair_weights = weights[pos][:, None] * weights[neg][None, :]
    return float(np.sum(pair_weights * (greater + 0.5 * ties)) / np.sum(pair_weights))


def test_roc_auc_close_to_exact():
    rng = np.random.default_rng(0)
    labels = rng.integers(0, 2, 2000)
    scores = 1 / (1 + np.exp(-(labels * 1.2 + rng.standard_normal(2000))))
    m = ef.metrics.AUC()
    for start in range(0, 2000, 128):
        m.update_state(labels[start:start + 128], scores[start:start + 128])
    assert abs(float(m.result()) - exact_roc_auc(labels, scores)) < 1e-2


def test_pr_auc_close_to_average_precision():
    rng = np.random.default_rng(1)
    labels = rng.integers(0, 2, 3000)
    scores = 1 / (1 + np.exp(-(labels * 2.0 + rng.standard_normal(3000))))
    order = np.argsort(-scores)
    hits = labels[order]
    precision_at = np.cumsum(hits) / np.arange(1, len(hits) + 1)
    average_precision = np.sum(precision_at * hits) / hits.sum()
    m = ef.metrics.AUC(curve="PR", num_thresholds=1000)
    assert abs(float(m(labels, scores)) - average_precision) < 1e-2


def test_perfect_and_reversed_rankings():
    labels = np.array([0, 0, 1, 1])
    assert float(ef.metrics.AUC()(labels, [0.1, 0.2, 0.8, 0.9])) == pytest.approx(1.0)
    assert float(ef.metrics.AUC()(labels, [0.9, 0.8, 0.2, 0.1])) == pytest.approx(0.0)


def test_from_logits_is_sigmoid_of_predictions():
    rng = np.random.default_rng(2)
    labels = rng.integers(0, 2, 200)
    logits = rng.standard_normal(200) * 4
    with_logits = float(ef.metrics.AUC(from_logits=True)(labels, logits))
    with_probs = float(ef.metrics.AUC()(labels, 1 / (1 + np.exp(-logits))))
    assert with_logits == pytest.approx(with_probs, abs=1e-6)
    # large negative logits stay finite
    assert np.isfinite(float(ef.metrics.AUC(from_logits=True)([1, 0], [-1e4, 1e4])))


def test_summation_methods_bracket_interpolation():
    rng = np.random.default_rng(3)
    labels = rng.integers(0, 2, 300)
    scores = rng.uniform(0, 1, 300)
    low = float(ef.metrics.AUC(summation_method="minoring")(labels, scores))
    mid = float(ef.metrics.AUC()(labels, scores))
    high = float(ef.metrics.AUC(summation_method="majoring")(labels, scores))
    assert low <= mid <= high


def test_explicit_thresholds():
    m = ef.metrics.AUC(thresholds=[0.5, 0.25, 0.75])
    assert m.num_thresholds == 5
    np.testing.assert_allclose(m.thresholds, [-1e-7, 0.25, 0.5, 0.75, 1 + 1e-7], rtol=1e-6)
    assert m.get_config()["thresholds"] == pytest.approx([0.25, 0.5, 0.75])


def test_reset_and_checkpointable_state():
    m = ef.metrics.AUC(num_thresholds=10)
    m([0, 1], [0.2, 0.9])
    assert sorted(m._trackable_children()) == [
        "false_negatives", "false_positives", "true_negatives", "true_positives"]
    m.reset_state()
    assert all(float(ef.reduce_sum(v)) == 0.0 for v in m.variables)


def test_errors():
    with pytest.raises(ValueError, match=r"`curve` must be one of \['ROC', 'PR', 'PRGAIN'\]"):
        ef.metrics.AUC(curve="DET")
    with pytest.raises(ValueError, match="`num_labels` is needed only when `multi_label`"):
        ef.metrics.AUC(num_labels=3)
    with pytest.raises(ef.errors.InvalidArgumentError, match="must have rank 2"):
        ef.metrics.AUC(multi_label=True)([0, 1], [0.2, 0.5])
    with pytest.raises(ValueError, match="`summation_method` must be one of"):
        ef.metrics.AUC(summation_method="simpson")
    with pytest.raises(ValueError, match="`num_thresholds` must be an integer > 1"):
        ef.metrics.AUC(num_thresholds=1)
    with pytest.raises(ValueError, match=r"threshold values must be in \[0, 1\]"):
        ef.metrics.AUC(thresholds=[2.0])
    with pytest.raises(ef.errors.InvalidArgumentError,
                       match=r"AUC expects probabilities in \[0, 1\]; received predictions in "
                             r"\[-2, 0\.5\]\. Pass from_logits=True"):
        ef.metrics.AUC()([0, 1], [-2.0, 0.5])


@settings(max_examples=40, deadline=None)
@given(batches(max_size=60), st.integers(0, 2**31), st.booleans())
def test_streaming_auc_equals_all_at_once_and_is_near_exact(split_points, seed, weighted):
    n, cuts = split_points
    rng = seeded(seed)
    labels = rng.integers(0, 2, n)
    scores = np.round(rng.uniform(0, 1, n), 3)  # 3 decimals: ties stay rare within a bucket
    weights = rng.uniform(0.5, 2, n) if weighted else None
    streaming, at_once = ef.metrics.AUC(num_thresholds=1001), ef.metrics.AUC(num_thresholds=1001)
    for batch in split((labels, scores, weights), cuts):
        streaming.update_state(*batch[:2], sample_weight=batch[2])
    at_once.update_state(labels, scores, sample_weight=weights)
    for a, b in zip(streaming.variables, at_once.variables, strict=True):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-12, atol=1e-9)
    if 0 < labels.sum() < n:
        exact = exact_roc_auc(labels, scores.astype(np.float32), weights)
        assert abs(float(streaming.result()) - exact) < 1e-2
