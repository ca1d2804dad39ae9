"""TerminateOnNaN."""

import math

import pytest

import eagerflow as ef

from .fakes import FakeModel, run_epochs


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_stops_on_invalid_loss(bad, capsys):
    ran, _ = run_epochs([ef.callbacks.TerminateOnNaN()], FakeModel(),
                        [{"loss": 1.0}, {"loss": bad}, {"loss": 1.0}])
    assert ran == [0, 1]
    assert "Batch 0: invalid loss" in capsys.readouterr().out


def test_finite_or_missing_loss_keeps_going():
    callback = ef.callbacks.TerminateOnNaN()
    model = FakeModel()
    callback.set_model(model)
    callback.on_train_batch_end(0, {"loss": 3.0})
    callback.on_train_batch_end(1, {})
    callback.on_train_batch_end(2, None)
    assert model.stop_training is False
