"""Port of Keras 3.15's ``keras/src/trainers/trainer_test.py`` (what eagerflow implements).

Each scenario below is written once against a Keras-style namespace ``K`` and returns
plain numbers (histories, evaluate/predict results, step counts, callback hook order and
log keys). The expected values (``KERAS``) were recorded by running the same scenarios
with ``K = keras`` (Keras 3.15, TensorFlow 2.21 backend, CPU); the test runs them with
``K = eagerflow``. Initial weights are fixed (``ones`` kernels or NumPy arrays given to
``set_weights``) and ``shuffle=False``, so both frameworks see the same numbers.

Ported cases: ``test_fit_flow``, ``test_fit_with_val_split``,
``test_fit_with_custom_train_step``, ``test_evaluate_flow``,
``test_evaluate_with_custom_test_step``, ``test_predict_flow``, ``test_steps_per_epoch``,
``test_fit_with_different_batch_size_same_loss``,
``test_evaluate_with_different_batch_size_same_loss``, ``test_on_batch_methods``,
``test_callback_methods_keys``, ``test_evaluate_return_list_respect_metrics_order``,
``test_loss_weights``; plus sample and class weights, and the order of callback hooks.
"""
# ruff: noqa: E501  (the recorded table)

from typing import Any

import numpy as np
import pytest

import eagerflow as ef
from tests.conformance.keras._replay import assert_same, outcome


def dense_ones(K: Any, units: int, inputs: int = 4) -> Any:
    """Keras's ``ExampleModel``: one bias-free Dense layer with a kernel of ones."""
    return K.Sequential([K.layers.Input((inputs,)),
                         K.layers.Dense(units, use_bias=False, kernel_initializer="ones")])


def mse_model(K: Any, units: int = 3) -> Any:
    model = dense_ones(K, units)
    model.compile(optimizer=K.optimizers.SGD(), loss=K.losses.MeanSquaredError(),
                  metrics=[K.metrics.MeanSquaredError()])
    return model


def classifier(K: Any) -> tuple[Any, np.ndarray, np.ndarray]:
    """A softmax classifier with fixed weights on 12 fixed samples of 3 classes."""
    rng = np.random.default_rng(0)
    x = rng.normal(size=(12, 3)).astype("float32")
    y = np.array([0, 1, 2, 1, 0, 2, 2, 1, 0, 1, 2, 0])
    model = K.Sequential([K.layers.Input((3,)), K.layers.Dense(3, activation="softmax")])
    model.set_weights([rng.normal(size=(3, 3)).astype("float32") * 0.5,
                       np.array([0.1, -0.1, 0.0], "float32")])
    model.compile(optimizer=K.optimizers.SGD(0.1), loss="sparse_categorical_crossentropy",
                  metrics=["sparse_categorical_accuracy"])
    return model, x, y


def fit_flow(K):
    x, y = np.ones((100, 4)), np.zeros((100, 3))
    return mse_model(K).fit(x, y, batch_size=20, epochs=3, verbose=0).history


def fit_with_val_split(K):
    x, y = np.ones((100, 4)), np.zeros((100, 3))
    return mse_model(K).fit(x, y, batch_size=16, epochs=3, validation_split=0.2,
                            shuffle=False, verbose=0).history


def custom_steps(K):
    class Custom(K.Sequential):
        def train_step(self, data):
            logs = super().train_step(data)
            logs["my_custom_metric"] = 10.0
            return logs

        def test_step(self, data):
            logs = super().test_step(data)
            logs["my_custom_metric"] = 5.0
            return logs

    model = Custom([K.layers.Input((4,)),
                    K.layers.Dense(3, use_bias=False, kernel_initializer="ones")])
    model.compile(optimizer=K.optimizers.SGD(), loss="mse", metrics=["mse"])
    x, y = np.ones((100, 4)), np.zeros((100, 3))
    history = model.fit(x, y, batch_size=16, epochs=2, verbose=0).history
    return {"history": history,
            "evaluate": model.evaluate(x, y, batch_size=16, verbose=0, return_dict=True)}


def evaluate_flow(K):
    model, x, y = mse_model(K), np.ones((100, 4)), np.zeros((100, 3))
    return {"list": model.evaluate(x, y, batch_size=16, verbose=0),
            "dict": model.evaluate(x, y, batch_size=16, verbose=0, return_dict=True)}


def predict_flow(K):
    x = np.arange(20, dtype="float32").reshape(5, 4) / 10
    return np.asarray(dense_ones(K, 3).predict(x, batch_size=2, verbose=0)).tolist()


def steps_per_epoch(K):
    """Batches run and the loss per epoch when steps_per_epoch does not match the data."""
    out = {}
    for steps in (10, 5, 9, 11):
        model = dense_ones(K, 1)
        model.compile(loss="mse", optimizer="sgd")
        counter = StepCounter(K)
        history = model.fit(np.ones((80, 4)), np.ones((80, 1)), batch_size=8, epochs=4,
                            steps_per_epoch=steps, callbacks=[counter], shuffle=False,
                            verbose=0)
        out[str(steps)] = {"batches": counter.batches, "loss": history.history["loss"]}
    return out


def StepCounter(K):  # noqa: N802 - builds a Callback subclass of the namespace given
    class Counter(K.callbacks.Callback):
        def __init__(self):
            super().__init__()
            self.batches = []

        def on_epoch_begin(self, epoch, logs=None):
            self.batches.append(0)

        def on_train_batch_end(self, batch, logs=None):
            self.batches[-1] += 1

    return Counter()


def batch_size_same_loss(K):
    x = np.arange(48, dtype="float32").reshape(12, 4) / 48
    y = np.linspace(0.0, 1.0, 12, dtype="float32").reshape(12, 1)
    out = {}
    for batch_size in (3, 4, 6, 12):
        model = dense_ones(K, 1)
        model.compile(loss="mse", optimizer=K.optimizers.SGD(0.01))
        out[f"evaluate_{batch_size}"] = model.evaluate(x, y, batch_size=batch_size, verbose=0)
        out[f"fit_{batch_size}"] = model.fit(x, y, batch_size=batch_size, epochs=2,
                                             shuffle=False, verbose=0).history["loss"]
    return out


def on_batch_methods(K):
    model = mse_model(K)
    x, y = np.ones((8, 4)), np.zeros((8, 3))
    return {"train": model.train_on_batch(x, y, return_dict=True),
            "train_list": model.train_on_batch(x, y),
            "test": model.test_on_batch(x, y, return_dict=True),
            "predict": np.asarray(model.predict_on_batch(x[:2])).tolist()}


def sample_and_class_weights(K):
    model, x, y = classifier(K)
    weights = np.linspace(0.5, 2.0, 12)
    out = {"sample": model.fit(x, y, sample_weight=weights, batch_size=4, epochs=2,
                               shuffle=False, verbose=0).history}
    model, x, y = classifier(K)
    out["class"] = model.fit(x, y, class_weight={0: 1.0, 1: 3.0, 2: 0.5}, batch_size=4,
                             epochs=2, shuffle=False, verbose=0).history
    model, x, y = classifier(K)
    out["validation"] = model.fit(x[:8], y[:8], validation_data=(x[8:], y[8:], weights[8:]),
                                  batch_size=4, epochs=2, shuffle=False, verbose=0).history
    out["evaluate_weighted"] = model.evaluate(x, y, sample_weight=weights, batch_size=5,
                                              verbose=0)
    return out


def callback_hooks(K):
    """The order of every hook and the sorted keys of its logs (``test_callback_methods_keys``)."""
    class Recorder(K.callbacks.Callback):
        def __init__(self):
            super().__init__()
            self.calls = []

    def hook(name):
        def method(self, *args, logs=None):
            if logs is None and args and isinstance(args[-1], dict):
                logs = args[-1]
            self.calls.append([name, sorted(logs or {})])
        return method

    for name in ("on_train_begin", "on_train_end", "on_epoch_begin", "on_epoch_end",
                 "on_test_begin", "on_test_end", "on_predict_begin", "on_predict_end",
                 "on_train_batch_begin", "on_train_batch_end", "on_test_batch_begin",
                 "on_test_batch_end", "on_predict_batch_begin", "on_predict_batch_end"):
        setattr(Recorder, name, hook(name))
    model = dense_ones(K, 1)
    model.compile(loss="mse", optimizer="sgd", metrics=["mean_absolute_error"])
    x, y = np.ones((6, 4)), np.ones((6, 1))
    recorder = Recorder()
    model.fit(x, y, batch_size=3, epochs=2, validation_data=(x[:3], y[:3]),
              callbacks=[recorder], verbose=0)
    model.evaluate(x, y, batch_size=3, callbacks=[recorder], verbose=0)
    model.predict(x, batch_size=3, callbacks=[recorder], verbose=0)
    # on_predict_batch_end's logs hold the outputs; only their keys are compared.
    return recorder.calls


def metrics_order(K):
    model = dense_ones(K, 1)
    model.compile(loss="mse", optimizer="sgd",
                  metrics=["mean_absolute_error", "mean_squared_error", "mean_absolute_percentage_error"])
    x = np.arange(24, dtype="float32").reshape(6, 4) / 24
    y = np.linspace(1.0, 2.0, 6).reshape(6, 1)
    return {"list": model.evaluate(x, y, batch_size=6, verbose=0),
            "dict": model.evaluate(x, y, batch_size=6, verbose=0, return_dict=True)}


def loss_weights(K):
    inputs = K.layers.Input((4,), name="x")
    a = K.layers.Dense(1, kernel_initializer="ones", name="a")(inputs)
    b = K.layers.Dense(2, kernel_initializer="ones", name="b")(inputs)
    model = K.Model(inputs, {"a": a, "b": b})
    model.compile(optimizer=K.optimizers.SGD(0.01), loss={"a": "mse", "b": "mae"},
                  loss_weights={"a": 0.3, "b": 2.0}, metrics={"a": ["mae"]})
    x = np.arange(32, dtype="float32").reshape(8, 4) / 32
    y = {"a": np.ones((8, 1)), "b": np.zeros((8, 2))}
    history = model.fit(x, y, batch_size=4, epochs=2, shuffle=False, verbose=0).history
    return {"history": history,
            "evaluate": model.evaluate(x, y, batch_size=4, verbose=0, return_dict=True)}


SCENARIOS = {f.__name__: f for f in (
    fit_flow, fit_with_val_split, custom_steps, evaluate_flow, predict_flow, steps_per_epoch,
    batch_size_same_loss, on_batch_methods, sample_and_class_weights, callback_hooks,
    metrics_order, loss_weights)}


# Recorded from Keras 3.15 (TensorFlow 2.21 backend) by running SCENARIOS with K = keras.
KERAS: dict = {'batch_size_same_loss': {'evaluate_12': 2.827072858810425,
                          'evaluate_3': 2.827072858810425,
                          'evaluate_4': 2.827072858810425,
                          'evaluate_6': 2.827072858810425,
                          'fit_12': [2.827072858810425, 2.682936429977417],
                          'fit_3': [2.6671736240386963, 2.1588590145111084],
                          'fit_4': [2.7334327697753906, 2.3328158855438232],
                          'fit_6': [2.7957308292388916, 2.5158896446228027]},
 'callback_hooks': [['on_train_begin', []], ['on_epoch_begin', []], ['on_train_batch_begin', []],
                    ['on_train_batch_end', ['loss', 'mean_absolute_error']],
                    ['on_train_batch_begin', []],
                    ['on_train_batch_end', ['loss', 'mean_absolute_error']], ['on_test_begin', []],
                    ['on_test_batch_begin', []],
                    ['on_test_batch_end', ['loss', 'mean_absolute_error']],
                    ['on_test_end', ['loss', 'mean_absolute_error']],
                    ['on_epoch_end',
                     ['loss', 'mean_absolute_error', 'val_loss', 'val_mean_absolute_error']],
                    ['on_epoch_begin', []], ['on_train_batch_begin', []],
                    ['on_train_batch_end', ['loss', 'mean_absolute_error']],
                    ['on_train_batch_begin', []],
                    ['on_train_batch_end', ['loss', 'mean_absolute_error']], ['on_test_begin', []],
                    ['on_test_batch_begin', []],
                    ['on_test_batch_end', ['loss', 'mean_absolute_error']],
                    ['on_test_end', ['loss', 'mean_absolute_error']],
                    ['on_epoch_end',
                     ['loss', 'mean_absolute_error', 'val_loss', 'val_mean_absolute_error']],
                    ['on_train_end',
                     ['loss', 'mean_absolute_error', 'val_loss', 'val_mean_absolute_error']],
                    ['on_test_begin', []], ['on_test_batch_begin', []],
                    ['on_test_batch_end', ['loss', 'mean_absolute_error']],
                    ['on_test_batch_begin', []],
                    ['on_test_batch_end', ['loss', 'mean_absolute_error']],
                    ['on_test_end', ['loss', 'mean_absolute_error']], ['on_predict_begin', []],
                    ['on_predict_batch_begin', []], ['on_predict_batch_end', ['outputs']],
                    ['on_predict_batch_begin', []], ['on_predict_batch_end', ['outputs']],
                    ['on_predict_end', []]],
 'custom_steps': {'evaluate': {'loss': 7.506624698638916,
                               'mse': 7.506624698638916,
                               'my_custom_metric': 5.0},
                  'history': {'loss': [13.938326835632324, 9.547133445739746],
                              'mse': [13.938326835632324, 9.547133445739746],
                              'my_custom_metric': [10.0, 10.0]}},
 'evaluate_flow': {'dict': {'loss': 16.0, 'mean_squared_error': 16.0}, 'list': [16.0, 16.0]},
 'fit_flow': {'loss': [14.402392387390137, 10.991338729858398, 8.388158798217773],
              'mean_squared_error': [14.402392387390137, 10.991338729858398, 8.388158798217773]},
 'fit_with_val_split': {'loss': [14.402392387390137, 10.991339683532715, 8.388158798217773],
                        'mean_squared_error': [14.402392387390137, 10.991339683532715,
                                               8.388158798217773],
                        'val_loss': [12.210570335388184, 9.318626403808594, 7.11160945892334],
                        'val_mean_squared_error': [12.210570335388184, 9.318626403808594,
                                                   7.11160945892334]},
 'loss_weights': {'evaluate': {'a_loss': 2.037393569946289,
                               'a_mae': 1.1757280826568604,
                               'b_loss': 1.859765648841858,
                               'loss': 4.33074951171875},
                  'history': {'a_loss': [2.189850091934204, 2.111379384994507],
                              'a_mae': [1.218379020690918, 1.1967097520828247],
                              'b_loss': [1.9290331602096558, 1.8901660442352295],
                              'loss': [4.515021324157715, 4.413745880126953]}},
 'metrics_order': {'dict': {'loss': 0.8087963461875916,
                            'mean_absolute_error': 0.7611110806465149,
                            'mean_absolute_percentage_error': 48.92251205444336,
                            'mean_squared_error': 0.8087963461875916},
                   'list': [0.8087963461875916, 0.7611110806465149, 0.8087963461875916,
                            48.92251205444336]},
 'on_batch_methods': {'predict': [[3.789511203765869, 3.789511203765869, 3.789511203765869],
                                  [3.789511203765869, 3.789511203765869, 3.789511203765869]],
                      'test': {'loss': 14.360394477844238,
                               'mean_squared_error': 14.360394477844238},
                      'train': {'loss': 16.0, 'mean_squared_error': 16.0},
                      'train_list': [15.158045768737793, 15.158045768737793]},
 'predict_flow': [[0.6000000238418579, 0.6000000238418579, 0.6000000238418579],
                  [2.200000047683716, 2.200000047683716, 2.200000047683716],
                  [3.8000001907348633, 3.8000001907348633, 3.8000001907348633],
                  [5.400000095367432, 5.400000095367432, 5.400000095367432],
                  [7.000000476837158, 7.000000476837158, 7.000000476837158]],
 'sample_and_class_weights': {'class': {'loss': [1.2801400423049927, 1.1756244897842407],
                                        'sparse_categorical_accuracy': [0.5833333134651184, 0.5]},
                              'evaluate_weighted': [1.276145100593567, 0.6666666865348816],
                              'sample': {'loss': [1.3000383377075195, 1.2652045488357544],
                                         'sparse_categorical_accuracy': [0.6666666865348816,
                                                                         0.6666666865348816]},
                              'validation': {'loss': [0.8244516849517822, 0.8054600954055786],
                                             'sparse_categorical_accuracy': [0.875, 0.875],
                                             'val_loss': [2.2491884231567383, 2.28155255317688],
                                             'val_sparse_categorical_accuracy': [0.25, 0.25]}},
 'steps_per_epoch': {'10': {'batches': [10, 10, 10, 10],
                            'loss': [4.753750324249268, 0.8970010876655579, 0.16925814747810364,
                                     0.031937889754772186]},
                     '11': {'batches': [10, 10, 10, 10],
                            'loss': [4.753750324249268, 0.8970010876655579, 0.16925814747810364,
                                     0.031937889754772186]},
                     '5': {'batches': [5, 5, 5, 5],
                           'loss': [6.628260135650635, 2.879240036010742, 1.2507086992263794,
                                    0.5432935357093811]},
                     '9': {'batches': [9, 1, 9, 1],
                           'loss': [5.0590081214904785, 2.00642728805542, 0.9546012878417969,
                                    0.3785995841026306]}}}

MARKS: dict = {  # steps_per_epoch=11 over 10 batches runs out of data, as in Keras (it warns)
    "steps_per_epoch": pytest.mark.filterwarnings("ignore:Your input ran out of data"),
}


@pytest.mark.parametrize("name", [pytest.param(n, marks=MARKS.get(n, ())) for n in SCENARIOS])
def test_matches_keras(name):
    assert_same(outcome(SCENARIOS[name], ef), KERAS[name], name)
