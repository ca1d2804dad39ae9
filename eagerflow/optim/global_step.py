"""The process-wide global step of TF-1 style training loops.

`get_or_create_global_step()` returns the same int64 Variable every time it is called in
a process; `optimizer.apply_gradients(..., global_step=step)` adds one to it per step.
(The lead wires it as ``ef.train.get_or_create_global_step``.)

Examples:
    >>> import eagerflow as ef
    >>> from eagerflow.optim import global_step
    >>> step = global_step.get_or_create_global_step()
    >>> step is global_step.get_or_create_global_step(), step.dtype
    (True, dtype('int64'))
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from eagerflow.core.variable import Variable

_lock = threading.Lock()
_global_step: Variable | None = None


def get_or_create_global_step(graph: Any = None) -> Variable:
    """Returns the process's global step, an int64 Variable named ``global_step``.

    It is created at 0 on the first call (thread-safe) and returned unchanged afterwards.
    It is not trainable; save it in checkpoints by passing it to one
    (``ef.Checkpoint(step=step, ...)``).

    Args:
        graph: ignored (eagerflow has no graphs to choose from; kept for TF compatibility).

    Returns:
        The global step Variable.

    Examples:
        >>> import eagerflow as ef
        >>> from eagerflow.optim.global_step import get_or_create_global_step
        >>> step = get_or_create_global_step()
        >>> w = ef.Variable(1.0)
        >>> before = int(step)
        >>> _ = ef.optim.SGD(0.1).apply_gradients([(ef.constant(1.0), w)], global_step=step)
        >>> int(step) - before
        1
    """
    del graph
    global _global_step
    with _lock:
        if _global_step is None:
            _global_step = Variable(np.int64(0), trainable=False, name="global_step")
        return _global_step


def get_global_step(graph: Any = None) -> Variable | None:
    """Returns the global step if `get_or_create_global_step` created it, else None.

    Examples:
        >>> from eagerflow.optim import global_step
        >>> global_step.get_global_step() is None or global_step.get_global_step().name
        'global_step'
    """
    del graph
    return _global_step
