"""`History`: the per-epoch record that `fit` returns.

Examples:
    >>> import eagerflow as ef
    >>> history = ef.callbacks.History()
    >>> history.on_train_begin()
    >>> history.on_epoch_end(0, {"loss": 0.9, "val_loss": 1.0})
    >>> history.on_epoch_end(1, {"loss": 0.5, "val_loss": 0.7})
    >>> history.history["loss"], history.epoch
    ([0.9, 0.5], [0, 1])
"""

from __future__ import annotations

from typing import Any

from eagerflow.callbacks import base


class History(base.Callback):
    """Records the logs of every epoch; `fit` returns it.

    Attributes:
        history: dict mapping each log key (``loss``, ``accuracy``, ``val_loss``, ...) to
            the list of its per-epoch values.
        epoch: the list of epoch indices recorded (counted from 0, starting at
            `initial_epoch`).
        params: the run's parameters (``verbose``, ``epochs``, ``steps``).
        model: the model that was trained.

    Examples:
        >>> import eagerflow as ef
        >>> h = ef.callbacks.History()
        >>> h.on_train_begin()
        >>> h.on_epoch_end(0, {"loss": 1.0})
        >>> h.history
        {'loss': [1.0]}
    """

    def __init__(self) -> None:
        super().__init__()
        self.history: dict[Any, Any] = {}
        self.epoch: list[Any] = []

    def on_train_begin(self, logs: dict[str, Any] | None = None) -> None:
        self.epoch = []

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        logs = logs or {}
        self.epoch.append(epoch)
        for key, value in logs.items():
            self.history.setdefault(key, []).append(value)
        if self.model is not None:
            # Keras sets this too, so `model.history` is the last run's History.
            self.model.history = self

    def __repr__(self) -> str:
        keys = ", ".join(self.history)
        return f"<ef.callbacks.History epochs={len(self.epoch)} keys=[{keys}]>"
