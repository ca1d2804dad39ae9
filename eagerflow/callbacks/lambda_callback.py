"""`LambdaCallback`: a callback made of plain functions, for one-off hooks.

Examples:
    >>> import eagerflow as ef
    >>> seen = []
    >>> callback = ef.callbacks.LambdaCallback(
    ...     on_epoch_end=lambda epoch, logs: seen.append((epoch, logs["loss"])))
    >>> callback.on_epoch_end(0, {"loss": 0.5})
    >>> seen
    [(0, 0.5)]
"""

from __future__ import annotations

from typing import Any

from eagerflow.callbacks import base

_EPOCH_OR_BATCH_HOOKS = (
    "on_epoch_begin", "on_epoch_end", "on_batch_begin", "on_batch_end",
    "on_train_batch_begin", "on_train_batch_end", "on_test_batch_begin",
    "on_test_batch_end", "on_predict_batch_begin", "on_predict_batch_end",
)
_RUN_HOOKS = (
    "on_train_begin", "on_train_end", "on_test_begin", "on_test_end",
    "on_predict_begin", "on_predict_end",
)


class LambdaCallback(base.Callback):
    """Runs the given functions at the matching hooks.

    Epoch and batch hooks are called as ``fn(epoch_or_batch, logs)``; the begin/end hooks
    of a whole run as ``fn(logs)``.

    Args:
        on_epoch_begin, on_epoch_end: functions for those hooks.
        on_train_begin, on_train_end: functions for those hooks.
        on_train_batch_begin, on_train_batch_end: functions for those hooks.
        **kwargs: functions for any other hook (``on_test_begin``, ``on_predict_batch_end``,
            ``on_batch_end``, ...).

    Raises:
        TypeError: for a keyword that is not a hook name, or a value that is not callable.

    Examples:
        >>> import eagerflow as ef
        >>> callback = ef.callbacks.LambdaCallback(on_train_end=lambda logs: print("done"))
        >>> callback.on_train_end()
        done
    """

    def __init__(self, on_epoch_begin: Any = None, on_epoch_end: Any = None,
                 on_train_begin: Any = None, on_train_end: Any = None,
                 on_train_batch_begin: Any = None, on_train_batch_end: Any = None,
                 **kwargs: Any) -> None:
        super().__init__()
        hooks = dict(on_epoch_begin=on_epoch_begin, on_epoch_end=on_epoch_end,
                     on_train_begin=on_train_begin, on_train_end=on_train_end,
                     on_train_batch_begin=on_train_batch_begin,
                     on_train_batch_end=on_train_batch_end, **kwargs)
        for name, fn in hooks.items():
            if fn is None:
                continue
            if name not in _EPOCH_OR_BATCH_HOOKS + _RUN_HOOKS:
                raise TypeError(
                    f"LambdaCallback: unknown hook {name!r}. Hooks: "
                    f"{', '.join(_EPOCH_OR_BATCH_HOOKS + _RUN_HOOKS)}"
                )
            if not callable(fn):
                raise TypeError(f"LambdaCallback: {name} must be callable. Received: {fn!r}")
            # Instance attributes shadow the class's no-op hooks.
            if name in _EPOCH_OR_BATCH_HOOKS:
                setattr(self, name, lambda index, logs=None, fn=fn: fn(index, logs))
            else:
                setattr(self, name, lambda logs=None, fn=fn: fn(logs))
