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


def test_verbose_1_draws_one_bar_per_epoch_then_a_summary_line():
    out = io.StringIO()
    _run_fit(ef.callbacks.ProgbarLogger(file=out), verbose=1)
    text = out.getvalue()
    assert "Epoch 1/2" in text and "Epoch 2/2" in text
    summaries = [line.rsplit("\r", 1)[-1] for line in text.split("\n") if line]
    assert [line.split(" - ")[:2] for line in summaries] == [["Epoch 1/2", "3/3"],
                                                             ["Epoch 2/2", "3/3"]]
    assert all(line.endswith("ms/step - loss: 0.6000 - accuracy: 0.5000 - val_loss: 0.7000")
               for line in summaries)
    assert "Evaluate" not in text and "9.0000" not in text
    assert "step/s" not in text  # one unit, ms/step, in the bar and in the summary


def test_the_running_bar_shows_ms_per_step_and_the_running_logs(monkeypatch):
    out = io.StringIO()
    bar = ef.callbacks.ProgbarLogger(file=out)
    bar.set_params({"verbose": 1, "epochs": 1, "steps": 3})
    bar.on_train_begin()
    bar.on_epoch_begin(0)
    bar._bar.mininterval = 0.0  # redraw on every step
    bar.on_train_batch_end(0, {"loss": 0.25})
    assert "ms/step, loss=0.2500" in out.getvalue() and "step/s" not in out.getvalue()


_EPOCH_LOGS = {"loss": 0.7074, "accuracy": 0.8123, "val_loss": 0.6512, "val_accuracy": 0.7891}


@pytest.mark.parametrize("columns", [0, 20, 80, 200])
def test_every_metric_is_shown_at_any_terminal_width(columns, monkeypatch):
    """A terminal of 0 columns (``script``) counts as 80; narrower ones wrap the summary
    between metrics instead of cutting it."""
    monkeypatch.setattr(progbar, "_isatty", lambda stream: True)
    monkeypatch.setattr(progbar, "_terminal_columns", lambda stream: columns)
    out = io.StringIO()
    bar = ef.callbacks.ProgbarLogger(file=out)
    bar.set_params({"verbose": 1, "epochs": 1, "steps": 3})
    bar.on_train_begin()
    bar.on_epoch_begin(0)
    width = columns or progbar.DEFAULT_WIDTH
    # tqdm hides a bar below its screen height: a 0x0 terminal must not make it 0.
    assert bar._bar.ncols == width and bar._bar.nrows > 0
    for step in range(3):
        bar.on_train_batch_end(step, {"loss": 0.7074, "accuracy": 0.8123})
    bar.on_epoch_end(0, dict(_EPOCH_LOGS))
    bar.on_train_end()
    text = out.getvalue()
    summary = text.rsplit("\r", 1)[-1]
    for name, value in _EPOCH_LOGS.items():
        assert f"{name}: {value:.4f}" in summary
    lines = summary.split("\n")[:-1]
    assert lines[0].startswith("Epoch 1/1 - ")
    # Every line fits, except a single metric wider than the terminal, alone on its line.
    assert all(len(line) <= width or " - " not in line.strip().removeprefix("- ")
               for line in lines)
    # The bar is drawn at the width too, never at 0 columns (blank lines).
    drawn = [piece for piece in text.split("\r") if piece.startswith("Epoch 1/1:")]
    assert drawn and all(len(piece) <= width for piece in drawn)


def test_every_metric_is_shown_in_a_log_file():
    """A stream that is no terminal (a log, a captured cell output): one unwrapped line."""
    out = io.StringIO()
    bar = ef.callbacks.ProgbarLogger(file=out)
    bar.set_params({"verbose": 2, "epochs": 1, "steps": 3})
    bar.on_train_begin()
    bar.on_epoch_begin(0)
    bar.on_train_batch_end(2, {"loss": 0.7074})
    bar.on_epoch_end(0, dict(_EPOCH_LOGS))
    (line,) = out.getvalue().splitlines()
    assert "\r" not in line
    assert line.endswith(" - ".join(f"{k}: {v:.4f}" for k, v in _EPOCH_LOGS.items()))


def test_wrap_parts_never_splits_a_part():
    parts = ["Epoch 1/1", "loss: 0.5000", "val_accuracy: 0.2500"]
    assert progbar.wrap_parts(parts, None) == " - ".join(parts)
    assert progbar.wrap_parts(parts, 10).splitlines() == [
        "Epoch 1/1", "  - loss: 0.5000", "  - val_accuracy: 0.2500"]


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


def test_notebooks_get_the_text_bar_whose_output_a_saved_notebook_keeps(monkeypatch):
    """tqdm's ipywidgets bar saves as a "0%" placeholder; the text bar and its summary
    lines are saved as text (and there is no IProgress warning)."""
    monkeypatch.setattr(progbar, "_in_notebook", lambda: True)
    monkeypatch.setattr(progbar, "_isatty", lambda stream: False)
    assert progbar.bar_class().__module__ == "tqdm.std"


def test_verbose_2_prints_one_line_per_epoch(capsys):
    _run_fit(ef.callbacks.ProgbarLogger(), verbose=2)
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 2
    assert lines[0].startswith("Epoch 1/2 - ")
    assert lines[0].startswith("Epoch 1/2 - 3/3 - ")
    assert "ms/step - loss: 0.6000 - accuracy: 0.5000 - val_loss: 0.7000" in lines[0]


def test_bar_of_an_epoch_stopped_early_ends_at_the_last_step():
    out = io.StringIO()
    _run_fit(ef.callbacks.ProgbarLogger(file=out), verbose=1, epochs=1, steps=10,
             stop_after=4)
    assert out.getvalue().rsplit("\r", 1)[-1].startswith("Epoch 1/1 - 4/10 - ")


def test_unknown_number_of_steps():
    out = io.StringIO()
    _run_fit(ef.callbacks.ProgbarLogger(file=out), verbose=1, epochs=1, steps=None)
    assert out.getvalue().rsplit("\r", 1)[-1].startswith("Epoch 1/1 - 3/3 - ")


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
