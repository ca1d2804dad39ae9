"""Monitored keys: direction and missing-key errors."""

import pytest

from eagerflow.callbacks import monitor


@pytest.mark.parametrize("name, mode", [
    ("loss", "min"), ("val_loss", "min"), ("mean_squared_error", "min"), ("val_mae", "min"),
    ("accuracy", "max"), ("val_accuracy", "max"), ("acc", "max"), ("auc", "max"),
    ("sparse_categorical_accuracy", "max"), ("val_precision", "max"), ("recall", "max"),
    ("top_k_categorical_accuracy", "max"),
])
def test_auto_mode_from_the_name(name, mode):
    assert monitor.resolve_mode(name, "auto", "X") == mode


def test_explicit_mode_wins():
    assert monitor.resolve_mode("val_loss", "max", "X") == "max"


def test_auto_mode_from_a_model_metric_direction():
    class Metric:
        name = "kappa"
        _direction = "up"

    class Model:
        metrics = [Metric()]

    assert monitor.resolve_mode("val_kappa", "auto", "X", Model()) == "max"


def test_unknown_direction_is_an_error():
    with pytest.raises(ValueError, match=r"X: cannot tell whether monitor='kappa'.*mode='min'"):
        monitor.resolve_mode("kappa", "auto", "X")


def test_bad_mode_is_an_error():
    with pytest.raises(ValueError, match=r"mode must be 'auto', 'min' or 'max'.*'best'"):
        monitor.resolve_mode("loss", "best", "X")


def test_missing_key_lists_available_keys():
    with pytest.raises(monitor.MissingMonitorError,
                       match=r"^X: the monitored metric 'val_acc' is not in the logs\. "
                             r"Available keys: accuracy, loss, val_accuracy, val_loss$"):
        monitor.get_value({"loss": 1, "accuracy": 1, "val_loss": 1, "val_accuracy": 1},
                          "val_acc", "X", {"do_validation": True})


def test_missing_val_key_without_validation_says_why():
    with pytest.raises(KeyError, match=r"need validation_data or validation_split.*: loss"):
        monitor.get_value({"loss": 1.0}, "val_loss", "X", {"do_validation": False})


def test_epoch_without_validation_is_skipped_when_fit_validates_sometimes():
    assert monitor.get_value({"loss": 1.0}, "val_loss", "X", {"do_validation": True}) is None


def test_empty_logs():
    with pytest.raises(KeyError, match=r"Available keys: \(none\)"):
        monitor.get_value(None, "loss", "X")


def test_is_better():
    assert monitor.is_better("min", 0.5, 1.0)
    assert not monitor.is_better("min", 0.95, 1.0, min_delta=0.1)
    assert monitor.is_better("max", 1.2, 1.0, min_delta=0.1)
    assert not monitor.is_better("max", 1.0, 1.0)
