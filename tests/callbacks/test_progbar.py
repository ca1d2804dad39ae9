"""Progress output: verbose 0 / 1 (tqdm bar) / 2 (one line per epoch)."""

import io

import pytest

import eagerflow as ef
from eagerflow.callbacks import progbar


def _run_fit(bar, verbose, steps=3, epochs=2, stop_after=None):
    bar.set_params({"verbose": verbose, "epochs": epochs, "steps": steps})
    bar.on_train_begin()
    for epoch in range(epochs):
        bar.on_epoch_begin(epoch)
        for step in range(steps or 3):
            bar.on_train_batch_end(step, {"loss": 1.0 / (step + 1), "accuracy": 0.5})
            if stop_after is not None and step + 1 == stop_after:
                break
        # Validation inside fit draws no bar of its own.
        bar.on_test_begin()
        bar.on_test_batch_end(0, {"loss": 9.0})
        bar.on_test_end({"loss": 9.0})
        bar.on_epoch_end(epoch, {"loss": 0.6, "accuracy": 0.5, "val_loss": 0.7})
    bar.on_train_end()


def test_verbose_0_prints_nothing(capsys):
    out = io.StringIO()
    _run_fit(ef.callbacks.ProgbarLogger(file=out), verbose=0)
    assert out.getvalue() == ""
    assert capsys.readouterr() == ("", "")


def test_verbose_1_draws_one_bar_per_epoch_with_running_logs():
    out = io.StringIO()
    _run_fit(ef.callbacks.ProgbarLogger(file=out), verbose=1)
    text = out.getvalue()
    assert "Epoch 1/2" in text and "Epoch 2/2" in text
    assert "3/3" in text
    assert "loss=0.6000, accuracy=0.5000, val_loss=0.7000" in text
    assert "Evaluate" not in text and "9.0000" not in text


def test_verbose_1_bar_to_standard_error_when_it_is_a_terminal(capsys, monkeypatch):
    monkeypatch.setattr(progbar, "_isatty", lambda stream: True)
    _run_fit(ef.callbacks.ProgbarLogger(), verbose=1, epochs=1)
    captured = capsys.readouterr()
    assert "Epoch 1/1" in captured.err and "\r" in captured.err and captured.out == ""


def test_verbose_1_without_a_terminal_prints_one_line_per_epoch(capsys):
    """Redirected output (a log file, CI) gets lines, not carriage-return redraws."""
    _run_fit(ef.callbacks.ProgbarLogger(), verbose=1, epochs=2)
    captured = capsys.readouterr()
    assert captured.err == ""
    lines = captured.out.strip().splitlines()
    assert [line.split(" - ")[0] for line in lines] == ["Epoch 1/2", "Epoch 2/2"]
    assert "\r" not in captured.out


def test_notebooks_get_the_widget_only_with_ipywidgets(monkeypatch):
    monkeypatch.setattr(progbar, "_in_notebook", lambda: True)
    real_find_spec = progbar.importlib.util.find_spec
    monkeypatch.setattr(progbar.importlib.util, "find_spec",
                        lambda name: None if name == "ipywidgets" else real_find_spec(name))
    assert progbar.bar_class().__module__ == "tqdm.std"  # no IProgress warning
    if real_find_spec("ipywidgets") is not None:
        monkeypatch.setattr(progbar.importlib.util, "find_spec", real_find_spec)
        assert progbar.bar_class().__module__ == "tqdm.notebook"


def test_verbose_2_prints_one_line_per_epoch(capsys):
    _run_fit(ef.callbacks.ProgbarLogger(), verbose=2)
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 2
    assert lines[0].startswith("Epoch 1/2 - ")
    assert "ms/step - loss: 0.6000 - accuracy: 0.5000 - val_loss: 0.7000" in lines[0]


def test_bar_of_an_epoch_stopped_early_ends_at_the_last_step():
    out = io.StringIO()
    _run_fit(ef.callbacks.ProgbarLogger(file=out), verbose=1, epochs=1, steps=10,
             stop_after=4)
    assert "4/4" in out.getvalue()


def test_unknown_number_of_steps():
    out = io.StringIO()
    _run_fit(ef.callbacks.ProgbarLogger(file=out), verbose=1, epochs=1, steps=None)
    assert "3/3" in out.getvalue()


@pytest.mark.parametrize("verbose", [1, 2])
def test_evaluate_and_predict_outside_fit(verbose):
    out = io.StringIO()
    bar = ef.callbacks.ProgbarLogger(file=out)
    bar.set_params({"verbose": verbose, "epochs": 1, "steps": 2})
    bar.on_test_begin()
    bar.on_test_batch_end(0, {"loss": 0.5})
    bar.on_test_batch_end(1, {"loss": 0.25})
    bar.on_test_end({"loss": 0.25})
    bar.on_predict_begin()
    bar.on_predict_batch_end(0, {"outputs": object()})
    bar.on_predict_batch_end(1, {"outputs": object()})
    bar.on_predict_end()
    text = out.getvalue()
    assert "Evaluate" in text and "Predict" in text
    assert "0.2500" in text


def test_format_logs_uses_scientific_notation_for_small_values():
    assert progbar.format_logs({"lr": 1e-5, "loss": 0.0, "outputs": 1}) == \
        "lr: 1.0000e-05 - loss: 0.0000"
    assert progbar.format_logs({"note": "x"}) == "note: x"
