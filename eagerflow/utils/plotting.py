"""`plot_history`: a PNG of the loss and metric curves of a `fit` run.

Needs matplotlib (``pip install 'eagerflow[plot]'``). The figure is drawn with
matplotlib's Agg canvas directly, so no GUI backend or global pyplot state is involved.

Examples:
    >>> import eagerflow as ef, os, tempfile
    >>> history = {"loss": [1.0, 0.5], "val_loss": [1.2, 0.8], "accuracy": [0.5, 0.8]}
    >>> path = ef.utils.plot_history(history, os.path.join(tempfile.mkdtemp(), "h.png"))
    >>> open(path, "rb").read(4)
    b'\\x89PNG'
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from eagerflow.saving import fileio


def _import_matplotlib():
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError as e:
        raise ImportError(
            "ef.utils.plot_history needs matplotlib, which is not installed. Install it with: "
            "pip install 'eagerflow[plot]'"
        ) from e
    return Figure, FigureCanvasAgg


def _as_dict(history) -> dict:
    values = getattr(history, "history", history)
    if not isinstance(values, dict):
        raise TypeError(
            "plot_history expects the History returned by fit (or its .history dict). "
            f"Received: {type(history).__name__}"
        )
    return values


def plot_history(history: Any, path: str | os.PathLike[str], metrics: Any = None,
                 title: Any = None) -> str:
    """Saves the curves of a training run as a PNG: one panel per metric, with its ``val_``
    curve on the same axes.

    Args:
        history: the `History` that `fit` returned, or its ``history`` dict.
        path: where to write the PNG (written atomically; the directory must exist).
        metrics: names to plot (without ``val_``); default: every key except ``val_`` ones
            and ``learning_rate``, loss first.
        title: optional figure title.

    Returns:
        `path`.

    Raises:
        ImportError: if matplotlib is not installed (install ``eagerflow[plot]``).
        TypeError: if `history` is neither a History nor a dict.
        ValueError: if the history is empty or a requested metric is not in it.

    Examples:
        >>> import eagerflow as ef, os, tempfile
        >>> path = os.path.join(tempfile.mkdtemp(), "loss.png")
        >>> ef.utils.plot_history({"loss": [3.0, 2.0, 1.5]}, path, title="demo") == path
        True
    """
    values = _as_dict(history)
    figure_class, canvas_class = _import_matplotlib()
    if not values or not any(len(v) for v in values.values()):
        raise ValueError("plot_history: the history is empty (did fit run any epoch?)")
    if metrics is None:
        metrics = [k for k in values if not k.startswith("val_") and k != "learning_rate"]
        metrics.sort(key=lambda name: name != "loss")
        if not metrics:  # only validation values were recorded
            metrics = [k[4:] for k in values if k.startswith("val_")]
    missing = [m for m in metrics if m not in values and f"val_{m}" not in values]
    if missing:
        raise ValueError(
            f"plot_history: {missing} not in the history. Available: {sorted(values)}"
        )
    figure = figure_class(figsize=(5 * len(metrics), 4), dpi=100)
    canvas_class(figure)
    for index, name in enumerate(metrics):
        axes = figure.add_subplot(1, len(metrics), index + 1)
        for key, label in ((name, "train"), (f"val_{name}", "validation")):
            if key in values:
                series = np.asarray(values[key], dtype=float)
                axes.plot(np.arange(1, len(series) + 1), series, marker="o", label=label)
        axes.set_title(name)
        axes.set_xlabel("epoch")
        axes.grid(True, alpha=0.3)
        axes.legend()
    if title:
        figure.suptitle(title)
    figure.tight_layout()

    def write(temporary):
        with open(temporary, "wb") as f:
            figure.savefig(f, format="png")

    return fileio.atomic_write(path, write)
