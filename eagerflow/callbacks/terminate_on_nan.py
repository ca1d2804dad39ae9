"""`TerminateOnNaN`: stop training at the first batch whose loss is NaN or infinite.

Examples:
    >>> import eagerflow as ef
    >>> class Model:
    ...     stop_training = False
    >>> callback = ef.callbacks.TerminateOnNaN()
    >>> callback.set_model(Model())
    >>> callback.on_train_batch_end(7, {"loss": float("nan")})  # doctest: +ELLIPSIS
    Batch 7: invalid loss nan, terminating training
    >>> callback.model.stop_training
    True
"""

from __future__ import annotations

import math
from typing import Any

from eagerflow.callbacks import base
from eagerflow.callbacks import monitor as monitoring


class TerminateOnNaN(base.Callback):
    """Sets ``model.stop_training`` as soon as a batch's loss is NaN or infinite.

    Training stops after that batch; the epoch's logs and `History` still record it. Without
    this callback, `fit` keeps going and warns once.

    Args:
        raise_error: raise a `RuntimeError` at that batch instead (Keras 3): `fit` stops at
            once and no callback's ``on_train_end`` runs, so e.g. a backup is kept as it was.

    Raises:
        RuntimeError: with ``raise_error=True``, at the first NaN or infinite loss.

    Examples:
        >>> import eagerflow as ef
        >>> callback = ef.callbacks.TerminateOnNaN()
        >>> ef.callbacks.TerminateOnNaN(raise_error=True).on_train_batch_end(2, {"loss": 1.0})
    """

    def __init__(self, raise_error: bool = False) -> None:
        super().__init__()
        self.raise_error = bool(raise_error)

    def on_train_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        loss = (logs or {}).get("loss")
        if loss is not None and not math.isfinite(float(loss)):
            if self.raise_error:
                raise RuntimeError(f"NaN or Inf loss encountered at batch {batch}. Loss value: "
                                   f"{float(loss)}. Terminating training immediately.")
            monitoring.print_msg(f"Batch {batch}: invalid loss {float(loss)}, "
                                 "terminating training")
            self.model.stop_training = True
