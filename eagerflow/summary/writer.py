"""Summary writers and the per-thread summary state: default writer, default step, recording.

A `SummaryWriter` owns one TensorBoard event file. The summary ops (`scalar`, `histogram`,
...) write to the *default* writer, set with `writer.as_default()`; the step of a summary is
its `step` argument or, when that is omitted, the default step (`set_step`, or the `step` of
`as_default`), which may be a `Variable` read at write time. `record_if` and
`record_every_n_steps` switch recording off and on without touching the code that writes.

The state is thread-local, like TensorFlow's: a writer made default in one thread is not the
default in another.

Event files are written synchronously, one record per summary (`records` encodes them, with
no dependency): `flush()` therefore means the events are in the file, which a
queue-and-thread writer such as tensorboardX's does not guarantee.

Examples:
    >>> import eagerflow as ef, tempfile
    >>> writer = ef.summary.create_file_writer(tempfile.mkdtemp())
    >>> with writer.as_default(step=3):
    ...     ef.summary.scalar("loss", 0.25)
    True
    >>> ef.summary.scalar("loss", 0.25, step=4)   # no default writer: nothing written
    False
"""

from __future__ import annotations

import atexit
import contextlib
import itertools
import os
import socket
import threading
import time
import weakref
from collections.abc import Iterator
from typing import Any

import numpy as np

from eagerflow.core import errors
from eagerflow.summary import records

_file_counter = itertools.count()
_open_writers: weakref.WeakSet = weakref.WeakSet()


class _State(threading.local):
    def __init__(self):
        self.writer = None
        self.step = None
        self.recording = True  # a bool, a callable, or an _EveryNSteps


_state = _State()


def _set_default(writer, step) -> None:
    _state.writer = writer
    if step is not None:
        _state.step = step


@contextlib.contextmanager
def _default(writer, step):
    """`writer` (and `step`, if given) are the defaults inside the block, then the old ones."""
    old_writer, old_step = _state.writer, _state.step
    _set_default(writer, step)
    try:
        yield writer
    finally:
        _state.writer, _state.step = old_writer, old_step


class SummaryWriter:
    """Writes summaries to one TensorBoard event file in `logdir`.

    Create it with `create_file_writer`. Use it with `as_default()` (a context manager) or
    `set_as_default()`; the summary ops write to the default writer.

    Examples:
        >>> import eagerflow as ef, tempfile
        >>> writer = ef.summary.create_file_writer(tempfile.mkdtemp())
        >>> writer.set_as_default(step=0)
        >>> ef.summary.scalar("accuracy", 0.5)
        True
        >>> writer.close()
    """

    def __init__(self, logdir: str | os.PathLike[str], filename_suffix: Any = None,
                 flush_millis: Any = None, max_queue: Any = None) -> None:
        self._logdir = os.fspath(logdir)
        self._filename_suffix = filename_suffix
        self._flush_seconds = None if flush_millis is None else flush_millis / 1000.0
        self._max_queue = max_queue
        self._file: Any = None
        self._path = ""
        self._pending = 0
        self._last_flush = time.monotonic()
        self._closed = False
        self._lock = threading.Lock()
        self._open()

    def _open(self) -> None:
        if os.path.exists(self._logdir) and not os.path.isdir(self._logdir):
            raise errors.InvalidArgumentError(
                f"create_file_writer: logdir {self._logdir!r} exists and is not a directory"
            )
        os.makedirs(self._logdir, exist_ok=True)
        # pid and a counter make the name unique even for writers opened in the same second.
        suffix = f".{os.getpid()}.{next(_file_counter)}.v2{self._filename_suffix or ''}"
        name = f"events.out.tfevents.{int(time.time()):010d}.{socket.gethostname()}{suffix}"
        self._path = os.path.join(self._logdir, name)
        self._file = open(self._path, "wb")  # closed by close(), or at exit
        self._write(records.event(time.time(), file_version="brain.Event:2"))
        self._file.flush()
        _open_writers.add(self)

    @property
    def logdir(self) -> str:
        """The directory of the event file."""
        return self._logdir

    @property
    def path(self) -> str:
        """The path of the event file this writer appends to."""
        return self._path

    @property
    def closed(self) -> bool:
        """Whether `close()` was called."""
        return self._closed

    def init(self) -> None:
        """Reopens a closed writer on a new event file in the same directory."""
        if self._closed:
            self._closed = False
            self._open()

    @contextlib.contextmanager
    def as_default(self, step: Any = None) -> Iterator[Any]:
        """Makes this the default writer inside a `with` block, and flushes it on exit.

        Args:
            step: optional default step for the block (an int or a Variable read at each
                write); the previous default step comes back on exit.

        Examples:
            >>> import eagerflow as ef, tempfile
            >>> writer = ef.summary.create_file_writer(tempfile.mkdtemp())
            >>> with writer.as_default():
            ...     ef.summary.scalar("lr", 0.1, step=1)
            True
        """
        try:
            with _default(self, step):
                yield self
        finally:
            if not self._closed:
                self.flush()

    def set_as_default(self, step: Any = None) -> None:
        """Makes this the default writer until another one is set (no `with` needed).

        Args:
            step: optional default step (an int or a Variable).

        Examples:
            >>> import eagerflow as ef, tempfile
            >>> writer = ef.summary.create_file_writer(tempfile.mkdtemp())
            >>> writer.set_as_default(step=0)
            >>> ef.summary.scalar("loss", 1.0)
            True
            >>> writer.close()   # also stops it being the default
        """
        _set_default(self, step)

    def _write(self, event: bytes) -> None:
        self._file.write(records.record(event))

    def write_summary(self, summary: bytes, step: Any) -> None:
        """Appends an encoded `Summary` message at `step` (used by the summary ops).

        Raises:
            FailedPreconditionError: if the writer is closed.
        """
        self._append(records.event(time.time(), int(step), summary=summary))

    def write_graph(self, graph_def: bytes) -> None:
        """Appends an encoded `GraphDef` message: TensorBoard's Graphs tab shows it.

        Raises:
            FailedPreconditionError: if the writer is closed.
        """
        self._append(records.event(time.time(), graph_def=graph_def))

    def _append(self, event: bytes) -> None:
        if self._closed:
            raise errors.FailedPreconditionError(
                f"summary writer for logdir {self._logdir!r} is closed; call writer.init() "
                "to reopen it or create a new one"
            )
        with self._lock:
            self._write(event)
            self._pending += 1
            due = (self._max_queue is not None and self._pending >= self._max_queue) or (
                self._flush_seconds is not None
                and time.monotonic() - self._last_flush >= self._flush_seconds
            )
        if due:
            self.flush()

    def flush(self) -> None:
        """Pushes every summary written so far into the event file.

        Examples:
            >>> import eagerflow as ef, tempfile
            >>> ef.summary.create_file_writer(tempfile.mkdtemp()).flush()
        """
        if self._closed:
            return
        with self._lock:
            self._file.flush()
            self._pending = 0
            self._last_flush = time.monotonic()

    def close(self) -> None:
        """Flushes and closes the event file; later writes raise until `init()`.

        A closed writer stops being this thread's default writer.

        Examples:
            >>> import eagerflow as ef, tempfile
            >>> writer = ef.summary.create_file_writer(tempfile.mkdtemp())
            >>> writer.close()
            >>> writer.closed
            True
        """
        if self._closed:
            return
        with self._lock:
            self._file.close()
            self._closed = True
        if _state.writer is self:
            # A closed writer stops being the default; writing to it directly still raises.
            _state.writer = None

    def __repr__(self) -> str:
        state = "closed" if self._closed else "open"
        return f"<ef.summary.SummaryWriter logdir={self._logdir!r} ({state})>"


class _NoopWriter:
    """A writer that accepts summaries and discards them (see `create_noop_writer`)."""

    logdir = None
    closed = False

    def as_default(self, step=None):
        return _default(self, step)

    def set_as_default(self, step=None) -> None:
        _set_default(self, step)

    def write_summary(self, summary, step) -> None:
        pass

    def write_graph(self, graph_def) -> None:
        pass

    def init(self) -> None:
        pass

    def flush(self) -> None:
        pass

    def close(self) -> None:
        pass


def create_file_writer(logdir: str | os.PathLike[str], max_queue: Any = None,
                       flush_millis: Any = None, filename_suffix: Any = None,
                       name: str | None = None) -> SummaryWriter:
    """Creates a summary writer for an event file in `logdir` (created if missing).

    Args:
        logdir: directory of the event file; TensorBoard reads it (``tensorboard
            --logdir``).
        max_queue: flush after this many summaries (default: only on `flush()`, on leaving
            `as_default()`, on `close()` and at exit).
        flush_millis: flush when this many milliseconds passed since the last flush.
        filename_suffix: appended to the event file's name.
        name: accepted for TensorFlow compatibility; unused.

    Returns:
        A `SummaryWriter`.

    Raises:
        InvalidArgumentError: if `logdir` is an existing file.

    Examples:
        >>> import eagerflow as ef, tempfile
        >>> writer = ef.summary.create_file_writer(tempfile.mkdtemp())
        >>> with writer.as_default():
        ...     for step in range(3):
        ...         _ = ef.summary.scalar("loss", 1.0 / (step + 1), step=step)
    """
    del name
    if logdir is None or logdir == "":
        raise errors.InvalidArgumentError(
            f"create_file_writer: logdir must be a directory path. Received: logdir={logdir!r}"
        )
    return SummaryWriter(logdir, filename_suffix, flush_millis, max_queue)


def create_noop_writer() -> Any:
    """Returns a writer that discards everything (handy to switch logging off).

    Examples:
        >>> import eagerflow as ef
        >>> with ef.summary.create_noop_writer().as_default():
        ...     ef.summary.scalar("loss", 1.0, step=0)
        True
    """
    return _NoopWriter()


def set_step(step: Any) -> None:
    """Sets the default step of the summary ops in this thread (an int, a Variable, or None).

    Examples:
        >>> import eagerflow as ef
        >>> ef.summary.set_step(5)
        >>> ef.summary.get_step()
        5
        >>> ef.summary.set_step(None)
    """
    _state.step = step


def get_step() -> Any:
    """The default step set by `set_step` or `as_default(step=...)`, or None.

    Examples:
        >>> import eagerflow as ef
        >>> ef.summary.set_step(7)
        >>> ef.summary.get_step()
        7
        >>> ef.summary.set_step(None)
    """
    return _state.step


def resolve_step(step, op_name: str) -> int:
    """The integer step of a summary: `step` itself, or the default step, or else the
    global step (`ef.train.get_or_create_global_step()`) when it exists.

    Raises:
        InvalidArgumentError: if there is no step or it is not an integer scalar.

    Examples:
        >>> from eagerflow.summary import writer
        >>> writer.resolve_step(3, "scalar")
        3
    """
    if step is None:
        step = _state.step
        if step is None:
            from eagerflow.optim import global_step

            step = global_step.get_global_step()  # the TF-1 global step, when one exists
        if step is None:
            raise errors.InvalidArgumentError(
                f"ef.summary.{op_name}: no step set. Pass step=..., set a default with "
                "ef.summary.set_step(step) or writer.as_default(step=step), or create the "
                "global step with ef.train.get_or_create_global_step()"
            )
    value = np.asarray(step)
    if value.ndim != 0 or value.dtype.kind not in "iu":
        raise errors.InvalidArgumentError(
            f"ef.summary.{op_name}: step must be an integer scalar. Received: step={step!r}"
        )
    return int(value)


class _EveryNSteps:
    def __init__(self, n, step):
        self.n = n
        self.step = step

    def __call__(self, summary_step):
        step = summary_step if self.step is None else int(np.asarray(self.step))
        return step % self.n == 0


@contextlib.contextmanager
def record_if(condition: Any) -> Iterator[Any]:
    """Records summaries inside the block only while `condition` holds.

    Args:
        condition: a bool, a tensor, or a callable returning one (called at each summary,
            so ``lambda: step % 100 == 0`` follows a changing step). Replaces the enclosing
            condition for the block, like TensorFlow.

    Examples:
        >>> import eagerflow as ef, tempfile
        >>> with ef.summary.create_file_writer(tempfile.mkdtemp()).as_default():
        ...     with ef.summary.record_if(False):
        ...         ef.summary.scalar("loss", 1.0, step=0)
        False
    """
    old = _state.recording
    _state.recording = condition
    try:
        yield
    finally:
        _state.recording = old


def record_every_n_steps(n: Any, step: Any = None) -> Any:
    """Records summaries inside the block only when the step is a multiple of `n`.

    Args:
        n: a positive int.
        step: the step to test (an int or a Variable read at each summary); by default the
            step each summary is written at.

    Returns:
        A context manager.

    Raises:
        InvalidArgumentError: if `n` is not a positive int.

    Examples:
        >>> import eagerflow as ef, tempfile
        >>> with ef.summary.create_file_writer(tempfile.mkdtemp()).as_default():
        ...     with ef.summary.record_every_n_steps(10):
        ...         [ef.summary.scalar("loss", 1.0, step=s) for s in (0, 5, 10)]
        [True, False, True]
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n <= 0:
        raise errors.InvalidArgumentError(
            f"record_every_n_steps: n must be a positive int. Received: n={n!r}"
        )
    return record_if(_EveryNSteps(int(n), step))


def should_record_summaries(step: Any = None) -> bool:
    """Whether a summary written now (at `step`, by default the default step) is recorded.

    False without a default writer or when a `record_if` condition says no.

    Examples:
        >>> import eagerflow as ef, tempfile
        >>> with ef.summary.create_file_writer(tempfile.mkdtemp()).as_default(step=3):
        ...     with ef.summary.record_every_n_steps(2):
        ...         ef.summary.should_record_summaries()
        False
    """
    if _state.writer is None:
        return False
    condition = _state.recording
    if isinstance(condition, _EveryNSteps):
        if step is None:
            step = _state.step
        return step is not None and condition(resolve_step(step, "should_record_summaries"))
    if callable(condition):
        condition = condition()
    return bool(np.asarray(condition))


def default_writer():
    """The default writer of this thread, or None.

    Examples:
        >>> from eagerflow.summary import writer
        >>> writer.default_writer() is None
        True
    """
    return _state.writer


def flush(writer: Any = None) -> None:
    """Flushes `writer`, or the default writer when omitted (no-op without one).

    Examples:
        >>> import eagerflow as ef
        >>> ef.summary.flush()
    """
    writer = writer if writer is not None else _state.writer
    if writer is not None:
        writer.flush()


@atexit.register
def _close_open_writers() -> None:
    # Summaries written before exit reach the file even if nobody called flush/close.
    for writer in list(_open_writers):
        with contextlib.suppress(Exception):
            writer.close()
