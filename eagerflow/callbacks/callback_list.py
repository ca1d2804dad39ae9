"""`CallbackList`: fans each event of `fit`, `evaluate` and `predict` out to a list of
callbacks, adding the `History` and the progress bar they need."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from eagerflow.callbacks import base, history, progbar


class CallbackList(base.Callback):
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

    Examples:
        >>> import eagerflow as ef
        >>> callbacks = ef.callbacks.CallbackList(add_history=True, epochs=1, steps=1)
        >>> callbacks.on_train_begin()
        >>> callbacks.on_epoch_end(0, {"loss": 0.25})
        >>> callbacks.history.history
        {'loss': [0.25]}
    """

    def __init__(self, callbacks: Any = None, add_history: bool = False, add_progbar: bool = False,
                 model: Any = None, **params: Any) -> None:
        super().__init__()
        self.callbacks: list[Any] = []
        if isinstance(callbacks, base.Callback):  # one callback given without a list
            callbacks = [callbacks]
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

    def append(self, callback: Callable[..., Any]) -> None:
        """Adds a callback at the end of the list."""
        if not isinstance(callback, base.Callback):
            raise TypeError(
                "callbacks must be instances of ef.callbacks.Callback. "
                f"Received: {callback!r} of type {type(callback).__name__}"
            )
        self.callbacks.append(callback)
        self._refresh_batch_hooks()

    def _refresh_batch_hooks(self) -> None:
        self._batch_hooks = {hook: [c for c in self.callbacks if base.overrides(c, hook)]
                             for hook in base.BATCH_HOOKS}

    def wants_batch_logs(self, mode: str = "train") -> bool:
        """Whether any callback overrides a batch hook of `mode` ("train"/"test"/"predict")."""
        return bool(self._batch_hooks[f"on_{mode}_batch_begin"]
                    or self._batch_hooks[f"on_{mode}_batch_end"])

    def set_params(self, params: dict) -> None:
        self.params = params
        for callback in self.callbacks:
            callback.set_params(params)

    def set_model(self, model: Any) -> None:
        super().set_model(model)
        for callback in self.callbacks:
            callback.set_model(model)

    def _call(self, hook: str, *args) -> None:
        for callback in self.callbacks:
            getattr(callback, hook)(*args)

    def _call_batch(self, hook: str, batch, logs) -> None:
        logs = logs if logs is not None else {}  # as Keras: callbacks always get a dict
        for callback in self._batch_hooks[hook]:
            getattr(callback, hook)(batch, logs)

    def on_batch_begin(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        self._call_batch("on_train_batch_begin", batch, logs)

    def on_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        self._call_batch("on_train_batch_end", batch, logs)

    def on_epoch_begin(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        self._call("on_epoch_begin", epoch, logs if logs is not None else {})

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        self._call("on_epoch_end", epoch, logs if logs is not None else {})

    def on_train_batch_begin(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        self._call_batch("on_train_batch_begin", batch, logs)

    def on_train_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        self._call_batch("on_train_batch_end", batch, logs)

    def on_test_batch_begin(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        self._call_batch("on_test_batch_begin", batch, logs)

    def on_test_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        self._call_batch("on_test_batch_end", batch, logs)

    def on_predict_batch_begin(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        self._call_batch("on_predict_batch_begin", batch, logs)

    def on_predict_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        self._call_batch("on_predict_batch_end", batch, logs)

    def on_train_begin(self, logs: dict[str, Any] | None = None) -> None:
        self._call("on_train_begin", logs if logs is not None else {})

    def on_train_end(self, logs: dict[str, Any] | None = None) -> None:
        self._call("on_train_end", logs if logs is not None else {})

    def on_test_begin(self, logs: dict[str, Any] | None = None) -> None:
        self._call("on_test_begin", logs if logs is not None else {})

    def on_test_end(self, logs: dict[str, Any] | None = None) -> None:
        self._call("on_test_end", logs if logs is not None else {})

    def on_predict_begin(self, logs: dict[str, Any] | None = None) -> None:
        self._call("on_predict_begin", logs if logs is not None else {})

    def on_predict_end(self, logs: dict[str, Any] | None = None) -> None:
        self._call("on_predict_end", logs if logs is not None else {})

    def __iter__(self):
        return iter(self.callbacks)

    def __len__(self) -> int:
        return len(self.callbacks)
