"""Contract of the issue-17 metrics, one table row each: traced updates equal eager ones,
reset, config round trip, Keras string names, and `compile(metrics=[...])` with `fit`."""

import numpy as np
import pytest

import eagerflow as ef
from eagerflow.saving import registry

M = ef.metrics


def _data(kind, n, rng):
    """``(y_true, y_pred)`` for one task; `n` samples."""
    if kind == "binary":
        return rng.integers(0, 2, (n, 1)).astype(np.float32), rng.uniform(size=(n, 1))
    if kind == "multiclass":
        return np.eye(3, dtype=np.float32)[rng.integers(0, 3, n)], rng.uniform(size=(n, 3))
    if kind == "sparse":
        return rng.integers(0, 3, n), rng.uniform(size=(n, 3))
    if kind == "probabilities":
        return rng.dirichlet(np.ones(3), n), rng.dirichlet(np.ones(3), n)
    return rng.uniform(0.1, 2, (n, 2)), rng.uniform(0.1, 2, (n, 2))  # regression


# (factory, Keras string name or None when the constructor needs arguments, task)
CASES = {
    "F1Score": (lambda: M.F1Score(), "f1_score", "multiclass"),
    "FBetaScore": (lambda: M.FBetaScore("weighted", 2.0, 0.4), "fbeta_score", "multiclass"),
    "RootMeanSquaredError": (lambda: M.RootMeanSquaredError(), "root_mean_squared_error",
                             "regression"),
    "R2Score": (lambda: M.R2Score("variance_weighted_average", 1), "r2_score", "regression"),
    "MeanIoU": (lambda: M.MeanIoU(3, sparse_y_pred=False), None, "sparse"),
    "SparseTopKCategoricalAccuracy": (lambda: M.SparseTopKCategoricalAccuracy(k=2),
                                      "sparse_top_k_categorical_accuracy", "sparse"),
    "TruePositives": (lambda: M.TruePositives([0.3, 0.6]), "true_positives", "binary"),
    "FalsePositives": (lambda: M.FalsePositives(0.4), "false_positives", "binary"),
    "TrueNegatives": (lambda: M.TrueNegatives(), "true_negatives", "binary"),
    "FalseNegatives": (lambda: M.FalseNegatives([0.2, 0.9]), "false_negatives", "binary"),
    "PrecisionAtRecall": (lambda: M.PrecisionAtRecall(0.6), None, "binary"),
    "RecallAtPrecision": (lambda: M.RecallAtPrecision(0.5, num_thresholds=50), None,
                          "binary"),
    "SensitivityAtSpecificity": (lambda: M.SensitivityAtSpecificity(0.5), None, "binary"),
    "SpecificityAtSensitivity": (lambda: M.SpecificityAtSensitivity(0.5, class_id=0), None,
                                 "binary"),
    "CosineSimilarity": (lambda: M.CosineSimilarity(axis=-1), "cosine_similarity",
                         "regression"),
    "LogCoshError": (lambda: M.LogCoshError(), "log_cosh_error", "regression"),
    "KLDivergence": (lambda: M.KLDivergence(), "kl_divergence", "probabilities"),
    "Poisson": (lambda: M.Poisson(), "poisson", "regression"),
    "MeanAbsolutePercentageError": (lambda: M.MeanAbsolutePercentageError(), "mape",
                                    "regression"),
    "MeanSquaredLogarithmicError": (lambda: M.MeanSquaredLogarithmicError(), "msle",
                                    "regression"),
}
NAMES = sorted(CASES)


def test_every_case_is_exported():
    for name in NAMES:
        assert name in M.__all__ and type(CASES[name][0]()) is getattr(M, name)


@pytest.mark.parametrize("name", NAMES)
def test_traced_updates_equal_eager_ones_and_reset(name):
    factory, _, kind = CASES[name]
    rng = np.random.default_rng(len(name))
    eager, traced = factory(), factory()

    @ef.function
    def update(y_true, y_pred, weights):
        traced.update_state(y_true, y_pred, sample_weight=weights)
        return traced.result()

    for _ in range(2):
        y_true, y_pred = _data(kind, 16, rng)
        weights = rng.uniform(0.2, 2, 16)
        eager.update_state(y_true, y_pred, sample_weight=weights)
        last = update(ef.constant(y_true), ef.constant(y_pred), ef.constant(weights))
    assert update.experimental_get_tracing_count() == 1
    np.testing.assert_allclose(last.numpy(), eager.result().numpy(), rtol=1e-6, atol=1e-7)
    assert np.any(eager.result().numpy() != 0)  # the data leave a mark
    eager.reset_state()
    assert all(not np.any(v.numpy()) for v in eager.variables)
    assert not np.any(eager.result().numpy())


@pytest.mark.parametrize("name", NAMES)
def test_config_round_trip(name):
    metric = CASES[name][0]()
    clone = M.get(M.serialize(metric))
    assert type(clone) is type(metric) and clone.get_config() == metric.get_config()
    assert M.deserialize(M.serialize(metric)).get_config() == metric.get_config()


@pytest.mark.parametrize("name", NAMES)
def test_keras_string_names(name):
    factory, string_name, _ = CASES[name]
    cls = type(factory())
    snake = {"MeanIoU": "mean_io_u", "FBetaScore": "f_beta_score"}.get(name)
    for alias in filter(None, (name, string_name, snake)):
        assert registry.get_registered_object(alias, kind="metric") is cls
    if string_name is not None:
        assert type(M.get(string_name)) is cls


def test_names_of_metrics_needing_arguments_say_which():
    with pytest.raises(TypeError, match="num_classes"):
        M.get("mean_iou")
    assert M.get({"class_name": "MeanIoU", "config": {"num_classes": 4}}).num_classes == 4


_MODELS = {  # task -> (output units, activation, loss)
    "binary": (1, "sigmoid", "binary_crossentropy"),
    "multiclass": (3, "softmax", "categorical_crossentropy"),
    "sparse": (3, "softmax", "sparse_categorical_crossentropy"),
    "probabilities": (3, "softmax", "categorical_crossentropy"),
    "regression": (2, "softplus", "mse"),
}


@pytest.mark.parametrize("kind", sorted(_MODELS))
def test_compile_with_string_names_reports_them_in_history(kind):
    units, activation, loss = _MODELS[kind]
    entries = [CASES[name][1] or CASES[name][0]() for name in NAMES if CASES[name][2] == kind]
    rng = np.random.default_rng(0)
    x = rng.standard_normal((32, 4)).astype(np.float32)
    y, _ = _data(kind, 32, rng)
    ef.random.set_seed(0)
    model = ef.Sequential([ef.layers.Dense(units, activation=activation)])
    model.compile(optimizer=ef.optim.SGD(0.05), loss=loss, metrics=entries)
    history = model.fit(x, y, batch_size=8, epochs=2, verbose=0)
    expected = {entry if isinstance(entry, str) else entry.name for entry in entries}
    assert expected <= set(history.history)
    for key in expected:
        assert len(history.history[key]) == 2
        assert np.all(np.isfinite(history.history[key]))
