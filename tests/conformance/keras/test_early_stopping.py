"""Port of Keras 3.15's ``keras/src/callbacks/early_stopping_test.py``.

The scenarios drive `EarlyStopping` with scripted epoch logs (as the Keras tests do) or run
it in ``fit`` with fixed weights; each is written once against a Keras-style namespace
``K``. ``KERAS`` holds what the same scenarios returned with ``K = keras`` (Keras 3.15,
TensorFlow 2.21 backend); the test runs them with ``K = eagerflow``.
"""
# ruff: noqa: E501  (the recorded table)

import numpy as np
import pytest

import eagerflow as ef
from tests.conformance.keras._replay import assert_same, outcome

LOSSES = [10.0, 9.0, 8.0, 9.0, 8.9, 8.8, 8.7, 8.6, 8.5]


def one_weight_model(K):
    model = K.Sequential([K.layers.Input((1,)), K.layers.Dense(1, use_bias=False)])
    model.compile(loss="mse", optimizer="sgd")
    return model


def drive(K, stopper, logs_per_epoch, weights=False):
    """Calls the hooks fit would call; returns the epochs run and the callback's state."""
    model = one_weight_model(K)
    stopper.set_model(model)
    stopper.on_train_begin()
    epochs = 0
    for epoch, logs in enumerate(logs_per_epoch):
        stopper.on_epoch_begin(epoch)
        if weights:
            model.set_weights([np.full((1, 1), float(epoch), "float32")])
        stopper.on_epoch_end(epoch, logs=dict(logs))
        epochs += 1
        if model.stop_training:
            break
    stopper.on_train_end()
    state = {"epochs": epochs, "stopped_epoch": stopper.stopped_epoch, "wait": stopper.wait,
             "stop_training": bool(model.stop_training)}
    if weights:
        state["final_weight"] = float(np.asarray(model.get_weights()[0]).ravel()[0])
    return state


def patience(K):
    return {str(p): drive(K, K.callbacks.EarlyStopping(monitor="loss", patience=p),
                          [{"loss": v} for v in LOSSES]) for p in (0, 1, 2, 3)}


def baseline(K):
    accuracies = [0.5, 0.55, 0.58, 0.59, 0.7, 0.71]
    out = {}
    for base in (0.5, 0.6, 0.75):
        stopper = K.callbacks.EarlyStopping(monitor="val_accuracy", baseline=base, patience=2,
                                            mode="max")
        out[str(base)] = drive(K, stopper, [{"val_accuracy": a} for a in accuracies])
    return out


def auto_mode_of_an_unknown_metric(K):
    """``mode="auto"`` for a name that is neither a loss nor a compiled metric."""
    stopper = K.callbacks.EarlyStopping(monitor="val_accuracy", patience=2)
    return drive(K, stopper, [{"val_accuracy": a} for a in (0.5, 0.4, 0.3)])


def min_delta_and_mode(K):
    out = {}
    for mode, delta in (("min", 0.5), ("min", 0.0), ("max", 0.0), ("auto", 1.5)):
        stopper = K.callbacks.EarlyStopping(monitor="val_loss", min_delta=delta, mode=mode,
                                            patience=2)
        out[f"{mode}_{delta}"] = drive(K, stopper, [{"val_loss": v} for v in LOSSES])
    return out


def restore_best_weights(K):
    out = {}
    for patience_, losses in ((2, [0.5, 0.4, 0.3, 0.35, 0.36, 0.2]), (5, [0.9, 0.8, 0.85, 0.7])):
        stopper = K.callbacks.EarlyStopping(monitor="val_loss", patience=patience_,
                                            restore_best_weights=True)
        out[str(patience_)] = drive(K, stopper, [{"val_loss": v} for v in losses], weights=True)
    return out


def start_from_epoch(K):
    out = {}
    for start in (0, 3, 6):
        stopper = K.callbacks.EarlyStopping(monitor="loss", patience=1, start_from_epoch=start)
        out[str(start)] = drive(K, stopper, [{"loss": v} for v in [5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0]])
    return out


def reuse_across_fits(K):
    """The same callback in two fits starts afresh each time (Keras issue 20256)."""
    x = np.linspace(-1.0, 1.0, 16, dtype="float32").reshape(16, 1)
    y = 3.0 * x
    model = K.Sequential([K.layers.Input((1,)), K.layers.Dense(1, use_bias=False, kernel_initializer="zeros")])
    model.compile(loss="mse", optimizer=K.optimizers.SGD(2.5))  # overshoots: the loss grows
    stopper = K.callbacks.EarlyStopping(monitor="loss", patience=2)
    first = model.fit(x, y, batch_size=16, epochs=10, callbacks=[stopper], verbose=0)
    state = [stopper.stopped_epoch, len(first.epoch)]
    model.set_weights([np.zeros((1, 1), "float32")])
    second = model.fit(x, y, batch_size=16, epochs=10, callbacks=[stopper], verbose=0)
    return {"first": state, "second": [stopper.stopped_epoch, len(second.epoch)],
            "loss": first.history["loss"]}


def fit_restores_best(K):
    x = np.linspace(-1.0, 1.0, 16, dtype="float32").reshape(16, 1)
    y = 3.0 * x
    model = K.Sequential([K.layers.Input((1,)), K.layers.Dense(1, use_bias=False, kernel_initializer="zeros")])
    model.compile(loss="mse", optimizer=K.optimizers.SGD(1.6))
    stopper = K.callbacks.EarlyStopping(monitor="val_loss", patience=2, restore_best_weights=True)
    history = model.fit(x, y, batch_size=8, epochs=12, validation_data=(x[::3], y[::3]),
                        shuffle=False, callbacks=[stopper], verbose=0)
    return {"history": history.history, "stopped_epoch": stopper.stopped_epoch,
            "weight": float(np.asarray(model.get_weights()[0]).ravel()[0])}


SCENARIOS = {f.__name__: f for f in (patience, baseline, auto_mode_of_an_unknown_metric, min_delta_and_mode, restore_best_weights,
                                     start_from_epoch, reuse_across_fits, fit_restores_best)}

# Recorded from Keras 3.15 (TensorFlow 2.21 backend) by running SCENARIOS with K = keras.
KERAS: dict = {'auto_mode_of_an_unknown_metric': {'raises': 'ValueError'},
 'baseline': {'0.5': {'epochs': 6, 'stop_training': False, 'stopped_epoch': 0, 'wait': 0},
              '0.6': {'epochs': 6, 'stop_training': False, 'stopped_epoch': 0, 'wait': 0},
              '0.75': {'epochs': 6, 'stop_training': False, 'stopped_epoch': 0, 'wait': 6}},
 'fit_restores_best': {'history': {'loss': [1.7741786241531372, 0.003377992194145918,
                                            6.4317382566514425e-06, 1.2253613235202465e-08,
                                            2.3434656992726843e-11, 3.032296636007459e-14, 0.0,
                                            0.0],
                                   'val_loss': [0.007996699772775173, 1.5226217328745406e-05,
                                                2.9021554937003202e-08, 5.60440582830779e-11,
                                                9.947598300641403e-14, 0.0, 0.0, 0.0]},
                       'stopped_epoch': 7,
                       'weight': 3.0},
 'min_delta_and_mode': {'auto_1.5': {'epochs': 5,
                                     'stop_training': True,
                                     'stopped_epoch': 4,
                                     'wait': 2},
                        'max_0.0': {'epochs': 3,
                                    'stop_training': True,
                                    'stopped_epoch': 2,
                                    'wait': 2},
                        'min_0.0': {'epochs': 5,
                                    'stop_training': True,
                                    'stopped_epoch': 4,
                                    'wait': 2},
                        'min_0.5': {'epochs': 5,
                                    'stop_training': True,
                                    'stopped_epoch': 4,
                                    'wait': 2}},
 'patience': {'0': {'epochs': 4, 'stop_training': True, 'stopped_epoch': 3, 'wait': 1},
              '1': {'epochs': 4, 'stop_training': True, 'stopped_epoch': 3, 'wait': 1},
              '2': {'epochs': 5, 'stop_training': True, 'stopped_epoch': 4, 'wait': 2},
              '3': {'epochs': 6, 'stop_training': True, 'stopped_epoch': 5, 'wait': 3}},
 'restore_best_weights': {'2': {'epochs': 5,
                                'final_weight': 2.0,
                                'stop_training': True,
                                'stopped_epoch': 4,
                                'wait': 2},
                          '5': {'epochs': 4,
                                'final_weight': 3.0,
                                'stop_training': False,
                                'stopped_epoch': 0,
                                'wait': 0}},
 'reuse_across_fits': {'first': [0, 10],
                       'loss': [3.3999998569488525, 2.6864194869995117, 2.122603178024292,
                                1.6771188974380493, 1.3251307010650635, 1.047016978263855,
                                0.8272727727890015, 0.6536476612091064, 0.5164624452590942,
                                0.4080691933631897],
                       'second': [0, 10]},
 'start_from_epoch': {'0': {'epochs': 2, 'stop_training': True, 'stopped_epoch': 1, 'wait': 1},
                      '3': {'epochs': 5, 'stop_training': True, 'stopped_epoch': 4, 'wait': 1},
                      '6': {'epochs': 8, 'stop_training': True, 'stopped_epoch': 7, 'wait': 1}}}

MARKS: dict = {
    "auto_mode_of_an_unknown_metric": pytest.mark.xfail(
        strict=True, raises=AssertionError,
        reason="on purpose: mode='auto' also reads the monitor's name (accuracy: max), where "
               "Keras needs a compiled metric of that name and raises ValueError otherwise"),
}


@pytest.mark.parametrize("name", [pytest.param(n, marks=MARKS.get(n, ())) for n in SCENARIOS])
def test_matches_keras(name):
    assert_same(outcome(SCENARIOS[name], ef), KERAS[name], name)
