"""`ProgbarLogger`: the progress output of `fit`, `evaluate` and `predict`.

``verbose=1`` (and ``"auto"``) draws a tqdm bar per epoch with steps done / total, elapsed
and remaining time, the time per step and the running epoch means of the loss and metrics;
when the epoch ends the bar gives way to one summary line with every metric, validation
ones included, the line ``verbose=2`` prints::

    Epoch 1/5 - 23/23 - 1s - 24ms/step - loss: 0.7074 - accuracy: 0.8012 - val_loss: ...

The bar may be cut to fit a narrow terminal; the summary never is: on a terminal it wraps
to the terminal's width (80 columns when the terminal reports no size, as under
``script``), anywhere else it is one line. ``verbose=0`` prints nothing. During `fit`, the
validation pass draws no bar of its own: its results join the epoch's summary.

Where the output goes decides the bar (Keras does the same):

* standard error is a terminal: a text bar, redrawn in place;
* a Jupyter notebook: the text bar too (not tqdm's ipywidgets widget, whose saved output is
  a "0%" placeholder), so a saved notebook keeps every summary as text;
* anything else (output redirected to a file or a pipe, a CI log): only the summary lines,
  as with ``verbose=2``, instead of a log full of carriage-return redraws;
* an explicit ``file=``: a text bar and the summaries to that stream.

The displayed training loss is the running mean over the epoch so far, not the last batch's
loss, exactly like the value `History` records at the end of the epoch.

Examples:
    >>> import eagerflow as ef
    >>> bar = ef.callbacks.ProgbarLogger()
    >>> bar.set_params({"verbose": 2, "epochs": 1, "steps": 2})
    >>> bar.on_train_begin()
    >>> bar.on_epoch_begin(0)
    >>> bar.on_train_batch_end(1, {"loss": 0.5})
    >>> bar.on_epoch_end(0, {"loss": 0.5})  # doctest: +ELLIPSIS
    Epoch 1/1 - 2/2 - ...s - ...ms/step - loss: 0.5000
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any

from eagerflow.callbacks import base

DEFAULT_WIDTH = 80  # columns, when a terminal reports none (0x0 under `script`)

# tqdm's default layout without its rate (steps/s): the postfix carries ms/step instead, the
# unit of the summary line and of Keras.
_BAR_FORMAT = "{l_bar}{bar}| {n_fmt}/{total_fmt} [{elapsed}<{remaining}{postfix}]"


def _isatty(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False


def _terminal_columns(stream) -> int:
    """The width of the terminal `stream` writes to; 0 when unknown."""
    try:
        return os.get_terminal_size(stream.fileno()).columns
    except (AttributeError, ValueError, OSError):  # no fileno, a closed stream, no terminal
        return 0


def line_width(stream) -> int | None:
    """Columns to fit output to: the terminal's width (`DEFAULT_WIDTH` when it reports 0),
    or None (no limit) when `stream` is not a terminal.

    Examples:
        >>> import io
        >>> from eagerflow.callbacks import progbar
        >>> progbar.line_width(io.StringIO()) is None
        True
    """
    if not _isatty(stream):
        return None
    return _terminal_columns(stream) or DEFAULT_WIDTH


def _in_notebook() -> bool:
    """Whether this runs in a Jupyter kernel (IPython's ZMQ shell)."""
    shell = getattr(sys.modules.get("IPython"), "get_ipython", lambda: None)()
    return type(shell).__name__ == "ZMQInteractiveShell"


def bar_class(file=None):
    """The tqdm class to draw with, or None for summary lines only (see the module
    docstring for the rule).

    Examples:
        >>> import io
        >>> from eagerflow.callbacks import progbar
        >>> progbar.bar_class(io.StringIO()).__module__
        'tqdm.std'
    """
    if file is not None or _in_notebook() or _isatty(sys.stderr):
        from tqdm.std import tqdm  # imported on first use: ~40 ms

        return tqdm
    return None


def _format_value(value) -> str:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return str(value)
    if number != 0 and abs(number) < 1e-3:
        return f"{number:.4e}"
    return f"{number:.4f}"


def format_logs(logs, separator: str = " - ", assign: str = ": ") -> str:
    """Formats a logs dict like Keras: ``loss: 0.1234 - accuracy: 0.9500``.

    Examples:
        >>> from eagerflow.callbacks import progbar
        >>> progbar.format_logs({"loss": 0.25, "lr": 1e-5})
        'loss: 0.2500 - lr: 1.0000e-05'
    """
    return separator.join(f"{key}{assign}{_format_value(value)}"
                          for key, value in (logs or {}).items() if key != "outputs")


def wrap_parts(parts: list[str], width: int | None, separator: str = " - ") -> str:
    """Joins `parts` with `separator`, breaking lines between parts to fit `width`
    columns (no limit when None); continuation lines are indented by two spaces. A part
    is never split, so a part wider than `width` gets a line of its own.

    Examples:
        >>> from eagerflow.callbacks import progbar
        >>> print(progbar.wrap_parts(["Epoch 1/1", "loss: 0.5000", "val_loss: 0.7000"], 26))
        Epoch 1/1 - loss: 0.5000
          - val_loss: 0.7000
    """
    lines: list[str] = []
    current = ""
    for part in parts:
        if not current:
            current = part if not lines else "  " + separator.lstrip() + part
        elif width is None or len(current) + len(separator) + len(part) <= width:
            current += separator + part
        else:
            lines.append(current)
            current = "  " + separator.lstrip() + part
    lines.append(current)
    return "\n".join(lines)


class ProgbarLogger(base.Callback):
    """Prints progress according to ``params["verbose"]`` (0 silent, 1 bar, 2 line/epoch).

    `fit`, `evaluate` and `predict` add one automatically; pass your own to choose where
    the output goes. Every epoch (and every `evaluate`) ends with a summary line holding
    every metric, wrapped to the terminal's width, so no metric is ever cut off.

    Args:
        file: stream for the bars and their summaries (default: standard error, tqdm's).
            Output without a bar (``verbose=2``, or no terminal) goes to standard output
            unless `file` is given.

    Examples:
        >>> import eagerflow as ef, io
        >>> out = io.StringIO()
        >>> bar = ef.callbacks.ProgbarLogger(file=out)
        >>> bar.set_params({"verbose": 1, "epochs": 1, "steps": 3})
        >>> bar.on_train_begin()
        >>> bar.on_epoch_begin(0)
        >>> for step in range(3):
        ...     bar.on_train_batch_end(step, {"loss": 1.0 / (step + 1)})
        >>> bar.on_epoch_end(0, {"loss": 0.6})
        >>> print(out.getvalue().splitlines()[-1])  # doctest: +ELLIPSIS
        Epoch 1/1 - 3/3 - ...s - ...ms/step - loss: 0.6000
    """

    _chief_only = True  # under ef.distribute, only rank 0 runs it (it prints or writes)

    def __init__(self, file: Any = None) -> None:
        super().__init__()
        self.file = file
        self._bar = None
        self._in_fit = False
        self._start = 0.0
        self._seen = 0
        self._epoch_head = "Epoch"

    @property
    def verbose(self) -> int:
        """0, 1 or 2; 1 becomes 2 where a bar would not render (see the module docstring)."""
        verbose = int(self.params.get("verbose", 1) or 0)
        if verbose == 1 and self._bar_class() is None:
            return 2
        return verbose

    def _bar_class(self):
        if not hasattr(self, "_chosen"):
            self._chosen = bar_class(self.file)
        return self._chosen

    def _bar_stream(self):
        return self.file if self.file is not None else sys.stderr

    def _open_bar(self, desc: str) -> None:
        self._close_bar()
        self._start = time.perf_counter()
        self._seen = 0
        if self.verbose == 1:
            stream = self._bar_stream()
            # A size read once per bar: tqdm's own reading of a terminal that reports 0x0
            # gives a bar of 0 columns hidden below row 0, i.e. blank lines. `nrows` only
            # hides nested bars (positions past it); ours is at position 0.
            self._bar = self._bar_class()(total=self.params.get("steps"), desc=desc,
                                          unit="step", file=stream,
                                          ncols=line_width(stream) or DEFAULT_WIDTH,
                                          nrows=24, bar_format=_BAR_FORMAT, leave=False)

    def _ms_per_step(self) -> str:
        elapsed = time.perf_counter() - self._start
        return f"{1000.0 * elapsed / max(self._seen, 1):.0f}ms/step"

    def _advance(self, batch: int, logs) -> None:
        self._seen = batch + 1
        bar = self._bar
        if bar is None:
            return
        # Formatting the logs costs more than a step of a small model: do it only when tqdm
        # is about to redraw (its own test), so the bar always shows the latest values.
        if bar._time() - bar.last_print_t >= bar.mininterval:
            text = format_logs(logs, ", ", "=")
            bar.set_postfix_str(self._ms_per_step() + (", " + text if text else ""),
                                refresh=False)
        bar.update(self._seen - bar.n)

    def _close_bar(self) -> None:
        bar = self._bar
        if bar is not None:
            bar.close()  # leave=False: the summary line takes its place
            self._bar = None

    def _summary(self, head: str, logs) -> None:
        """Prints the line that ends an epoch, an evaluation or a prediction: every metric,
        in the unit and layout of ``verbose=2``, wrapped to a terminal's width."""
        self._close_bar()
        elapsed = time.perf_counter() - self._start
        steps = self.params.get("steps")
        parts = [head, f"{self._seen}/{steps or self._seen}", f"{elapsed:.0f}s"]
        if self._seen:
            parts.append(self._ms_per_step())
        parts += [part for part in format_logs(logs).split(" - ") if part]
        if self.verbose == 1:
            stream = self._bar_stream()
        else:
            stream = self.file if self.file is not None else sys.stdout
        stream.write(wrap_parts(parts, line_width(stream)) + "\n")
        stream.flush()

    def on_train_begin(self, logs: dict[str, Any] | None = None) -> None:
        self._in_fit = True

    def on_train_end(self, logs: dict[str, Any] | None = None) -> None:
        self._close_bar()
        self._in_fit = False

    def on_epoch_begin(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        self._epoch_head = f"Epoch {epoch + 1}/{self.params.get('epochs', '?')}"
        self._open_bar(self._epoch_head)

    def on_train_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        self._advance(batch, logs)

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        if self.verbose:
            self._summary(self._epoch_head, logs)

    def on_test_begin(self, logs: dict[str, Any] | None = None) -> None:
        if not self._in_fit:
            self._open_bar("Evaluate")

    def on_test_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        if not self._in_fit:
            self._advance(batch, logs)

    def on_test_end(self, logs: dict[str, Any] | None = None) -> None:
        if not self._in_fit and self.verbose:
            self._summary("Evaluate", logs)

    def on_predict_begin(self, logs: dict[str, Any] | None = None) -> None:
        self._open_bar("Predict")

    def on_predict_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        self._advance(batch, None)

    def on_predict_end(self, logs: dict[str, Any] | None = None) -> None:
        if self.verbose:
            self._summary("Predict", None)
