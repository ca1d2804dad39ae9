"""The main demo: digits CNN reaches >= 0.95 test accuracy and restores identically."""

import time

from eagerflow.examples import digits


def test_demo_trains_checkpoints_and_restores_identically(tmp_path, capsys):
    start = time.perf_counter()
    results = digits.run(output_dir=str(tmp_path), verbose=0)
    assert time.perf_counter() - start < 60
    assert results["accuracy"] >= 0.95
    assert results["restored_accuracy"] == results["accuracy"]
    assert results["restored_loss"] == results["loss"]
    assert results["checkpoint"].startswith(str(tmp_path))


def test_main_prints_results_and_returns_zero(tmp_path, capsys):
    assert digits.main(["--epochs", "1", "--verbose", "0", "--output-dir", str(tmp_path)]) == 0
    assert "test accuracy" in capsys.readouterr().out
    assert digits.main(["--epochs", "1", "--verbose", "2", "--output-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "Epoch 1/1 - " in out and "-> identical" in out


def test_the_demo_leaves_no_files_behind(tmp_path, monkeypatch):
    import tempfile
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    results = digits.run(epochs=1, verbose=0)
    assert results["checkpoint"] is None
    assert list(tmp_path.iterdir()) == []
