import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import eagerflow as ef
from tests.metrics.strategies import batches, seeded, split, weighted_mean

RNG = np.random.default_rng(0)
Y_TRUE = RNG.standard_normal((8, 3))
Y_PRED = RNG.standard_normal((8, 3))


def test_mean_squared_error_over_batches_with_weights():
    weights = RNG.uniform(0, 1, 8)
    m = ef.metrics.MeanSquaredError()
    m.update_state(Y_TRUE[:5], Y_PRED[:5], sample_weight=weights[:5])
    m.update_state(Y_TRUE[5:], Y_PRED[5:], sample_weight=weights[5:])
    per_sample = ((Y_TRUE - Y_PRED) ** 2).mean(-1)
    assert float(m.result()) == pytest.approx(np.average(per_sample, weights=weights), rel=1e-6)


def test_mean_absolute_error():
    m = ef.metrics.MeanAbsoluteError()
    assert float(m(Y_TRUE, Y_PRED)) == pytest.approx(np.abs(Y_TRUE - Y_PRED).mean(), rel=1e-6)
    assert float(ef.metrics.MeanAbsoluteError()(1.0, 3.0)) == 2.0


def test_shape_mismatch():
    with pytest.raises(ef.errors.InvalidArgumentError,
                       match=r"MeanSquaredError: y_true and y_pred must have the same shape"):
        ef.metrics.MeanSquaredError()(np.zeros((4, 1)), np.zeros((4, 2)))
    with pytest.raises(ef.errors.InvalidArgumentError, match="MeanAbsoluteError"):
        ef.metrics.MeanAbsoluteError()(np.zeros((4,)), np.zeros((5,)))


def _normalize(x, axis):
    return x / np.sqrt(np.maximum(np.sum(x * x, axis=axis, keepdims=True), 1e-12))


# NumPy transcriptions of Keras 3's documented per-sample formulas.
PER_SAMPLE = {
    "MeanAbsolutePercentageError":
        lambda t, p: 100 * np.mean(np.abs((t - p) / np.maximum(np.abs(t), 1e-7)), -1),
    "MeanSquaredLogarithmicError": lambda t, p: np.mean(
        (np.log(np.maximum(p, 1e-7) + 1) - np.log(np.maximum(t, 1e-7) + 1)) ** 2, -1),
    "LogCoshError": lambda t, p: np.mean(np.log(np.cosh(p - t)), -1),
    "CosineSimilarity": lambda t, p: np.sum(_normalize(t, -1) * _normalize(p, -1), -1),
    "MeanSquaredError": lambda t, p: np.mean((t - p) ** 2, -1),
}


@settings(max_examples=80, deadline=None)
@given(batches(), st.integers(0, 2**31), st.booleans(),
       st.sampled_from(sorted(PER_SAMPLE) + ["RootMeanSquaredError"]))
def test_streaming_means_match_the_formula_on_all_data(split_points, seed, weighted, name):
    n, cuts = split_points
    rng = seeded(seed)
    y_true = rng.uniform(-2, 2, (n, 3))
    y_pred = rng.uniform(-2, 2, (n, 3))
    if name == "MeanSquaredLogarithmicError":
        y_true[rng.uniform(size=y_true.shape) < 0.5] *= 1e-8  # the 1e-7 floor is exercised
    if name == "MeanAbsolutePercentageError":
        y_true[rng.uniform(size=y_true.shape) < 0.1] = 0.0  # the 1e-7 floor is exercised
    weights = rng.uniform(0, 2, n) if weighted else None
    m = getattr(ef.metrics, name)()
    for batch in split((y_true, y_pred, weights), cuts):
        m.update_state(*batch[:2], sample_weight=batch[2])
    values = PER_SAMPLE.get(name, PER_SAMPLE["MeanSquaredError"])(y_true, y_pred)
    expected = weighted_mean(values, weights)
    if name == "RootMeanSquaredError":
        expected = np.sqrt(expected)
    np.testing.assert_allclose(float(m.result()), expected, rtol=1e-5, atol=1e-6)


def test_root_mean_squared_error_is_the_root_of_the_running_mean():
    m = ef.metrics.RootMeanSquaredError()
    m.update_state([[1.0], [2.0]], [[1.0], [4.0]])  # squared errors 0, 4
    m.update_state([[0.0]], [[1.0]], sample_weight=[2.0])  # squared error 1, weight 2
    assert float(m.result()) == pytest.approx(np.sqrt((0 + 4 + 2) / 4))
    m.reset_state()
    assert float(m.result()) == 0.0


def test_cosine_similarity_axis_and_zero_vectors():
    y_true = np.array([[[1.0, 0.0], [0.0, 0.0]]])  # (1, 2, 2)
    y_pred = np.array([[[1.0, 0.0], [1.0, 1.0]]])
    # along axis 1: column 0 is (1, 0)·(1, 1)/sqrt(2); column 1 is a zero vector -> 0
    got = float(ef.metrics.CosineSimilarity(axis=1)(y_true, y_pred))
    assert got == pytest.approx(np.mean([1 / np.sqrt(2), 0.0]))
    assert ef.metrics.CosineSimilarity(axis=1).get_config()["axis"] == 1


@pytest.mark.parametrize("name", ["MeanAbsolutePercentageError", "MeanSquaredLogarithmicError",
                                  "LogCoshError", "CosineSimilarity", "RootMeanSquaredError"])
def test_shape_errors_name_the_metric(name):
    with pytest.raises(ef.errors.InvalidArgumentError,
                       match=rf"{name}: y_true and y_pred must have the same shape\. Received: "
                             r"y_true.shape=\(4, 3\), y_pred.shape=\(4, 2\)"):
        getattr(ef.metrics, name)()(np.ones((4, 3)), np.ones((4, 2)))
