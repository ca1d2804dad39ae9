"""CosineSimilarity, LogCoshError, KLDivergence, Poisson, RootMeanSquaredError,
SparseTopKCategoricalAccuracy and the confusion counts against NumPy transcriptions of
Keras 3's formulas (equal to Keras 3.15's results on weighted data when written)."""

import json

import numpy as np
import pytest

import eagerflow as ef

RNG = np.random.default_rng(0)
Y_TRUE = RNG.random((6, 4))
Y_PRED = RNG.random((6, 4)) + 0.1
WEIGHTS = RNG.random(6)


def _unit(x):
    return x / np.sqrt(np.maximum((x ** 2).sum(-1, keepdims=True), 1e-12))


def _probabilities(x):
    return np.clip(x / x.sum(-1, keepdims=True), 1e-7, 1)


REFERENCES = {
    ef.metrics.CosineSimilarity: lambda t, p: (_unit(t) * _unit(p)).sum(-1),
    ef.metrics.LogCoshError: lambda t, p: np.log(np.cosh(p - t)).mean(-1),
    ef.metrics.KLDivergence: lambda t, p: (_probabilities(t) * np.log(
        _probabilities(t) / _probabilities(p))).sum(-1),
    ef.metrics.Poisson: lambda t, p: (p - t * np.log(p + 1e-7)).mean(-1),
}


@pytest.mark.parametrize("cls", list(REFERENCES), ids=lambda c: c.__name__)
def test_weighted_means_over_batches(cls):
    y_true, y_pred = Y_TRUE, Y_PRED
    if cls is ef.metrics.KLDivergence:
        y_true = y_true / y_true.sum(-1, keepdims=True)
        y_pred = y_pred / y_pred.sum(-1, keepdims=True)
    m = cls()
    m.update_state(y_true[:4], y_pred[:4], sample_weight=WEIGHTS[:4])
    m.update_state(y_true[4:], y_pred[4:], sample_weight=WEIGHTS[4:])
    expected = np.average(REFERENCES[cls](y_true, y_pred), weights=WEIGHTS)
    assert float(m.result()) == pytest.approx(expected, rel=1e-6)
    m.reset_state()
    assert float(m.result()) == 0.0
    assert cls.from_config(json.loads(json.dumps(m.get_config()))).get_config() == \
        m.get_config()


def test_root_mean_squared_error_is_the_root_of_the_whole_mean():
    m = ef.metrics.RootMeanSquaredError()
    m.update_state(Y_TRUE[:2], Y_PRED[:2], sample_weight=WEIGHTS[:2])
    m.update_state(Y_TRUE[2:], Y_PRED[2:], sample_weight=WEIGHTS[2:])
    squared = ((Y_PRED - Y_TRUE) ** 2)
    expected = np.sqrt(np.average(squared, weights=np.broadcast_to(WEIGHTS[:, None],
                                                                   squared.shape)))
    assert float(m.result()) == pytest.approx(expected, rel=1e-6)


def test_sparse_top_k_categorical_accuracy():
    labels = np.array([0, 3, 1, 2, 1, 0])
    m = ef.metrics.SparseTopKCategoricalAccuracy(k=2)
    m.update_state(labels, Y_PRED, sample_weight=WEIGHTS)
    top2 = np.argsort(-Y_PRED, axis=-1)[:, :2]
    hits = np.array([label in row for label, row in zip(labels, top2, strict=True)])
    assert float(m.result()) == pytest.approx(np.average(hits, weights=WEIGHTS), rel=1e-6)
    by_name = ef.metrics.get("sparse_top_k_categorical_accuracy")  # k=5 of 4 classes: all
    assert float(by_name(labels[:, None], Y_PRED)) == 1.0
    with pytest.raises(ValueError, match="`k` must be a positive int"):
        ef.metrics.SparseTopKCategoricalAccuracy(k=0)
    with pytest.raises(ef.errors.InvalidArgumentError, match="one integer label per row"):
        ef.metrics.sparse_top_k_categorical_accuracy(np.zeros((6, 2)), Y_PRED)


def test_confusion_counts_per_threshold():
    labels = (RNG.random(20) > 0.5).astype("float32")
    scores = RNG.random(20)
    weights = RNG.random(20)
    for cls, (want_label, want_prediction) in {
            ef.metrics.TruePositives: (1, True), ef.metrics.FalsePositives: (0, True),
            ef.metrics.TrueNegatives: (0, False), ef.metrics.FalseNegatives: (1, False)}.items():
        m = cls(thresholds=[0.3, 0.7])
        m.update_state(labels, scores, sample_weight=weights)
        expected = [np.sum(weights * ((labels == want_label) & ((scores > t) == want_prediction)))
                    for t in (0.3, 0.7)]
        np.testing.assert_allclose(m.result().numpy(), expected, rtol=1e-6)
        assert "top_k" not in m.get_config()
        assert float(cls()(labels, scores)) == np.sum(
            (labels == want_label) & ((scores > 0.5) == want_prediction))


def test_string_names_and_traced_updates():
    for name, cls in [("cosine_similarity", ef.metrics.CosineSimilarity),
                      ("logcosh", ef.metrics.LogCoshError),
                      ("kl_divergence", ef.metrics.KLDivergence),
                      ("poisson", ef.metrics.Poisson),
                      ("root_mean_squared_error", ef.metrics.RootMeanSquaredError)]:
        assert isinstance(ef.metrics.get(name), cls)
    m = ef.metrics.RootMeanSquaredError()
    update = ef.function(lambda t, p: m.update_state(t, p))
    update(Y_TRUE[:3], Y_PRED[:3])
    update(Y_TRUE[3:], Y_PRED[3:])
    assert float(m.result()) == pytest.approx(np.sqrt(((Y_PRED - Y_TRUE) ** 2).mean()),
                                              rel=1e-6)
    model = ef.Sequential([ef.Input((4,)), ef.layers.Dense(4)])
    model.compile(optimizer="sgd", loss="mse",
                  metrics=["root_mean_squared_error", ef.metrics.TruePositives()])
    history = model.fit(Y_TRUE, Y_PRED, epochs=2, verbose=0)
    assert {"root_mean_squared_error", "true_positives"} <= set(history.history)
