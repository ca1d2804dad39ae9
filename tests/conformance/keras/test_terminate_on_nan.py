"""Port of Keras 3.15's ``keras/src/callbacks/terminate_on_nan_test.py``.

Each scenario is written once against a Keras-style namespace ``K``, with fixed initial
weights; ``KERAS`` holds what it returned with ``K = keras`` (Keras 3.15, TensorFlow 2.21
backend) and the test runs it with ``K = eagerflow``.
"""
# ruff: noqa: E501  (the recorded table)

import numpy as np
import pytest

import eagerflow as ef
from tests.conformance.keras._replay import assert_same, outcome

inf, nan = float("inf"), float("nan")  # as the recorded table spells them


def model_of(K):
    model = K.Sequential([K.layers.Input((1,)), K.layers.Dense(1, kernel_initializer="ones")])
    model.compile(optimizer="sgd", loss="mse")
    return model


def tracker(K):
    class Tracker(K.callbacks.Callback):
        def __init__(self):
            super().__init__()
            self.events = []

        def on_train_batch_end(self, batch, logs=None):
            self.events.append(f"batch_{batch}")

        def on_epoch_end(self, epoch, logs=None):
            self.events.append(f"epoch_{epoch}")

        def on_train_end(self, logs=None):
            self.events.append("train_end")

    return Tracker()


def overflowing_loss(K):
    """Huge inputs overflow the loss at the first batch (``test_TerminateOnNaN``)."""
    model = model_of(K)
    x = np.full((10, 1), 1e20, "float32")
    events = tracker(K)
    history = model.fit(x, np.zeros((10, 1)), batch_size=2, epochs=3, callbacks=[K.callbacks.TerminateOnNaN(), events],
                        shuffle=False, verbose=0)
    return {"epochs": len(history.history["loss"]), "loss": history.history["loss"], "events": events.events}


def graceful_stop(K):
    model = model_of(K)
    x, y = np.array([[1.0], [2.0]]), np.array([[np.inf], [np.inf]])
    events = tracker(K)
    history = model.fit(x, y, epochs=2, batch_size=1, callbacks=[K.callbacks.TerminateOnNaN(raise_error=False), events],
                        shuffle=False, verbose=0)
    return {"loss": history.history["loss"], "events": events.events}


def raise_error(K):
    model = model_of(K)
    x, y = np.array([[1.0], [2.0]]), np.array([[np.inf], [np.inf]])
    events = tracker(K)
    result = outcome(lambda K: model.fit(x, y, epochs=1, batch_size=1, verbose=0,
                                         callbacks=[K.callbacks.TerminateOnNaN(raise_error=True), events]), K)
    return {"outcome": result if isinstance(result, dict) else "finished", "events": events.events}


def raise_error_on_a_later_batch(K):
    model = model_of(K)
    x, y = np.array([[1.0], [2.0], [3.0]]), np.array([[1.0], [2.0], [np.inf]])
    events = tracker(K)
    result = outcome(lambda K: model.fit(x, y, epochs=2, batch_size=1, shuffle=False, verbose=0,
                                         callbacks=[K.callbacks.TerminateOnNaN(raise_error=True), events]), K)
    return {"outcome": result if isinstance(result, dict) else "finished", "events": events.events,
            "weights": [float(w) for w in np.concatenate([np.ravel(v) for v in model.get_weights()])]}


def normal_training(K):
    model = model_of(K)
    x = np.linspace(0.0, 1.0, 6, dtype="float32").reshape(6, 1)
    history = model.fit(x, 2 * x, batch_size=3, epochs=2, shuffle=False, verbose=0,
                        callbacks=[K.callbacks.TerminateOnNaN(raise_error=True)])
    return history.history


SCENARIOS = {f.__name__: f for f in (overflowing_loss, graceful_stop, raise_error,
                                     raise_error_on_a_later_batch, normal_training)}

# Recorded from Keras 3.15 (TensorFlow 2.21 backend) by running SCENARIOS with K = keras.
KERAS: dict = {'graceful_stop': {'events': ['batch_0', 'epoch_0', 'train_end'], 'loss': [inf]},
 'normal_training': {'loss': [0.36259064078330994, 0.3333325684070587]},
 'overflowing_loss': {'epochs': 1, 'events': ['batch_0', 'epoch_0', 'train_end'], 'loss': [inf]},
 'raise_error': {'events': [], 'outcome': {'raises': 'RuntimeError'}},
 'raise_error_on_a_later_batch': {'events': ['batch_0', 'batch_1'],
                                  'outcome': {'raises': 'RuntimeError'},
                                  'weights': [inf, inf]}}

MARKS: dict = {  # the 1e20 inputs overflow the loss on purpose
    "overflowing_loss": pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning"),
}


@pytest.mark.parametrize("name", [pytest.param(n, marks=MARKS.get(n, ())) for n in SCENARIOS])
def test_matches_keras(name):
    assert_same(outcome(SCENARIOS[name], ef), KERAS[name], name)
