"""The Keras 3 losses beyond the basic ones: values against NumPy transcriptions of
Keras's formulas, gradients by central differences, configs and string names."""

import numpy as np
import pytest

import eagerflow as ef
from eagerflow.testing import check_gradients

EPS = 1e-7
RNG = np.random.default_rng(0)
P_TRUE = RNG.dirichlet(np.ones(4), size=3)
P_PRED = RNG.dirichlet(np.ones(4), size=3)
SIGNS = RNG.choice([-1.0, 1.0], size=(3, 4))
BINARY = RNG.integers(0, 2, size=(3, 4)).astype(float)
ONE_HOT = np.eye(4)[[0, 2, 3]]
REAL = RNG.standard_normal((3, 4))
POSITIVE = RNG.random((3, 4)) + 0.5


def _bfce(y, p, gamma=2.0, alpha=0.25, balance=False):
    q = np.clip(p, EPS, 1 - EPS)
    bce = -(y * np.log(q) + (1 - y) * np.log(1 - q))
    p_t = y * p + (1 - y) * (1 - p)
    out = (1 - p_t) ** gamma * bce
    if balance:
        out = (y * alpha + (1 - y) * (1 - alpha)) * out
    return out.mean(-1)


def _cfce(y, p, gamma=2.0, alpha=0.25):
    out = np.clip(p / p.sum(-1, keepdims=True), EPS, 1 - EPS)
    return (alpha * (1 - out) ** gamma * -y * np.log(out)).sum(-1)


def _l2n(x):
    return x / np.sqrt(np.maximum((x * x).sum(-1, keepdims=True), 1e-12))


CASES = [
    ("kl_divergence", "KLDivergence", P_TRUE, P_PRED, lambda y, p: (
        np.clip(y, EPS, 1) * np.log(np.clip(y, EPS, 1) / np.clip(p, EPS, 1))).sum(-1)),
    ("poisson", "Poisson", POSITIVE, POSITIVE[::-1],
     lambda y, p: (p - y * np.log(p + EPS)).mean(-1)),
    ("hinge", "Hinge", SIGNS, REAL, lambda y, p: np.maximum(1 - y * p, 0).mean(-1)),
    ("hinge", "Hinge", BINARY, REAL, lambda y, p: np.maximum(1 - (2 * y - 1) * p, 0).mean(-1)),
    ("squared_hinge", "SquaredHinge", SIGNS, REAL,
     lambda y, p: np.square(np.maximum(1 - y * p, 0)).mean(-1)),
    ("categorical_hinge", "CategoricalHinge", ONE_HOT, REAL, lambda y, p: np.maximum(
        ((1 - y) * p).max(-1) - (y * p).sum(-1) + 1, 0)),
    ("log_cosh", "LogCosh", REAL, REAL[::-1], lambda y, p: np.log(np.cosh(p - y)).mean(-1)),
    ("mean_absolute_percentage_error", "MeanAbsolutePercentageError", POSITIVE, REAL,
     lambda y, p: 100 * np.abs((y - p) / np.maximum(np.abs(y), EPS)).mean(-1)),
    ("mean_squared_logarithmic_error", "MeanSquaredLogarithmicError", POSITIVE,
     POSITIVE[::-1], lambda y, p: np.square(np.log1p(p) - np.log1p(y)).mean(-1)),
    ("cosine_similarity", "CosineSimilarity", REAL, REAL[::-1],
     lambda y, p: -(_l2n(y) * _l2n(p)).sum(-1)),
    ("binary_focal_crossentropy", "BinaryFocalCrossentropy", BINARY,
     np.clip(P_PRED * 2, 0.05, 0.95), _bfce),
    ("categorical_focal_crossentropy", "CategoricalFocalCrossentropy", ONE_HOT, P_PRED, _cfce),
]


@pytest.mark.parametrize("name, class_name, y_true, y_pred, reference", CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_values_gradients_configs_and_names(name, class_name, y_true, y_pred, reference):
    function = getattr(ef.losses, name)
    np.testing.assert_allclose(function(y_true, y_pred), reference(y_true, y_pred),
                               rtol=1e-6, atol=3e-9)  # float64 inputs stay float64
    # (log_cosh subtracts log(2) rounded to float32, as Keras does: 1.9e-9 below 0 at 0)
    check_gradients(lambda p: function(y_true, p), y_pred, order=1)
    loss = getattr(ef.losses, class_name)()  # computes in float32, as Keras
    np.testing.assert_allclose(float(loss(y_true, y_pred)), reference(y_true, y_pred).mean(),
                               rtol=1e-5)
    clone = type(loss).from_config(loss.get_config())
    assert clone.get_config() == loss.get_config()
    assert ef.losses.get(name) is function
    assert isinstance(ef.losses.get(class_name), type(loss))


def test_focal_options_and_aliases():
    y, p = BINARY, np.clip(P_PRED * 2, 0.05, 0.95)
    loss = ef.losses.BinaryFocalCrossentropy(apply_class_balancing=True, gamma=1.0, alpha=0.4)
    np.testing.assert_allclose(float(loss(y, p)), _bfce(y, p, 1.0, 0.4, True).mean(),
                               rtol=1e-6)
    logits = np.log(p / (1 - p))
    np.testing.assert_allclose(
        ef.losses.binary_focal_crossentropy(y, logits, from_logits=True), _bfce(y, p),
        rtol=1e-5)
    for alias in ("kld", "KLD", "mape", "msle", "logcosh"):
        assert callable(ef.losses.get(alias))
    model = ef.Sequential([ef.layers.Dense(4, activation="softmax", input_shape=(2,))])
    model.compile("sgd", loss="categorical_focal_crossentropy")
    assert np.isfinite(model.fit(np.ones((6, 2)), ONE_HOT[[0, 1, 2, 0, 1, 2]], verbose=0)
                       .history["loss"][0])
