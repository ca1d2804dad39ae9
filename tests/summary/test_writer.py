"""Summary writers, default step, recording conditions — read back with TensorBoard."""

import os
import threading

import pytest

import eagerflow as ef
from eagerflow.core import errors
from eagerflow.summary import writer as writer_module



def _scalars(acc, tag):
    return [(e.step, e.value) for e in acc.Scalars(tag)]


def test_scalars_round_trip_through_tensorboard_reader(tmp_path, read_events):
    writer = ef.summary.create_file_writer(tmp_path)
    with writer.as_default():
        for step in range(3):
            assert ef.summary.scalar("loss", 1.0 / (step + 1), step=step)
    acc = read_events(tmp_path)
    assert _scalars(acc, "loss") == [(0, 1.0), (1, 0.5), (2, pytest.approx(1 / 3))]
    assert os.path.basename(writer.path).startswith("events.out.tfevents.")


def test_default_step_variable_is_read_at_write_time(tmp_path, read_events):
    step = ef.Variable(0, dtype=ef.int64)
    with ef.summary.create_file_writer(tmp_path).as_default(step=step):
        for _ in range(3):
            ef.summary.scalar("x", float(step.numpy()))
            step.assign_add(1)
    assert _scalars(read_events(tmp_path), "x") == [(0, 0.0), (1, 1.0), (2, 2.0)]


def test_as_default_restores_previous_writer_and_step(tmp_path):
    outer = ef.summary.create_file_writer(tmp_path / "a")
    inner = ef.summary.create_file_writer(tmp_path / "b")
    ef.summary.set_step(10)
    with outer.as_default():
        with inner.as_default(step=3):
            assert writer_module.default_writer() is inner
            assert ef.summary.get_step() == 3
        assert writer_module.default_writer() is outer
        assert ef.summary.get_step() == 10
    assert writer_module.default_writer() is None
    assert ef.summary.experimental.get_step() == 10


def test_missing_step_is_an_error(tmp_path, monkeypatch):
    from eagerflow.optim import global_step

    monkeypatch.setattr(global_step, "_global_step", None)  # no global step either
    with ef.summary.create_file_writer(tmp_path).as_default():
        with pytest.raises(errors.InvalidArgumentError, match=r"scalar: no step set"):
            ef.summary.scalar("loss", 1.0)


def test_non_integer_step_is_an_error(tmp_path):
    with ef.summary.create_file_writer(tmp_path).as_default():
        with pytest.raises(errors.InvalidArgumentError, match=r"step must be an integer"):
            ef.summary.scalar("loss", 1.0, step=1.5)


def test_without_default_writer_nothing_is_written(tmp_path):
    ef.summary.create_file_writer(tmp_path)
    assert ef.summary.scalar("loss", 1.0, step=0) is False
    assert not ef.summary.should_record_summaries()


def test_record_if_bool_callable_and_nesting_replaces(tmp_path, read_events):
    step = ef.Variable(0, dtype=ef.int64)
    with ef.summary.create_file_writer(tmp_path).as_default(step=step):
        with ef.summary.record_if(lambda: int(step) % 2 == 0):
            for _ in range(4):
                ef.summary.scalar("even", 1.0)
                step.assign_add(1)
            with ef.summary.record_if(True):
                assert ef.summary.scalar("inner", 1.0)
        with ef.summary.record_if(False):
            assert ef.summary.scalar("never", 1.0) is False
    acc = read_events(tmp_path)
    assert [s for s, _ in _scalars(acc, "even")] == [0, 2]
    assert "never" not in acc.Tags()["scalars"]


def test_record_every_n_steps_with_explicit_step_variable(tmp_path, read_events):
    global_step = ef.Variable(0, dtype=ef.int64)
    with ef.summary.create_file_writer(tmp_path).as_default():
        with ef.summary.record_every_n_steps(3, step=global_step):
            for i in range(7):
                ef.summary.scalar("loss", float(i), step=i)
                global_step.assign_add(1)
    assert [s for s, _ in _scalars(read_events(tmp_path), "loss")] == [0, 3, 6]


@pytest.mark.parametrize("bad", [0, -1, 2.0, True, "3"])
def test_record_every_n_steps_rejects_bad_n(bad):
    with pytest.raises(errors.InvalidArgumentError, match=r"n must be a positive int"):
        ef.summary.record_every_n_steps(bad)


def test_flush_makes_events_readable_before_close(tmp_path, read_events):
    writer = ef.summary.create_file_writer(tmp_path)
    writer.set_as_default(step=0)
    ef.summary.scalar("a", 2.0)
    ef.summary.flush()
    assert _scalars(read_events(tmp_path), "a") == [(0, 2.0)]
    writer.close()


def test_max_queue_flushes_automatically(tmp_path, read_events):
    writer = ef.summary.create_file_writer(tmp_path, max_queue=2)
    writer.set_as_default()
    ef.summary.scalar("a", 1.0, step=0)
    ef.summary.scalar("a", 2.0, step=1)
    assert len(read_events(tmp_path).Scalars("a")) == 2
    writer.close()


def test_flush_millis_flushes_when_due(tmp_path, read_events):
    writer = ef.summary.create_file_writer(tmp_path, flush_millis=0)
    writer.set_as_default()
    ef.summary.scalar("a", 1.0, step=0)
    assert len(read_events(tmp_path).Scalars("a")) == 1
    writer.close()


def test_two_writers_in_one_directory_get_distinct_files(tmp_path, read_events):
    first = ef.summary.create_file_writer(tmp_path)
    second = ef.summary.create_file_writer(tmp_path, filename_suffix=".eval")
    assert first.path != second.path
    assert second.path.endswith(".eval")
    with first.as_default():
        ef.summary.scalar("a", 1.0, step=0)
    with second.as_default():
        ef.summary.scalar("a", 2.0, step=1)
    assert len(read_events(tmp_path).Scalars("a")) == 2


def test_closed_writer_raises_and_init_reopens(tmp_path, read_events):
    writer = ef.summary.create_file_writer(tmp_path)
    writer.set_as_default(step=0)
    writer.close()
    writer.close()  # idempotent
    assert writer.closed and "closed" in repr(writer)
    assert writer_module.default_writer() is None
    with pytest.raises(errors.FailedPreconditionError, match=r"is closed; call writer.init"):
        writer.write_summary(None, 0)
    first_path = writer.path
    writer.init()
    assert writer.path != first_path
    with writer.as_default():
        ef.summary.scalar("after", 1.0, step=5)
    assert _scalars(read_events(tmp_path), "after") == [(5, 1.0)]


def test_logdir_that_is_a_file_is_an_error(tmp_path):
    path = tmp_path / "file"
    path.write_text("x")
    with pytest.raises(errors.InvalidArgumentError, match=r"exists and is not a directory"):
        ef.summary.create_file_writer(path)


@pytest.mark.parametrize("bad", [None, ""])
def test_empty_logdir_is_an_error(bad):
    with pytest.raises(errors.InvalidArgumentError, match=r"logdir must be a directory"):
        ef.summary.create_file_writer(bad)


def test_default_writer_is_thread_local(tmp_path):
    seen = []
    with ef.summary.create_file_writer(tmp_path).as_default(step=1):
        thread = threading.Thread(target=lambda: seen.append(
            (writer_module.default_writer(), ef.summary.get_step())))
        thread.start()
        thread.join()
    assert seen == [(None, None)]


def test_writers_are_closed_at_exit(tmp_path, read_events):
    writer = ef.summary.create_file_writer(tmp_path)
    writer.set_as_default(step=0)
    ef.summary.scalar("late", 1.0)
    writer_module._close_open_writers()
    assert writer.closed
    assert len(read_events(tmp_path).Scalars("late")) == 1


def test_noop_writer_discards(tmp_path):
    with ef.summary.create_noop_writer().as_default(step=0):
        assert ef.summary.scalar("a", 1.0)
        ef.summary.flush()
    assert writer_module.default_writer() is None
    assert list(tmp_path.iterdir()) == []
