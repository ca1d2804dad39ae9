"""Keras 3's linear algebra ops (`keras.ops.linalg`): Cholesky, determinants, inverses,
solves, norms and the SVD, QR and symmetric eigen factorizations, with NumPy's
conventions (`svd` returns ``(u, s, vh)``), on eagerflow's differentiable decompositions.

Examples:
    >>> import eagerflow as ef
    >>> ef.ops.linalg.det(ef.constant([[2.0, 0.0], [0.0, 3.0]]))
    ef.Tensor(6.0, shape=(), dtype=float32)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from eagerflow.ops import array_ops as _array
from eagerflow.ops import decompositions as _decompositions
from eagerflow.ops import factorizations as _factorizations
from eagerflow.ops import indexing as _indexing
from eagerflow.ops import keras_core as _core
from eagerflow.ops import keras_missing as _keras_missing
from eagerflow.ops import linalg_ops as _linalg
from eagerflow.ops import logic as _logic
from eagerflow.ops import math as _math
from eagerflow.ops import reduce as _reduce
from eagerflow.ops import unary as _unary
from eagerflow.ops.typing import AxisLike, Tensor, TensorLike


def _swap(x: Tensor) -> Tensor:
    return _array.transpose(x, [*range(x.ndim - 2), x.ndim - 1, x.ndim - 2])


def cholesky(x: TensorLike, upper: bool = False) -> Tensor:
    """The Cholesky factor of symmetric positive definite matrices, lower (or upper)
    triangular (`keras.ops.cholesky`)."""
    factor = _decompositions.cholesky(_core.as_float(x))
    return _swap(factor) if upper else factor


def cholesky_inverse(x: TensorLike, upper: bool = False) -> Tensor:
    """The inverse of `A` from its Cholesky factor (`A = L L^T`, or `U^T U` for `upper`)
    (`keras.ops.cholesky_inverse`)."""
    factor = _core.as_float(x)
    lower = _swap(factor) if upper else factor
    return _decompositions.inv(_linalg.matmul(lower, _swap(lower)))


def det(x: TensorLike) -> Tensor:
    """Determinants of the matrices in the last two axes (`keras.ops.det`)."""
    return _decompositions.det(_core.as_float(x))


def inv(x: TensorLike) -> Tensor:
    """Inverses of the matrices in the last two axes (`keras.ops.inv`)."""
    return _decompositions.inv(_core.as_float(x))


def solve(a: TensorLike, b: TensorLike) -> Tensor:
    """`x` with `a @ x = b`; `b` may be a vector (`keras.ops.solve`)."""
    dtype = _core.result_type(a, b, 1.0)
    matrix, rhs = _core.as_tensor(a, dtype), _core.as_tensor(b, dtype)
    if rhs.ndim == matrix.ndim - 1:
        return _array.squeeze(_decompositions.solve(matrix, _array.expand_dims(rhs, -1)), -1)
    return _decompositions.solve(matrix, rhs)


def solve_triangular(a: TensorLike, b: TensorLike, lower: bool = False) -> Tensor:
    """`x` with `a @ x = b` for triangular `a` (upper by default, as Keras)
    (`keras.ops.solve_triangular`)."""
    dtype = _core.result_type(a, b, 1.0)
    matrix, rhs = _core.as_tensor(a, dtype), _core.as_tensor(b, dtype)
    if rhs.ndim == matrix.ndim - 1:
        rhs = _array.expand_dims(rhs, -1)
        return _array.squeeze(_decompositions.triangular_solve(matrix, rhs, lower=lower), -1)
    return _decompositions.triangular_solve(matrix, rhs, lower=lower)


def norm(x: TensorLike, ord: Any = None, axis: AxisLike = None,  # noqa: A002
         keepdims: bool = False) -> Tensor:
    """NumPy's `linalg.norm` (`keras.ops.norm`): the 2-norm of vectors or Frobenius norm
    of matrices by default; vector `ord` any number or +-inf; matrix `ord` "fro", 1,
    -1, inf or -inf.

    Raises:
        ValueError: for matrix norms needing singular values (2, -2, "nuc") or an `axis`
            of more than two axes.
    """
    t = _core.as_float(x)
    axes: tuple[Any, ...] = (tuple(range(t.ndim)) if axis is None
                             else (axis,) if isinstance(axis, int) else tuple(axis))
    if axis is None and ord is None:
        return _linalg.norm(t, axis=None if not keepdims else list(axes), keepdims=keepdims)
    if len(axes) == 1:
        return _vector_norm(t, 2 if ord is None else ord, axes[0], keepdims)
    if len(axes) != 2:
        raise ValueError(f"norm: `axis` must be an int or a pair of ints. Received: axis={axis}")
    if ord in (None, "fro"):
        return _unary.sqrt(_reduce.reduce_sum(_unary.square(t), axis=list(axes),
                                              keepdims=keepdims))
    if ord not in (1, -1, np.inf, -np.inf):
        raise ValueError(f"norm: eagerflow has matrix norms 'fro', 1, -1, inf and -inf (no "
                         f"singular values for 2, -2, 'nuc'). Received: ord={ord!r}")
    rows, cols = (a % t.ndim for a in axes)
    inner, outer = (rows, cols) if ord in (1, -1) else (cols, rows)
    sums = _reduce.reduce_sum(_unary.abs(t), axis=inner, keepdims=True)
    pick = _reduce.reduce_max if ord in (1, np.inf) else _reduce.reduce_min
    result = pick(sums, axis=outer, keepdims=True)
    return result if keepdims else _array.squeeze(result, axis=[rows, cols])


def _vector_norm(t: Tensor, ord: Any, axis: int, keepdims: bool) -> Tensor:  # noqa: A002
    magnitude = _unary.abs(t)
    if ord == np.inf:
        return _reduce.reduce_max(magnitude, axis=axis, keepdims=keepdims)
    if ord == -np.inf:
        return _reduce.reduce_min(magnitude, axis=axis, keepdims=keepdims)
    if ord == 0:
        nonzero = _math.cast(_logic.not_equal(t, 0.0), t.dtype)
        return _reduce.reduce_sum(nonzero, axis=axis, keepdims=keepdims)
    power = float(ord)
    total = _reduce.reduce_sum(_math.pow(magnitude, power), axis=axis, keepdims=keepdims)
    return _math.pow(total, 1.0 / power)


def svd(x: TensorLike, full_matrices: bool = True, compute_uv: bool = True) -> Any:
    """The singular value decomposition ``x = u @ diag(s) @ vh``, NumPy's order ``(u, s,
    vh)``, or `s` alone (`keras.ops.svd`)."""
    result = _factorizations.svd(_core.as_float(x), full_matrices=full_matrices,
                                 compute_uv=compute_uv)
    if not compute_uv:
        return result
    s, u, v = result
    return u, s, _swap(v)


def qr(x: TensorLike, mode: str = "reduced") -> tuple[Tensor, Tensor]:
    """The QR factorization, `mode` "reduced" or "complete" (`keras.ops.qr`).

    Raises:
        ValueError: for another `mode`.
    """
    if mode not in ("reduced", "complete"):
        raise ValueError(f"`mode` must be 'reduced' or 'complete'. Received: mode={mode!r}")
    return _factorizations.qr(_core.as_float(x), full_matrices=mode == "complete")


def eigh(x: TensorLike) -> tuple[Tensor, Tensor]:
    """The ascending eigenvalues and the eigenvectors (columns) of symmetric matrices
    (`keras.ops.eigh`)."""
    return _factorizations.eigh(_core.as_float(x))


def lu_factor(x: TensorLike) -> tuple[Tensor, Tensor]:
    """The LU factorization with partial pivoting: ``(lu, pivots)`` as Keras's TensorFlow
    backend gives them (`keras.ops.lu_factor`): `lu` holds L below the diagonal and U, and
    ``pivots`` is the inverse of the row permutation of `ef.linalg.lu`. Not
    differentiable."""
    factors, perm = _factorizations.lu(_core.as_float(x))
    hot = _indexing.one_hot(perm, perm.shape[-1], dtype="int32")  # [i, j]: perm[i] == j
    return factors, _reduce.argmax(hot, axis=-2, output_type=np.int32)


def _rcond(x: Tensor, rcond: Any) -> Any:
    return max(x.shape[-2:]) * float(np.finfo(x.dtype).eps) if rcond is None else rcond


def pinv(x: TensorLike, rcond: Any = None) -> Tensor:
    """The Moore-Penrose pseudo-inverse; singular values at or below ``rcond * max(s)``
    (default ``max(M, N) * eps``, NumPy's) count as zero (`keras.ops.pinv`)."""
    x = _core.as_float(x)
    return _factorizations.pinv(x, rcond=_rcond(x, rcond))


def lstsq(a: TensorLike, b: TensorLike, rcond: Any = None) -> Tensor:
    """The least-squares (minimum-norm) solution of ``a @ x = b``, from the pseudo-inverse
    (`keras.ops.lstsq`); a 1-D `b` gives a 1-D solution.

    Raises:
        ValueError: for a non-matrix `a` or a `b` whose first axis does not match.
    """
    a = _core.as_float(a)
    b = _core.as_tensor(b, a.dtype)
    if a.ndim != 2 or b.ndim not in (1, 2) or b.shape[0] != a.shape[0]:
        raise ValueError(f"lstsq expects a of shape (M, N) and b of shape (M,) or (M, K). "
                         f"Received: a.shape={a.shape}, b.shape={b.shape}")
    column = b.ndim == 1
    solution = _linalg.matmul(pinv(a, rcond), _array.expand_dims(b, -1) if column else b)
    return solution[:, 0] if column else solution


def matrix_rank(x: TensorLike, tol: Any = None) -> Tensor:
    """The number of singular values above `tol` (default ``max(s) * max(M, N) * eps``),
    int32 (`keras.ops.matrix_rank`).

    Raises:
        ValueError: for an input of rank below 2.
    """
    x = _core.as_float(x)
    if x.ndim < 2:
        raise ValueError(f"Expected input to have rank >= 2. Received input with shape "
                         f"{x.shape}.")
    return _factorizations.matrix_rank(x, tol=tol)


__all__ = [
    "cholesky", "cholesky_inverse", "det", "eigh", "inv", "lstsq", "lu_factor", "matrix_rank",
    "norm",
    "pinv", "qr", "solve", "solve_triangular", "svd",
]


def __getattr__(name: str) -> Any:
    raise _keras_missing.missing("linalg", name)
