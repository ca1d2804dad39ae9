"""The metric forms of the crossentropy and hinge losses: weighted means of the loss
functions over every sample seen, by class and by Keras string name."""

import numpy as np
import pytest

import eagerflow as ef

RNG = np.random.default_rng(0)
PROBS = RNG.dirichlet(np.ones(3), 8)
ONE_HOT = np.eye(3)[RNG.integers(0, 3, 8)]
WEIGHTS = RNG.random(8)


@pytest.mark.parametrize("cls, loss, y_true, y_pred", [
    (ef.metrics.BinaryCrossentropy, ef.losses.binary_crossentropy,
     (RNG.random((8, 1)) > 0.5).astype(float), RNG.random((8, 1)) * 0.9 + 0.05),
    (ef.metrics.CategoricalCrossentropy, ef.losses.categorical_crossentropy, ONE_HOT, PROBS),
    (ef.metrics.SparseCategoricalCrossentropy, ef.losses.sparse_categorical_crossentropy,
     ONE_HOT.argmax(-1), PROBS),
    (ef.metrics.Hinge, ef.losses.hinge, ONE_HOT, PROBS),
    (ef.metrics.SquaredHinge, ef.losses.squared_hinge, ONE_HOT, PROBS),
    (ef.metrics.CategoricalHinge, ef.losses.categorical_hinge, ONE_HOT, PROBS),
])
def test_weighted_mean_of_the_loss_over_batches(cls, loss, y_true, y_pred):
    metric = cls()
    metric.update_state(y_true[:5], y_pred[:5], sample_weight=WEIGHTS[:5])
    metric.update_state(y_true[5:], y_pred[5:], sample_weight=WEIGHTS[5:])
    per_sample = loss(y_true, y_pred).numpy()
    assert float(metric.result()) == pytest.approx(np.average(per_sample, weights=WEIGHTS),
                                                   rel=1e-5)
    assert isinstance(ef.metrics.get(metric.name), cls)


def test_from_logits_and_the_keras_layer_aliases():
    logits = RNG.standard_normal((8, 3))
    metric = ef.metrics.CategoricalCrossentropy(from_logits=True)
    expected = ef.losses.categorical_crossentropy(ONE_HOT, logits, from_logits=True).numpy()
    assert float(metric(ONE_HOT, logits)) == pytest.approx(expected.mean(), rel=1e-5)
    assert ef.metrics.CategoricalCrossentropy.from_config(metric.get_config()).get_config() \
        == metric.get_config()
    assert ef.layers.MaxPool2D is ef.layers.MaxPooling2D
    assert ef.layers.Convolution2D is ef.layers.Conv2D
    assert ef.layers.GlobalAvgPool1D is ef.layers.GlobalAveragePooling1D
