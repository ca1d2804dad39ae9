"""Execution state shared by the dispatcher, tapes, tracing and debugging switches.

Two kinds of state live here:

* `flags`, process-wide, read on every op. `flags.slow` is the single check the hot path
  makes: it is true while any tape is recording (in any thread), while any function is
  being traced, or while numeric checking is on. When it is false, an op costs one NumPy
  call plus a few attribute reads.
* `thread`, per-thread: the stack of tapes recording in this thread, the tracer of the
  function being traced in this thread, and the device scopes.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator


class _Flags:
    __slots__ = ("check_numerics", "slow", "tapes", "tracing")

    def __init__(self):
        self.slow = False
        self.tapes = 0
        self.tracing = 0
        self.check_numerics = False


class _ThreadState(threading.local):
    def __init__(self):
        self.tapes = []
        self.tracer = None
        self.devices = []
        self.autograph = False  # a trace in progress converts control flow (graph/autograph)
        # While a file is loaded: its allocation budget (saving/load_budget.py), charged
        # with ``charge(shape, dtype, what, transient=False)`` before each allocation.
        self.load_budget = None


flags = _Flags()
thread = _ThreadState()
# ef.distribute's registry (models/distribution.py), once a strategy scope was entered: told
# of each Trackable and Variable made and each variable an object announces later.
creation_observer = None
_lock = threading.Lock()


def update_flags(tapes: int = 0, tracing: int = 0) -> None:
    """Adjusts the process-wide counters and recomputes `flags.slow`."""
    with _lock:
        flags.tapes += tapes
        flags.tracing += tracing
        flags.slow = flags.tapes > 0 or flags.tracing > 0 or flags.check_numerics


def executing_eagerly() -> bool:
    """Whether ops run immediately (True) or are being traced into a graph (False).

    Returns:
        True outside `ef.function` tracing, False while a function is being traced.

    Examples:
        >>> import eagerflow as ef
        >>> ef.executing_eagerly()
        True
    """
    return thread.tracer is None


@contextlib.contextmanager
def init_scope() -> Iterator[None]:
    """Runs the block eagerly, even inside a traced function (`ef.init_scope`, TF's name).

    No tracer and no tape of this thread sees the block's ops: they run immediately, once.
    State changes that must happen once and for real (creating a variable and running its
    initializer on the first call of a traced function, restoring its saved value, writing
    a summary) run in it. This is eagerflow's one eager scope: the engine, the tracer and
    the layers use it under this name.

    Examples:
        >>> import eagerflow as ef
        >>> @ef.function
        ... def f(x):
        ...     with ef.init_scope():
        ...         eager = ef.executing_eagerly()
        ...     return x, eager
        >>> f(ef.constant(1.0))[1]
        ef.Tensor(True, shape=(), dtype=bool)
    """
    saved = thread.tracer, thread.tapes
    thread.tracer, thread.tapes = None, []
    try:
        yield
    finally:
        thread.tracer, thread.tapes = saved


@contextlib.contextmanager
def name_scope(name: str):
    """Variables created in the block are named ``"<name>/..."`` (nested scopes join with
    ``/``); `Module.name_scope` is this scope with the module's name.

    Examples:
        >>> import eagerflow as ef
        >>> from eagerflow.core import context
        >>> with context.name_scope("outer"), context.name_scope("inner"):
        ...     ef.Variable(1.0, name="v").name
        'outer/inner/v'
    """
    stack = thread.__dict__.setdefault("name_scopes", [])
    stack.append(name)
    try:
        yield "/".join(stack) + "/"
    finally:
        stack.pop()


def current_name_scope() -> str:
    """``"outer/inner/"`` inside `name_scope` blocks, else ``""``.

    Examples:
        >>> from eagerflow.core import context
        >>> context.current_name_scope()
        ''
    """
    stack = thread.__dict__.get("name_scopes")
    return "/".join(stack) + "/" if stack else ""
