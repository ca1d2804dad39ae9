"""Execution state shared by the dispatcher, tapes, tracing and debugging switches.

Two kinds of state live here:

* `flags`, process-wide, read on every op. `flags.intercepted` is the single check the hot
  path makes: it is true while anything intercepts ops and variable accesses, that is
  while any tape is recording (in any thread), while any function is being traced, or
  while numeric checking is on; the dispatcher then takes its intercepting path. When it
  is false, an op costs one NumPy call plus a few attribute reads.
* `thread`, per-thread: the stack of tapes recording in this thread, the tracer of the
  function being traced in this thread, the device and name scopes, and the slots the
  packages above set while their scopes are open.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from typing import Any


class _Flags:
    """The process-wide switches read on every op (see the module docstring)."""

    __slots__ = ("check_numerics", "intercepted", "tapes", "tracing")

    def __init__(self) -> None:
        self.intercepted: bool = False  # recomputed by `update_flags`
        self.tapes: int = 0  # recording tapes and forward accumulators, all threads
        self.tracing: int = 0  # traces in progress, all threads
        self.check_numerics: bool = False  # ef.debugging.enable_check_numerics()


class _ThreadState(threading.local):
    """The per-thread state; every slot is declared here."""

    def __init__(self) -> None:
        # The tapes and forward accumulators recording in this thread, outermost first.
        self.tapes: list[Any] = []
        # The tracer of the function being traced in this thread (graph/trace.py), or None.
        self.tracer: Any = None
        self.name_scopes: list[str] = []  # the `name_scope` blocks, innermost last
        self.autograph: bool = False  # a trace in progress converts control flow (autograph)
        # Inside `ef.variable_creator_scope` (graph/function.py): the function Variable's
        # metaclass calls instead of creating the variable, and the user's creators.
        self.variable_creator: Callable[..., Any] | None = None
        self.variable_creators: list[Callable[..., Any]] = []
        # The `ef.distribute` strategy scopes open in this thread, innermost last
        # (models/strategy.py).
        self.strategies: list[Any] = []
        # While a file is loaded: its allocation budget (saving/load_budget.py), charged
        # with ``charge(shape, dtype, what, transient=False)`` before each allocation.
        self.load_budget: Any = None


flags = _Flags()
thread = _ThreadState()
# ef.distribute's registry (models/strategy.py), once a strategy scope was entered: told
# of each Trackable and Variable made and each variable an object announces later.
creation_observer = None
_lock = threading.Lock()


def update_flags(tapes: int = 0, tracing: int = 0) -> None:
    """Adjusts the process-wide counters and recomputes `flags.intercepted`."""
    with _lock:
        flags.tapes += tapes
        flags.tracing += tracing
        flags.intercepted = flags.tapes > 0 or flags.tracing > 0 or flags.check_numerics


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
def name_scope(name: str) -> Iterator[str]:
    """Variables created in the block are named ``"<name>/..."`` (nested scopes join with
    ``/``); `Module.name_scope` is this scope with the module's name.

    Examples:
        >>> import eagerflow as ef
        >>> from eagerflow.core import context
        >>> with context.name_scope("outer"), context.name_scope("inner"):
        ...     ef.Variable(1.0, name="v").name
        'outer/inner/v'
    """
    stack = thread.name_scopes
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
    stack = thread.name_scopes
    return "/".join(stack) + "/" if stack else ""
