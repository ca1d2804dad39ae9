"""compile / fit / evaluate / predict on real models."""

import io

import numpy as np
import pytest

import eagerflow as ef
from eagerflow.core.errors import EagerflowWarning, InvalidArgumentError

from .helpers import classification_data, compiled_mlp, mlp, weights_of


def test_fit_learns_and_returns_history():
    ef.random.set_seed(0)
    x, y = classification_data(128)
    model = compiled_mlp()
    history = model.fit(x, y, epochs=5, batch_size=16, verbose=0)
    assert history.epoch == [0, 1, 2, 3, 4]
    assert set(history.history) == {"loss", "accuracy"}
    assert history.history["loss"][-1] < history.history["loss"][0]
    assert history.params == {"verbose": 0, "epochs": 5, "steps": 8, "do_validation": False}
    assert model.history is history and history.model is model


def test_fit_before_compile_is_an_error():
    with pytest.raises(RuntimeError, match=r"fit: you must compile the model"):
        mlp().fit(np.zeros((2, 4)), np.zeros(2))
    with pytest.raises(RuntimeError, match=r"evaluate: you must compile"):
        mlp().evaluate(np.zeros((2, 4)), np.zeros(2))
    with pytest.raises(RuntimeError, match=r"train_on_batch: you must compile"):
        mlp().train_on_batch(np.zeros((2, 4)), np.zeros(2))
    with pytest.raises(RuntimeError, match=r"test_on_batch: you must compile"):
        mlp().test_on_batch(np.zeros((2, 4)), np.zeros(2))


def test_x_and_y_of_different_lengths():
    with pytest.raises(InvalidArgumentError, match=r"x: 10, y: 9"):
        compiled_mlp().fit(np.zeros((10, 4)), np.zeros(9), verbose=0)


def test_labels_outside_the_loss_range():
    with pytest.raises(InvalidArgumentError, match=r"label value of 3 which is outside the "
                                                   r"valid range of \[0, 3\)"):
        compiled_mlp().fit(np.zeros((4, 4), np.float32), np.array([0, 1, 2, 3]), verbose=0)


@pytest.mark.parametrize("kwargs, match", [
    ({"epochs": -1}, r"epochs must be a non-negative int"),
    ({"verbose": 3}, r"verbose must be 0, 1, 2 or 'auto'"),
    ({"validation_freq": 0}, r"validation_freq must be a positive int"),
    ({"validation_freq": [0]}, r"validation_freq must be a positive int or a list"),
    ({"validation_freq": True}, r"validation_freq must be a positive int or a list"),
    ({"validation_data": "val"}, r"validation_data must be a tuple"),
    ({"validation_split": 0.5, "validation_data": (np.zeros((2, 4)), np.zeros(2))},
     r"either validation_split or validation_data"),
])
def test_bad_fit_arguments(kwargs, match):
    x, y = classification_data(8)
    with pytest.raises(ValueError, match=match):
        compiled_mlp().fit(x, y, **kwargs)


def test_compile_errors():
    model = mlp()
    with pytest.raises(ValueError, match=r"Unknown optimizer 'fast'"):
        model.compile(optimizer="fast", loss="mse")
    with pytest.raises(ValueError, match=r"Unknown loss 'msx'"):
        model.compile(loss="msx")
    with pytest.raises(ValueError, match=r"Unknown metric 'acuracy'"):
        model.compile(loss="mse", metrics=["acuracy"])
    with pytest.raises(ValueError, match=r"steps_per_execution must be a positive int"):
        model.compile(loss="mse", steps_per_execution=0)
    with pytest.raises(ValueError, match=r"loss_weights were given without a loss"):
        model.compile(loss=None, loss_weights=[1.0])
    assert not model.compiled


def test_compile_by_names_and_defaults():
    model = mlp()
    model.compile(loss="sparse_categorical_crossentropy")
    assert model.optimizer.name == "rm_sprop" and model.compiled  # as Keras 3 names it
    assert not model.run_eagerly
    model.run_eagerly = True
    assert model.run_eagerly


def test_metrics_reset_every_epoch_and_match_evaluate():
    ef.random.set_seed(1)
    x, y = classification_data(64)
    model = compiled_mlp(optimizer=ef.optim.SGD(0.0))  # frozen weights: same every epoch
    history = model.fit(x, y, epochs=3, batch_size=64, verbose=0, shuffle=False)
    assert history.history["accuracy"][0] == history.history["accuracy"][2]
    assert history.history["loss"][0] == pytest.approx(history.history["loss"][2])
    loss, accuracy = model.evaluate(x, y, verbose=0)
    assert loss == pytest.approx(history.history["loss"][0], rel=1e-6)
    assert accuracy == history.history["accuracy"][0]


def test_validation_split_takes_the_last_samples_before_shuffling():
    x, y = classification_data(50)
    seen = []

    class Record(ef.callbacks.Callback):
        def on_test_batch_begin(self, batch, logs=None):
            seen.append(batch)

    model = compiled_mlp()
    history = model.fit(x, y, epochs=1, batch_size=5, validation_split=0.2, verbose=0,
                        callbacks=[Record()])
    expected = model.evaluate(x[40:], y[40:], verbose=0, return_dict=True)
    assert history.history["val_loss"][0] == pytest.approx(expected["loss"], rel=1e-6)
    assert seen == [0, 1]  # 10 validation samples in batches of 5
    assert history.params["steps"] == 8


def test_validation_split_with_a_dataset_is_an_error():
    dataset = ef.data.Dataset.from_tensor_slices(classification_data(8)).batch(4)
    with pytest.raises(ValueError, match=r"validation_split is only supported for NumPy"):
        compiled_mlp().fit(dataset, validation_split=0.2)
    with pytest.raises(ValueError, match=r"validation_split is only supported"):
        compiled_mlp().fit(iter([]), validation_split=0.2)


def test_validation_data_forms_and_frequency():
    x, y = classification_data(32)
    model = compiled_mlp()
    history = model.fit(x, y, epochs=4, verbose=0, validation_data=(x, y),
                        validation_freq=2)
    assert len(history.history["val_loss"]) == 2
    dataset = ef.data.Dataset.from_tensor_slices((x, y, np.ones(32))).batch(8)
    history = model.fit(x, y, epochs=3, verbose=0, validation_data=dataset,
                        validation_freq=[1, 3])
    assert len(history.history["val_accuracy"]) == 2
    history = model.fit(x, y, epochs=1, verbose=0, validation_data=[x, y, np.ones(32)],
                        validation_batch_size=4, validation_steps=2)
    assert "val_loss" in history.history


def test_sample_weight_and_class_weight_change_the_loss():
    x, y = classification_data(16)
    model = compiled_mlp(optimizer=ef.optim.SGD(0.0), weighted_metrics=["accuracy"])
    base = model.fit(x, y, batch_size=16, verbose=0).history["loss"][0]
    zero_first = np.ones(16, np.float32)
    zero_first[:8] = 0.0
    weighted = model.fit(x, y, batch_size=16, verbose=0, sample_weight=zero_first)
    per_sample = ef.losses.SparseCategoricalCrossentropy(from_logits=True, reduction="none")(
        y, model(x)).numpy()
    assert weighted.history["loss"][0] == pytest.approx(per_sample[8:].sum() / 16, rel=1e-5)
    assert weighted.history["loss"][0] != pytest.approx(base)
    doubled = model.fit(x, y, batch_size=16, verbose=0, class_weight={0: 2.0, 1: 2.0, 2: 2.0})
    assert doubled.history["loss"][0] == pytest.approx(2 * base, rel=1e-5)


def test_initial_epoch_and_steps_per_epoch():
    x, y = classification_data(20)
    model = compiled_mlp()
    history = model.fit(x, y, epochs=5, initial_epoch=3, verbose=0)
    assert history.epoch == [3, 4]
    with pytest.warns(UserWarning, match="ran out of data"):  # 5 batches of 7, as Keras
        history = model.fit(x, y, epochs=1, batch_size=4, steps_per_epoch=7, verbose=0)
    assert history.params["steps"] == 7
    assert model.fit(x, y, epochs=2, initial_epoch=2, verbose=0).history == {}


def test_verbose_modes(capsys, monkeypatch):
    from eagerflow.callbacks import progbar

    monkeypatch.setattr(progbar, "_isatty", lambda stream: True)  # a bar, as on a terminal
    x, y = classification_data(16)
    model = compiled_mlp()
    model.fit(x, y, epochs=2, verbose=0)
    assert capsys.readouterr() == ("", "")
    model.fit(x, y, epochs=2, verbose=2)
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 2 and out[1].startswith("Epoch 2/2 - ") and "accuracy: " in out[1]
    model.fit(x, y, epochs=1, verbose=1)
    err = capsys.readouterr().err
    assert "Epoch 1/1 - 1/1 - " in err and "loss: " in err and "accuracy: " in err
    buffer = io.StringIO()
    model.fit(x, y, epochs=1, callbacks=[ef.callbacks.ProgbarLogger(file=buffer)])
    assert "Epoch 1/1" in buffer.getvalue()


def test_evaluate_return_forms():
    x, y = classification_data(16)
    model = compiled_mlp()
    loss, accuracy = model.evaluate(x, y, verbose=0)
    assert model.evaluate(x, y, verbose=0, return_dict=True) == pytest.approx(
        {"loss": loss, "accuracy": accuracy})
    only_loss = compiled_mlp(metrics=())
    assert isinstance(only_loss.evaluate(x, y, verbose=0, batch_size=5), float)
    assert model.metrics_names == ["loss", "accuracy"]


def test_predict_batches_and_concatenates():
    x, _ = classification_data(37)
    model = compiled_mlp()
    out = model.predict(x, batch_size=8, verbose=0)
    assert isinstance(out, np.ndarray) and out.shape == (37, 3)
    np.testing.assert_allclose(out, model(x).numpy(), rtol=1e-6)
    dataset = ef.data.Dataset.from_tensor_slices((x, np.zeros(37))).batch(10)
    np.testing.assert_allclose(model.predict(dataset, verbose=0), out, rtol=1e-6)
    with pytest.raises(ValueError, match=r"predict: no batches"):
        model.predict(ef.data.Dataset.range(0).batch(2), verbose=0)


def test_on_batch_methods():
    x, y = classification_data(8)
    model = compiled_mlp()
    before = weights_of(model)
    loss, accuracy = model.train_on_batch(x, y)
    assert any(not np.array_equal(a, b) for a, b in zip(before, weights_of(model), strict=True))
    logs = model.test_on_batch(x, y, return_dict=True)
    assert set(logs) == {"loss", "accuracy"}
    assert model.train_on_batch(x, y, class_weight={0: 1, 1: 1, 2: 1}, return_dict=True)
    np.testing.assert_allclose(model.predict_on_batch(x), model(x).numpy(), rtol=1e-6)
    first = model.test_on_batch(x[:4], y[:4], reset_metrics=True)[0]
    running = model.test_on_batch(x[4:], y[4:], reset_metrics=False)[0]
    both = model.test_on_batch(x, y)[0]
    assert running == pytest.approx(both, rel=1e-5) and first != running


def test_nan_loss_warns_once_and_terminate_on_nan_stops():
    x, y = classification_data(32)
    model = compiled_mlp(optimizer=ef.optim.SGD(1e30))
    with np.errstate(all="ignore"), \
            pytest.warns(EagerflowWarning, match=r"fit: the loss became nan at epoch 1"):
        model.fit(x, y, epochs=2, batch_size=4, verbose=0)
    model = compiled_mlp(optimizer=ef.optim.SGD(1e30))
    with np.errstate(all="ignore"):
        history = model.fit(x, y, epochs=3, batch_size=4, verbose=0,
                            callbacks=[ef.callbacks.TerminateOnNaN()])
    assert history.epoch == [0]


def test_stop_training_from_a_callback_ends_the_epoch():
    class StopAt(ef.callbacks.Callback):
        def on_train_batch_end(self, batch, logs=None):
            if batch == 2:
                self.model.stop_training = True

    x, y = classification_data(64)
    history = compiled_mlp().fit(x, y, batch_size=4, epochs=3, verbose=0,
                                 callbacks=[StopAt()])
    assert history.epoch == [0]


def test_steps_per_execution_calls_batch_hooks_every_n_steps():
    calls = []
    callback = ef.callbacks.LambdaCallback(
        on_train_batch_end=lambda batch, logs: calls.append(batch))
    x, y = classification_data(40)
    model = compiled_mlp(steps_per_execution=3)
    model.fit(x, y, batch_size=4, verbose=0, callbacks=[callback])
    assert calls == [2, 5, 8, 9]


def test_empty_data_is_an_error():
    with pytest.raises(ValueError, match=r"fit: epoch 1 had no batches"):
        compiled_mlp().fit(ef.data.Dataset.range(0).batch(2), verbose=0)
    with pytest.raises(ValueError, match=r"evaluate: no batches"):
        compiled_mlp().evaluate(ef.data.Dataset.range(0).batch(2), verbose=0)


def test_compute_loss_without_a_loss_is_an_error():
    model = mlp()
    model.compile(optimizer="sgd")
    with pytest.raises(ValueError, match=r"compiled without loss= and its layers added none"):
        model.fit(np.zeros((2, 4), np.float32), np.zeros(2), verbose=0)


def test_same_seed_same_training():
    def run():
        ef.random.set_seed(5)
        x, y = classification_data(40)
        model = compiled_mlp()
        history = model.fit(x, y, batch_size=8, epochs=2, verbose=0)
        return history.history, weights_of(model)

    (first, weights_1), (second, weights_2) = run(), run()
    assert first == second
    for a, b in zip(weights_1, weights_2, strict=True):
        np.testing.assert_array_equal(a, b)


def test_compile_jit_compile_controls_fusion_of_the_traced_steps():
    from eagerflow.graph.passes import fusion

    x = np.random.default_rng(0).random((16, 3)).astype(np.float32)
    y = np.random.default_rng(1).integers(0, 2, 16)

    def fused_programs(jit_compile):
        model = ef.Sequential([ef.Input((3,)), ef.layers.Dense(2)])
        model.compile(optimizer=ef.optim.Adam(0.01), jit_compile=jit_compile,
                      loss=ef.losses.SparseCategoricalCrossentropy(from_logits=True))
        model.fit(x, y, batch_size=8, verbose=0)
        steps = model._make_train_function()._functions.values()
        return sum(node.type == "FusedElementwise" for step in set(steps)
                   for cf in step._cache.values()
                   for node in cf.optimized_graph.nodes), model

    count, model = fused_programs(False)
    assert count == 0 and model.get_compile_config()["jit_compile"] is False
    assert (fused_programs("auto")[0] > 0) == fusion.available()  # Adam's small chains
    with pytest.raises(ValueError, match=r"jit_compile must be 'auto', True or False"):
        model.compile(loss="mse", jit_compile="xla")


def test_compile_jit_compile_true_needs_the_numba_kernel_set(monkeypatch):
    from eagerflow.graph.passes import fusion

    monkeypatch.setattr(fusion, "available", lambda: False)  # as with the NumPy kernel set
    with pytest.raises(ef.errors.UnimplementedError, match=r"pip install 'eagerflow\[fast\]'"):
        mlp().compile(loss="mse", jit_compile=True)


def test_steps_per_epoch_keeps_one_iterator_across_epochs_like_keras():
    # Keras 3.15, 24 batches of data, steps_per_epoch=10, 5 epochs: 10, 10, 4 (warning:
    # ran out), then a new pass: 10, 10. A generator cannot start again: fit stops.
    x = np.linspace(0, 1, 48, dtype="float32").reshape(48, 1)

    class Count(ef.callbacks.Callback):
        def on_train_begin(self, logs=None):
            self.counts = []

        def on_epoch_begin(self, epoch, logs=None):
            self.counts.append(0)

        def on_train_batch_end(self, batch, logs=None):
            self.counts[-1] += 1

    def fit(data, **kwargs):
        model = ef.Sequential([ef.Input((1,)), ef.layers.Dense(1)])
        model.compile("sgd", "mse")
        count = Count()
        with pytest.warns(UserWarning, match="ran out of data"):
            history = model.fit(*data, steps_per_epoch=10, epochs=5, verbose=0,
                                callbacks=[count], **kwargs)
        return count.counts, len(history.history["loss"])

    dataset = ef.data.Dataset.from_tensor_slices((x, x)).batch(2)
    assert fit((dataset,)) == ([10, 10, 4, 10, 10], 5)
    assert fit((x, x), batch_size=2, shuffle=False) == ([10, 10, 4, 10, 10], 5)
    generator = ((x[i:i + 2], x[i:i + 2]) for i in range(0, 48, 2))
    assert fit((generator,)) == ([10, 10, 4], 3)
