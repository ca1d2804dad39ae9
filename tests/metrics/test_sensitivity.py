import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import eagerflow as ef
from tests.metrics.strategies import batches, seeded, split


def _ratio(a, b):
    return np.divide(a, b, out=np.zeros_like(a), where=b != 0)


def operating_point_reference(kind, target, labels, scores, num_thresholds=200, weights=None):
    """Keras 3's formula: the best dependent rate over thresholds meeting the constraint."""
    if num_thresholds == 1:
        thresholds = np.array([0.5])
    else:
        thresholds = np.array([0.0, *[(i + 1) / (num_thresholds - 1)
                                      for i in range(num_thresholds - 2)], 1.0])
    w = np.ones(len(labels)) if weights is None else weights
    predicted = scores.astype(np.float32)[None, :] > thresholds.astype(np.float32)[:, None]
    positive = labels != 0
    tp = np.sum(w * (predicted & positive), axis=1)
    fp = np.sum(w * (predicted & ~positive), axis=1)
    fn = np.sum(w * (~predicted & positive), axis=1)
    tn = np.sum(w * (~predicted & ~positive), axis=1)
    recall, specificity, precision = _ratio(tp, tp + fn), _ratio(tn, tn + fp), _ratio(tp, tp + fp)
    constrained, dependent = {
        "SensitivityAtSpecificity": (specificity, recall),
        "SpecificityAtSensitivity": (recall, specificity),
        "PrecisionAtRecall": (recall, precision),
        "RecallAtPrecision": (precision, recall),
    }[kind]
    return float(np.max(np.where(constrained >= target, dependent, 0.0), initial=0.0))


KINDS = ["SensitivityAtSpecificity", "SpecificityAtSensitivity", "PrecisionAtRecall",
         "RecallAtPrecision"]


@settings(max_examples=60, deadline=None)
@given(batches(), st.integers(0, 2**31), st.booleans(), st.sampled_from(KINDS),
       st.sampled_from([0.0, 0.4, 0.8, 1.0]), st.sampled_from([1, 2, 7, 200]))
def test_streaming_matches_the_formula_on_all_data(split_points, seed, weighted, kind, target,
                                                   num_thresholds):
    n, cuts = split_points
    rng = seeded(seed)
    labels = rng.integers(0, 2, n)
    scores = np.clip(labels * 0.3 + rng.uniform(0, 0.7, n), 0, 1)
    weights = rng.uniform(0, 2, n) if weighted else None
    m = getattr(ef.metrics, kind)(target, num_thresholds=num_thresholds)
    for batch in split((labels, scores, weights), cuts):
        m.update_state(*batch[:2], sample_weight=batch[2])
    expected = operating_point_reference(kind, target, labels, scores, num_thresholds, weights)
    np.testing.assert_allclose(float(m.result()), expected, rtol=1e-5, atol=1e-6)


def test_default_thresholds_are_keras_200_including_the_ends():
    m = ef.metrics.PrecisionAtRecall(0.5)
    assert m.num_thresholds == 200 and len(m.thresholds) == 200
    assert m.thresholds[0] == 0.0 and m.thresholds[-1] == 1.0
    assert m.thresholds[1] == pytest.approx(1 / 199)
    assert ef.metrics.RecallAtPrecision(0.5, num_thresholds=1).thresholds == [0.5]


def test_class_id_selects_one_column():
    rng = np.random.default_rng(0)
    labels = np.eye(3)[rng.integers(0, 3, 50)]
    scores = rng.uniform(size=(50, 3))
    got = float(ef.metrics.SensitivityAtSpecificity(0.6, class_id=2)(labels, scores))
    expected = operating_point_reference("SensitivityAtSpecificity", 0.6, labels[:, 2],
                                         scores[:, 2])
    assert got == pytest.approx(expected, rel=1e-6)
    assert ef.metrics.SensitivityAtSpecificity(0.6, class_id=2).get_config()["class_id"] == 2


def test_unreachable_target_gives_zero_and_reset_clears_state():
    m = ef.metrics.RecallAtPrecision(1.0)
    assert float(m([1, 0], [0.2, 0.9])) == 0.0  # the negative always outranks the positive
    m([1, 1, 0], [0.95, 0.8, 0.1])  # above 0.9 only a positive is left: recall 1/3
    assert float(m.result()) == pytest.approx(1 / 3)
    m.reset_state()
    assert all(float(ef.reduce_sum(v)) == 0.0 for v in m.variables)
    assert float(m.result()) == 0.0


def test_target_attributes():
    assert ef.metrics.SensitivityAtSpecificity(0.3).specificity == 0.3
    assert ef.metrics.SpecificityAtSensitivity(0.3).sensitivity == 0.3
    assert ef.metrics.PrecisionAtRecall(0.3).recall == 0.3
    assert ef.metrics.RecallAtPrecision(0.3).precision == 0.3


def test_errors():
    with pytest.raises(ValueError, match=r"PrecisionAtRecall: `recall` must be a number in "
                                         r"\[0, 1\]\. Received: recall=1.5"):
        ef.metrics.PrecisionAtRecall(1.5)
    with pytest.raises(ValueError, match=r"SensitivityAtSpecificity: `specificity` must be"):
        ef.metrics.SensitivityAtSpecificity("high")
    with pytest.raises(ValueError, match=r"RecallAtPrecision: `num_thresholds` must be a "
                                         r"positive int\. Received: num_thresholds=0"):
        ef.metrics.RecallAtPrecision(0.5, num_thresholds=0)
    with pytest.raises(ValueError, match=r"`class_id` must be None or an int >= 0\. "
                                         r"Received: class_id=-1"):
        ef.metrics.SpecificityAtSensitivity(0.5, class_id=-1)
    with pytest.raises(ef.errors.InvalidArgumentError,
                       match=r"SpecificityAtSensitivity: y_true and y_pred must have the same "
                             r"shape\. Received: y_true.shape=\(3,\), y_pred.shape=\(2,\)"):
        ef.metrics.SpecificityAtSensitivity(0.5)([1, 0, 1], [0.5, 0.5])
    with pytest.raises(ef.errors.InvalidArgumentError,
                       match=r"PrecisionAtRecall: class_id=4 needs y_pred"):
        ef.metrics.PrecisionAtRecall(0.5, class_id=4)(np.eye(3), np.eye(3))
