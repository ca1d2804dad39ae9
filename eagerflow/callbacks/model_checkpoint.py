"""`ModelCheckpoint`: save the model (or its weights) during training.

Saving goes through `model.save_weights(path)` / `model.save(path)`, i.e. the checkpoint
module's atomic HDF5 writer: a crash mid-save never leaves a half-written file under the
final name.

Examples:
    >>> import eagerflow as ef, os, tempfile
    >>> class Model:
    ...     def save_weights(self, path):
    ...         open(path, "w").close()
    >>> directory = tempfile.mkdtemp()
    >>> checkpoint = ef.callbacks.ModelCheckpoint(
    ...     os.path.join(directory, "w-{epoch:02d}-{loss:.2f}.h5"), save_weights_only=True)
    >>> checkpoint.set_model(Model())
    >>> checkpoint.on_train_begin()
    >>> checkpoint.on_epoch_end(0, {"loss": 0.5})
    >>> os.listdir(directory)
    ['w-01-0.50.h5']
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from eagerflow.callbacks import base
from eagerflow.callbacks import monitor as monitoring


class ModelCheckpoint(base.Callback):
    """Saves the model or its weights every epoch (or every `save_freq` batches).

    Args:
        filepath: path of the file to write; may contain ``{epoch}`` (counted from 1),
            ``{batch}`` (with an integer `save_freq`) and any log key, with format specs:
            ``"ckpt/weights-{epoch:02d}-{val_loss:.2f}.h5"``. Missing directories are
            created.
        monitor: the log key that decides what is "best" (with `save_best_only`).
        verbose: 1 prints a line for every save or skipped save.
        save_best_only: save only when `monitor` improved on the best value so far.
        save_weights_only: call `model.save_weights` instead of `model.save`.
        mode: "min", "max", or "auto" (from the monitor's name).
        save_freq: "epoch", or an int: save every that many training batches.
        initial_value_threshold: with `save_best_only`, only values better than this save.

    Raises:
        ValueError: for a bad `save_freq` or `mode`, or a `filepath` whose ``{...}`` fields
            are not in the logs (the message lists the keys that are).
        MissingMonitorError: with `save_best_only`, if `monitor` is not in the logs.

    Examples:
        >>> import eagerflow as ef
        >>> callback = ef.callbacks.ModelCheckpoint("best.h5", save_best_only=True,
        ...                                         save_weights_only=True)
    """

    _chief_only = True  # under ef.distribute, only rank 0 runs it (it prints or writes)

    def __init__(self, filepath: str | os.PathLike[str], monitor: str = "val_loss",
                 verbose: int = 0, save_best_only: bool = False,
                 save_weights_only: bool = False, mode: str = "auto",
                 save_freq: int | str = "epoch",
                 initial_value_threshold: Any = None) -> None:
        super().__init__()
        if save_freq != "epoch" and (isinstance(save_freq, bool)
                                     or not isinstance(save_freq, (int, np.integer))
                                     or save_freq <= 0):
            raise ValueError(
                "ModelCheckpoint: save_freq must be 'epoch' or a positive int. "
                f"Received: save_freq={save_freq!r}"
            )
        monitoring.check_mode(mode, "ModelCheckpoint")
        filepath = os.fspath(filepath)
        if filepath.endswith(".keras"):  # refused now, not at the first save an epoch later
            raise ValueError(
                f"ModelCheckpoint({filepath!r}): the .keras format (Keras 3's zip of "
                "config.json and model.weights.h5) is not supported; eagerflow saves models "
                f"as one HDF5 file. Use a .h5 name, e.g. {filepath[:-6] + '.h5'!r}.")
        self.filepath = filepath
        self.monitor = monitor
        self.verbose = verbose
        self.save_best_only = save_best_only
        self.save_weights_only = save_weights_only
        self.mode = mode
        self.save_freq = save_freq
        self.initial_value_threshold = initial_value_threshold
        self.best: Any = None
        self._direction: Any = None
        self._current_epoch = 0
        self._batches_since_save = 0

    def on_train_begin(self, logs: dict[str, Any] | None = None) -> None:
        if self.save_best_only:
            self._direction = monitoring.resolve_mode(self.monitor, self.mode,
                                                      "ModelCheckpoint", self.model)
            if self.initial_value_threshold is not None:
                self.best = float(self.initial_value_threshold)
            else:
                self.best = np.inf if self._direction == "min" else -np.inf
        self._batches_since_save = 0

    def on_epoch_begin(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        self._current_epoch = epoch

    def on_train_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        if self.save_freq == "epoch":
            return
        self._batches_since_save += 1
        if self._batches_since_save >= self.save_freq:  # type: ignore[operator]  # (an int)
            self._batches_since_save = 0
            self._save(self._current_epoch, batch, logs)

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        if self.save_freq == "epoch":
            self._save(epoch, None, logs)

    def _file_path(self, epoch, batch, logs) -> str:
        fields = dict(logs or {})
        fields["epoch"] = epoch + 1
        if batch is not None:
            fields["batch"] = batch + 1
        try:
            return self.filepath.format(**fields)
        except KeyError as e:
            raise ValueError(
                f"ModelCheckpoint: filepath {self.filepath!r} uses {{{e.args[0]}}}, which is "
                f"not in the logs. Available keys: {', '.join(sorted(fields))}"
            ) from e
        except (ValueError, IndexError) as e:
            raise ValueError(
                f"ModelCheckpoint: cannot format filepath {self.filepath!r} with the logs "
                f"({e}). Use named fields such as {{epoch:02d}} or {{val_loss:.2f}}"
            ) from e

    def _save(self, epoch, batch, logs) -> None:
        path = self._file_path(epoch, batch, logs)
        if self.save_best_only:
            current = monitoring.get_value(logs, self.monitor, "ModelCheckpoint", self.params)
            if current is None:
                return
            if not monitoring.is_better(self._direction, current, self.best):
                if self.verbose > 0:
                    monitoring.print_msg(
                        f"Epoch {epoch + 1}: {self.monitor} did not improve from "
                        f"{self.best:.5f}"
                    )
                return
            if self.verbose > 0:
                monitoring.print_msg(
                    f"Epoch {epoch + 1}: {self.monitor} improved from {self.best:.5f} to "
                    f"{current:.5f}, saving model to {path}"
                )
            self.best = current
        elif self.verbose > 0:
            monitoring.print_msg(f"Epoch {epoch + 1}: saving model to {path}")
        directory = os.path.dirname(path)
        if directory:
            os.makedirs(directory, exist_ok=True)
        if self.save_weights_only:
            self.model.save_weights(path)
        else:
            self.model.save(path)
