"""Linear algebra (`ef.linalg`).

Examples:
    >>> import eagerflow as ef
    >>> ef.linalg.matmul([[1.0, 0.0]], [[2.0], [3.0]])
    ef.Tensor([[2.]], shape=(1, 1), dtype=float32)
"""

from eagerflow import absent as _absent
from eagerflow.ops.creation import eye
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
from eagerflow.ops.einsum_ops import einsum
from eagerflow.ops.factorizations import (
    eigh,
    eigvalsh,
    lstsq,
    lu,
    lu_matrix_inverse,
    lu_reconstruct,
    lu_solve,
    matrix_rank,
    pinv,
    qr,
    slogdet,
    svd,
)
from eagerflow.ops.linalg_ops import global_norm, matmul, norm, tensordot
from eagerflow.ops.normalization import l2_normalize
from eagerflow.ops.tf_linalg import (
    adjoint,
    band_part,
    cholesky_solve,
    cross,
    matrix_transpose,
    matvec,
    normalize,
    set_diag,
    tensor_diag,
    tensor_diag_part,
)

# Written out so that documentation tools can read it; tests/test_api.py checks that it
# names exactly the public names imported above.
__all__ = [
    "lu", "lu_matrix_inverse", "lu_reconstruct", "lu_solve",
    "normalize", "tensor_diag", "tensor_diag_part",
    "adjoint", "band_part", "cholesky", "cholesky_solve", "cross", "det", "diag", "diag_part",
    "eigh", "eigvalsh", "einsum", "eye", "global_norm", "inv", "l2_normalize", "logdet", "lstsq",
    "matmul", "matrix_rank", "matrix_transpose", "matvec", "norm", "pinv", "qr", "set_diag",
    "slogdet", "solve", "svd", "tensordot", "trace", "triangular_solve",
]


__getattr__ = _absent.namespace_getattr(__name__, "tf.linalg")
