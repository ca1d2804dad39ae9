"""Buffers: how kernels and the packages above the engine read and write tensor storage.

A `Tensor` wraps one NumPy array that nobody writes to; a `Variable` owns one array that
only its writes change, copying it first whenever a tensor read earlier (or any array
handed out here) still shares it. Code outside `core/` reaches that storage only through
these four functions, never through the private fields:

* `read(x)`: the array of a tensor or variable as a read-only view, without a copy and
  without telling tapes (unlike `Tensor.numpy()`, which tapes note as "left through
  NumPy"). A view of a variable's array keeps the values it had: the variable's next
  write copies first.
* `wrap(array)`: a new tensor holding `array` itself (a kernel's result); the caller
  must not write to `array` afterwards.
* `write(variable, value, mode)`: writes a value into a variable's array in place, as
  ``assign``/``assign_add``/``assign_sub`` do, after checking its shape and dtype.
* `update(variables, kernel, *args)`: calls ``kernel(*arrays, *args)`` with the
  variables' own arrays to update in place (fused optimizer steps, compiled kernels).

Writes keep the variable's invariants: the shape and dtype never change; tensors read
earlier (and so every value a tape saved) keep their values; a checkpoint taken in
another thread (`variable.snapshot`) never sees a write half done; and inside a function
traced by `ef.function` both write functions refuse with an error, since a NumPy write
would run once, while tracing, instead of on every call: use ``variable.assign`` there.

Examples:
    >>> import numpy as np
    >>> import eagerflow as ef
    >>> from eagerflow.core import buffers
    >>> x = ef.constant([1.0, 2.0])
    >>> view = buffers.read(x)
    >>> view.flags.writeable
    False
    >>> buffers.wrap(view * 2)
    ef.Tensor([2. 4.], shape=(2,), dtype=float32)
    >>> v = ef.Variable([1.0, 2.0])
    >>> before = v.read_value()
    >>> buffers.write(v, np.array([5.0, 6.0], np.float32), "assign_add")
    >>> def scale(buffer, factor):
    ...     np.multiply(buffer, factor, out=buffer)
    >>> buffers.update([v], scale, 2.0)
    >>> v.numpy(), before.numpy()
    (array([12., 16.], dtype=float32), array([1., 2.], dtype=float32))
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from eagerflow.core import errors, tensor, variable

wrap = tensor.new_tensor
_MODES = ("assign", "assign_add", "assign_sub")


def read(x: tensor.Tensor | variable.Variable) -> np.ndarray:
    """The array of tensor or variable `x` as a read-only view (no copy, no tape notice).

    Raises:
        TypeError: if `x` is neither, or is a tensor traced by `ef.function` (no values).
    """
    array = x._value if isinstance(x, tensor.Tensor) else getattr(x, "_buf", None)
    if type(array) is not np.ndarray:
        raise TypeError(
            f"buffers.read expects an ef.Tensor with values or an ef.Variable, got "
            f"{type(x).__name__}{' (traced by ef.function: no values yet)' * (array is not None)}")
    view = array.view()
    view.flags.writeable = False
    return view


def checked(target: variable.Variable, value: Any, mode: str = "assign") -> np.ndarray:
    """`value` as an array to `mode` into `target`: tensors and arrays of numbers as they
    are (no copy), other values converted as `ef.constant` does; the shape must equal the
    variable's, and the dtype must cast to the variable's without changing kind (int32
    into float32 or int64 into int32, never float into int).

    Raises:
        InvalidArgumentError: naming the variable, the shapes or the dtypes.
    """
    if mode not in _MODES:
        raise ValueError(f"buffers: mode must be one of {_MODES}, got {mode!r}")
    if type(value) is np.ndarray and value.dtype.kind in "biufc":
        value = wrap(value)  # checked as a tensor: no conversion that could hide a cast
    return target._coerce(value, mode)


def write(target: variable.Variable, value: Any, mode: str = "assign") -> None:
    """Writes `value` into `target`'s array in place (`mode` as in `checked`).

    Raises:
        InvalidArgumentError: for another shape or dtype (see `checked`).
        TypeError: while `ef.function` traces (its OperatorNotAllowedInGraphError).
    """
    target._write(checked(target, value, mode), mode)


def update(variables: Sequence[variable.Variable], kernel: Callable[..., Any],
           *args: Any) -> None:
    """Calls ``kernel(*arrays, *args)`` with the arrays of `variables` to write in place.

    The kernel writes into the arrays (``out=``, slices, a compiled loop) and keeps no
    reference to them; an exception leaves the writes it made so far.

    Raises:
        TypeError: if an item of `variables` is not a Variable.
        ValueError: if a variable is given twice.
        TypeError: while `ef.function` traces (its OperatorNotAllowedInGraphError).
    """
    for v in variables:
        if not isinstance(v, variable.Variable):
            raise TypeError(f"buffers.update expects ef.Variables, got {type(v).__name__}")
    if len({id(v) for v in variables}) != len(variables):
        raise ValueError(f"buffers.update: a variable is given twice in "
                         f"{[v.name for v in variables]}")
    kernel(*[v._writable_buffer() for v in variables], *args)


variable.WRITE_CODES.add(update.__code__)  # a snapshot waits while a kernel writes
