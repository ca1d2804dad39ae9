"""CSVLogger: rows per epoch, append, widening header, separators."""

import csv

import numpy as np
import pytest

import eagerflow as ef

from .fakes import FakeModel, run_epochs


def _rows(path, sep=","):
    with open(path, newline="") as f:
        return list(csv.reader(f, delimiter=sep))


def test_one_row_per_epoch(tmp_path):
    path = tmp_path / "log.csv"
    run_epochs([ef.callbacks.CSVLogger(path)], FakeModel(),
               [{"loss": 0.5, "accuracy": 0.75}, {"loss": 0.25, "accuracy": 1.0}])
    # Keras 3 names the validation columns from the first header on (NA without validation).
    assert _rows(path) == [["epoch", "accuracy", "loss", "val_accuracy", "val_loss"],
                           ["0", "0.75", "0.5", "NA", "NA"], ["1", "1.0", "0.25", "NA", "NA"]]


def test_without_append_the_file_is_replaced(tmp_path):
    path = tmp_path / "log.csv"
    path.write_text("old\n")
    run_epochs([ef.callbacks.CSVLogger(path)], FakeModel(), [{"loss": 0.5}])
    assert _rows(path) == [["epoch", "loss", "val_loss"], ["0", "0.5", "NA"]]


def test_append_keeps_earlier_rows(tmp_path):
    path = tmp_path / "log.csv"
    logger = ef.callbacks.CSVLogger(path, append=True)
    run_epochs([logger], FakeModel(), [{"loss": 0.5}])
    run_epochs([logger], FakeModel(), [{"loss": 0.25}])
    assert _rows(path) == [["epoch", "loss", "val_loss"], ["0", "0.5", "NA"], ["0", "0.25", "NA"]]


def test_late_keys_widen_the_header_instead_of_being_dropped(tmp_path):
    path = tmp_path / "log.csv"
    run_epochs([ef.callbacks.CSVLogger(path)], FakeModel(),
               [{"loss": 0.5}, {"loss": 0.4, "val_loss": 0.6}, {"loss": 0.3}])
    assert _rows(path) == [["epoch", "loss", "val_loss"], ["0", "0.5", "NA"],
                           ["1", "0.4", "0.6"], ["2", "0.3", "NA"]]


def test_append_to_a_file_with_other_columns(tmp_path):
    path = tmp_path / "log.csv"
    path.write_text("epoch,mae\n0,2.0\n")
    run_epochs([ef.callbacks.CSVLogger(path, append=True)], FakeModel(), [{"loss": 1.0}])
    assert _rows(path) == [["epoch", "loss", "mae"], ["0", "NA", "2.0"], ["0", "1.0", "NA"]]


def test_separator_and_array_values(tmp_path):
    path = tmp_path / "log.tsv"
    run_epochs([ef.callbacks.CSVLogger(path, separator="\t")], FakeModel(),
               [{"loss": np.float32(0.5), "per_class": np.array([1.0, 2.0]), "note": "ok"}])
    assert _rows(path, "\t") == [["epoch", "loss", "note", "per_class", "val_loss", "val_note",
                                  "val_per_class"],
                                 ["0", "0.5", "ok", "[1.0, 2.0]", "NA", "NA", "NA"]]


def test_bad_separator():
    with pytest.raises(ValueError, match=r"separator must be one character"):
        ef.callbacks.CSVLogger("x.csv", separator=", ")


def test_a_failed_rewrite_leaves_the_old_file(tmp_path, monkeypatch):
    path = tmp_path / "log.csv"
    path.write_text("epoch,loss\n0,1.0\n")
    logger = ef.callbacks.CSVLogger(path)
    logger.on_train_begin()

    def broken_fsync(fd):
        raise OSError("disk full")

    monkeypatch.setattr("os.fsync", broken_fsync)
    with pytest.raises(OSError, match="disk full"):
        logger.on_epoch_end(0, {"loss": 0.5})
    assert path.read_text() == "epoch,loss\n0,1.0\n"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".csvlogger")] == []
