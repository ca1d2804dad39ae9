"""Op families; each module declares its ops (forward and gradient together)."""

from eagerflow.core.ops import array, indexing, linalg, math, nn, reduce  # noqa: F401
