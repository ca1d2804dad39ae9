"""Callbacks that change the optimizer's learning rate: `LearningRateScheduler` (a function
of the epoch) and `ReduceLROnPlateau` (divide it when a metric stops improving).

Both need an optimizer whose learning rate is a value (a float or Variable). An optimizer
built on a `LearningRateSchedule` already decides its rate at every step, so changing it
here is an error rather than a silent replacement of the schedule. Both add the epoch's
``learning_rate`` to the logs, so `History` records it.

Examples:
    >>> import eagerflow as ef
    >>> class Optimizer:
    ...     learning_rate = ef.Variable(0.1)
    >>> class Model:
    ...     optimizer = Optimizer()
    >>> scheduler = ef.callbacks.LearningRateScheduler(lambda epoch, lr: lr * 0.5)
    >>> scheduler.set_model(Model())
    >>> scheduler.on_epoch_begin(0)
    >>> round(float(Model.optimizer.learning_rate), 4)
    0.05
"""

from __future__ import annotations

import inspect
import numbers
from typing import Any

import numpy as np

from eagerflow.callbacks import base
from eagerflow.callbacks import monitor as monitoring
from eagerflow.core import variable as variable_module


def _optimizer(model, owner: str):
    optimizer = getattr(model, "optimizer", None)
    if optimizer is None or not hasattr(optimizer, "learning_rate"):
        raise ValueError(
            f"{owner}: the model has no optimizer with a learning_rate; compile it first"
        )
    return optimizer


def get_learning_rate(model, owner: str) -> float:
    """The current learning rate of `model.optimizer` as a float.

    Examples:
        >>> import eagerflow as ef
        >>> from eagerflow.callbacks import learning_rate
        >>> model = ef.Sequential([ef.layers.Dense(1)])
        >>> model.compile(optimizer=ef.optim.SGD(0.5), loss="mse")
        >>> learning_rate.get_learning_rate(model, "demo")
        0.5
    """
    return float(np.asarray(_optimizer(model, owner).learning_rate))


def set_learning_rate(model, value: float, owner: str) -> None:
    """Sets `model.optimizer`'s learning rate, refusing to overwrite a schedule.

    Raises:
        TypeError: if the optimizer's rate comes from a schedule (as in Keras).
        ValueError: if there is no optimizer.

    Examples:
        >>> import eagerflow as ef
        >>> from eagerflow.callbacks import learning_rate
        >>> model = ef.Sequential([ef.layers.Dense(1)])
        >>> model.compile(optimizer=ef.optim.SGD(0.5), loss="mse")
        >>> learning_rate.set_learning_rate(model, 0.25, "demo")
        >>> float(model.optimizer.learning_rate)
        0.25
    """
    optimizer = _optimizer(model, owner)
    current = optimizer.learning_rate
    if isinstance(current, variable_module.Variable):
        current.assign(np.asarray(value, current.dtype))
    elif isinstance(current, numbers.Real):
        optimizer.learning_rate = float(value)
    else:  # a TypeError, as Keras's learning_rate setter raises for a schedule
        rate = optimizer.get_config().get("learning_rate")  # a schedule's is serialized
        kind = rate.get("class_name") if isinstance(rate, dict) else type(rate).__name__
        raise TypeError(
            f"{owner}: the optimizer's learning rate is computed by a schedule "
            f"({kind}), so this "
            "callback cannot set it. Give the optimizer a float learning rate, or use the "
            "schedule alone."
        )


def _positional_arity(fn) -> int:
    try:
        parameters = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return 2
    kinds = [p.kind for p in parameters]
    if inspect.Parameter.VAR_POSITIONAL in kinds:
        return 2
    return sum(kind in (inspect.Parameter.POSITIONAL_ONLY,
                        inspect.Parameter.POSITIONAL_OR_KEYWORD) for kind in kinds)


class LearningRateScheduler(base.Callback):
    """Sets the learning rate at the start of each epoch to ``schedule(epoch, lr)``.

    Args:
        schedule: a function of ``(epoch, current_lr)`` (or of ``epoch`` alone, the older
            form) returning the new learning rate as a float; epochs count from 0.
        verbose: 1 prints the rate at every change.

    Raises:
        TypeError: if `schedule` is not callable, or the optimizer uses a schedule.
        ValueError: if it returns something that is not a finite number.

    Examples:
        >>> import eagerflow as ef
        >>> def schedule(epoch, lr):
        ...     return lr if epoch < 10 else lr * 0.9
        >>> callback = ef.callbacks.LearningRateScheduler(schedule)
    """

    def __init__(self, schedule: Any, verbose: int = 0) -> None:
        super().__init__()
        if not callable(schedule):
            raise TypeError(
                f"LearningRateScheduler: schedule must be callable. Received: {schedule!r}"
            )
        self.schedule = schedule
        self.verbose = verbose
        self._takes_lr = _positional_arity(schedule) >= 2

    def on_epoch_begin(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        current = get_learning_rate(self.model, "LearningRateScheduler")
        new = self.schedule(epoch, current) if self._takes_lr else self.schedule(epoch)
        try:
            new = float(np.asarray(new))
        except (TypeError, ValueError) as e:
            raise ValueError(
                "LearningRateScheduler: the schedule must return a float. "
                f"Received: {new!r} at epoch {epoch}"
            ) from e
        if not np.isfinite(new):
            raise ValueError(
                f"LearningRateScheduler: the schedule returned {new} at epoch {epoch}"
            )
        set_learning_rate(self.model, new, "LearningRateScheduler")
        if self.verbose > 0:
            monitoring.print_msg(
                f"Epoch {epoch + 1}: LearningRateScheduler setting learning rate to {new}."
            )

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        if logs is not None:
            logs["learning_rate"] = get_learning_rate(self.model, "LearningRateScheduler")


class ReduceLROnPlateau(base.Callback):
    """Multiplies the learning rate by `factor` when `monitor` stalls for `patience` epochs.

    Args:
        monitor: the log key to watch.
        factor: multiplier of the rate, in (0, 1).
        patience: epochs without improvement before reducing.
        verbose: 1 prints each reduction.
        mode: "min", "max", or "auto" (from the metric's name).
        min_delta: smallest change that counts as an improvement.
        cooldown: epochs to wait after a reduction before counting again.
        min_lr: the rate never goes below this.

    Raises:
        ValueError: for a factor outside (0, 1), a negative patience or cooldown, or a bad
            mode; at an epoch end if the optimizer uses a schedule.
        MissingMonitorError: (at an epoch end) if `monitor` is not in the logs.

    Examples:
        >>> import eagerflow as ef
        >>> callback = ef.callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.2,
        ...                                           patience=5, min_lr=0.001)
    """

    def __init__(self, monitor: str = "val_loss", factor: float = 0.1, patience: int = 10,
                 verbose: int = 0, mode: str = "auto", min_delta: float = 1e-4,
                 cooldown: int = 0, min_lr: float = 0.0) -> None:
        super().__init__()
        if not 0.0 < factor < 1.0:
            raise ValueError(
                f"ReduceLROnPlateau: factor must be in (0, 1). Received: factor={factor!r}"
            )
        for name, value in (("patience", patience), ("cooldown", cooldown)):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
                raise ValueError(
                    f"ReduceLROnPlateau: {name} must be a non-negative int. "
                    f"Received: {name}={value!r}"
                )
        monitoring.check_mode(mode, "ReduceLROnPlateau")
        self.monitor = monitor
        self.factor = float(factor)
        self.patience = int(patience)
        self.verbose = verbose
        self.mode = mode
        self.min_delta = float(min_delta)
        self.cooldown = int(cooldown)
        self.min_lr = float(min_lr)
        self._reset()

    def _reset(self) -> None:
        self.wait = 0
        self.cooldown_counter = 0
        self.best: Any = None
        self._direction: Any = None

    def on_train_begin(self, logs: dict[str, Any] | None = None) -> None:
        self._reset()
        self._direction = monitoring.resolve_mode(self.monitor, self.mode,
                                                  "ReduceLROnPlateau", self.model)
        self.best = np.inf if self._direction == "min" else -np.inf

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        logs = logs if logs is not None else {}
        current = monitoring.get_value(logs, self.monitor, "ReduceLROnPlateau", self.params)
        rate = get_learning_rate(self.model, "ReduceLROnPlateau")
        logs["learning_rate"] = rate
        if current is None:
            return
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            self.wait = 0
        if monitoring.is_better(self._direction, current, self.best, self.min_delta):
            self.best = current
            self.wait = 0
            return
        if self.cooldown_counter > 0:
            return
        self.wait += 1
        if self.wait < self.patience:
            return
        # Compare in float32, the optimizer's precision, so a rate stored as min_lr stops.
        if np.float32(rate) > np.float32(self.min_lr):
            new = max(rate * self.factor, self.min_lr)
            set_learning_rate(self.model, new, "ReduceLROnPlateau")
            if self.verbose > 0:
                monitoring.print_msg(
                    f"Epoch {epoch + 1}: ReduceLROnPlateau reducing learning rate to {new}."
                )
            self.cooldown_counter = self.cooldown
            self.wait = 0
