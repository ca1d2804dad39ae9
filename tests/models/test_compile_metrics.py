"""Compiled metrics in `model.metrics` (Keras 3's "compile_metrics" container)."""

import numpy as np
import pytest

import eagerflow as ef


class KerasStyle(ef.Model):
    """The "customizing what happens in fit" guide's train_step, with ef names."""

    def __init__(self):
        super().__init__()
        self.dense = ef.layers.Dense(1)

    def call(self, x):
        return self.dense(x)

    def train_step(self, data):
        x, y = data
        with ef.GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compute_loss(y=y, y_pred=y_pred)
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply(grads, self.trainable_variables)
        for metric in self.metrics:
            if metric.name == "loss":
                metric.update_state(loss)
            else:
                metric.update_state(y, y_pred)
        return {m.name: m.result() for m in self.metrics}


def _data():
    x = np.linspace(-1, 1, 64, dtype="float32").reshape(-1, 2)
    return x, x.sum(axis=1, keepdims=True)


def test_a_guide_train_step_updates_the_compiled_metrics():
    x, y = _data()
    model = KerasStyle()
    model.compile(optimizer=ef.optim.SGD(0.1), loss="mse", metrics=["mae"])
    assert [m.name for m in model.metrics] == ["loss", "compile_metrics"]
    history = model.fit(x, y, batch_size=8, epochs=5, verbose=0)
    assert sorted(history.history) == ["loss", "mae"]
    assert history.history["mae"][-1] < history.history["mae"][0]
    assert model.metrics_names == ["loss", "mae"]


def test_evaluate_returns_the_loss_and_the_compiled_metrics():
    x, y = _data()
    model = ef.Sequential([ef.layers.Dense(1, kernel_initializer="zeros")])
    model.compile(loss="mse", metrics=["mae"])
    loss, mae = model.evaluate(x, y, verbose=0)
    np.testing.assert_allclose([loss, mae], [np.mean(y ** 2), np.mean(np.abs(y))],
                               rtol=1e-5)
    assert model.evaluate(x, y, verbose=0, return_dict=True).keys() == {"loss", "mae"}


def test_multi_output_weighted_twins_are_named_after_the_output_prefix():
    # Keras 3.15 on the same model, data and weights: per-output sample weights, loss
    # weights, a metric and its weighted twin per output (one batch).
    x = np.array([[1., 2.], [0., -1.], [3., 0.5], [-2., 1.], [1., 1.]], "float32")
    ya = np.array([[1., 0.], [0., 1.], [2., 2.], [-1., 0.], [0.5, 0.5]], "float32")
    yb = np.array([[1.], [0.], [2.], [1.], [-1.]], "float32")
    inputs = ef.Input((2,))
    model = ef.Model(inputs, [ef.layers.Dense(2, name="a")(inputs),
                              ef.layers.Dense(1, name="b")(inputs)])
    model.set_weights([np.array([[1., 0.5], [-0.5, 1.]], "float32"),
                       np.array([0.1, 0.], "float32"),
                       np.array([[0.3], [-0.7]], "float32"), np.array([0.2], "float32")])
    model.compile(loss=["mse", "mae"], loss_weights=[1.5, 0.25], metrics=[["mae"], ["mse"]],
                  weighted_metrics=[["mae"], ["mse"]])
    weights = [np.array([1., 0., 2., 0.5, 1.], "float32"),
               np.array([0., 1., 1., 3., 0.5], "float32")]
    logs = model.evaluate(x, [ya, yb], sample_weight=weights, batch_size=5, return_dict=True,
                          verbose=0)
    expected = {"loss": 2.0167499, "a_loss": 1.0495, "b_loss": 1.77, "a_mae": 0.935,
                "a_weighted_mae": 0.7666667, "b_mse": 2.2064996, "b_weighted_mse": 2.8949995}
    assert sorted(logs) == sorted(expected)
    for name, value in expected.items():
        assert logs[name] == pytest.approx(value, rel=1e-5), name
