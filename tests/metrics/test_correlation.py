"""PearsonCorrelation and ConcordanceCorrelation: a NumPy transcription of Keras 3's
documented formulas, Keras 3.15.1's values where its code follows them, streaming and
weights, config, and errors."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import eagerflow as ef
from tests.metrics.strategies import seeded

Y_TRUE = np.array([[0, 1, 0.5], [1, 1, 0.2]])
Y_PRED = np.array([[0.1, 0.9, 0.5], [1, 0.9, 0.2]])


def pearson_reference(t, p, axis=-1):
    tz = (t - t.mean(axis, keepdims=True)) / t.std(axis, keepdims=True)
    pz = (p - p.mean(axis, keepdims=True)) / p.std(axis, keepdims=True)
    return (tz * pz).mean(axis)


def concordance_reference(t, p, axis=-1):
    tm, pm = t.mean(axis, keepdims=True), p.mean(axis, keepdims=True)
    cov = ((t - tm) * (p - pm)).mean(axis)
    norm = t.var(axis) + p.var(axis) + np.squeeze((tm - pm) ** 2, axis)
    return 2 * cov / (norm + 1e-7)


def test_values_from_keras():
    np.testing.assert_allclose(ef.metrics.pearson_correlation(Y_TRUE, Y_PRED).numpy(),
                               [1.0, 0.99339927], rtol=1e-6)
    np.testing.assert_allclose(ef.metrics.concordance_correlation(Y_TRUE, Y_PRED).numpy(),
                               [0.9756094, 0.98765396], rtol=1e-6)
    m = ef.metrics.PearsonCorrelation()
    m.update_state(Y_TRUE, Y_PRED, sample_weight=[0.3, 0.7])
    assert float(m.result()) == pytest.approx(0.9953795075416565, rel=1e-6)
    c = ef.metrics.ConcordanceCorrelation()
    c.update_state(Y_TRUE, Y_PRED, sample_weight=[0.3, 0.7])
    assert float(c.result()) == pytest.approx(0.9840406179428101, rel=1e-6)
    assert float(ef.metrics.PearsonCorrelation()([1.0, 2, 3], [2.0, 4, 7])) == \
        pytest.approx(0.9933991432189941, rel=1e-6)


def test_concordance_centres_each_side_on_its_own_mean():
    t, p = np.array([[1.0, 2.0, 4.0]]), np.array([[3.0, 3.5, 6.0]])  # different means
    got = ef.metrics.concordance_correlation(t, p).numpy()
    np.testing.assert_allclose(got, concordance_reference(t, p), rtol=1e-9)
    assert got[0] < pearson_reference(t, p)[0]  # the shift is penalised


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**31), st.sampled_from([-1, 0, (1, 2)]), st.booleans())
def test_streaming_means_match_the_formulas(seed, axis, weighted):
    rng = seeded(seed)
    t = rng.normal(size=(6, 4, 3))
    p = t * rng.uniform(0.5, 2) + rng.normal(scale=0.5, size=t.shape)
    for cls, reference in ((ef.metrics.PearsonCorrelation, pearson_reference),
                           (ef.metrics.ConcordanceCorrelation, concordance_reference)):
        per_sample = reference(t, p, axis)
        weights = rng.uniform(0, 2, per_sample.shape) if weighted else None
        m = cls(axis=axis)
        half = t.shape[0] // 2 if axis != 0 else None
        if half:  # two batches
            m.update_state(t[:half], p[:half], None if weights is None else weights[:half])
            m.update_state(t[half:], p[half:], None if weights is None else weights[half:])
        else:
            m.update_state(t, p, weights)
        expected = np.average(per_sample, weights=weights)
        np.testing.assert_allclose(float(m.result()), expected, rtol=1e-5)


def test_constant_sample_gives_nan_as_in_keras():
    assert np.isnan(float(ef.metrics.PearsonCorrelation()([[1.0, 1.0]], [[0.0, 1.0]])))


@pytest.mark.parametrize("cls", [ef.metrics.PearsonCorrelation, ef.metrics.ConcordanceCorrelation])
def test_config_names_and_errors(cls):
    m = cls(axis=0)
    assert cls.from_config(m.get_config()).get_config() == m.get_config()
    assert m.get_config()["axis"] == 0
    assert isinstance(ef.metrics.get(m.name), cls)
    with pytest.raises(ef.errors.InvalidArgumentError, match="same shape"):
        cls()([[1.0, 2.0]], [[1.0, 2.0, 3.0]])
