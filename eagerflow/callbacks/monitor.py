"""What the monitoring callbacks share: reading the monitored value, and which way is better.

A monitored key missing from the logs is an error listing the keys that are there (Keras
only warns, and then e.g. saves every epoch or never stops). The one exception is a ``val_``
key on an epoch without validation (``validation_freq > 1``): that epoch is skipped.

Examples:
    >>> from eagerflow.callbacks import monitor
    >>> monitor.resolve_mode("val_accuracy", "auto", "EarlyStopping")
    'max'
    >>> monitor.get_value({"loss": 0.5}, "loss", "EarlyStopping")
    0.5
"""

from __future__ import annotations

import sys


class MissingMonitorError(KeyError):
    """A callback monitors a key that the logs do not contain."""

    def __str__(self) -> str:  # KeyError would show the message in quotes
        return str(self.args[0])


# Metric names (after the "val_" prefix) where larger is better; everything with "loss" or
# "error" in it is smaller-is-better.
_MAX_NAMES = ("acc", "accuracy", "auc", "precision", "recall", "f1", "fbeta", "iou",
              "r2", "top_k")
_MIN_NAMES = ("loss", "error", "mse", "mae", "mape", "msle", "hinge", "crossentropy",
              "divergence")


def check_mode(mode, owner: str) -> None:
    """Raises ValueError unless `mode` is "auto", "min" or "max".

    Examples:
        >>> from eagerflow.callbacks import monitor
        >>> monitor.check_mode("min", "EarlyStopping")
    """
    if mode not in ("auto", "min", "max"):
        raise ValueError(f"{owner}: mode must be 'auto', 'min' or 'max'. Received: mode={mode!r}")


def resolve_mode(monitor: str, mode: str, owner: str, model=None) -> str:
    """Returns "min" or "max" for `monitor` given `mode` ("auto", "min" or "max").

    "auto" looks at the metric's name, then at a ``_direction`` ("up"/"down") attribute of
    a model metric of that name.

    Raises:
        ValueError: for an unknown mode, or "auto" on a name whose direction is unknown.

    Examples:
        >>> from eagerflow.callbacks import monitor
        >>> monitor.resolve_mode("val_loss", "auto", "EarlyStopping")
        'min'
    """
    check_mode(mode, owner)
    if mode in ("min", "max"):
        return mode
    name = monitor[4:] if monitor.startswith("val_") else monitor
    lowered = name.lower()
    if any(part in lowered for part in _MIN_NAMES):
        return "min"
    if any(lowered == part or lowered.endswith("_" + part) or lowered.startswith(part)
           for part in _MAX_NAMES):
        return "max"
    for metric in getattr(model, "metrics", None) or []:
        direction = getattr(metric, "_direction", None)
        if getattr(metric, "name", None) == name and direction in ("up", "down"):
            return "max" if direction == "up" else "min"
    raise ValueError(
        f"{owner}: cannot tell whether monitor={monitor!r} should be minimized or maximized. "
        "Pass mode='min' or mode='max'."
    )


def is_better(mode: str, current: float, reference: float, min_delta: float = 0.0) -> bool:
    """Whether `current` beats `reference` by more than `min_delta` in direction `mode`.

    Examples:
        >>> from eagerflow.callbacks import monitor
        >>> monitor.is_better("min", 0.4, 0.5, min_delta=0.05)
        True
    """
    if mode == "min":
        return current < reference - min_delta
    return current > reference + min_delta


def get_value(logs, monitor: str, owner: str, params=None):
    """The monitored value from `logs` as a float, or None on an epoch without validation.

    Raises:
        MissingMonitorError: (a KeyError) if `monitor` is missing; the message lists the
            available keys.

    Examples:
        >>> from eagerflow.callbacks import monitor
        >>> monitor.get_value({"val_loss": 0.25}, "val_loss", "EarlyStopping")
        0.25
    """
    logs = logs or {}
    if monitor in logs:
        return float(logs[monitor])
    if monitor.startswith("val_") and not any(key.startswith("val_") for key in logs) \
            and (params or {}).get("do_validation", False):
        return None  # validation_freq skipped this epoch; nothing to compare
    available = ", ".join(sorted(logs)) or "(none)"
    hint = ""
    if monitor.startswith("val_") and not (params or {}).get("do_validation", True):
        hint = " (val_ keys need validation_data or validation_split in fit)"
    raise MissingMonitorError(
        f"{owner}: the monitored metric {monitor!r} is not in the logs{hint}. "
        f"Available keys: {available}"
    )


def print_msg(message: str) -> None:
    """Prints a callback message without breaking an active progress bar.

    Examples:
        >>> from eagerflow.callbacks import monitor
        >>> monitor.print_msg("Epoch 3: early stopping")
        Epoch 3: early stopping
    """
    from tqdm.auto import tqdm  # tqdm.auto costs ~40 ms to import: only when printing

    tqdm.write(message, file=sys.stdout)
