"""`Callback`, the base of everything `fit`/`evaluate`/`predict` call back into
(`callback_list.py` fans each event out to a list of them).

A callback overrides any of the no-op `on_*` hooks. Each hook gets a `logs` dict of
Python floats: at batch end the running (epoch-mean) values of the loss and metrics so far, at
epoch end the epoch's values plus the ``val_`` ones. `self.model` is the model being
trained (set by `fit`), `self.params` holds ``verbose``, ``epochs`` and ``steps``. Setting
``self.model.stop_training = True`` ends training after the current batch.

Examples:
    >>> import eagerflow as ef
    >>> class CountBatches(ef.callbacks.Callback):
    ...     def on_train_begin(self, logs=None):
    ...         self.batches = 0
    ...     def on_train_batch_end(self, batch, logs=None):
    ...         self.batches += 1
    >>> counter = CountBatches()
    >>> callbacks = ef.callbacks.CallbackList([counter])
    >>> callbacks.on_train_begin()
    >>> for batch in range(3):
    ...     callbacks.on_train_batch_end(batch, {"loss": 1.0})
    >>> counter.batches
    3
"""

from __future__ import annotations

from typing import Any

BATCH_HOOKS = (
    "on_train_batch_begin", "on_train_batch_end",
    "on_test_batch_begin", "on_test_batch_end",
    "on_predict_batch_begin", "on_predict_batch_end",
)


class Callback:
    """Base class of callbacks: override the hooks you need.

    Attributes:
        model: the model `fit`/`evaluate`/`predict` runs (set through `set_model`).
        params: dict with ``verbose``, ``epochs`` and ``steps`` (set through `set_params`).

    Examples:
        >>> import eagerflow as ef
        >>> class PrintLoss(ef.callbacks.Callback):
        ...     def on_epoch_end(self, epoch, logs=None):
        ...         print(f"epoch {epoch}: loss {logs['loss']:.2f}")
        >>> PrintLoss().on_epoch_end(0, {"loss": 0.5})
        epoch 0: loss 0.50
    """

    # Under a distribution strategy of several replicas, whether only the chief runs this
    # callback (those that print or write files say so); see `replica_callbacks`.
    _chief_only = False

    def __init__(self) -> None:
        self.params: dict[Any, Any] = {}
        self._model = None

    def set_params(self, params: dict) -> None:
        """Receives the run's parameters (``verbose``, ``epochs``, ``steps``)."""
        self.params = params

    def set_model(self, model: Any) -> None:
        """Receives the model this callback serves."""
        self._model = model

    @property
    def model(self) -> Any:
        """The model being trained, evaluated or run."""
        return self._model

    # Keras kept `on_batch_*` as the older names of the train-batch hooks: overriding either
    # works, because the train-batch hooks call them by default.
    def on_batch_begin(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        """Called at the start of a training batch (alias of `on_train_batch_begin`)."""

    def on_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        """Called at the end of a training batch (alias of `on_train_batch_end`)."""

    def on_epoch_begin(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        """Called at the start of epoch `epoch` (counted from 0)."""

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        """Called at the end of an epoch with its training and validation logs."""

    def on_train_batch_begin(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        """Called at the start of training batch `batch` (counted from 0 in each epoch)."""
        self.on_batch_begin(batch, logs=logs)

    def on_train_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        """Called at the end of a training batch with the running epoch means."""
        self.on_batch_end(batch, logs=logs)

    def on_test_batch_begin(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        """Called at the start of an evaluation batch (in `evaluate` and validation)."""

    def on_test_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        """Called at the end of an evaluation batch with the running means."""

    def on_predict_batch_begin(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        """Called at the start of a `predict` batch."""

    def on_predict_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        """Called at the end of a `predict` batch (``logs["outputs"]`` holds its output)."""

    def on_train_begin(self, logs: dict[str, Any] | None = None) -> None:
        """Called once at the start of `fit`."""

    def on_train_end(self, logs: dict[str, Any] | None = None) -> None:
        """Called once at the end of `fit` (also when it stops early)."""

    def on_test_begin(self, logs: dict[str, Any] | None = None) -> None:
        """Called at the start of `evaluate` and of each validation pass."""

    def on_test_end(self, logs: dict[str, Any] | None = None) -> None:
        """Called at the end of `evaluate` and of each validation pass."""

    def on_predict_begin(self, logs: dict[str, Any] | None = None) -> None:
        """Called at the start of `predict`."""

    def on_predict_end(self, logs: dict[str, Any] | None = None) -> None:
        """Called at the end of `predict`."""


def overrides(callback, hook: str) -> bool:
    """Whether `callback` does anything in `hook` (the base class's hooks are no-ops)."""

    def custom(name):
        method = getattr(callback, name)
        # A subclass method, or a function set on the instance (LambdaCallback).
        return getattr(method, "__func__", None) is not getattr(Callback, name)

    if custom(hook):
        return True
    alias = {"on_train_batch_begin": "on_batch_begin",
             "on_train_batch_end": "on_batch_end"}.get(hook)
    return alias is not None and custom(alias)


def replica_callbacks(callbacks, is_chief: bool):
    """The callbacks a replica of a distribution strategy runs: all of `callbacks` on the
    chief (`is_chief`); on another replica, those that do not print or write files (a
    `CallbackList` or anything but a list/tuple is returned as it is).

    Examples:
        >>> import eagerflow as ef
        >>> from eagerflow.callbacks import base
        >>> kept = base.replica_callbacks([ef.callbacks.CSVLogger("log.csv"),
        ...                                ef.callbacks.History()], is_chief=False)
        >>> [type(c).__name__ for c in kept]
        ['History']
    """
    if is_chief or not isinstance(callbacks, (list, tuple)):
        return callbacks
    # (getattr: a non-Callback in the list reaches CallbackList, whose error names it)
    return [c for c in callbacks if not getattr(c, "_chief_only", False)]
