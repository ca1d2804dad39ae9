"""LambdaCallback."""

import pytest

import eagerflow as ef
from eagerflow.callbacks import CallbackList


def test_every_hook_kind_is_called():
    seen = []
    callback = ef.callbacks.LambdaCallback(
        on_train_begin=lambda logs: seen.append("train_begin"),
        on_epoch_begin=lambda epoch, logs: seen.append(f"epoch_begin {epoch}"),
        on_train_batch_end=lambda batch, logs: seen.append(f"batch_end {batch}"),
        on_epoch_end=lambda epoch, logs: seen.append(f"epoch_end {epoch} {logs}"),
        on_test_batch_end=lambda batch, logs: seen.append(f"test_batch_end {batch}"),
        on_predict_end=lambda logs: seen.append("predict_end"),
        on_train_end=lambda logs: seen.append("train_end"),
    )
    callbacks = CallbackList([callback])
    assert callbacks.wants_batch_logs("train") and callbacks.wants_batch_logs("test")
    assert not callbacks.wants_batch_logs("predict")
    callbacks.on_train_begin()
    callbacks.on_epoch_begin(0)
    callbacks.on_train_batch_end(0, {})
    callbacks.on_test_batch_end(0, {})
    callbacks.on_epoch_end(0, {"loss": 1.0})
    callbacks.on_predict_end()
    callbacks.on_train_end()
    assert seen == ["train_begin", "epoch_begin 0", "batch_end 0", "test_batch_end 0",
                    "epoch_end 0 {'loss': 1.0}", "predict_end", "train_end"]


def test_old_batch_hook_name():
    seen = []
    callbacks = CallbackList([ef.callbacks.LambdaCallback(
        on_batch_end=lambda batch, logs: seen.append(batch))])
    assert callbacks.wants_batch_logs("train")
    callbacks.on_train_batch_end(5, {})
    assert seen == [5]


def test_unknown_hook_is_an_error():
    with pytest.raises(TypeError, match=r"unknown hook 'on_epoch_finish'"):
        ef.callbacks.LambdaCallback(on_epoch_finish=print)


def test_non_callable_is_an_error():
    with pytest.raises(TypeError, match=r"on_epoch_end must be callable"):
        ef.callbacks.LambdaCallback(on_epoch_end="print")
