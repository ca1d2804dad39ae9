"""`ProgbarLogger`: the progress output of `fit`, `evaluate` and `predict`.

``verbose=1`` (and ``"auto"``) draws a tqdm bar per epoch with steps done / total, elapsed
and remaining time, and the running epoch means of the loss and metrics; ``verbose=2``
prints one line per epoch; ``verbose=0`` prints nothing. During `fit`, the validation pass
draws no bar of its own: its results join the epoch's line.

Where the output goes decides the bar (Keras does the same):

* standard error is a terminal: a text bar, redrawn in place;
* a Jupyter notebook: tqdm's widget when ipywidgets is installed, else a text bar (never
  tqdm's "IProgress not found" warning);
* anything else (output redirected to a file or a pipe, a CI log): one line per epoch, as
  with ``verbose=2``, instead of a log full of carriage-return redraws;
* an explicit ``file=``: a text bar to that stream.

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
    Epoch 1/1 - ...s - ...ms/step - loss: 0.5000
"""

from __future__ import annotations

import importlib.util
import sys
import time
from typing import Any

from eagerflow.callbacks import base


def _isatty(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False


def _in_notebook() -> bool:
    """Whether this runs in a Jupyter kernel (IPython's ZMQ shell)."""
    shell = getattr(sys.modules.get("IPython"), "get_ipython", lambda: None)()
    return type(shell).__name__ == "ZMQInteractiveShell"


def bar_class(file=None):
    """The tqdm class to draw with, or None for one line per epoch (see the module
    docstring for the rule).

    Examples:
        >>> import io
        >>> from eagerflow.callbacks import progbar
        >>> progbar.bar_class(io.StringIO()).__module__
        'tqdm.std'
    """
    if file is not None:
        from tqdm.std import tqdm  # imported on first use: ~40 ms
        return tqdm
    if _in_notebook():
        if importlib.util.find_spec("ipywidgets") is not None:
            from tqdm.notebook import tqdm as notebook_tqdm
            return notebook_tqdm
        from tqdm.std import tqdm
        return tqdm
    if _isatty(sys.stderr):
        from tqdm.std import tqdm
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


class ProgbarLogger(base.Callback):
    """Prints progress according to ``params["verbose"]`` (0 silent, 1 bar, 2 line/epoch).

    `fit`, `evaluate` and `predict` add one automatically; pass your own to choose where
    the bars go.

    Args:
        file: stream for the bars (default: tqdm's, standard error). One-line-per-epoch
            output (``verbose=2``) goes to standard output unless `file` is given.

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
        >>> "3/3" in out.getvalue() and "loss=0.6000" in out.getvalue()
        True
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

    def _open_bar(self, desc: str) -> None:
        self._close_bar()
        self._start = time.perf_counter()
        self._seen = 0
        if self.verbose == 1:
            self._bar = self._bar_class()(total=self.params.get("steps"), desc=desc,
                                          unit="step", file=self.file, dynamic_ncols=True,
                                          leave=True)

    def _advance(self, batch: int, logs) -> None:
        self._seen = batch + 1
        bar = self._bar
        if bar is None:
            return
        # Formatting the logs costs more than a step of a small model: do it only when tqdm
        # is about to redraw (its own test), so the bar always shows the latest values.
        if logs and bar._time() - bar.last_print_t >= bar.mininterval:
            bar.set_postfix_str(format_logs(logs, ", ", "="), refresh=False)
        bar.update(self._seen - bar.n)

    def _close_bar(self, logs=None) -> None:
        bar = self._bar
        if bar is None:
            return
        if bar.total is None or bar.n < (bar.total or 0):
            bar.total = bar.n  # finished early (stop_training, unknown length)
        if logs:
            bar.set_postfix_str(format_logs(logs, ", ", "="), refresh=False)
        bar.close()
        self._bar = None

    def _line(self, head: str, logs) -> None:
        elapsed = time.perf_counter() - self._start
        parts = [head, f"{elapsed:.0f}s"]
        if self._seen:
            parts.append(f"{1000.0 * elapsed / self._seen:.0f}ms/step")
        text = format_logs(logs)
        if text:
            parts.append(text)
        from tqdm.std import tqdm

        tqdm.write(" - ".join(parts), file=self.file if self.file is not None else sys.stdout)

    def on_train_begin(self, logs: dict[str, Any] | None = None) -> None:
        self._in_fit = True

    def on_train_end(self, logs: dict[str, Any] | None = None) -> None:
        self._close_bar()
        self._in_fit = False

    def on_epoch_begin(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        self._open_bar(f"Epoch {epoch + 1}/{self.params.get('epochs', '?')}")
        self._epoch_head = f"Epoch {epoch + 1}/{self.params.get('epochs', '?')}"

    def on_train_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        self._advance(batch, logs)

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        if self.verbose == 1:
            self._close_bar(logs)
        elif self.verbose == 2:
            self._line(self._epoch_head, logs)

    def on_test_begin(self, logs: dict[str, Any] | None = None) -> None:
        if not self._in_fit:
            self._open_bar("Evaluate")

    def on_test_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        if not self._in_fit:
            self._advance(batch, logs)

    def on_test_end(self, logs: dict[str, Any] | None = None) -> None:
        if self._in_fit:
            return
        if self.verbose == 1:
            self._close_bar(logs)
        elif self.verbose == 2:
            self._line("Evaluate", logs)

    def on_predict_begin(self, logs: dict[str, Any] | None = None) -> None:
        self._open_bar("Predict")

    def on_predict_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        self._advance(batch, None)

    def on_predict_end(self, logs: dict[str, Any] | None = None) -> None:
        if self.verbose == 1:
            self._close_bar()
        elif self.verbose == 2:
            self._line("Predict", None)
