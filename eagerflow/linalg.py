"""Linear algebra (`ef.linalg`).

Examples:
    >>> import eagerflow as ef
    >>> ef.linalg.matmul([[1.0, 0.0]], [[2.0], [3.0]])
    ef.Tensor([[2.]], shape=(1, 1), dtype=float32)
"""

from eagerflow import absent as _absent
from eagerflow.ops.decompositions import (
    cholesky,
    det,
    diag,
    diag_part,
    inv,
    logdet,
    solve,
    trace,
    triangular_solve,
)
from eagerflow.ops.einsum import einsum
from eagerflow.ops.linalg import global_norm, matmul, norm, tensordot

# Written out so that documentation tools can read it; tests/test_api.py checks that it
# names exactly the public names imported above.
__all__ = [
    "cholesky", "det", "diag", "diag_part", "einsum", "global_norm", "inv", "logdet", "matmul", "norm",
    "solve", "tensordot", "trace", "triangular_solve",
]


__getattr__ = _absent.namespace_getattr(__name__, "tf.linalg")
