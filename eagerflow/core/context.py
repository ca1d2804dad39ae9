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

It also declares the two interfaces through which the packages above meet the engine:

* **The tracer protocol** (`Tracer`), in the manner of JAX's ``Trace``: while a function is
  traced into a graph, ``thread.tracer`` is an object with these methods, and the engine
  hands it, instead of running them, every op (`dispatch.execute`) and every variable read,
  write and creation (`core/variable.py`). A trace makes itself current by setting
  ``thread.tracer`` and ``thread.tapes`` (the tapes recording inside the trace) and counting
  itself with ``update_flags(tracing=1)``; `init_scope` suspends it. ``graph/trace.py``'s
  `Tracer` is the one implementation.
* **The tape hooks**, which start and stop a tape recording in this thread (`push_tape`,
  `pop_tape`), tell the recording tapes about an op (`record_op`) or a variable read
  (`record_read`), and ask whether a tape can differentiate through a value (`on_tape`).
  The dispatcher and `Variable` call them, and so does code above the engine that runs an
  op its own way (control flow, `py_function`, concrete functions, custom gradients). A
  tape is anything on ``thread.tapes`` with ``_record(op, inputs, attrs, outputs)``,
  ``_variable_read(variable, snapshot)`` and ``_tracked`` (the ids it tracks): the
  `GradientTape` and the `ForwardAccumulator`, both in the engine, which alone call them.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from typing import Any, Protocol


class Tracer(Protocol):
    """What the engine asks of the trace in progress (``thread.tracer``)."""

    tapes: list  # the tapes recording inside the trace (``thread.tapes`` while it is current)

    def execute(self, op: Any, inputs: tuple | list, attrs: dict) -> Any:
        """Adds one op call to the graph; returns its symbolic output(s) (`dispatch.execute`)."""

    def read_variable(self, variable: Any) -> Any:
        """A symbolic read of `variable`; tells the tapes with `record_read`."""

    def assign_variable(self, variable: Any, value: Any, mode: str) -> Any:
        """Adds a write (``mode``: ``assign``, ``assign_add``, ``assign_sub``); returns it."""

    def writable_buffer(self, variable: Any) -> Any:
        """In-place NumPy writes (`buffers.write`, `update`), which a graph cannot hold: raises."""

    def initial_value(self, value: Any) -> Any:
        """The ndarray a Variable created from the traced tensor `value` starts from."""

    def holds_tensor(self, value: Any) -> bool:
        """Whether the (nested) list or tuple `value` holds a traced tensor."""

    def pack(self, value: Any, dtype: Any = None) -> Any:
        """One traced tensor from a (nested) list holding traced tensors (graph ops)."""


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
        self.tracer: Tracer | None = None
        self.variables_made: int = 0  # Variables made in this thread (core/variable.py counts)
        self.name_scopes: list[str] = []  # the `name_scope` blocks, innermost last
        # Inside `ef.variable_creator_scope` (graph/function.py, which keeps the user's
        # creators): the function Variable's metaclass calls instead of creating one.
        self.variable_creator: Callable[..., Any] | None = None
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


def push_tape(tape: Any) -> None:
    """Starts `tape` recording in this thread (on top of ``thread.tapes``)."""
    thread.tapes.append(tape)
    update_flags(tapes=1)


def pop_tape(tape: Any) -> None:
    """Stops `tape` recording in this thread, wherever it is on ``thread.tapes``."""
    stack = thread.tapes
    for i in range(len(stack) - 1, -1, -1):
        if stack[i] is tape:
            del stack[i]
            update_flags(tapes=-1)
            return


def record_op(tapes: list, op: Any, inputs: tuple | list, attrs: dict, outputs: tuple) -> None:
    """Records one op call on each tape of `tapes` that tracks one of its `inputs`."""
    for tape in tapes:  # hot path while recording (see benchmarks/bench_ops.py)
        tape._record(op, inputs, attrs, outputs)


def record_read(variable: Any, snapshot: Any) -> None:
    """Tells this thread's recording tapes that `variable` was read as tensor `snapshot`."""
    for tape in thread.tapes:
        tape._variable_read(variable, snapshot)


def on_tape(tapes: list, value: Any) -> bool:
    """Whether a tape of `tapes` can differentiate through `value` (watched, or made by an
    op it recorded)."""
    return any(id(value) in tape._tracked for tape in tapes)


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
