"""plot_history."""

import sys

import pytest

import eagerflow as ef
from eagerflow.callbacks import History


def _history():
    history = History()
    history.history = {"loss": [1.0, 0.5], "val_loss": [1.1, 0.7], "accuracy": [0.4, 0.8],
                       "val_accuracy": [0.3, 0.7], "learning_rate": [0.1, 0.1]}
    return history


def test_writes_a_png_from_a_history(tmp_path):
    pytest.importorskip("matplotlib")
    path = ef.utils.plot_history(_history(), tmp_path / "h.png", title="run")
    data = (tmp_path / "h.png").read_bytes()
    assert path == str(tmp_path / "h.png") and data[:4] == b"\x89PNG"
    assert [p.name for p in tmp_path.iterdir()] == ["h.png"]


def test_chosen_metrics_and_validation_only(tmp_path):
    pytest.importorskip("matplotlib")
    ef.utils.plot_history(_history(), tmp_path / "a.png", metrics=["accuracy"])
    ef.utils.plot_history({"val_loss": [1.0]}, tmp_path / "v.png")
    assert (tmp_path / "a.png").exists() and (tmp_path / "v.png").exists()


def test_unknown_metric_lists_available(tmp_path):
    pytest.importorskip("matplotlib")
    with pytest.raises(ValueError, match=r"\['auc'\] not in the history. Available: \['acc"):
        ef.utils.plot_history(_history(), tmp_path / "a.png", metrics=["auc"])


def test_empty_history(tmp_path):
    pytest.importorskip("matplotlib")
    with pytest.raises(ValueError, match=r"the history is empty"):
        ef.utils.plot_history(History(), tmp_path / "a.png")


def test_not_a_history(tmp_path):
    with pytest.raises(TypeError, match=r"expects the History returned by fit.*list"):
        ef.utils.plot_history([1.0, 2.0], tmp_path / "a.png")


def test_failed_save_leaves_no_temporary(tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")

    def broken_fsync(fd):
        raise OSError("disk full")

    monkeypatch.setattr("os.fsync", broken_fsync)
    with pytest.raises(OSError, match="disk full"):
        ef.utils.plot_history(_history(), tmp_path / "h.png")
    assert list(tmp_path.iterdir()) == []


def test_missing_matplotlib_says_how_to_install(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    monkeypatch.setitem(sys.modules, "matplotlib.backends.backend_agg", None)
    with pytest.raises(ImportError, match=r"pip install 'eagerflow\[plot\]'"):
        ef.utils.plot_history(_history(), tmp_path / "h.png")
