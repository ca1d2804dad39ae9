"""EarlyStopping, including restore_best_weights at the end without stopping early."""

import numpy as np
import pytest

import eagerflow as ef

from .fakes import FakeModel, run_epochs, set_weights_to


def _losses(*values, key="val_loss"):
    return [{"loss": 0.0, key: v} for v in values]


def test_stops_after_patience_epochs_without_improvement():
    stop = ef.callbacks.EarlyStopping(patience=2)
    ran, history = run_epochs([stop], FakeModel(), _losses(1.0, 0.8, 0.9, 0.85, 0.1, 0.1))
    assert ran == [0, 1, 2, 3]
    assert stop.stopped_epoch == 3 and stop.best == 0.8 and stop.best_epoch == 1
    assert len(history.history["val_loss"]) == 4


def test_patience_zero_stops_at_first_non_improvement():
    stop = ef.callbacks.EarlyStopping(monitor="loss", patience=0)
    ran, _ = run_epochs([stop], FakeModel(), _losses(1.0, 0.5, 0.5, 0.1, key="loss"))
    assert ran == [0, 1, 2]


def test_min_delta_counts_only_large_improvements():
    stop = ef.callbacks.EarlyStopping(patience=1, min_delta=0.1)
    ran, _ = run_epochs([stop], FakeModel(), _losses(1.0, 0.95, 0.92, 0.5))
    assert ran == [0, 1]


def test_max_mode_for_accuracy():
    stop = ef.callbacks.EarlyStopping(monitor="val_accuracy", patience=1)
    ran, _ = run_epochs([stop], FakeModel(), _losses(0.5, 0.7, 0.6, 0.9, key="val_accuracy"))
    assert ran == [0, 1, 2] and stop.best == 0.7


def test_baseline_must_be_beaten():
    # The first epoch improves on nothing-so-far but not on the baseline: its wait counts.
    stop = ef.callbacks.EarlyStopping(patience=2, baseline=0.5)
    ran, _ = run_epochs([stop], FakeModel(), _losses(0.9, 0.95, 0.97, 0.4))
    assert ran == [0, 1]
    stop = ef.callbacks.EarlyStopping(patience=2)
    ran, _ = run_epochs([stop], FakeModel(), _losses(0.9, 0.95, 0.97, 0.4))
    assert ran == [0, 1, 2]


def test_start_from_epoch_ignores_warm_up():
    stop = ef.callbacks.EarlyStopping(patience=0, start_from_epoch=2)
    ran, _ = run_epochs([stop], FakeModel(), _losses(0.1, 0.5, 0.9, 0.8, 0.85))
    assert ran == [0, 1, 2, 3, 4]
    assert stop.best == 0.8


def test_restore_best_weights_when_stopping_early():
    model = FakeModel()
    stop = ef.callbacks.EarlyStopping(patience=1, restore_best_weights=True, verbose=1)
    ran, _ = run_epochs([stop], model, _losses(1.0, 0.5, 0.7, 0.8, 0.1),
                        epoch_hook=set_weights_to(lambda epoch: epoch + 10.0))
    assert ran == [0, 1, 2]
    np.testing.assert_array_equal(model.w.numpy(), [11.0, 11.0])
    assert float(model.b) == 11.0


def test_restore_best_weights_even_without_stopping_early(capsys):
    model = FakeModel()
    stop = ef.callbacks.EarlyStopping(patience=10, restore_best_weights=True, verbose=1)
    ran, _ = run_epochs([stop], model, _losses(1.0, 0.2, 0.7, 0.8),
                        epoch_hook=set_weights_to(lambda epoch: epoch + 10.0))
    assert ran == [0, 1, 2, 3] and stop.stopped_epoch == 0
    np.testing.assert_array_equal(model.w.numpy(), [11.0, 11.0])
    assert "Restoring model weights from the end of the best epoch: 2." in \
        capsys.readouterr().out


def test_first_epoch_is_best_when_nothing_improves():
    model = FakeModel()
    stop = ef.callbacks.EarlyStopping(monitor="loss", patience=5, restore_best_weights=True,
                                      mode="max")
    run_epochs([stop], model, _losses(np.nan, np.nan, key="loss"),
               epoch_hook=set_weights_to(lambda epoch: epoch + 10.0))
    np.testing.assert_array_equal(model.w.numpy(), [10.0, 10.0])


def test_verbose_reports_the_stop(capsys):
    stop = ef.callbacks.EarlyStopping(patience=0, verbose=1)
    run_epochs([stop], FakeModel(), _losses(1.0, 2.0))
    assert "Epoch 2: early stopping" in capsys.readouterr().out


def test_missing_monitor_key_is_an_error_listing_keys():
    stop = ef.callbacks.EarlyStopping(monitor="val_acc")
    with pytest.raises(KeyError, match=r"EarlyStopping: the monitored metric 'val_acc'.*"
                                        r"Available keys: loss, val_accuracy"):
        run_epochs([stop], FakeModel(), _losses(0.5, key="val_accuracy"))


def test_epochs_without_validation_are_skipped():
    stop = ef.callbacks.EarlyStopping(patience=0)
    logs = [{"loss": 1.0}, {"loss": 1.0, "val_loss": 0.5}, {"loss": 1.0},
            {"loss": 1.0, "val_loss": 0.6}]
    ran, _ = run_epochs([stop], FakeModel(), logs)
    assert ran == [0, 1, 2, 3] and stop.stopped_epoch == 3
    assert stop.get_monitor_value({"val_loss": 2}) == 2.0


@pytest.mark.parametrize("kwargs, match", [
    ({"patience": -1}, r"patience must be a non-negative int"),
    ({"patience": 1.5}, r"patience must be a non-negative int"),
    ({"start_from_epoch": -2}, r"start_from_epoch must be a non-negative int"),
    ({"min_delta": -0.1}, r"min_delta must be >= 0"),
    ({"mode": "up"}, r"mode must be 'auto', 'min' or 'max'"),
])
def test_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        ef.callbacks.EarlyStopping(**kwargs)
