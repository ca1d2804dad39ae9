"""LearningRateScheduler and ReduceLROnPlateau."""

import numpy as np
import pytest

import eagerflow as ef

from .fakes import FakeModel, run_epochs


def _lr(model):
    return float(model.optimizer.learning_rate)


def test_scheduler_with_epoch_and_rate(capsys):
    model = FakeModel()
    scheduler = ef.callbacks.LearningRateScheduler(lambda epoch, lr: lr * 0.5, verbose=1)
    _, history = run_epochs([scheduler], model, [{"loss": 1.0}] * 3)
    assert _lr(model) == pytest.approx(0.0125)
    assert history.history["learning_rate"] == pytest.approx([0.05, 0.025, 0.0125])
    assert "Epoch 3: LearningRateScheduler setting learning rate to 0.0125" in \
        capsys.readouterr().out


def test_scheduler_with_epoch_only():
    model = FakeModel()
    run_epochs([ef.callbacks.LearningRateScheduler(lambda epoch: 1.0 / (epoch + 1))], model,
               [{"loss": 1.0}] * 4)
    assert _lr(model) == pytest.approx(0.25)


def test_scheduler_with_a_builtin_callable_and_varargs():
    model = FakeModel()
    run_epochs([ef.callbacks.LearningRateScheduler(lambda *args: 0.5)], model, [{}])
    assert _lr(model) == 0.5


def test_scheduler_on_a_plain_float_learning_rate():
    model = FakeModel()
    model.optimizer.learning_rate = 0.2
    run_epochs([ef.callbacks.LearningRateScheduler(lambda epoch, lr: lr / 2)], model, [{}])
    assert model.optimizer.learning_rate == pytest.approx(0.1)


def test_scheduler_must_return_a_number():
    scheduler = ef.callbacks.LearningRateScheduler(lambda epoch: "fast")
    with pytest.raises(ValueError, match=r"must return a float. Received: 'fast' at epoch 0"):
        run_epochs([scheduler], FakeModel(), [{}])


def test_scheduler_must_return_a_finite_number():
    scheduler = ef.callbacks.LearningRateScheduler(lambda epoch: float("inf"))
    with pytest.raises(ValueError, match=r"returned inf at epoch 0"):
        run_epochs([scheduler], FakeModel(), [{}])


def test_scheduler_must_be_callable():
    with pytest.raises(TypeError, match=r"schedule must be callable"):
        ef.callbacks.LearningRateScheduler(0.1)


def test_a_schedule_driven_optimizer_is_not_silently_overwritten():
    class Schedule(ef.optim.schedules.LearningRateSchedule):
        def __call__(self, step):
            return ef.constant(0.1)

        def get_config(self):
            return {}

    model = FakeModel()
    model.optimizer = ef.optim.SGD(Schedule())  # its learning_rate shows the schedule's value
    with pytest.raises(TypeError, match=r"computed by a schedule \(Schedule\)"):  # as Keras
        run_epochs([ef.callbacks.LearningRateScheduler(lambda e, lr: lr)], model, [{}])


def test_model_without_optimizer_is_an_error():
    model = FakeModel()
    model.optimizer = None
    with pytest.raises(ValueError, match=r"no optimizer with a learning_rate; compile it"):
        run_epochs([ef.callbacks.LearningRateScheduler(lambda e, lr: lr)], model, [{}])


def test_reduce_on_plateau_after_patience(capsys):
    model = FakeModel()
    reduce = ef.callbacks.ReduceLROnPlateau(factor=0.5, patience=2, verbose=1)
    _, history = run_epochs([reduce], model,
                            [{"val_loss": v} for v in (1.0, 1.0, 1.0, 0.5, 0.5, 0.5)])
    assert history.history["learning_rate"] == pytest.approx([0.1, 0.1, 0.1, 0.05, 0.05, 0.05])
    assert _lr(model) == pytest.approx(0.025)
    assert "Epoch 3: ReduceLROnPlateau reducing learning rate to 0.05" in \
        capsys.readouterr().out


def test_reduce_on_plateau_cooldown_and_min_lr():
    model = FakeModel()
    reduce = ef.callbacks.ReduceLROnPlateau(monitor="loss", factor=0.1, patience=1,
                                            cooldown=2, min_lr=0.005, min_delta=0.0)
    run_epochs([reduce], model, [{"loss": 1.0}] * 5)
    # reduce at epoch 1 (to 0.01), cooldown epochs 2-3, reduce at epoch 4, floored at 0.005
    assert _lr(model) == pytest.approx(0.005)
    run_epochs([reduce], model, [{"loss": 1.0}] * 3)
    assert _lr(model) == pytest.approx(0.005)


def test_reduce_on_plateau_max_mode():
    model = FakeModel()
    reduce = ef.callbacks.ReduceLROnPlateau(monitor="val_accuracy", factor=0.5, patience=1)
    run_epochs([reduce], model, [{"val_accuracy": v} for v in (0.5, 0.6, 0.7)])
    assert _lr(model) == pytest.approx(0.1)


def test_reduce_on_plateau_missing_key_is_an_error():
    reduce = ef.callbacks.ReduceLROnPlateau(monitor="val_acc", mode="max")
    with pytest.raises(KeyError, match=r"ReduceLROnPlateau: the monitored metric 'val_acc'"):
        run_epochs([reduce], FakeModel(), [{"loss": 1.0, "val_accuracy": 0.5}])


@pytest.mark.parametrize("kwargs, match", [
    ({"factor": 1.0}, r"factor must be in \(0, 1\)"),
    ({"factor": 0.0}, r"factor must be in \(0, 1\)"),
    ({"patience": -1}, r"patience must be a non-negative int"),
    ({"cooldown": 0.5}, r"cooldown must be a non-negative int"),
    ({"mode": "lower"}, r"mode must be"),
])
def test_reduce_on_plateau_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        ef.callbacks.ReduceLROnPlateau(**kwargs)


def test_learning_rate_is_stored_in_float32_variable():
    model = FakeModel()
    run_epochs([ef.callbacks.LearningRateScheduler(lambda e: 1 / 3)], model, [{}])
    assert model.optimizer.learning_rate.numpy() == np.float32(1 / 3)
