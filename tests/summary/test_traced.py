"""Summaries written from inside `ef.function`: on every call, at that call's step."""

import numpy as np
import pytest

import eagerflow as ef



def test_scalar_inside_a_function_writes_on_every_call(tmp_path, read_events):
    step = ef.Variable(0, dtype="int64")
    w = ef.Variable(2.0)
    opt = ef.optim.SGD(0.1)

    @ef.function
    def train_step():
        with ef.GradientTape() as tape:
            loss = w * w
        opt.apply_gradients([(tape.gradient(loss, w), w)])
        ef.summary.scalar("loss", loss, step=step)
        ef.summary.histogram("w", ef.reshape(w.read_value(), [1]), step=step)
        step.assign_add(1)
        return loss

    writer = ef.summary.create_file_writer(tmp_path)
    with writer.as_default():
        losses = [float(train_step()) for _ in range(4)]
    writer.flush()
    assert train_step.experimental_get_tracing_count() == 1
    events = read_events(tmp_path)
    scalars = events.Scalars("loss")
    assert [e.step for e in scalars] == [0, 1, 2, 3]
    np.testing.assert_allclose([e.value for e in scalars], losses, rtol=1e-6)
    assert [e.step for e in events.Histograms("w")] == [0, 1, 2, 3]


def test_default_step_and_writer_are_those_of_the_call(tmp_path, read_events):
    @ef.function
    def log(x):
        return ef.summary.scalar("x", x)

    assert not bool(log(ef.constant(1.0)))  # no default writer: nothing written
    writer = ef.summary.create_file_writer(tmp_path)
    for step in (5, 6):
        with writer.as_default(step=step):
            assert bool(log(ef.constant(float(step))))
    writer.flush()
    assert [(e.step, e.value) for e in read_events(tmp_path).Scalars("x")] == [
        (5, 5.0), (6, 6.0)]
    assert log.experimental_get_tracing_count() == 1


def test_without_a_step_the_global_step_is_used(tmp_path, read_events, monkeypatch):
    from eagerflow.optim import global_step

    monkeypatch.setattr(global_step, "_global_step", None)
    step = ef.train.get_or_create_global_step()
    step.assign(41)
    writer = ef.summary.create_file_writer(tmp_path)
    with writer.as_default():
        assert ef.summary.scalar("x", 1.0)
        step.assign_add(1)
        assert ef.summary.scalar("x", 2.0)
    writer.flush()
    assert [(e.step, e.value) for e in read_events(tmp_path).Scalars("x")] == [(41, 1.0),
                                                                            (42, 2.0)]
