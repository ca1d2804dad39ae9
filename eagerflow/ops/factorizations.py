"""Matrix factorizations: SVD, QR, symmetric eigendecomposition and the log-determinant
with its sign, batched over leading axes, on NumPy's LAPACK routines, with TensorFlow's
gradients written in eagerflow ops (so they differentiate again):

* ``sign, l = slogdet(A)``: ``dA = dl * inv(A)^T``;
* ``e, V = eigh(A)`` (only the lower triangle is read): ``G = V (diag(de) + F o (V^T dV))
  V^T`` with ``F_ij = 1 / (e_j - e_i)`` off the diagonal, then folded onto the lower
  triangle (TensorFlow's rule); it needs distinct eigenvalues;
* ``Q, R = qr(A)`` for ``M >= N`` reduced or square matrices (TensorFlow's rule; other
  shapes raise `UnimplementedError` when differentiated);
* ``s, U, V = svd(A)`` reduced: Townsend's formula, ``dA = U [(F o (U^T dU - dU^T U)) S +
  diag(ds) + S (F o (V^T dV - dV^T V))] V^T + (I - U U^T) dU S^-1 V^T + U S^-1 dV^T (I -
  V V^T)`` with ``F_ij = 1 / (s_j^2 - s_i^2)``; it needs distinct non-zero singular values.
  Full matrices (`full_matrices=True` with a non-square input) raise `UnimplementedError`
  when differentiated, as in TensorFlow.

The sign conventions of the singular and eigenvectors are LAPACK's.

Examples:
    >>> import eagerflow as ef
    >>> ef.linalg.slogdet([[-2.0, 0.0], [0.0, 1.0]])
    (ef.Tensor(-1.0, shape=(), dtype=float32), ef.Tensor(0.6931, shape=(), dtype=float32))
    >>> ef.linalg.eigvalsh([[2.0, 1.0], [1.0, 2.0]])
    ef.Tensor([1. 3.], shape=(2,), dtype=float32)
"""

from __future__ import annotations

import numpy as np

from eagerflow.core import errors, forwardprop
from eagerflow.core.dispatch import convert_input, execute, primitive
from eagerflow.ops import array_ops as _array
from eagerflow.ops import creation as _creation
from eagerflow.ops import decompositions as _decompositions
from eagerflow.ops import indexing as _indexing
from eagerflow.ops import linalg_ops as _linalg
from eagerflow.ops import logic as _logic
from eagerflow.ops import math as _math
from eagerflow.ops import reduce as _reduce
from eagerflow.ops import unary as _unary
from eagerflow.ops.typing import Tensor, TensorLike


def _matrices(x: TensorLike, op_name: str, square: bool = True) -> Tensor:
    x = convert_input(x)
    if x.dtype.kind != "f":
        raise errors.InvalidArgumentError(
            f"input must be a floating-point tensor, got dtype {x.dtype.name}", op_name)
    if x.ndim < 2 or (square and x.shape[-1] != x.shape[-2]):
        kind = "square matrices [..., M, M]" if square else "matrices [..., M, N]"
        raise errors.InvalidArgumentError(
            f"input must be a (batch of) {kind}, got shape {x.shape}", op_name)
    return x


def _t(x: Tensor) -> Tensor:
    return _array.transpose(x, list(range(x.ndim - 2)) + [x.ndim - 1, x.ndim - 2])


def _mm(a: Tensor, b: Tensor, **kwargs) -> Tensor:
    return _linalg.matmul(a, b, **kwargs)


def _diag(v: Tensor) -> Tensor:
    """Batched diagonal matrices from vectors [..., N] -> [..., N, N]."""
    eye = _creation.constant(np.eye(v.shape[-1], dtype=v.dtype))
    return _math.multiply(_array.expand_dims(v, -1), eye)


def _gap_inverse(values: Tensor, squared: bool) -> Tensor:
    """``F_ij = 1 / (v_j - v_i)`` (of squares when `squared`) off the diagonal, 0 on it."""
    if squared:
        values = _unary.square(values)
    gaps = _math.subtract(_array.expand_dims(values, -2), _array.expand_dims(values, -1))
    off = _creation.constant(1.0 - np.eye(values.shape[-1], dtype=values.dtype))
    safe = _math.add(gaps, _math.subtract(1.0, off))  # 1 on the diagonal, never 0
    return _math.multiply(_math.divide(1.0, safe), off)


# -- log-determinant with sign ---------------------------------------------------------------
@primitive("LogMatrixDeterminant", num_outputs=2)
def _slogdet(a):
    sign, logabs = np.linalg.slogdet(a)
    return sign.astype(a.dtype), logabs.astype(a.dtype)


@_slogdet.gradient
def _slogdet_grad(dys, outs, a):
    # d log|det A| = tr(A^-1 dA), so dA = dl * A^-T; the sign is piecewise constant.
    dlog = _array.expand_dims(_array.expand_dims(dys[1], -1), -1)
    return _math.multiply(dlog, _t(_decompositions.inv(a)))


_slogdet.jvp(forwardprop.FROM_VJP)


def slogdet(input: TensorLike, name: str | None = None) -> tuple[Tensor, Tensor]:  # noqa: A002
    """The sign and the log of the absolute value of the determinant of square matrices.

    Returns:
        ``(sign, log_abs_determinant)``, each of shape ``input.shape[:-2]``; a singular
        matrix gives ``(0, -inf)``.

    Raises:
        InvalidArgumentError: for non-square or non-floating-point input.

    Examples:
        >>> import eagerflow as ef
        >>> sign, logdet = ef.linalg.slogdet([[0.0, 2.0], [3.0, 0.0]])
        >>> float(sign), round(float(logdet), 4)
        (-1.0, 1.7918)
    """
    a = _matrices(input, "LogMatrixDeterminant")
    return execute(_slogdet, (a,))


# -- symmetric eigendecomposition ------------------------------------------------------------
@primitive("SelfAdjointEigV2", num_outputs=2)
def _eigh(a):
    values, vectors = np.linalg.eigh(a, UPLO="L")
    return values.astype(a.dtype), vectors.astype(a.dtype)


@_eigh.gradient
def _eigh_grad(dys, outs, a):
    de, dv = dys
    e, v = outs
    inner = _math.multiply(_gap_inverse(e, squared=False), _mm(v, dv, transpose_a=True))
    grad = _mm(_mm(v, _math.add(_diag(de), inner)), v, transpose_b=True)
    # eigh reads the lower triangle only: fold G + G^T onto it, the diagonal once.
    n = a.shape[-1]
    lower = _creation.constant(np.tril(np.ones((n, n), a.dtype), -1))
    eye = _creation.constant(np.eye(n, dtype=a.dtype))
    return _math.add(_math.multiply(_math.add(grad, _t(grad)), lower),
                     _math.multiply(grad, eye))


_eigh.jvp(forwardprop.FROM_VJP)


def eigh(tensor: TensorLike, name: str | None = None) -> tuple[Tensor, Tensor]:
    """The eigenvalues (ascending) and eigenvectors (columns) of symmetric matrices; only
    the lower triangle is read.

    Raises:
        InvalidArgumentError: for non-square or non-floating-point input.

    Examples:
        >>> import eagerflow as ef
        >>> e, v = ef.linalg.eigh([[2.0, 0.0], [0.0, 1.0]])
        >>> e
        ef.Tensor([1. 2.], shape=(2,), dtype=float32)
    """
    return execute(_eigh, (_matrices(tensor, "SelfAdjointEigV2"),))


def eigvalsh(tensor: TensorLike, name: str | None = None) -> Tensor:
    """The eigenvalues (ascending) of symmetric matrices (lower triangle read).

    Raises:
        InvalidArgumentError: for non-square or non-floating-point input.

    Examples:
        >>> import eagerflow as ef
        >>> ef.linalg.eigvalsh([[2.0, 0.0], [0.0, 1.0]])
        ef.Tensor([1. 2.], shape=(2,), dtype=float32)
    """
    return eigh(tensor)[0]


# -- QR --------------------------------------------------------------------------------------
@primitive("Qr", num_outputs=2)
def _qr(a, full_matrices):
    q, r = np.linalg.qr(a, mode="complete" if full_matrices else "reduced")
    return q.astype(a.dtype), r.astype(a.dtype)


@_qr.gradient
def _qr_grad(dys, outs, a, full_matrices):
    m, n = a.shape[-2:]
    if m < n or (full_matrices and m != n):
        raise errors.UnimplementedError(
            f"QrGrad is implemented for reduced factorizations of matrices with M >= N "
            f"only, got shape {a.shape} with full_matrices={full_matrices}", op="Qr")
    dq, dr = dys
    q, r = outs
    qdq = _mm(q, dq, transpose_a=True)
    rdr = _mm(r, dr, transpose_b=True)
    lower = _creation.constant(np.tril(np.ones((n, n), a.dtype)))
    tril = _math.multiply(_math.add(_math.subtract(qdq, _t(qdq)),
                                    _math.subtract(rdr, _t(rdr))), lower)

    def times_r_inverse_t(x):  # x R^-T, by a triangular solve
        return _t(_decompositions.triangular_solve(r, _t(x), lower=False))

    grad_a = _mm(q, _math.add(dr, times_r_inverse_t(tril)))
    grad_b = times_r_inverse_t(_math.subtract(dq, _mm(q, qdq)))
    return _math.add(grad_a, grad_b)


_qr.jvp(forwardprop.FROM_VJP)


def qr(input: TensorLike, full_matrices: bool = False,  # noqa: A002
       name: str | None = None) -> tuple[Tensor, Tensor]:
    """The QR factorization ``A = Q R`` of (batches of) matrices.

    Args:
        input: matrices [..., M, N].
        full_matrices: whether Q is [..., M, M] (and R [..., M, N]) instead of the reduced
            [..., M, K] and [..., K, N] with ``K = min(M, N)``.

    Raises:
        InvalidArgumentError: for non-floating-point input of rank below 2.

    Examples:
        >>> import eagerflow as ef
        >>> q, r = ef.linalg.qr([[3.0, 0.0], [4.0, 1.0]])
        >>> ef.abs(r)
        ef.Tensor(
        [[5.  0.8]
         [0.  0.6]], shape=(2, 2), dtype=float32)
    """
    a = _matrices(input, "Qr", square=False)
    return execute(_qr, (a,), {"full_matrices": bool(full_matrices)})


# -- SVD -------------------------------------------------------------------------------------
@primitive("Svd", num_outputs=3)
def _svd(a, full_matrices):
    u, s, vh = np.linalg.svd(a, full_matrices=full_matrices)
    return s.astype(a.dtype), u.astype(a.dtype), np.swapaxes(vh, -1, -2).astype(a.dtype)


@_svd.gradient
def _svd_grad(dys, outs, a, full_matrices):
    m, n = a.shape[-2:]
    if full_matrices and m != n:
        raise errors.UnimplementedError(
            f"SvdGrad is not implemented for full_matrices=True with a non-square input "
            f"(shape {a.shape}); use full_matrices=False", op="Svd")
    ds, du, dv = dys
    s, u, v = outs
    f = _gap_inverse(s, squared=True)
    s_matrix, eye_k = _diag(s), _creation.constant(np.eye(s.shape[-1], dtype=a.dtype))
    utdu, vtdv = _mm(u, du, transpose_a=True), _mm(v, dv, transpose_a=True)
    core = _math.add(
        _math.add(_mm(_math.multiply(f, _math.subtract(utdu, _t(utdu))), s_matrix),
                  _math.multiply(_array.expand_dims(ds, -1), eye_k)),
        _mm(s_matrix, _math.multiply(f, _math.subtract(vtdv, _t(vtdv)))))
    grad = _mm(_mm(u, core), v, transpose_b=True)
    s_inverse = _diag(_math.divide(1.0, s))
    if m > n:  # (I - U U^T) dU S^-1 V^T
        rest = _math.subtract(du, _mm(u, utdu))
        grad = _math.add(grad, _mm(_mm(rest, s_inverse), v, transpose_b=True))
    if n > m:  # U S^-1 dV^T (I - V V^T)
        rest = _math.subtract(dv, _mm(v, vtdv))
        grad = _math.add(grad, _mm(_mm(u, s_inverse), rest, transpose_b=True))
    return grad


_svd.jvp(forwardprop.FROM_VJP)


def svd(tensor: TensorLike, full_matrices: bool = False, compute_uv: bool = True,
        name: str | None = None) -> Tensor | tuple[Tensor, Tensor, Tensor]:
    """The singular value decomposition ``A = U diag(s) V^T`` (TensorFlow's order).

    Args:
        tensor: matrices [..., M, N].
        full_matrices: whether U and V are square ([..., M, M], [..., N, N]) instead of
            [..., M, K] and [..., N, K] with ``K = min(M, N)``.
        compute_uv: whether to return U and V too.

    Returns:
        ``(s, u, v)`` with the singular values descending, or `s` alone.

    Raises:
        InvalidArgumentError: for non-floating-point input of rank below 2.

    Examples:
        >>> import eagerflow as ef
        >>> ef.linalg.svd([[3.0, 0.0], [0.0, -4.0]], compute_uv=False)
        ef.Tensor([4. 3.], shape=(2,), dtype=float32)
    """
    a = _matrices(tensor, "Svd", square=False)
    # The singular values do not depend on full_matrices: the reduced form differentiates.
    s, u, v = execute(_svd, (a,), {"full_matrices": bool(full_matrices) and compute_uv})
    return (s, u, v) if compute_uv else s


# -- built on the factorizations -------------------------------------------------------------
def matrix_rank(a: TensorLike, tol: TensorLike | None = None, validate_args: bool = False,
                name: str | None = None) -> Tensor:
    """The number of singular values above `tol` (default ``max(s) * max(M, N) * eps``),
    as int32.

    Raises:
        InvalidArgumentError: for non-floating-point input of rank below 2.

    Examples:
        >>> import eagerflow as ef
        >>> ef.linalg.matrix_rank([[1.0, 2.0], [2.0, 4.0]])
        ef.Tensor(1, shape=(), dtype=int32)
    """
    a = _matrices(a, "MatrixRank", square=False)
    s = svd(a, compute_uv=False)
    if tol is None:
        eps = float(max(a.shape[-2:]) * np.finfo(a.dtype).eps)
        tol = _math.multiply(_reduce.reduce_max(s, -1, keepdims=True), eps)
    above = _math.cast(_logic.greater(s, tol), "int32")
    return _reduce.reduce_sum(above, axis=-1)


def pinv(a: TensorLike, rcond: TensorLike | None = None, validate_args: bool = False,
         name: str | None = None) -> Tensor:
    """The Moore-Penrose pseudo-inverse, from the SVD: singular values at or below
    ``rcond * max(s)`` (default ``10 * max(M, N) * eps``) are treated as zero.

    Raises:
        InvalidArgumentError: for non-floating-point input of rank below 2.

    Examples:
        >>> import eagerflow as ef
        >>> ef.linalg.pinv([[2.0, 0.0], [0.0, 0.0]])
        ef.Tensor(
        [[0.5 0. ]
         [0.  0. ]], shape=(2, 2), dtype=float32)
    """
    a = _matrices(a, "Pinv", square=False)
    if rcond is None:
        rcond = 10.0 * max(a.shape[-2:]) * float(np.finfo(a.dtype).eps)
    s, u, v = svd(a)
    cutoff = _math.multiply(_reduce.reduce_max(s, -1, keepdims=True), rcond)
    keep = _logic.greater(s, cutoff)
    safe = _math.where(keep, s, _creation.ones_like(s))
    s_inverse = _math.where(keep, _math.divide(1.0, safe), _creation.zeros_like(s))
    return _mm(_math.multiply(v, _array.expand_dims(s_inverse, -2)), u, transpose_b=True)


def lstsq(matrix: TensorLike, rhs: TensorLike, l2_regularizer: float = 0.0, fast: bool = True,
          name: str | None = None) -> Tensor:
    """The least-squares solution X of ``matrix @ X = rhs`` (`tf.linalg.lstsq`), with an
    optional ridge term: ``X = (A^T A + l2 I)^-1 A^T B`` for ``M >= N`` (the normal
    equations, TensorFlow's `fast` path), the minimum-norm ``A^T (A A^T + l2 I)^-1 B``
    otherwise.

    Raises:
        InvalidArgumentError: for mismatched shapes or a rank-deficient matrix.

    Examples:
        >>> import eagerflow as ef
        >>> ef.linalg.lstsq([[1.0], [1.0]], [[1.0], [3.0]])
        ef.Tensor([[2.]], shape=(1, 1), dtype=float32)
    """
    a = _matrices(matrix, "MatrixSolveLs", square=False)
    b = convert_input(rhs)
    if b.ndim < 2 or b.shape[-2] != a.shape[-2]:
        raise errors.InvalidArgumentError(
            f"rhs must be matrices [..., M, K] with M = {a.shape[-2]}, got shape {b.shape}",
            op="MatrixSolveLs")
    m, n = a.shape[-2:]
    if m >= n:
        gram = _mm(a, a, transpose_a=True)
        eye = _creation.constant(np.eye(n, dtype=a.dtype))
        gram = _math.add(gram, _math.multiply(eye, l2_regularizer))
        return _decompositions.solve(gram, _mm(a, b, transpose_a=True))
    gram = _mm(a, a, transpose_b=True)
    eye = _creation.constant(np.eye(m, dtype=a.dtype))
    gram = _math.add(gram, _math.multiply(eye, l2_regularizer))
    return _mm(a, _decompositions.solve(gram, b), transpose_a=True)


# -- LU --------------------------------------------------------------------------------------
def lu_array(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """LU with partial pivoting of square matrices [..., N, N]: ``(lu, perm)`` with
    ``a[..., perm, :] = L @ U``, L unit lower triangular below the diagonal of `lu` and U
    on and above it (Doolittle; the largest remaining entry of each column pivots)."""
    n = a.shape[-1]
    lu = a.reshape(-1, n, n).astype(a.dtype, copy=True)
    perm = np.tile(np.arange(n, dtype=np.int32), (lu.shape[0], 1))
    rows = np.arange(lu.shape[0])
    for k in range(n):
        pivot = k + np.argmax(np.abs(lu[:, k:, k]), axis=1)
        lu[rows, k], lu[rows, pivot] = lu[rows, pivot], lu[rows, k].copy()
        perm[rows, k], perm[rows, pivot] = perm[rows, pivot], perm[rows, k].copy()
        head = lu[:, k, k][:, None]
        safe = np.where(head == 0, 1, head)  # a singular column: leave its zeros
        lu[:, k + 1:, k] = np.where(head == 0, 0, lu[:, k + 1:, k] / safe)
        lu[:, k + 1:, k + 1:] -= lu[:, k + 1:, k:k + 1] * lu[:, k:k + 1, k + 1:]
    return lu.reshape(a.shape), perm.reshape(a.shape[:-1])


@primitive("Lu", num_outputs=2)
def _lu(a, output_idx_type):
    lu, perm = lu_array(a)
    return lu, perm.astype(output_idx_type)


@_lu.gradient
def _lu_grad(dys, outs, a, output_idx_type):
    raise errors.UnimplementedError(
        "Lu has no gradient (as in TensorFlow); differentiate through ef.linalg.solve, "
        "inv or det instead, or through lu_solve with the factors held constant", op="Lu")


@_lu.jvp
def _lu_jvp(tangents, outs, a, output_idx_type):
    return _lu_grad(None, outs, a, output_idx_type)


def lu(input: TensorLike, output_idx_type: object = "int32",  # noqa: A002
       name: str | None = None) -> tuple[Tensor, Tensor]:
    """The LU factorization with partial pivoting of square matrices: ``(lower_upper,
    perm)`` with ``input[..., perm, :] = L @ U`` (L's unit diagonal left out of
    `lower_upper`). Not differentiable, as in TensorFlow.

    Raises:
        InvalidArgumentError: for non-square or non-floating-point input.

    Examples:
        >>> import eagerflow as ef
        >>> lower_upper, perm = ef.linalg.lu([[1.0, 2.0], [4.0, 4.0]])
        >>> perm
        ef.Tensor([1 0], shape=(2,), dtype=int32)
    """
    a = _matrices(input, "Lu")
    return execute(_lu, (a,), {"output_idx_type": np.dtype(str(output_idx_type))})


def _permuted_rows(rhs: Tensor, perm: Tensor) -> Tensor:
    return _indexing.gather(rhs, perm, axis=-2, batch_dims=perm.ndim - 1)


def lu_solve(lower_upper: TensorLike, perm: TensorLike, rhs: TensorLike,
             validate_args: bool = False, name: str | None = None) -> Tensor:
    """Solves ``A X = rhs`` from `lu`'s factors of A, by two triangular solves
    (differentiable in `lower_upper` and `rhs`).

    Raises:
        InvalidArgumentError: for incompatible shapes.

    Examples:
        >>> import eagerflow as ef
        >>> lower_upper, perm = ef.linalg.lu([[2.0, 0.0], [0.0, 4.0]])
        >>> ef.linalg.lu_solve(lower_upper, perm, [[2.0], [2.0]])
        ef.Tensor(
        [[1. ]
         [0.5]], shape=(2, 1), dtype=float32)
    """
    factors = _matrices(lower_upper, "LuSolve")
    n = factors.shape[-1]
    unit = _creation.constant(np.eye(n, dtype=factors.dtype))
    strict = _creation.constant(np.tril(np.ones((n, n), factors.dtype), -1))
    lower = _math.add(_math.multiply(factors, strict), unit)
    permuted = _permuted_rows(_math.cast(rhs, factors.dtype), convert_input(perm))
    half = _decompositions.triangular_solve(lower, permuted, lower=True)
    return _decompositions.triangular_solve(factors, half, lower=False)


def lu_reconstruct(lower_upper: TensorLike, perm: TensorLike, validate_args: bool = False,
                   name: str | None = None) -> Tensor:
    """The matrix A whose `lu` factors these are: ``L @ U`` with its rows put back.

    Examples:
        >>> import eagerflow as ef
        >>> ef.linalg.lu_reconstruct(*ef.linalg.lu([[1.0, 2.0], [4.0, 4.0]]))
        ef.Tensor(
        [[1. 2.]
         [4. 4.]], shape=(2, 2), dtype=float32)
    """
    factors = _matrices(lower_upper, "LuReconstruct")
    n = factors.shape[-1]
    strict = _creation.constant(np.tril(np.ones((n, n), factors.dtype), -1))
    upper = _creation.constant(np.triu(np.ones((n, n), factors.dtype)))
    lower = _math.add(_math.multiply(factors, strict),
                      _creation.constant(np.eye(n, dtype=factors.dtype)))
    product = _mm(lower, _math.multiply(factors, upper))
    # inverse[j] = i where perm[i] == j: the row of each one-hot column
    hot = _indexing.one_hot(convert_input(perm), n, dtype="int32")
    inverse = _reduce.argmax(hot, axis=-2, output_type=np.int32)
    return _permuted_rows(product, inverse)


def lu_matrix_inverse(lower_upper: TensorLike, perm: TensorLike, validate_args: bool = False,
                      name: str | None = None) -> Tensor:
    """The inverse of the matrix A from its `lu` factors.

    Examples:
        >>> import eagerflow as ef
        >>> ef.linalg.lu_matrix_inverse(*ef.linalg.lu([[2.0, 0.0], [0.0, 4.0]]))
        ef.Tensor(
        [[0.5  0.  ]
         [0.   0.25]], shape=(2, 2), dtype=float32)
    """
    factors = _matrices(lower_upper, "LuMatrixInverse")
    eye = _creation.constant(np.broadcast_to(np.eye(factors.shape[-1], dtype=factors.dtype),
                                             factors.shape).copy())
    return lu_solve(factors, perm, eye)
