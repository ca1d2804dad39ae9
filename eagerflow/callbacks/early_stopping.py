"""`EarlyStopping`: stop training when a monitored metric stops improving.

With ``restore_best_weights=True`` the model ends training with the weights of its best
epoch, whether or not training stopped early (Keras only restored when it stopped early
until 2023, keras-team/keras#12511).

Examples:
    >>> import eagerflow as ef
    >>> stop = ef.callbacks.EarlyStopping(monitor="loss", patience=1)
    >>> class Model:  # any object with stop_training and weights works
    ...     stop_training = False
    ...     weights = []
    >>> stop.set_model(Model())
    >>> stop.on_train_begin()
    >>> for epoch, loss in enumerate([1.0, 0.5, 0.6]):
    ...     stop.on_epoch_end(epoch, {"loss": loss})
    >>> stop.model.stop_training, stop.stopped_epoch, stop.best
    (True, 2, 0.5)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from eagerflow.callbacks import base
from eagerflow.callbacks import monitor as monitoring


def snapshot_weights(model) -> list:
    """Copies of the values of every variable of `model`, in `model.weights` order.

    Examples:
        >>> import eagerflow as ef
        >>> from eagerflow.callbacks import early_stopping
        >>> model = ef.Sequential([ef.layers.Dense(1, input_shape=(2,))])
        >>> [w.shape for w in early_stopping.snapshot_weights(model)]
        [(2, 1), (1,)]
    """
    return [np.array(variable.numpy(), copy=True) for variable in model.weights]


def restore_weights(model, values: list) -> None:
    """Assigns `values` (from `snapshot_weights`) back to `model.weights`.

    Examples:
        >>> import eagerflow as ef
        >>> from eagerflow.callbacks import early_stopping
        >>> model = ef.Sequential([ef.layers.Dense(1, input_shape=(2,))])
        >>> saved = early_stopping.snapshot_weights(model)
        >>> _ = model.weights[0].assign([[5.0], [5.0]])
        >>> early_stopping.restore_weights(model, saved)
        >>> bool((model.weights[0].numpy() == saved[0]).all())
        True
    """
    for variable, value in zip(model.weights, values, strict=True):
        variable.assign(value)


class EarlyStopping(base.Callback):
    """Stops `fit` when `monitor` has not improved for `patience` epochs.

    Args:
        monitor: the log key to watch (``"val_loss"`` by default).
        min_delta: smallest change that counts as an improvement.
        patience: epochs without improvement before stopping.
        verbose: 1 prints when it stops and when it restores weights.
        mode: "min", "max", or "auto" (from the metric's name).
        baseline: training stops unless the metric beats this within `patience` epochs.
        restore_best_weights: at the end of training, set the weights of the best epoch
            (also when training did not stop early).
        start_from_epoch: epochs to wait before monitoring starts (warm-up).

    Raises:
        ValueError: for a negative patience, min_delta or start_from_epoch, or a bad mode.
        MissingMonitorError: (at an epoch end) if `monitor` is not in the logs; the message
            lists the keys that are.

    Attributes:
        stopped_epoch: the epoch training stopped at (0 if it did not stop early).
        best: the best monitored value; best_epoch: its epoch.

    Examples:
        >>> import eagerflow as ef
        >>> callback = ef.callbacks.EarlyStopping(monitor="val_loss", patience=3)
    """

    def __init__(self, monitor: str = "val_loss", min_delta: float = 0, patience: int = 0,
                 verbose: int = 0, mode: str = "auto", baseline: Any = None,
                 restore_best_weights: bool = False, start_from_epoch: int = 0) -> None:
        super().__init__()
        for name, value in (("patience", patience), ("start_from_epoch", start_from_epoch)):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
                raise ValueError(
                    f"EarlyStopping: {name} must be a non-negative int. "
                    f"Received: {name}={value!r}"
                )
        if not min_delta >= 0:
            raise ValueError(f"EarlyStopping: min_delta must be >= 0. Received: {min_delta!r}")
        self.monitor = monitor
        self.min_delta = float(min_delta)
        self.patience = int(patience)
        self.verbose = verbose
        self.mode = mode
        monitoring.check_mode(mode, "EarlyStopping")
        self.baseline = None if baseline is None else float(baseline)
        self.restore_best_weights = restore_best_weights
        self.start_from_epoch = int(start_from_epoch)
        self._direction: Any = None
        self._reset()

    def _reset(self) -> None:
        self.wait = 0
        self.stopped_epoch = 0
        self.best: Any = None
        self.best_epoch = 0
        self.best_weights: list[Any] | None = None

    def on_train_begin(self, logs: dict[str, Any] | None = None) -> None:
        self._reset()
        self._direction = monitoring.resolve_mode(self.monitor, self.mode, "EarlyStopping",
                                                  self.model)
        self.best = np.inf if self._direction == "min" else -np.inf

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        current = monitoring.get_value(logs, self.monitor, "EarlyStopping", self.params)
        if current is None or epoch < self.start_from_epoch:
            return
        if self.restore_best_weights and self.best_weights is None:
            # Start from the first monitored epoch's weights, so there is always a best.
            self.best_weights = snapshot_weights(self.model)
        self.wait += 1
        if monitoring.is_better(self._direction, current, self.best, self.min_delta):
            self.best = current
            self.best_epoch = epoch
            if self.restore_best_weights:
                self.best_weights = snapshot_weights(self.model)
            if self.baseline is None or monitoring.is_better(
                    self._direction, current, self.baseline, self.min_delta):
                self.wait = 0
            return
        if self.wait >= self.patience and epoch > 0:
            self.stopped_epoch = epoch
            self.model.stop_training = True

    def on_train_end(self, logs: dict[str, Any] | None = None) -> None:
        if self.stopped_epoch > 0 and self.verbose > 0:
            monitoring.print_msg(f"Epoch {self.stopped_epoch + 1}: early stopping")
        if self.restore_best_weights and self.best_weights is not None:
            if self.verbose > 0:
                monitoring.print_msg(
                    "Restoring model weights from the end of the best epoch: "
                    f"{self.best_epoch + 1}."
                )
            restore_weights(self.model, self.best_weights)

    def get_monitor_value(self, logs: dict[str, Any] | None) -> Any:
        """The monitored value in `logs` (raises if it is missing)."""
        return monitoring.get_value(logs, self.monitor, "EarlyStopping", self.params)
