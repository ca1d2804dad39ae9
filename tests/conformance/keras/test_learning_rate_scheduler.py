"""Port of Keras 3.15's ``keras/src/callbacks/learning_rate_scheduler_test.py``.

The scenarios run `LearningRateScheduler` in ``fit`` with fixed weights or drive it with
the hooks fit calls, written once against a Keras-style namespace ``K``. ``KERAS`` holds
what the same scenarios returned with ``K = keras`` (Keras 3.15, TensorFlow 2.21 backend);
the test runs them with ``K = eagerflow``.
"""
# ruff: noqa: E501  (the recorded table)

import numpy as np
import pytest

import eagerflow as ef
from tests.conformance.keras._replay import assert_same, outcome

X = np.linspace(-1.0, 1.0, 8, dtype="float32").reshape(8, 1)


def model_of(K, learning_rate=0.1):
    model = K.Sequential([K.layers.Input((1,)), K.layers.Dense(1, kernel_initializer="zeros")])
    model.compile(loss="mse", optimizer=K.optimizers.SGD(learning_rate))
    return model


def updates_learning_rate(K):
    model = model_of(K)
    scheduler = K.callbacks.LearningRateScheduler(lambda epoch: 1.0 / (1.0 + epoch))
    history = model.fit(X, 2 * X, batch_size=4, epochs=3, shuffle=False, callbacks=[scheduler], verbose=0)
    return {"history": history.history, "rate": float(np.asarray(model.optimizer.learning_rate))}


def depends_on_previous_rate(K):
    model = model_of(K, 0.08)
    scheduler = K.callbacks.LearningRateScheduler(lambda epoch, lr: lr * 0.5 if epoch > 0 else lr)
    history = model.fit(X, 2 * X, batch_size=8, epochs=4, callbacks=[scheduler], verbose=0)
    return {"history": history.history, "rate": float(np.asarray(model.optimizer.learning_rate))}


def learning_rate_in_history(K):
    model = model_of(K)
    scheduler = K.callbacks.LearningRateScheduler(lambda epoch: 0.05 * (epoch + 1))
    history = model.fit(X, 2 * X, batch_size=8, epochs=2, validation_data=(X, 2 * X),
                        callbacks=[scheduler], verbose=0)
    return sorted(history.history)


def schedule_returns_a_non_float(K):
    model = model_of(K)
    scheduler = K.callbacks.LearningRateScheduler(lambda epoch: "fast")
    return model.fit(X, 2 * X, batch_size=8, epochs=1, callbacks=[scheduler], verbose=0).history


def optimizer_with_a_schedule(K):
    model = K.Sequential([K.layers.Input((1,)), K.layers.Dense(1)])
    schedule = K.optimizers.schedules.ExponentialDecay(0.1, decay_steps=1, decay_rate=0.9)
    model.compile(loss="mse", optimizer=K.optimizers.SGD(schedule))
    scheduler = K.callbacks.LearningRateScheduler(lambda epoch: 0.01)
    return model.fit(X, 2 * X, batch_size=8, epochs=1, callbacks=[scheduler], verbose=0).history


SCENARIOS = {f.__name__: f for f in (updates_learning_rate, depends_on_previous_rate,
                                     learning_rate_in_history, schedule_returns_a_non_float,
                                     optimizer_with_a_schedule)}

# Recorded from Keras 3.15 (TensorFlow 2.21 backend) by running SCENARIOS with K = keras.
KERAS: dict = {'depends_on_previous_rate': {'history': {'learning_rate': [0.07999999821186066,
                                                            0.03999999910593033,
                                                            0.019999999552965164,
                                                            0.009999999776482582],
                                          'loss': [1.7142857313156128, 1.4872443675994873,
                                                   1.387010097503662, 1.3398630619049072]},
                              'rate': 0.009999999776482582},
 'learning_rate_in_history': ['learning_rate', 'loss', 'val_loss'],
 'optimizer_with_a_schedule': {'raises': 'TypeError'},
 'schedule_returns_a_non_float': {'raises': 'ValueError'},
 'updates_learning_rate': {'history': {'learning_rate': [1.0, 0.5, 0.3333333432674408],
                                       'loss': [3.860057830810547, 6.437244892120361,
                                                2.447169780731201]},
                           'rate': 0.3333333432674408}}

MARKS: dict = {}


@pytest.mark.parametrize("name", [pytest.param(n, marks=MARKS.get(n, ())) for n in SCENARIOS])
def test_matches_keras(name):
    assert_same(outcome(SCENARIOS[name], ef), KERAS[name], name)
