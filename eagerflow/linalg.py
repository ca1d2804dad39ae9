"""Linear algebra (`ef.linalg`).

Examples:
    >>> import eagerflow as ef
    >>> ef.linalg.matmul([[1.0, 0.0]], [[2.0], [3.0]])
    ef.Tensor([[2.]], shape=(1, 1), dtype=float32)
"""

from eagerflow.ops.decompositions import (
    cholesky,
    det,
    diag_part,
    inv,
    logdet,
    solve,
    trace,
    triangular_solve,
)
from eagerflow.ops.einsum import einsum
from eagerflow.ops.linalg import global_norm, matmul, norm, tensordot

# Each name is declared once, by its import above.
__all__ = sorted(name for name in dir() if not name.startswith("_"))
