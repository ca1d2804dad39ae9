import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import eagerflow as ef
from tests.metrics.strategies import batches, seeded, split

RNG = np.random.default_rng(0)
SCORES = RNG.uniform(0, 1, (12, 5)).astype(np.float32)
LABELS = RNG.integers(0, 5, 12)
ONE_HOT = np.eye(5, dtype=np.float32)[LABELS]


def test_accuracy():
    # As in Keras, a rank-1 target next to (n, 1) predictions is expanded to (n, 1).
    np.testing.assert_array_equal(ef.metrics.accuracy([1, 2, 3], [[1], [0], [3]]).numpy(),
                                  [[1.0], [0.0], [1.0]])
    m = ef.metrics.Accuracy()
    m.update_state([1, 2, 3, 4], [1, 2, 0, 0], sample_weight=[1.0, 1.0, 2.0, 0.0])
    assert float(m.result()) == 0.5


def test_binary_accuracy_threshold():
    y_true = np.array([1.0, 0.0, 1.0, 0.0])
    y_pred = np.array([0.6, 0.6, 0.9, 0.1])
    assert float(ef.metrics.BinaryAccuracy()(y_true, y_pred)) == 0.75
    assert float(ef.metrics.BinaryAccuracy(threshold=0.7)(y_true, y_pred)) == 0.75
    np.testing.assert_array_equal(
        ef.metrics.binary_accuracy(y_true, y_pred, threshold=0.95).numpy(), [0, 1, 0, 1])


def test_categorical_and_sparse_accuracy():
    expected = (np.argmax(SCORES, -1) == LABELS).astype(np.float32)
    np.testing.assert_array_equal(ef.metrics.categorical_accuracy(ONE_HOT, SCORES).numpy(),
                                  expected)
    np.testing.assert_array_equal(
        ef.metrics.sparse_categorical_accuracy(LABELS, SCORES).numpy(), expected)
    np.testing.assert_array_equal(
        ef.metrics.sparse_categorical_accuracy(LABELS[:, None].astype(np.float32),
                                               SCORES).numpy(), expected)
    assert float(ef.metrics.CategoricalAccuracy()(ONE_HOT, SCORES)) == pytest.approx(
        expected.mean())
    assert float(ef.metrics.SparseCategoricalAccuracy()(LABELS, SCORES)) == pytest.approx(
        expected.mean())


@pytest.mark.parametrize("k", [1, 2, 3, 5])
def test_top_k_matches_numpy_ranks(k):
    rank = (SCORES > SCORES[np.arange(12), LABELS][:, None]).sum(-1)
    expected = (rank < k).astype(np.float32)
    np.testing.assert_array_equal(
        ef.metrics.top_k_categorical_accuracy(ONE_HOT, SCORES, k=k).numpy(), expected)
    assert float(ef.metrics.TopKCategoricalAccuracy(k=k)(ONE_HOT, SCORES)) == pytest.approx(
        expected.mean())


def test_top_k_ties_count_as_inside_and_non_finite_scores_as_misses():
    scores = np.array([[0.5, 0.5, 0.5, 0.1], [np.nan, 0.2, 0.1, 0.0]])
    got = ef.metrics.top_k_categorical_accuracy([[0, 0, 1, 0], [0, 1, 0, 0]], scores, k=1)
    np.testing.assert_array_equal(got.numpy(), [1.0, 0.0])


def test_shape_errors():
    with pytest.raises(ef.errors.InvalidArgumentError, match=r"accuracy: y_true and y_pred"):
        ef.metrics.accuracy([1, 2, 3], [1, 2])
    with pytest.raises(ef.errors.InvalidArgumentError, match="binary_accuracy"):
        ef.metrics.BinaryAccuracy().update_state(np.zeros((3, 2)), np.zeros((3, 3)))
    with pytest.raises(ef.errors.InvalidArgumentError, match="categorical_accuracy: y_true"):
        ef.metrics.categorical_accuracy(ONE_HOT[:, :4], SCORES)
    with pytest.raises(ef.errors.InvalidArgumentError, match=r"one class index per row"):
        ef.metrics.sparse_categorical_accuracy(LABELS[:5], SCORES)
    with pytest.raises(ef.errors.InvalidArgumentError, match="class axis"):
        ef.metrics.sparse_categorical_accuracy(1, 0.5)


def test_bad_k():
    with pytest.raises(ValueError, match=r"`k` must be a positive int. Received: k=0"):
        ef.metrics.TopKCategoricalAccuracy(k=0)
    with pytest.raises(ValueError, match="`k` must be a positive int"):
        ef.metrics.top_k_categorical_accuracy(ONE_HOT, SCORES, k=1.5)


@settings(max_examples=60, deadline=None)
@given(batches(), st.integers(0, 2**31), st.booleans())
def test_streaming_accuracy_equals_accuracy_of_all_data(split_points, seed, weighted):
    n, cuts = split_points
    rng = seeded(seed)
    labels = rng.integers(0, 3, n)
    predictions = np.where(rng.uniform(size=n) < 0.6, labels, rng.integers(0, 3, n))
    weights = rng.uniform(0, 2, n) if weighted else None
    streaming = ef.metrics.Accuracy()
    for batch in split((labels, predictions, weights), cuts):
        streaming.update_state(*batch[:2], sample_weight=batch[2])
    matches = (labels == predictions).astype(np.float64)
    expected = np.average(matches, weights=weights) if weights is None or weights.sum() else 0
    np.testing.assert_allclose(float(streaming.result()), expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("k", [1, 2, 5])
def test_sparse_top_k_matches_numpy_ranks_with_weights(k):
    rank = (SCORES > SCORES[np.arange(12), LABELS][:, None]).sum(-1)
    expected = (rank < k).astype(np.float32)
    np.testing.assert_array_equal(
        ef.metrics.sparse_top_k_categorical_accuracy(LABELS, SCORES, k=k).numpy(), expected)
    weights = RNG.uniform(0, 1, 12)
    m = ef.metrics.SparseTopKCategoricalAccuracy(k=k)
    m.update_state(LABELS[:5, None], SCORES[:5], sample_weight=weights[:5])
    m.update_state(LABELS[5:, None], SCORES[5:], sample_weight=weights[5:])
    assert float(m.result()) == pytest.approx(np.average(expected, weights=weights), rel=1e-6)


def test_sparse_top_k_from_sorted_ids():
    order = np.argsort(-SCORES, axis=-1)
    for k in (1, 3):
        from_ids = ef.metrics.sparse_top_k_categorical_accuracy(LABELS, order, k=k,
                                                                from_sorted_ids=True)
        from_scores = ef.metrics.sparse_top_k_categorical_accuracy(LABELS, SCORES, k=k)
        np.testing.assert_array_equal(from_ids.numpy(), from_scores.numpy())
    # only the first k ids count, and an id listed twice counts once
    got = ef.metrics.SparseTopKCategoricalAccuracy(k=2, from_sorted_ids=True)(
        [3, 3, 1], [[3, 3, 0], [1, 0, 3], [1, 1, 2]])
    assert float(got) == pytest.approx(2 / 3)


def test_sparse_top_k_of_segmentation_maps_and_errors():
    scores = RNG.uniform(size=(2, 3, 3, 4))
    labels = RNG.integers(0, 4, (2, 3, 3))
    rank = (scores > np.take_along_axis(scores, labels[..., None], -1)).sum(-1)
    got = ef.metrics.sparse_top_k_categorical_accuracy(labels, scores, k=2).numpy()
    np.testing.assert_array_equal(got, (rank < 2).astype(np.float32))
    with pytest.raises(ef.errors.InvalidArgumentError,
                       match=r"sparse_top_k_categorical_accuracy: y_true must hold one class "
                             r"index per row of y_pred"):
        ef.metrics.SparseTopKCategoricalAccuracy()(LABELS[:4], SCORES)
    with pytest.raises(ValueError, match=r"SparseTopKCategoricalAccuracy: `k` must be a "
                                         r"positive int\. Received: k=0"):
        ef.metrics.SparseTopKCategoricalAccuracy(k=0)
