"""Variable: mutable state that tapes watch and optimizers update in place.

A variable owns one NumPy buffer. Reading it (`value`, `read_value()`, or using it in an
op) returns a Tensor snapshot that shares the buffer until the next write; a write first
checks, by reference count, whether any tensor still shares the buffer, and copies it if
so. Updates are therefore in place (no allocation) in a training loop, yet a tensor read
earlier never changes under the reader's feet.

Examples:
    >>> import eagerflow as ef
    >>> v = ef.Variable([1.0, 2.0], name="v")
    >>> before = v.read_value()
    >>> v.assign_add([10.0, 10.0])
    <ef.Variable 'v' shape=(2,) dtype=float32, numpy=array([11., 12.], dtype=float32)>
    >>> before
    ef.Tensor([1. 2.], shape=(2,), dtype=float32)
"""

from __future__ import annotations

import itertools
import sys
import threading
import time
from typing import Any

import numpy as np

from eagerflow.core import context, dtypes, errors, tensor

_flags = context.flags
_getrefcount = sys.getrefcount
# Creation order: tapes list watched variables in it, as TensorFlow's (sorted by unique id).
_creation_counter = itertools.count()


class _Creators(type):
    """``Variable(...)`` inside `ef.variable_creator_scope` (graph/function.py)."""

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        create = context.thread.variable_creator
        return super().__call__(*args, **kwargs) if create is None else create(cls, args, kwargs)


class Variable(tensor._Operators, metaclass=_Creators):
    """A mutable tensor-like value: model weights, optimizer slots, metric state, counters.

    Args:
        initial_value: the initial value (anything `ef.constant` accepts), or a callable
            returning it.
        trainable: whether tapes watch it when it is read and optimizers update it.
            Non-floating variables (counters) are never trainable.
        name: a name such as ``"dense/kernel"`` (default ``"Variable"``).
        dtype: the dtype; by default the initial value's.
        constraint: a function applied to the value after each optimizer update.
        shape: the expected shape, checked against the initial value.

    Raises:
        InvalidArgumentError: if the initial value cannot be converted or has another shape.

    Examples:
        >>> import eagerflow as ef
        >>> w = ef.Variable(2.0)
        >>> w  # a scalar shows its value, as in TensorFlow
        <ef.Variable 'Variable' shape=() dtype=float32, numpy=2.0>
        >>> with ef.GradientTape() as tape:
        ...     y = w * w
        >>> tape.gradient(y, w)
        ef.Tensor(4.0, shape=(), dtype=float32)
    """

    __array_priority__ = 100

    def __init__(self, initial_value: Any = None, trainable: bool = True, name: str | None = None,
                 dtype: np.typing.DTypeLike | None = None, constraint: Any = None,
                 shape: tuple | list | None = None) -> None:
        if initial_value is None:
            raise errors.InvalidArgumentError(
                "Variable needs an initial_value (a value or a callable returning one)."
            )
        if callable(initial_value):
            initial_value = initial_value()
        if isinstance(initial_value, tensor.Tensor):
            tracer = context.thread.tracer  # a traced tensor: its value on the first call
            value = (tracer.initial_value(initial_value) if tracer is not None and
                     type(initial_value) is not tensor.Tensor else initial_value._value)
            value = value.astype(dtypes.as_dtype(dtype)) if dtype is not None else value.copy()
        elif isinstance(initial_value, Variable):
            value = initial_value.numpy().astype(dtype or initial_value.dtype)
        else:
            value = dtypes.to_array(initial_value, dtype)
        if shape is not None and tuple(shape) != value.shape:
            raise errors.InvalidArgumentError(
                f"Variable {name or 'Variable'!r}: initial value has shape {value.shape}, "
                f"expected shape {tuple(shape)}."
            )
        self._buf = value
        self._snapshot: tensor.Tensor | None = None
        self._name = context.current_name_scope() + (name if name is not None else "Variable")
        self._trainable = bool(trainable) and dtypes.is_floating(value.dtype)
        self._constraint = constraint
        self._creation_index = next(_creation_counter)
        context.thread.variables_made += 1
        if context.creation_observer is not None:  # ef.distribute is in use
            context.creation_observer.object_created(self, variable=True)

    # -- reading ---------------------------------------------------------------------
    def _read(self):
        """Returns the current value as a Tensor and lets recording tapes watch it."""
        snapshot = self._snapshot
        if snapshot is None:
            snapshot = self._snapshot = tensor.new_tensor(self._buf)
        if _flags.intercepted:
            state = context.thread
            if state.tracer is not None:
                return state.tracer.read_variable(self)
            context.record_read(self, snapshot)
        return snapshot

    def read_value(self) -> tensor.Tensor:
        """Returns the current value as a Tensor (a snapshot later writes do not change)."""
        return self._read()

    @property
    def value(self) -> tensor.Tensor:
        """The current value as a Tensor (same as `read_value()`)."""
        return self._read()

    def numpy(self) -> np.ndarray:
        """Returns a copy of the current value as a writable NumPy array (`bytes` for a
        scalar string, as `Tensor.numpy`)."""
        for tape in context.thread.tapes:  # it leaves them: `tape.gradient` may say so
            tape._left_by_numpy.add(id(self))
        if self._buf.dtype.kind == "O" and self._buf.ndim == 0:
            return self._buf[()]
        return self._buf.copy()

    def __array__(self, dtype=None, copy=None):
        return self._read().__array__(dtype, copy)

    @property
    def shape(self) -> tuple:
        """The shape, a tuple of ints; fixed when the variable is made."""
        return self._buf.shape

    @property
    def dtype(self) -> dtypes.DType:
        """The element type, fixed when the variable is made (see `Tensor.dtype`)."""
        return dtypes.public(self._buf.dtype)

    @property
    def ndim(self) -> int:
        """The number of dimensions (the rank)."""
        return self._buf.ndim

    @property
    def name(self) -> str:
        """The name given when the variable was made (layers give ``layer/weight``)."""
        return self._name

    @property
    def device(self) -> str:
        """The device holding the value, ``"/device:CPU:0"``."""
        return "/device:CPU:0"

    @property
    def trainable(self) -> bool:
        """Whether tapes watch it and optimizers update it (settable; floats only)."""
        return self._trainable

    @trainable.setter
    def trainable(self, value: bool) -> None:
        if value and not dtypes.is_floating(self.dtype):
            raise errors.InvalidArgumentError(
                f"Variable {self._name!r} has dtype {self.dtype.name} and cannot be trainable: "
                "gradients exist only for floating-point variables."
            )
        self._trainable = bool(value)

    @property
    def constraint(self) -> Any:
        """The function applied to the value after each optimizer update, or None."""
        return self._constraint

    # -- writing ---------------------------------------------------------------------
    def _writable_buffer(self) -> np.ndarray:
        """The buffer, safe to write in place: copied first if any tensor may share it."""
        if _flags.intercepted and context.thread.tracer is not None:  # would write once, at trace
            return context.thread.tracer.writable_buffer(self)
        snapshot = self._snapshot
        shared = False
        if snapshot is not None:
            self._snapshot = None
            # Our local name and getrefcount's argument are the only references when no
            # tensor read earlier is still alive.
            shared = _getrefcount(snapshot) > 2
            del snapshot
        if shared or _getrefcount(self._buf) > 2:
            self._buf = self._buf.copy()
        return self._buf

    def _coerce(self, value, what: str) -> np.ndarray:
        if isinstance(value, tensor.Tensor):
            array = value._value
        elif isinstance(value, Variable):
            array = value._buf
        else:
            array = dtypes.to_array(value, self.dtype)
        if array.shape != self._buf.shape:
            raise errors.InvalidArgumentError(
                f"Cannot {what} a value of shape {array.shape} to variable {self._name!r} of "
                f"shape {self._buf.shape}."
            )
        if array.dtype != self._buf.dtype and not np.can_cast(
            array.dtype, self._buf.dtype, "same_kind"
        ):
            raise errors.InvalidArgumentError(
                f"Cannot {what} a value of dtype {array.dtype.name} to variable {self._name!r} "
                f"of dtype {self._buf.dtype.name}: cast it first with ef.cast."
            )
        return array

    def _assign(self, value, mode: str):
        if _flags.intercepted:
            tracer = context.thread.tracer
            if tracer is not None:
                return tracer.assign_variable(self, value, mode)
        self._write(self._coerce(value, mode), mode)
        return self

    def _write(self, array, mode: str) -> None:
        """Updates the buffer in place: `mode` is "assign", "assign_add" or "assign_sub"."""
        buffer = self._writable_buffer()
        if mode == "assign":
            np.copyto(buffer, array, casting="same_kind")
        elif mode == "assign_add":
            np.add(buffer, array, out=buffer, casting="same_kind")
        else:
            np.subtract(buffer, array, out=buffer, casting="same_kind")

    def assign(self, value: np.typing.ArrayLike, read_value: bool = True) -> Any:
        """Sets the variable to `value` (same shape); returns the variable."""
        return self._assign(value, "assign")

    def assign_add(self, delta: Any, read_value: bool = True) -> Any:
        """Adds `delta` to the variable in place; returns the variable."""
        return self._assign(delta, "assign_add")

    def assign_sub(self, delta: Any, read_value: bool = True) -> Any:
        """Subtracts `delta` from the variable in place; returns the variable."""
        return self._assign(delta, "assign_sub")

    # -- Python protocol ---------------------------------------------------------------
    def __repr__(self) -> str:
        value = self._buf
        # TensorFlow's form: ``numpy=1`` for a scalar, ``numpy=array([...], dtype=...)`` else
        numpy = np.array_repr(value) if value.ndim else str(value[()])
        return (f"<ef.Variable {self._name!r} shape={self.shape} dtype={self.dtype.name}, "
                f"numpy={numpy}>")

    def __format__(self, spec: str) -> str:
        return format(self._read(), spec)

    def __bool__(self) -> bool:
        return bool(self._read())

    def __int__(self) -> int:
        return int(self._read())

    def __float__(self) -> float:
        return float(self._read())

    def __index__(self) -> int:
        return self._read().__index__()

    def __len__(self) -> int:
        return len(self._read())

    def __setitem__(self, key, value):
        raise TypeError(
            f"Variable {self._name!r} does not support item assignment; assign a whole new "
            "value instead: v.assign(ef.where(mask, new, v))."
        )

    __hash__ = object.__hash__

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        copy = Variable(self._buf.copy(), trainable=self._trainable, name=self._name,
                        constraint=self._constraint)
        memo[id(self)] = copy
        return copy



def adopt(variable: Variable, array: np.ndarray) -> None:
    """Makes `array` the value of `variable` without copying it.

    For loaders that read a value into a fresh array nobody else holds (a checkpoint
    restore reads everything first, then adopts, so a failed load changes nothing and a
    successful one copies nothing). Tensors read from the variable earlier keep their
    values. Not allowed while a function is traced (the change would not be a graph op).

    Raises:
        InvalidArgumentError: if the shape or dtype differs from the variable's, or a
            function is being traced.

    Examples:
        >>> import numpy as np
        >>> import eagerflow as ef
        >>> from eagerflow.core import variable
        >>> v = ef.Variable([1.0, 2.0])
        >>> variable.adopt(v, np.array([5.0, 6.0], np.float32))
        >>> v.numpy()
        array([5., 6.], dtype=float32)
    """
    if context.thread.tracer is not None:
        raise errors.InvalidArgumentError(
            f"Variable {variable.name!r}: a loader cannot replace a variable's value while a "
            "function is traced; load outside the function (or inside ef.init_scope()).")
    if not isinstance(array, np.ndarray) or array.shape != variable._buf.shape or \
            array.dtype != variable._buf.dtype:
        raise errors.InvalidArgumentError(
            f"Variable {variable.name!r}: cannot adopt {type(array).__name__} of shape "
            f"{getattr(array, 'shape', None)} and dtype {getattr(array, 'dtype', None)}; it "
            f"needs an ndarray of shape {variable._buf.shape} and dtype "
            f"{variable._buf.dtype.name}.")
    variable._buf = array
    variable._snapshot = None


# -- consistent snapshots: saving while other threads write ---------------------------------
# A checkpoint saved while another thread trains must hold one state, not a mix of steps.
# Writes that belong together (an optimizer step, the writes of one traced-function run, a
# restore) form an update group; `snapshot` takes its references at an instant when no other
# thread is inside a group or a single write. Groups cost two uncontended lock round trips
# each; single writes cost nothing more (the hot path is unchanged): `snapshot` finds a
# write in flight in the other threads' frames, and later writes copy the buffer first
# because the snapshot holds a reference to it (see `_writable_buffer`).


class _GroupDepth(threading.local):
    depth = 0  # the update groups this thread has open


class _UpdateGroups:
    """The update groups in progress, in all threads (see `atomic_update`)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.condition = threading.Condition(self.lock)
        self.open = 0  # groups in progress, all threads together
        self.waiting = 0  # snapshots waiting for the open groups to end
        self.local = _GroupDepth()

    def __enter__(self) -> None:
        local = self.local
        depth = local.depth
        with self.lock:
            if self.waiting and not depth:
                # A snapshot waits: let it go first, or a loop of back-to-back groups would
                # starve it. Bounded, so a group that waits for this thread cannot deadlock.
                self.condition.wait_for(lambda: not self.waiting, _YIELD_SECONDS)
            self.open += 1
        local.depth = depth + 1

    def __exit__(self, *exc_info: Any) -> None:
        self.local.depth -= 1
        with self.lock:
            self.open -= 1
            if self.waiting and not self.open:
                self.condition.notify_all()


_groups = _UpdateGroups()
_YIELD_SECONDS = 1.0


def atomic_update() -> Any:
    """Groups variable writes so that a checkpoint saved in another thread holds all or none.

    A save (`Checkpoint.save`/`write`, `CheckpointManager.save`, `save_weights`, `save_model`)
    waits until no other thread is inside such a group, then takes its snapshot. Optimizer
    steps (`apply_gradients`, `apply`, `minimize`), the writes of one run of a traced
    function and restores are groups already. Groups nest and run concurrently with each
    other; they are not transactions (an exception leaves the writes made so far).

    Returns:
        A reentrant context manager.

    Examples:
        >>> import eagerflow as ef
        >>> step, total = ef.Variable(0), ef.Variable(0)
        >>> with ef.train.atomic_update():  # a save in another thread sees both or neither
        ...     _ = step.assign_add(1)
        ...     _ = total.assign_add(10)
        >>> int(step), int(total)
        (1, 10)
    """
    return _groups


def snapshot(variables: list, timeout: float = 60.0) -> list:
    """The values of `variables` at one instant outside other threads' writes and groups.

    Returns each variable's buffer itself (no copy): while the caller holds it, a write
    copies the buffer first (it sees the extra reference), so the arrays never change.

    Raises:
        FailedPreconditionError: if other threads kept writing for `timeout` seconds (an
            update group that stays open, or writes that never pause).

    Examples:
        >>> import eagerflow as ef
        >>> from eagerflow.core import variable
        >>> v = ef.Variable([1.0, 2.0])
        >>> [before] = variable.snapshot([v])
        >>> _ = v.assign_add([1.0, 1.0])
        >>> before, v.numpy()
        (array([1., 2.], dtype=float32), array([2., 3.], dtype=float32))
    """
    deadline = time.monotonic() + timeout
    own = _groups.local.depth  # this thread's own open groups do not wait
    with _groups.lock:
        _groups.waiting += 1
        try:
            while True:
                if _groups.open <= own:  # no other thread is inside a group
                    arrays = [v._buf for v in variables]
                    if not _writing_elsewhere() and all(
                            v._buf is a for v, a in zip(variables, arrays, strict=True)):
                        return arrays
                    pause = 0.001  # a single write in flight ends within microseconds
                else:
                    pause = deadline - time.monotonic()  # until a group ends (notified)
                if time.monotonic() >= deadline:
                    raise errors.FailedPreconditionError(
                        f"Cannot take a consistent snapshot of {len(variables)} variables: "
                        f"other threads kept writing them for {timeout:g} s (an update group "
                        "such as an optimizer step or an ef.train.atomic_update() block "
                        "stayed open). Save between steps, or end the group first.")
                _groups.condition.wait(max(min(pause, deadline - time.monotonic()), 0.0))
        finally:
            _groups.waiting -= 1
            _groups.condition.notify_all()


def _writing_elsewhere() -> bool:
    """Whether another thread is inside `Variable._write`: one that found its buffer
    unshared before `snapshot` took its reference may still be writing it in place.
    (`sys._current_frames` is CPython's documented hook for such inspection.)"""
    # This thread's own frame goes first and the dict is emptied at the end: the dict
    # holding this function's frame, whose stack holds the dict, is a reference cycle that
    # kept every caller's locals (a prefetching iterator with its thread) alive until the
    # garbage collector ran.
    frames: dict[int, Any] = sys._current_frames()
    frames.pop(threading.get_ident(), None)
    frame: Any = None
    try:
        for frame in frames.values():
            while frame is not None:
                if frame.f_code in WRITE_CODES:
                    return True
                frame = frame.f_back
        return False
    finally:
        frame = None
        frames.clear()


# The code of the functions that write variables in place (core/buffers.py adds its own).
WRITE_CODES = {Variable._write.__code__}
