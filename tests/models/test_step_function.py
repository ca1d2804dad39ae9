"""fit/evaluate/predict run their step methods through ef.function, with no fallback."""

import numpy as np
import pytest

import eagerflow as ef
from eagerflow.graph.graph import OperatorNotAllowedInGraphError


def _data(n=64, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, 4)).astype("float32")
    y = (x @ np.array([[1.0], [-2.0], [0.5], [0.0]], "float32") > 0).astype("float32")
    return x, y


def _model(run_eagerly, dropout=0.0):
    ef.random.set_seed(3)
    model = ef.Sequential([ef.layers.Dense(8, activation="relu"),
                           ef.layers.Dropout(dropout),
                           ef.layers.BatchNormalization(),
                           ef.layers.Dense(1)])
    model.compile(optimizer=ef.optim.Adam(0.01, global_clipnorm=5.0),
                  loss=ef.losses.BinaryCrossentropy(from_logits=True),
                  metrics=[ef.metrics.BinaryAccuracy(threshold=0.0),
                           ef.metrics.AUC(from_logits=True)],
                  run_eagerly=run_eagerly)
    return model


@pytest.mark.parametrize("dropout", [0.0, 0.3])
def test_traced_fit_equals_eager_fit(dropout):
    x, y = _data()
    histories, weights = [], []
    for eager in (True, False):
        model = _model(eager, dropout)
        history = model.fit(x, y, batch_size=24, epochs=3, verbose=0, shuffle=True,
                            validation_data=(x[:16], y[:16]))
        histories.append(history.history)
        weights.append([w.numpy() for w in model.weights])
    assert histories[0].keys() == histories[1].keys()
    for key in histories[0]:
        np.testing.assert_allclose(histories[1][key], histories[0][key], rtol=1e-4, atol=1e-5)
    for traced, eager in zip(weights[1], weights[0], strict=True):
        np.testing.assert_allclose(traced, eager, rtol=1e-4, atol=1e-5)


def test_one_trace_per_batch_shape():
    x, y = _data(64)
    model = _model(False)
    model.fit(x, y, batch_size=24, epochs=3, verbose=0)  # batches of 24, 24 and 16
    assert model._make_train_function().tracing_count == 2
    model.evaluate(x, y, batch_size=32, verbose=0)
    model.predict(x, batch_size=32, verbose=0)
    assert model._make_test_function().tracing_count == 1
    assert model._make_predict_function().tracing_count == 1


def test_an_untraceable_step_raises_and_names_run_eagerly():
    class Peeking(ef.Model):
        def __init__(self):
            super().__init__()
            self.dense = ef.layers.Dense(1)

        def call(self, x):
            return self.dense(x)

        def train_step(self, data):
            x, y = data
            if float(ef.reduce_mean(y)) > 10:  # a Python decision on a tensor value
                return {}
            return super().train_step(data)

    x, y = np.ones((8, 2), "float32"), np.ones((8, 1), "float32")
    model = Peeking()
    model.compile(optimizer="sgd", loss="mse")
    with pytest.raises(OperatorNotAllowedInGraphError, match="run_eagerly=True"):
        model.fit(x, y, epochs=1, verbose=0)
    model = Peeking()
    model.compile(optimizer="sgd", loss="mse", run_eagerly=True)
    assert model.fit(x, y, epochs=1, verbose=0).history["loss"]


def test_freezing_a_layer_between_epochs_is_respected():
    x, y = _data()
    model = _model(False)

    class Freeze(ef.callbacks.Callback):
        def on_epoch_end(self, epoch, logs=None):
            if epoch == 0:
                self.model.layers[0].trainable = False
                self.frozen = [w.numpy() for w in self.model.layers[0].weights]

    freeze = Freeze()
    model.fit(x, y, batch_size=16, epochs=3, verbose=0, callbacks=[freeze])
    for before, after in zip(freeze.frozen, model.layers[0].weights, strict=True):
        np.testing.assert_array_equal(before, after.numpy())


def test_freezing_a_layer_without_trainable_variables_is_respected():
    # A BatchNormalization without gamma and beta owns no trainable variable: freezing it
    # changes no variable set, only its mode (inference, statistics kept). The traced step
    # must see that without a compile (it kept updating the moving mean before).
    x = np.random.default_rng(0).normal(3.0, 2.0, (32, 4)).astype("float32")
    y = np.ones((32, 1), "float32")
    inputs = ef.Input(shape=(4,))
    bn = ef.layers.BatchNormalization(center=False, scale=False)
    model = ef.Model(inputs, ef.layers.Dense(1)(bn(inputs)))
    model.compile(optimizer="adam", loss="mse")
    model.fit(x, y, batch_size=8, verbose=0)
    bn.trainable = False
    before = bn.moving_mean.numpy().copy()
    model.fit(x, y, batch_size=8, verbose=0)
    np.testing.assert_array_equal(bn.moving_mean.numpy(), before)
    traces = model._make_train_function().tracing_count
    bn.trainable = True
    model.fit(x, y, batch_size=8, verbose=0)
    assert not np.array_equal(bn.moving_mean.numpy(), before)
    # Back to a state already traced: its graph is reused.
    assert model._make_train_function().tracing_count == traces
    bn.trainable = False
    model.fit(x, y, batch_size=8, verbose=0)
    assert model._make_train_function().tracing_count == traces


@pytest.mark.parametrize("run_eagerly", [False, True])
def test_training_a_frozen_model_warns_and_changes_nothing(run_eagerly):
    model = ef.Sequential([ef.Input(shape=(3,)), ef.layers.Dense(1)], name="frozen")
    model.trainable = False
    model.compile(optimizer="adam", loss="mse", run_eagerly=run_eagerly)
    before = model.get_weights()
    with pytest.warns(ef.errors.EagerflowWarning,
                      match="Model 'frozen' does not have any trainable weights"):
        history = model.fit(np.ones((4, 3)), np.zeros((4, 1)), epochs=2, verbose=0)
    assert history.history["loss"][0] == history.history["loss"][1]
    for a, b in zip(before, model.get_weights(), strict=True):
        np.testing.assert_array_equal(a, b)


def test_custom_train_step_with_two_optimizers_and_trackers_is_traced():
    class TwoHeads(ef.Model):
        def __init__(self):
            super().__init__()
            self.a = ef.layers.Dense(1)
            self.b = ef.layers.Dense(1)
            self.opt_b = ef.optim.SGD(0.05)
            self.b_loss = ef.metrics.Mean(name="b_loss")

        def call(self, x):
            return self.a(x) + self.b(x)

        def train_step(self, data):
            x, y = data
            with ef.GradientTape(persistent=True) as tape:
                pred = self(x, training=True)
                loss_a = ef.reduce_mean(ef.square(pred - y))
                self.add_loss(0.01 * ef.reduce_sum(ef.square(self.b.kernel)))
                loss_b = loss_a + sum(self.losses)
            self.optimizer.apply(tape.gradient(loss_a, self.a.trainable_weights),
                                 self.a.trainable_weights)
            self.opt_b.apply(tape.gradient(loss_b, self.b.trainable_weights),
                             self.b.trainable_weights)
            self.b_loss.update_state(loss_b)
            return {"b_loss": self.b_loss.result()}

    x = np.linspace(-1, 1, 32, dtype="float32").reshape(-1, 2)
    y = x.sum(axis=1, keepdims=True)
    model = TwoHeads()
    model.compile(optimizer=ef.optim.SGD(0.05))
    history = model.fit(x, y, batch_size=8, epochs=15, verbose=0)
    assert history.history["b_loss"][-1] < history.history["b_loss"][0] / 2
    assert model._make_train_function().tracing_count == 1
    assert int(model.opt_b.iterations) == 15 * 2


@pytest.mark.parametrize("loss", [
    lambda: ef.losses.SparseCategoricalCrossentropy(from_logits=True),
    lambda: ef.losses.MeanSquaredError(reduction="mean_with_sample_weight"),
])
def test_sample_weights_give_the_same_losses_traced_and_eager(loss):
    rng = np.random.default_rng(1)
    x = rng.random((40, 3), dtype=np.float32)
    labels = rng.integers(0, 2, 40)
    y = labels if "Sparse" in type(loss()).__name__ else np.eye(2, dtype="float32")[labels]
    weights = rng.random(40, dtype=np.float32)
    weights[:16] = 0.0  # a first batch with only zero weights: loss 0, not NaN
    histories = []
    for eager in (True, False):
        ef.random.set_seed(0)
        model = ef.Sequential([ef.layers.Dense(2)])
        model.compile("sgd", loss(), run_eagerly=eager)
        histories.append(model.fit(x, y, sample_weight=weights, batch_size=16, epochs=2,
                                   verbose=0, shuffle=False).history["loss"])
    np.testing.assert_allclose(histories[1], histories[0], rtol=1e-6)
    assert np.isfinite(histories[1]).all()


def test_the_traced_step_updates_weights_in_place(monkeypatch):
    from eagerflow.core import variable

    copies = []
    original = variable.Variable._writable_buffer

    def watched(self):
        before = id(self._buf)
        buffer = original(self)
        if id(buffer) != before:
            copies.append(self.name)
        return buffer

    x, y = _data()
    model = _model(False)
    model.fit(x, y, batch_size=16, epochs=1, verbose=0)
    monkeypatch.setattr(variable.Variable, "_writable_buffer", watched)
    model.fit(x, y, batch_size=16, epochs=2, verbose=0)
    assert copies == []


def test_each_data_structure_has_its_own_graph_and_no_retrace_warning():
    """Lists, dicts and Datasets of the same model each trace once per batch size, and the
    six traces do not set off ef.function's retracing warning (an error under pytest)."""
    a, b = ef.Input((3,), name="a"), ef.Input((2,), name="b")
    out = ef.layers.Dense(1, name="out")(ef.layers.concatenate([a, b]))
    model = ef.Model([a, b], out)
    model.compile(optimizer="sgd", loss="mse")
    xa, xb, y = np.ones((10, 3)), np.ones((10, 2)), np.ones((10, 1))
    model.fit([xa, xb], y, batch_size=4, verbose=0)  # batches of 4 and 2
    model.fit({"a": xa, "b": xb}, y, batch_size=4, verbose=0)
    dataset = ef.data.Dataset.from_tensor_slices(((xa, xb), y)).batch(3)
    model.fit(dataset, verbose=0)
    assert model._make_train_function().tracing_count == 6
