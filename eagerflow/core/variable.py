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

import sys
from typing import Any

import numpy as np

from eagerflow.core import context, dtypes, errors, tensor

_flags = context.flags
_getrefcount = sys.getrefcount


class _Creators(type):
    """``Variable(...)`` inside `ef.variable_creator_scope` (graph/function.py)."""

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        create = context.thread.__dict__.get("variable_creator")
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
        context.thread.variables_made = getattr(context.thread, "variables_made", 0) + 1
        if context.creation_observer is not None:  # ef.distribute is in use
            context.creation_observer.object_created(self, variable=True)

    # -- reading ---------------------------------------------------------------------
    def _read(self):
        """Returns the current value as a Tensor and lets recording tapes watch it."""
        snapshot = self._snapshot
        if snapshot is None:
            snapshot = self._snapshot = tensor.new_tensor(self._buf)
        if _flags.slow:
            state = context.thread
            if state.tracer is not None:
                return state.tracer.read_variable(self)
            for tape in state.tapes:  # the recording tapes of this thread (core/tape.py)
                tape._variable_read(self, snapshot)
        return snapshot

    def read_value(self) -> tensor.Tensor:
        """Returns the current value as a Tensor (a snapshot later writes do not change)."""
        return self._read()

    @property
    def value(self) -> tensor.Tensor:
        """The current value as a Tensor (same as `read_value()`)."""
        return self._read()

    def numpy(self) -> np.ndarray:
        """Returns a copy of the current value as a writable NumPy array."""
        return self._buf.copy()

    def __array__(self, dtype=None, copy=None):
        return self._read().__array__(dtype, copy)

    @property
    def shape(self) -> tuple:
        """The shape, a tuple of ints; fixed when the variable is made."""
        return self._buf.shape

    @property
    def dtype(self) -> np.dtype:
        """The element type, a `numpy.dtype`; fixed when the variable is made."""
        return self._buf.dtype

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
        if _flags.slow and context.thread.tracer is not None:  # would write once, at trace
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
        if _flags.slow:
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
        return (
            f"<ef.Variable {self._name!r} shape={self.shape} dtype={self.dtype.name}, "
            f"numpy={np.array_repr(self._buf) if self._buf.ndim else self._buf[()]!s}>"
        )

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
