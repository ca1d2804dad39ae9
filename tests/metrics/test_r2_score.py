import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import eagerflow as ef
from tests.metrics.strategies import batches, seeded, split


def r2_reference(y_true, y_pred, weights=None, class_aggregation="uniform_average",
                 num_regressors=0):
    """Keras 3's R2 formula over all the data (a column without variance scores 0)."""
    w = np.ones_like(y_true) if weights is None else np.broadcast_to(
        weights.reshape(len(y_true), -1), y_true.shape)
    mean = np.sum(w * y_true, 0) / np.sum(w, 0)
    total = np.sum(w * (y_true - mean) ** 2, 0)
    residual = np.sum(w * (y_true - y_pred) ** 2, 0)
    scores = np.where(total > 0, 1 - residual / np.where(total > 0, total, 1), 0.0)
    if class_aggregation == "uniform_average":
        score = np.mean(scores)
    elif class_aggregation == "variance_weighted_average":
        score = np.sum(total * scores) / np.sum(total)
    else:
        score = scores
    n = y_true.size  # Keras counts every target value (ops.size(y_true)), weighted or not
    if num_regressors and n - num_regressors - 1 > 0:
        score = 1 - (1 - score) * (n - 1) / (n - num_regressors - 1)
    return score


@settings(max_examples=60, deadline=None)
@given(batches(), st.integers(0, 2**31), st.booleans(),
       st.sampled_from([None, "uniform_average", "variance_weighted_average"]),
       st.sampled_from([0, 1, 3]))
def test_streaming_r2_matches_the_formula_on_all_data(split_points, seed, weighted,
                                                      class_aggregation, num_regressors):
    n, cuts = split_points
    n += 5  # the adjusted score needs n > num_regressors + 1
    cuts = cuts[:-1] + [n]
    rng = seeded(seed)
    y_true = rng.standard_normal((n, 3)) * [1.0, 3.0, 0.5]
    y_pred = y_true + rng.standard_normal((n, 3)) * 0.5
    weights = rng.uniform(0.5, 2, n) if weighted else None
    m = ef.metrics.R2Score(class_aggregation, num_regressors)
    for batch in split((y_true, y_pred, weights), cuts):
        m.update_state(*batch[:2], sample_weight=batch[2])
    expected = r2_reference(y_true, y_pred, weights, class_aggregation, num_regressors)
    np.testing.assert_allclose(m.result().numpy(), expected, rtol=1e-5, atol=1e-6)


def test_keras_documented_example_and_rank_one_inputs():
    assert float(ef.metrics.R2Score()([[1], [4], [3]], [[2], [4], [4]])) == pytest.approx(4 / 7)
    assert float(ef.metrics.R2Score()([1, 4, 3], [[2], [4], [4]])) == pytest.approx(4 / 7)


def test_weights_per_output_and_zero_weight_samples_still_count_as_keras():
    y_true = np.array([[1.0, 2.0], [2.0, 0.0], [4.0, 1.0], [9.0, 9.0]])
    y_pred = np.array([[1.5, 2.0], [2.0, 1.0], [3.0, 1.0], [0.0, 0.0]])
    weights = np.array([[1.0, 2.0], [1.0, 1.0], [2.0, 1.0], [0.0, 0.0]])
    m = ef.metrics.R2Score(class_aggregation=None, num_regressors=1)
    m.update_state(y_true, y_pred, sample_weight=weights)
    assert float(m.num_samples) == 8.0  # Keras 3.15: ops.size(y_true), zero weights too
    np.testing.assert_allclose(m.result().numpy(),
                               r2_reference(y_true, y_pred, weights, None, 1), rtol=1e-6)


def test_constant_labels_score_zero_and_reset():
    m = ef.metrics.R2Score()
    assert float(m.result()) == 0.0  # nothing seen yet
    assert float(m([[2.0], [2.0]], [[1.0], [3.0]])) == 0.0
    m.reset_state()
    assert float(m.count[0]) == 0.0 and float(m.num_samples) == 0.0


def test_too_few_samples_for_the_adjusted_score_warns_and_gives_plain_r2():
    m = ef.metrics.R2Score(num_regressors=2)
    m.update_state([[1.0], [2.0], [4.0]], [[1.0], [2.5], [3.0]])
    with pytest.warns(ef.errors.EagerflowWarning,
                      match=r"R2Score: num_regressors=2 needs more than 3 samples for the "
                            r"adjusted R2 \(seen: 3\); returning the plain R2"):
        adjusted = float(m.result())
    assert adjusted == pytest.approx(float(r2_reference(
        np.array([[1.0], [2.0], [4.0]]), np.array([[1.0], [2.5], [3.0]]))), rel=1e-6)


def test_errors():
    with pytest.raises(ValueError, match=r"R2Score: `class_aggregation` must be one of \[None, "
                                         r"'uniform_average', 'variance_weighted_average'\]"):
        ef.metrics.R2Score(class_aggregation="raw_values")
    with pytest.raises(ValueError, match=r"`num_regressors` must be an int >= 0\. Received: "
                                         r"num_regressors=-1"):
        ef.metrics.R2Score(num_regressors=-1)
    m = ef.metrics.R2Score()
    with pytest.raises(ef.errors.InvalidArgumentError,
                       match=r"R2Score expects y_true and y_pred of the same shape \(batch_size, "
                             r"num_outputs\)\. Received: y_true.shape=\(2, 2, 1\)"):
        m(np.ones((2, 2, 1)), np.ones((2, 2, 1)))
    m(np.ones((2, 2)), np.ones((2, 2)))
    with pytest.raises(ef.errors.InvalidArgumentError,
                       match="R2Score was first updated with 2 outputs; this batch has 3"):
        m(np.ones((2, 3)), np.ones((2, 3)))
    with pytest.raises(ef.errors.InvalidArgumentError,
                       match=r"R2Score: sample_weight of shape \(3,\) cannot be broadcast"):
        m(np.ones((2, 2)), np.ones((2, 2)), sample_weight=[1.0, 1.0, 1.0])
