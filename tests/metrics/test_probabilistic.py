import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import eagerflow as ef
from tests.metrics.strategies import batches, seeded, split, weighted_mean

# NumPy transcriptions of Keras 3's documented per-sample formulas.
PER_SAMPLE = {
    "KLDivergence": lambda t, p: np.sum(
        np.clip(t, 1e-7, 1) * np.log(np.clip(t, 1e-7, 1) / np.clip(p, 1e-7, 1)), -1),
    "Poisson": lambda t, p: np.mean(p - t * np.log(p + 1e-7), -1),
}


@settings(max_examples=50, deadline=None)
@given(batches(), st.integers(0, 2**31), st.booleans(), st.sampled_from(sorted(PER_SAMPLE)))
def test_streaming_means_match_the_formula_on_all_data(split_points, seed, weighted, name):
    n, cuts = split_points
    rng = seeded(seed)
    y_true = rng.dirichlet(np.ones(4), n)
    y_pred = rng.dirichlet(np.ones(4), n)
    y_true[rng.uniform(size=y_true.shape) < 0.2] = 0.0  # clipped to 1e-7
    if name == "Poisson":
        y_true = np.round(y_true * 5)  # counts
    weights = rng.uniform(0, 2, n) if weighted else None
    m = getattr(ef.metrics, name)()
    for batch in split((y_true, y_pred, weights), cuts):
        m.update_state(*batch[:2], sample_weight=batch[2])
    expected = weighted_mean(PER_SAMPLE[name](y_true, y_pred), weights)
    np.testing.assert_allclose(float(m.result()), expected, rtol=1e-5, atol=1e-6)


def test_identical_distributions_have_zero_divergence_and_reset():
    m = ef.metrics.KLDivergence()
    assert float(m([[0.25, 0.75]], [[0.25, 0.75]])) == pytest.approx(0.0, abs=1e-7)
    m([[1.0, 0.0]], [[0.5, 0.5]])
    # the zero label is clipped to 1e-7, which adds 1e-7 * log(1e-7 / 0.5)
    assert float(m.result()) == pytest.approx((np.log(2) + 1e-7 * np.log(2e-7)) / 2, rel=1e-6)
    m.reset_state()
    assert float(m.result()) == 0.0


@pytest.mark.parametrize("name", ["KLDivergence", "Poisson"])
def test_shape_errors_name_the_metric(name):
    with pytest.raises(ef.errors.InvalidArgumentError,
                       match=rf"{name}: y_true and y_pred must have the same shape\. Received: "
                             r"y_true.shape=\(4, 3\), y_pred.shape=\(4, 2\)"):
        getattr(ef.metrics, name)()(np.ones((4, 3)), np.ones((4, 2)))
