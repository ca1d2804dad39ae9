"""Error classes (`ef.errors`); see `eagerflow.core.errors`."""

from eagerflow.core.errors import (
    EagerflowWarning,
    FailedPreconditionError,
    InternalError,
    InvalidArgumentError,
    NotFoundError,
    OpError,
    OutOfRangeError,
    ResourceExhaustedError,
    UnimplementedError,
)

__all__ = [
    "EagerflowWarning", "FailedPreconditionError", "InternalError", "InvalidArgumentError",
    "NotFoundError", "OpError", "OutOfRangeError", "ResourceExhaustedError",
    "UnimplementedError",
]
