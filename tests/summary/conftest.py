"""Fixtures for summary tests: read event files back with TensorBoard's own reader."""

import pytest

from eagerflow.summary import writer as writer_module


@pytest.fixture(autouse=True)
def _fresh_summary_state():
    """No default writer, step or recording condition leaks between tests."""
    state = writer_module._state
    saved = (state.writer, state.step, state.recording)
    state.writer, state.step, state.recording = None, None, True
    yield
    state.writer, state.step, state.recording = saved


@pytest.fixture
def read_events():
    """read_events(logdir) -> a loaded TensorBoard EventAccumulator keeping every event."""
    event_accumulator = pytest.importorskip(
        "tensorboard.backend.event_processing.event_accumulator"
    )

    def read(logdir):
        acc = event_accumulator.EventAccumulator(
            str(logdir), size_guidance={event_accumulator.TENSORS: 0,
                                        event_accumulator.SCALARS: 0,
                                        event_accumulator.HISTOGRAMS: 0,
                                        event_accumulator.IMAGES: 0})
        acc.Reload()
        return acc

    return read
