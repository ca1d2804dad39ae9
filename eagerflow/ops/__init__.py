"""Every op: forward on ndarrays and gradient in eagerflow ops, one module per family.

Importing this package registers the op families the engine and the Tensor operators
need (math, arrays, reductions); the others (convolutions, pooling, decompositions, ...)
register when their module is first imported. NumPy-level helpers live in `ops/kernels/`.
"""

from eagerflow import absent as _absent
from eagerflow.ops import array, creation, indexing, linalg, math, operators, reduce
from eagerflow.ops.kernels import memory

memory.pin_if_requested()  # opt-in only: EAGERFLOW_PIN_MALLOC=1

__all__ = ["array", "creation", "indexing", "linalg", "math", "operators", "reduce"]


__getattr__ = _absent.namespace_getattr(__name__, "keras.ops")
