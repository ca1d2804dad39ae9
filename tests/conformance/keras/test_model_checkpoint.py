"""Port of Keras 3.15's ``keras/src/callbacks/model_checkpoint_test.py``.

Each scenario trains a model with fixed initial weights and a `ModelCheckpoint` writing
weights files (``.weights.h5``, which both frameworks write) and returns which files exist
(and, when reloaded, the weights); written once against a Keras-style namespace ``K``.
``KERAS`` holds what the scenarios returned with ``K = keras`` (Keras 3.15, TensorFlow 2.21
backend); the test runs them with ``K = eagerflow``.
"""
# ruff: noqa: E501  (the recorded table)

import os
import tempfile

import numpy as np
import pytest

import eagerflow as ef
from tests.conformance.keras._replay import assert_same, outcome

X = np.linspace(-1.0, 1.0, 8, dtype="float32").reshape(8, 1)
Y = 2.0 * X + 0.5
# SGD(1.2) overshoots, so the validation loss goes down and up: save_best_only matters.
VAL = (X[::2], Y[::2])


def model_of(K, learning_rate=1.2):
    model = K.Sequential([K.layers.Input((1,)), K.layers.Dense(1, kernel_initializer="zeros")])
    model.compile(loss="mse", optimizer=K.optimizers.SGD(learning_rate), metrics=["mae"])
    return model


def files_after(K, epochs=4, batch_size=8, learning_rate=1.2, **checkpoint):
    with tempfile.TemporaryDirectory() as tmp:
        pattern = checkpoint.pop("filepath", "w.{epoch:02d}.weights.h5")
        model = model_of(K, learning_rate)
        callback = K.callbacks.ModelCheckpoint(os.path.join(tmp, pattern), save_weights_only=True, **checkpoint)
        history = model.fit(X, Y, batch_size=batch_size, epochs=epochs, validation_data=VAL, shuffle=False,
                            callbacks=[callback], verbose=0)
        return {"files": sorted(os.listdir(tmp)), "val_loss": history.history["val_loss"],
                "best": None if callback.best in (None, np.inf, -np.inf) else float(callback.best)}


def every_epoch(K):
    return files_after(K)


def best_only_min(K):
    return files_after(K, save_best_only=True, monitor="val_loss", mode="min")


def best_only_auto(K):
    return files_after(K, save_best_only=True, monitor="val_loss")


def best_only_max(K):
    return files_after(K, save_best_only=True, monitor="val_loss", mode="max")


def best_only_initial_threshold(K):
    return files_after(K, save_best_only=True, monitor="val_loss", initial_value_threshold=0.3)


def log_key_in_filename(K):
    return files_after(K, filepath="w.{epoch:02d}-{val_loss:.2f}.weights.h5")


def save_freq_batches(K):
    return files_after(K, epochs=2, batch_size=2, filepath="w.{epoch:02d}-{batch:02d}.weights.h5", save_freq=3)


def fixed_name_best_reload(K):
    """``save_best_only`` to one path, then ``load_weights`` restores the best epoch."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "best.weights.h5")
        model = model_of(K)
        model.fit(X, Y, batch_size=8, epochs=5, validation_data=VAL, shuffle=False, verbose=0,
                  callbacks=[K.callbacks.ModelCheckpoint(path, save_weights_only=True, save_best_only=True)])
        model.load_weights(path)
        return {"evaluate": model.evaluate(*VAL, verbose=0),
                "weights": [float(w) for w in np.concatenate([np.ravel(v) for v in model.get_weights()])]}


def unknown_mode(K):
    return files_after(K, save_best_only=True, mode="sideways")


SCENARIOS = {f.__name__: f for f in (every_epoch, best_only_min, best_only_auto, best_only_max,
                                     best_only_initial_threshold, log_key_in_filename,
                                     save_freq_batches, fixed_name_best_reload, unknown_mode)}

# Recorded from Keras 3.15 (TensorFlow 2.21 backend) by running SCENARIOS with K = keras.
KERAS: dict = {'best_only_auto': {'best': 0.4799709916114807,
                    'files': ['w.01.weights.h5'],
                    'val_loss': [0.4799709916114807, 0.9599441885948181, 1.8823667764663696,
                                 3.689473867416382]},
 'best_only_initial_threshold': {'best': 0.3,
                                 'files': [],
                                 'val_loss': [0.4799709916114807, 0.9599441885948181,
                                              1.8823667764663696, 3.689473867416382]},
 'best_only_max': {'best': 3.689473867416382,
                   'files': ['w.01.weights.h5', 'w.02.weights.h5', 'w.03.weights.h5',
                             'w.04.weights.h5'],
                   'val_loss': [0.4799709916114807, 0.9599441885948181, 1.8823667764663696,
                                3.689473867416382]},
 'best_only_min': {'best': 0.4799709916114807,
                   'files': ['w.01.weights.h5'],
                   'val_loss': [0.4799709916114807, 0.9599441885948181, 1.8823667764663696,
                                3.689473867416382]},
 'every_epoch': {'best': None,
                 'files': ['w.01.weights.h5', 'w.02.weights.h5', 'w.03.weights.h5',
                           'w.04.weights.h5'],
                 'val_loss': [0.4799709916114807, 0.9599441885948181, 1.8823667764663696,
                              3.689473867416382]},
 'fixed_name_best_reload': {'evaluate': [0.4799709916114807, 0.6918368339538574],
                            'weights': [2.057142734527588, 1.2000000476837158]},
 'log_key_in_filename': {'best': None,
                         'files': ['w.01-0.48.weights.h5', 'w.02-0.96.weights.h5',
                                   'w.03-1.88.weights.h5', 'w.04-3.69.weights.h5'],
                         'val_loss': [0.4799709916114807, 0.9599441885948181, 1.8823667764663696,
                                      3.689473867416382]},
 'save_freq_batches': {'best': None,
                       'files': ['w.01-03.weights.h5', 'w.02-02.weights.h5'],
                       'val_loss': [373.78277587890625, 722.08544921875]},
 'unknown_mode': {'best': 0.4799709916114807,
                  'files': ['w.01.weights.h5'],
                  'val_loss': [0.4799709916114807, 0.9599441885948181, 1.8823667764663696,
                               3.689473867416382]}}

MARKS: dict = {
    "unknown_mode": pytest.mark.xfail(
        strict=True, raises=AssertionError,
        reason="on purpose: an unknown mode is a ValueError (Keras warns and uses 'auto')"),
}


@pytest.mark.parametrize("name", [pytest.param(n, marks=MARKS.get(n, ())) for n in SCENARIOS])
def test_matches_keras(name):
    assert_same(outcome(SCENARIOS[name], ef), KERAS[name], name)
