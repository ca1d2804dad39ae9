"""Callback base class and CallbackList dispatch."""

import pytest

import eagerflow as ef
from eagerflow.callbacks import CallbackList, base

from .fakes import FakeModel


class Recorder(ef.callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.events = []

    def on_train_begin(self, logs=None):
        self.events.append("train_begin")

    def on_epoch_begin(self, epoch, logs=None):
        self.events.append(f"epoch_begin {epoch}")

    def on_train_batch_end(self, batch, logs=None):
        self.events.append(f"batch_end {batch} {logs}")

    def on_epoch_end(self, epoch, logs=None):
        self.events.append(f"epoch_end {epoch} {logs}")

    def on_test_begin(self, logs=None):
        self.events.append("test_begin")

    def on_predict_end(self, logs=None):
        self.events.append("predict_end")

    def on_train_end(self, logs=None):
        self.events.append("train_end")


def test_every_hook_reaches_every_callback_in_order():
    first, second = Recorder(), Recorder()
    callbacks = CallbackList([first, second])
    callbacks.on_train_begin()
    callbacks.on_epoch_begin(0)
    callbacks.on_train_batch_end(0, {"loss": 1.0})
    callbacks.on_test_begin()
    callbacks.on_epoch_end(0, {"loss": 1.0})
    callbacks.on_predict_end()
    callbacks.on_train_end()
    expected = ["train_begin", "epoch_begin 0", "batch_end 0 {'loss': 1.0}", "test_begin",
                "epoch_end 0 {'loss': 1.0}", "predict_end", "train_end"]
    assert first.events == expected == second.events


def test_base_hooks_are_no_ops():
    callback = ef.callbacks.Callback()
    for hook in ("on_train_begin", "on_train_end", "on_test_begin", "on_test_end",
                 "on_predict_begin", "on_predict_end"):
        assert getattr(callback, hook)() is None
    for hook in base.BATCH_HOOKS + ("on_epoch_begin", "on_epoch_end", "on_batch_begin",
                                     "on_batch_end"):
        assert getattr(callback, hook)(0, {}) is None


def test_old_on_batch_names_still_work():
    class Old(ef.callbacks.Callback):
        def __init__(self):
            super().__init__()
            self.seen = []

        def on_batch_begin(self, batch, logs=None):
            self.seen.append(("begin", batch))

        def on_batch_end(self, batch, logs=None):
            self.seen.append(("end", batch))

    old = Old()
    callbacks = CallbackList([old])
    assert callbacks.wants_batch_logs("train")
    callbacks.on_train_batch_begin(3)
    callbacks.on_batch_end(3)
    assert old.seen == [("begin", 3), ("end", 3)]


def test_batch_hooks_only_reach_callbacks_that_override_them():
    callbacks = CallbackList([ef.callbacks.History()])
    assert not callbacks.wants_batch_logs("train")
    assert not callbacks.wants_batch_logs("test")
    assert not callbacks.wants_batch_logs("predict")
    recorder = Recorder()
    callbacks.append(recorder)
    assert callbacks.wants_batch_logs("train")
    callbacks.on_train_batch_end(1, {})
    callbacks.on_test_batch_end(1, {})
    callbacks.on_predict_batch_begin(1, {})
    callbacks.on_test_batch_begin(1, {})
    callbacks.on_predict_batch_end(1, {})
    assert recorder.events == ["batch_end 1 {}"]


def test_model_and_params_reach_every_callback():
    model = FakeModel()
    recorder = Recorder()
    callbacks = CallbackList([recorder], add_history=True, add_progbar=True, model=model,
                             verbose=0, epochs=3, steps=10)
    assert len(callbacks) == 3
    assert [type(c).__name__ for c in callbacks] == ["Recorder", "History", "ProgbarLogger"]
    for callback in callbacks:
        assert callback.model is model
        assert callback.params == {"verbose": 0, "epochs": 3, "steps": 10}
    assert callbacks.history is callbacks.callbacks[1]


def test_existing_history_and_progbar_are_not_duplicated():
    history, bar = ef.callbacks.History(), ef.callbacks.ProgbarLogger()
    callbacks = CallbackList([history, bar], add_history=True, add_progbar=True)
    assert callbacks.callbacks == [history, bar]
    assert callbacks.history is history


def test_non_callback_is_a_type_error():
    with pytest.raises(TypeError, match=r"instances of ef.callbacks.Callback.*function"):
        CallbackList([lambda: None])
