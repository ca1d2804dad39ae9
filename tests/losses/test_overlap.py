"""Dice, Tversky and CategoricalGeneralizedCrossEntropy: Keras 3.15.1's values, NumPy
transcriptions of its formulas, gradients by central differences, configs and names."""

import numpy as np
import pytest

import eagerflow as ef
from eagerflow.testing import check_gradients

EPS = 1e-7
MASKS = np.array([[[[1.0], [1.0]], [[0.0], [0.0]]], [[[1.0], [1.0]], [[0.0], [0.0]]]])
PRED = np.array([[[[0.0], [1.0]], [[0.0], [1.0]]], [[[0.4], [0.0]], [[0.0], [0.9]]]])
AXES = (1, 2, 3)


def dice_reference(t, p, axis=None):
    return 1 - 2 * (t * p).sum(axis) / (t.sum(axis) + p.sum(axis) + EPS)


def tversky_reference(t, p, alpha=0.5, beta=0.5, axis=None):
    tp = (t * p).sum(axis)
    return 1 - tp / (tp + alpha * ((1 - p) * t).sum(axis) + beta * (p * (1 - t)).sum(axis) + EPS)


def test_values_from_keras():
    np.testing.assert_allclose(ef.losses.dice(MASKS, PRED, axis=AXES), [0.5, 0.75757576],
                               rtol=1e-6)
    assert float(ef.losses.dice(MASKS, PRED)) == pytest.approx(0.6164383614186526, rel=1e-6)
    assert float(ef.losses.Dice()(MASKS, PRED)) == pytest.approx(0.6164383614186526, rel=1e-6)
    assert float(ef.losses.Dice(axis=AXES)(MASKS, PRED, sample_weight=[0.2, 0.8])) == \
        pytest.approx(0.35303032, rel=1e-6)
    np.testing.assert_allclose(ef.losses.tversky(MASKS, PRED, 0.3, 0.7, axis=AXES),
                               [0.50000002, 0.73509936], rtol=1e-6)
    assert float(ef.losses.Tversky(0.3, 0.7)(MASKS, PRED)) == \
        pytest.approx(0.6011396050453186, rel=1e-6)
    labels = np.array([0, 1, 0, 1])
    probs = np.array([[0.7, 0.3], [0.2, 0.8], [0.6, 0.4], [0.4, 0.6]])
    np.testing.assert_allclose(
        ef.losses.categorical_generalized_cross_entropy(labels, probs, q=0.5),
        [0.32667995, 0.21114562, 0.45080666, 0.45080666], rtol=1e-6)
    assert float(ef.losses.CategoricalGeneralizedCrossEntropy()(labels, probs)) == \
        pytest.approx(0.3598597049713135, rel=1e-6)


@pytest.mark.parametrize("axis", [None, AXES, (1, 2)])
def test_match_the_formulas_with_gradients(axis):
    rng = np.random.default_rng(1)
    t = (rng.random((3, 4, 4, 2)) > 0.5).astype(float)
    p = rng.uniform(0.05, 0.95, t.shape)
    np.testing.assert_allclose(ef.losses.dice(t, p, axis=axis), dice_reference(t, p, axis),
                               rtol=1e-9)
    np.testing.assert_allclose(ef.losses.tversky(t, p, 0.2, 0.8, axis=axis),
                               tversky_reference(t, p, 0.2, 0.8, axis), rtol=1e-9)
    check_gradients(lambda q: ef.losses.dice(t, q, axis=axis), p, order=2)
    check_gradients(lambda q: ef.losses.tversky(t, q, 0.2, 0.8, axis=axis), p, order=2)


def test_generalized_cross_entropy_formula_and_gradient():
    rng = np.random.default_rng(2)
    probs = rng.dirichlet(np.ones(5), size=6)
    labels = rng.integers(0, 5, 6)
    for q in (0.1, 0.5, 0.9):
        expected = (1 - probs[np.arange(6), labels] ** q) / q
        np.testing.assert_allclose(
            ef.losses.categorical_generalized_cross_entropy(labels, probs, q=q), expected,
            rtol=1e-9)
        check_gradients(lambda p, q=q: ef.losses.categorical_generalized_cross_entropy(
            labels, p, q=q), probs, order=2)


@pytest.mark.parametrize("name, cls, kwargs", [
    ("dice", ef.losses.Dice, {"axis": [1, 2]}),
    ("tversky", ef.losses.Tversky, {"alpha": 0.2, "beta": 0.8}),
    ("categorical_generalized_cross_entropy", ef.losses.CategoricalGeneralizedCrossEntropy,
     {"q": 0.3}),
])
def test_configs_and_names(name, cls, kwargs):
    loss = cls(**kwargs)
    assert loss.name == name and all(loss.get_config()[k] == v for k, v in kwargs.items())
    assert cls.from_config(loss.get_config()).get_config() == loss.get_config()
    assert ef.losses.get(name) is getattr(ef.losses, name)
    assert isinstance(ef.losses.get(cls.__name__), cls)


def test_errors():
    with pytest.raises(ValueError, match=r"q must be a number in the interval \(0, 1\)"):
        ef.losses.CategoricalGeneralizedCrossEntropy(q=1.0)
    with pytest.raises(ValueError, match="interval"):
        ef.losses.categorical_generalized_cross_entropy([0], [[1.0, 0.0]], q=0)
    with pytest.raises(ef.errors.InvalidArgumentError, match=r"outside the valid range"):
        ef.losses.categorical_generalized_cross_entropy([2], [[0.5, 0.5]])
    with pytest.raises(ef.errors.InvalidArgumentError, match="dice"):
        ef.losses.dice([[1.0, 0.0]], [[1.0, 0.0, 0.0]])


def test_trains_a_segmentation_model_by_name():
    rng = np.random.default_rng(0)
    x = rng.random((16, 4, 4, 1)).astype(np.float32)
    y = (x > 0.5).astype(np.float32)
    model = ef.Sequential([ef.Input((4, 4, 1)), ef.layers.Conv2D(1, 1, activation="sigmoid")])
    model.compile(ef.optim.Adam(0.1), loss="dice")
    history = model.fit(x, y, epochs=5, batch_size=8, verbose=0).history["loss"]
    assert history[-1] < history[0]
