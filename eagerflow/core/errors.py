"""Error classes raised by eagerflow ops, TensorFlow-style.

Every op error names the op that raised it: the message renders as
``"<what went wrong> [Op:<OpName>]"``.

Examples:
    >>> from eagerflow.core import errors
    >>> str(errors.InvalidArgumentError("Incompatible shapes: (2, 3) vs. (4,)", op="Add"))
    'Incompatible shapes: (2, 3) vs. (4,) [Op:Add]'
"""

from __future__ import annotations

import warnings

__all__ = [
    "EagerflowWarning",
    "FailedPreconditionError",
    "InternalError",
    "InvalidArgumentError",
    "NotFoundError",
    "OpError",
    "OutOfRangeError",
    "ResourceExhaustedError",
    "UnimplementedError",
    "warn_once",
]


class OpError(Exception):
    """Base class of every error an eagerflow op raises.

    Args:
        message: what went wrong, naming the shapes or values involved.
        op: the CamelCase name of the op that failed, or ``None``.

    Attributes:
        message: the message without the op suffix.
        op: the op name.
    """

    def __init__(self, message: str, op: str | None = None) -> None:
        self.message = message
        self.op = op
        super().__init__(f"{message} [Op:{op}]" if op else message)

    def __reduce__(self):
        return type(self), (self.message, self.op)


class InvalidArgumentError(OpError, ValueError):
    """An op received an argument it cannot work with (shape, dtype or value)."""


class NotFoundError(OpError):
    """Something that was asked for (a file, a device, a name) does not exist."""


class OutOfRangeError(OpError):
    """An iteration or index went past the end of its range."""


class ResourceExhaustedError(OpError):
    """An op ran out of a resource, typically memory."""


class UnimplementedError(OpError):
    """The operation is not implemented for these arguments (e.g. a missing gradient)."""


class InternalError(OpError):
    """An invariant of eagerflow itself was broken: please report it as a bug."""


class FailedPreconditionError(OpError):
    """The system is not in a state that allows the operation (e.g. a used tape)."""


class EagerflowWarning(UserWarning):
    """Category of every warning eagerflow emits itself."""


_warned: set[str] = set()


def warn_once(key: str, message: str, stacklevel: int = 3) -> None:
    """Emits `message` as an `EagerflowWarning` the first time `key` is seen.

    Warnings that would fire on every step (a `None` gradient, a watched integer) are
    emitted once per kind so they are read rather than scrolled past.
    """
    if key in _warned:
        return
    _warned.add(key)
    warnings.warn(message, EagerflowWarning, stacklevel=stacklevel)

