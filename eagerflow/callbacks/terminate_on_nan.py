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

    Examples:
        >>> import eagerflow as ef
        >>> callback = ef.callbacks.TerminateOnNaN()
    """

    def on_train_batch_end(self, batch: int, logs: dict[str, Any] | None = None) -> None:
        loss = (logs or {}).get("loss")
        if loss is not None and not math.isfinite(float(loss)):
            monitoring.print_msg(f"Batch {batch}: invalid loss {float(loss)}, "
                                 "terminating training")
            self.model.stop_training = True
