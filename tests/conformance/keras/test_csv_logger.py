"""Port of Keras 3.15's ``keras/src/callbacks/csv_logger_test.py``.

Each scenario is written once against a Keras-style namespace ``K``, with fixed initial
weights, and returns the rows of the CSV file it wrote (numbers parsed, so float
formatting is compared to rtol 1e-5); ``KERAS`` holds what it returned with ``K = keras``
(Keras 3.15, TensorFlow 2.21 backend) and the test runs it with ``K = eagerflow``.
"""
# ruff: noqa: E501  (the recorded table)

import os
import tempfile

import numpy as np
import pytest

import eagerflow as ef
from tests.conformance.keras._replay import assert_same, outcome

inf, nan = float("inf"), float("nan")  # as the recorded table spells them
X = np.linspace(-1.0, 1.0, 12, dtype="float32").reshape(6, 2)
Y = np.array([[0.5], [1.0], [0.0], [2.0], [1.5], [1.0]], "float32")


def model_of(K):
    model = K.Sequential([K.layers.Input((2,)), K.layers.Dense(1, kernel_initializer="ones")])
    model.compile(loss="mse", optimizer=K.optimizers.SGD(0.05), metrics=["mse"])
    return model


def parse(cell):
    try:
        return float(cell)
    except ValueError:
        return cell


def rows(path, separator=","):
    with open(path) as f:
        return [[parse(cell) for cell in line.rstrip("\n").split(separator)] for line in f]


def separator_append_and_reuse(K):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "log.tsv")
        model = model_of(K)
        model.fit(X, Y, batch_size=3, validation_data=(X[:3], Y[:3]), epochs=1, shuffle=False,
                  callbacks=[K.callbacks.CSVLogger(path, separator="\t")], verbose=0)
        first = rows(path, "\t")
        model = model_of(K)
        logger = K.callbacks.CSVLogger(path, separator="\t", append=True)
        model.fit(X, Y, batch_size=3, validation_data=(X[:3], Y[:3]), epochs=1, shuffle=False,
                  callbacks=[logger], verbose=0)
        model.fit(X, Y, batch_size=3, validation_data=(X[:3], Y[:3]), epochs=2, shuffle=False,
                  callbacks=[logger], verbose=0)
        return {"first": first, "all": rows(path, "\t")}


def overwrite_without_append(K):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "log.csv")
        model = model_of(K)
        logger = K.callbacks.CSVLogger(path)
        model.fit(X, Y, batch_size=6, epochs=2, callbacks=[logger], verbose=0)
        model.fit(X, Y, batch_size=6, epochs=1, callbacks=[logger], verbose=0)
        return rows(path)


def stop_training(K):
    """A NaN loss stops training; the epoch still gets its row (``test_stop_training_csv``)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "log.csv")
        model = model_of(K)
        x = np.full((6, 2), 1e20, "float32")
        model.fit(x, Y, batch_size=3, epochs=3, shuffle=False, verbose=0,
                  callbacks=[K.callbacks.TerminateOnNaN(), K.callbacks.CSVLogger(path)])
        return rows(path)


SCENARIOS = {f.__name__: f for f in (separator_append_and_reuse, overwrite_without_append,
                                     stop_training)}

# Recorded from Keras 3.15 (TensorFlow 2.21 backend) by running SCENARIOS with K = keras.
KERAS: dict = {'overwrite_without_append': [['epoch', 'loss', 'mse', 'val_loss', 'val_mse'],
                              [0.0, 1.6358963251113892, 1.6358963251113892, 'NA', 'NA']],
 'separator_append_and_reuse': {'all': [['epoch', 'loss', 'mse', 'val_loss', 'val_mse'],
                                        [0.0, 2.1525025367736816, 2.1525025367736816,
                                         2.249380350112915, 2.249380350112915],
                                        [0.0, 2.1525025367736816, 2.1525025367736816,
                                         2.249380350112915, 2.249380350112915],
                                        [0.0, 1.5580768585205078, 1.5580768585205078,
                                         1.5605379343032837, 1.5605379343032837],
                                        [1.0, 1.1594346761703491, 1.1594346761703491,
                                         1.1071701049804688, 1.1071701049804688]],
                                'first': [['epoch', 'loss', 'mse', 'val_loss', 'val_mse'],
                                          [0.0, 2.1525025367736816, 2.1525025367736816,
                                           2.249380350112915, 2.249380350112915]]},
 'stop_training': [['epoch', 'loss', 'mse', 'val_loss', 'val_mse'], [0.0, inf, inf, 'NA', 'NA']]}

MARKS: dict = {  # the 1e20 inputs overflow the loss on purpose
    "stop_training": pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning"),
}


@pytest.mark.parametrize("name", [pytest.param(n, marks=MARKS.get(n, ())) for n in SCENARIOS])
def test_matches_keras(name):
    assert_same(outcome(SCENARIOS[name], ef), KERAS[name], name)
