"""`Callback`, the base of everything `fit`/`evaluate`/`predict` call back into, and
`CallbackList`, which fans each event out to a list of them.

A callback overrides any of the no-op `on_*` hooks. Each hook gets a `logs` dict of
Python floats: at batch end the running (epoch-mean) values of the loss and metrics so far, at
epoch end the epoch's values plus the ``val_`` ones. `self.model` is the model being
trained (set by `fit`), `self.params` holds ``verbose``, ``epochs`` and ``steps``. Setting
``self.model.stop_training = True`` ends training after the current batch.

Example:
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

__all__ = ["Callback", "CallbackList"]

_BATCH_HOOKS = (
    "on_train_batch_begin", "on_train_batch_end",
    "on_test_batch_begin", "on_test_batch_end",
    "on_predict_batch_begin", "on_predict_batch_end",
)


class Callback:
    """Base class of callbacks: override the hooks you need.

    Attributes:
        model: the model `fit`/`evaluate`/`predict` runs (set through `set_model`).
        params: dict with ``verbose``, ``epochs`` and ``steps`` (set through `set_params`).

    Example:
        >>> import eagerflow as ef
        >>> class PrintLoss(ef.callbacks.Callback):
        ...     def on_epoch_end(self, epoch, logs=None):
        ...         print(f"epoch {epoch}: loss {logs['loss']:.2f}")
        >>> PrintLoss().on_epoch_end(0, {"loss": 0.5})
        epoch 0: loss 0.50
    """

    def __init__(self):
        self.params = {}
        self._model = None

    def set_params(self, params: dict) -> None:
        """Receives the run's parameters (``verbose``, ``epochs``, ``steps``)."""
        self.params = params

    def set_model(self, model) -> None:
        """Receives the model this callback serves."""
        self._model = model

    @property
    def model(self):
        """The model being trained, evaluated or run."""
        return self._model

    # Keras kept `on_batch_*` as the older names of the train-batch hooks: overriding either
    # works, because the train-batch hooks call them by default.
    def on_batch_begin(self, batch, logs=None):
        """Called at the start of a training batch (alias of `on_train_batch_begin`)."""

    def on_batch_end(self, batch, logs=None):
        """Called at the end of a training batch (alias of `on_train_batch_end`)."""

    def on_epoch_begin(self, epoch, logs=None):
        """Called at the start of epoch `epoch` (counted from 0)."""

    def on_epoch_end(self, epoch, logs=None):
        """Called at the end of an epoch with its training and validation logs."""

    def on_train_batch_begin(self, batch, logs=None):
        """Called at the start of training batch `batch` (counted from 0 in each epoch)."""
        self.on_batch_begin(batch, logs=logs)

    def on_train_batch_end(self, batch, logs=None):
        """Called at the end of a training batch with the running epoch means."""
        self.on_batch_end(batch, logs=logs)

    def on_test_batch_begin(self, batch, logs=None):
        """Called at the start of an evaluation batch (in `evaluate` and validation)."""

    def on_test_batch_end(self, batch, logs=None):
        """Called at the end of an evaluation batch with the running means."""

    def on_predict_batch_begin(self, batch, logs=None):
        """Called at the start of a `predict` batch."""

    def on_predict_batch_end(self, batch, logs=None):
        """Called at the end of a `predict` batch (``logs["outputs"]`` holds its output)."""

    def on_train_begin(self, logs=None):
        """Called once at the start of `fit`."""

    def on_train_end(self, logs=None):
        """Called once at the end of `fit` (also when it stops early)."""

    def on_test_begin(self, logs=None):
        """Called at the start of `evaluate` and of each validation pass."""

    def on_test_end(self, logs=None):
        """Called at the end of `evaluate` and of each validation pass."""

    def on_predict_begin(self, logs=None):
        """Called at the start of `predict`."""

    def on_predict_end(self, logs=None):
        """Called at the end of `predict`."""


def _overrides(callback, hook: str) -> bool:
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


class CallbackList(Callback):
    """Calls every hook on a list of callbacks, in order.

    `fit`, `evaluate` and `predict` build one of these; a custom training loop can too.
    Batch hooks are only called on the callbacks that override them, so an unused hook costs
    nothing per batch.

    Args:
        callbacks: a list of `Callback` objects (or None).
        add_history: append a `History` if the list has none.
        add_progbar: append a `ProgbarLogger` if the list has none (it prints according
            to ``params["verbose"]``).
        model: the model to hand to every callback.
        **params: the run's parameters (``verbose``, ``epochs``, ``steps``).

    Raises:
        TypeError: if an element is not a `Callback`.

    Example:
        >>> import eagerflow as ef
        >>> callbacks = ef.callbacks.CallbackList(add_history=True, epochs=1, steps=1)
        >>> callbacks.on_train_begin()
        >>> callbacks.on_epoch_end(0, {"loss": 0.25})
        >>> callbacks.history.history
        {'loss': [0.25]}
    """

    def __init__(self, callbacks=None, add_history=False, add_progbar=False, model=None,
                 **params):
        super().__init__()
        from eagerflow.callbacks import history, progbar

        self.callbacks = []
        for callback in list(callbacks or []):
            self.append(callback)
        self.history = next((c for c in self.callbacks if isinstance(c, history.History)), None)
        if add_history and self.history is None:
            self.history = history.History()
            self.callbacks.append(self.history)
        if add_progbar and not any(isinstance(c, progbar.ProgbarLogger)
                                   for c in self.callbacks):
            self.callbacks.append(progbar.ProgbarLogger())
        self._refresh_batch_hooks()
        if model is not None:
            self.set_model(model)
        if params:
            self.set_params(params)

    def append(self, callback) -> None:
        """Adds a callback at the end of the list."""
        if not isinstance(callback, Callback):
            raise TypeError(
                "callbacks must be instances of ef.callbacks.Callback. "
                f"Received: {callback!r} of type {type(callback).__name__}"
            )
        self.callbacks.append(callback)
        self._refresh_batch_hooks()

    def _refresh_batch_hooks(self) -> None:
        self._batch_hooks = {hook: [c for c in self.callbacks if _overrides(c, hook)]
                             for hook in _BATCH_HOOKS}

    def wants_batch_logs(self, mode: str = "train") -> bool:
        """Whether any callback overrides a batch hook of `mode` ("train"/"test"/"predict")."""
        return bool(self._batch_hooks[f"on_{mode}_batch_begin"]
                    or self._batch_hooks[f"on_{mode}_batch_end"])

    def set_params(self, params: dict) -> None:
        self.params = params
        for callback in self.callbacks:
            callback.set_params(params)

    def set_model(self, model) -> None:
        super().set_model(model)
        for callback in self.callbacks:
            callback.set_model(model)

    def _call(self, hook: str, *args) -> None:
        for callback in self.callbacks:
            getattr(callback, hook)(*args)

    def _call_batch(self, hook: str, batch, logs) -> None:
        for callback in self._batch_hooks[hook]:
            getattr(callback, hook)(batch, logs)

    def on_batch_begin(self, batch, logs=None):
        self._call_batch("on_train_batch_begin", batch, logs)

    def on_batch_end(self, batch, logs=None):
        self._call_batch("on_train_batch_end", batch, logs)

    def on_epoch_begin(self, epoch, logs=None):
        self._call("on_epoch_begin", epoch, logs if logs is not None else {})

    def on_epoch_end(self, epoch, logs=None):
        self._call("on_epoch_end", epoch, logs if logs is not None else {})

    def on_train_batch_begin(self, batch, logs=None):
        self._call_batch("on_train_batch_begin", batch, logs)

    def on_train_batch_end(self, batch, logs=None):
        self._call_batch("on_train_batch_end", batch, logs)

    def on_test_batch_begin(self, batch, logs=None):
        self._call_batch("on_test_batch_begin", batch, logs)

    def on_test_batch_end(self, batch, logs=None):
        self._call_batch("on_test_batch_end", batch, logs)

    def on_predict_batch_begin(self, batch, logs=None):
        self._call_batch("on_predict_batch_begin", batch, logs)

    def on_predict_batch_end(self, batch, logs=None):
        self._call_batch("on_predict_batch_end", batch, logs)

    def on_train_begin(self, logs=None):
        self._call("on_train_begin", logs)

    def on_train_end(self, logs=None):
        self._call("on_train_end", logs)

    def on_test_begin(self, logs=None):
        self._call("on_test_begin", logs)

    def on_test_end(self, logs=None):
        self._call("on_test_end", logs)

    def on_predict_begin(self, logs=None):
        self._call("on_predict_begin", logs)

    def on_predict_end(self, logs=None):
        self._call("on_predict_end", logs)

    def __iter__(self):
        return iter(self.callbacks)

    def __len__(self) -> int:
        return len(self.callbacks)
