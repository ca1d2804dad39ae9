"""Matrix inverse, determinant, linear solves and Cholesky, batched, with gradients.

All work on the last two axes (leading axes are a batch) on top of NumPy's LAPACK
routines, and their gradients are written with matmuls and these same ops:

* ``Y = inv(A)``: ``dA = -Y^T dY Y^T``;
* ``d = det(A)``: ``dA = dd * d * inv(A)^T`` (so it needs an invertible ``A``, like TF);
* ``X = solve(A, B)``: ``dB = solve(A^T, dX)``, ``dA = -dB X^T``;
* ``X = triangular_solve(L, B)``: the same with triangular solves, masked to the triangle
  that is read;
* ``L = cholesky(A)``: ``dA = sym(L^-T Phi(L^T dL) L^-1)`` where ``Phi`` keeps the lower
  triangle with a halved diagonal (Murray, 2016). The input is treated as symmetric, so
  the gradient is symmetric, as in TensorFlow and JAX.

Examples:
    >>> import eagerflow as ef
    >>> ef.linalg.det([[2.0, 0.0], [0.0, 3.0]])
    ef.Tensor(6.0, shape=(), dtype=float32)
    >>> ef.linalg.solve([[2.0, 0.0], [0.0, 4.0]], [[2.0], [2.0]])
    ef.Tensor(
    [[1. ]
     [0.5]], shape=(2, 1), dtype=float32)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from eagerflow.core import errors, forwardprop
from eagerflow.core.dispatch import convert_input, execute, primitive
from eagerflow.ops import array_ops as _array
from eagerflow.ops import creation as _creation
from eagerflow.ops import einsum_ops as _einsum
from eagerflow.ops import linalg_ops as _linalg
from eagerflow.ops import math as _math
from eagerflow.ops import reduce as _reduce
from eagerflow.ops import unary as _unary
from eagerflow.ops.typing import Tensor, TensorLike


def _matrices(x, op_name, what="input"):
    x = convert_input(x)
    if x.dtype.kind != "f":
        raise errors.InvalidArgumentError(
            f"{what} must be a floating-point tensor, got dtype {x.dtype.name}", op_name
        )
    if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        raise errors.InvalidArgumentError(
            f"{what} must be a (batch of) square matrices [..., M, M], got shape {x.shape}",
            op_name,
        )
    return x


def _swap(x):
    return _array.transpose(x, list(range(x.ndim - 2)) + [x.ndim - 1, x.ndim - 2])


def _triangle_mask(n, dtype, lower, diagonal=1.0):
    mask = np.tril(np.ones((n, n), dtype)) if lower else np.triu(np.ones((n, n), dtype))
    np.fill_diagonal(mask, diagonal)
    return _creation.constant(mask)


def _lapack(fn, message):
    try:
        return fn()
    except np.linalg.LinAlgError:
        raise errors.InvalidArgumentError(message) from None


# -- inverse and determinant --------------------------------------------------------------
@primitive("MatrixInverse")
def _inv(a):
    return _lapack(lambda: np.linalg.inv(a),
                   f"Input is not invertible: a matrix of the batch of shape {a.shape} is "
                   "singular")


@_inv.gradient
def _inv_grad(dy, y, a):
    return _unary.negative(_linalg.matmul(_linalg.matmul(y, dy, transpose_a=True), y,
                                         transpose_b=True))


@_inv.jvp
def _inv_jvp(tangents, y, a):
    # d(A^-1) = -A^-1 dA A^-1
    return _unary.negative(_linalg.matmul(_linalg.matmul(y, tangents[0]), y))


def inv(input: TensorLike, adjoint: bool = False,
        name: str | None = None) -> Tensor:  # noqa: A002 - TensorFlow's name
    """Inverse of each square matrix in the last two axes.

    Args:
        input: ``[..., M, M]`` floating-point tensor.
        adjoint: invert the (conjugate) transpose instead.

    Returns:
        ``[..., M, M]`` inverses.

    Raises:
        InvalidArgumentError: for non-square or singular matrices.

    Examples:
        >>> import eagerflow as ef
        >>> ef.linalg.inv([[2.0, 0.0], [0.0, 4.0]])
        ef.Tensor(
        [[0.5  0.  ]
         [0.   0.25]], shape=(2, 2), dtype=float32)
    """
    a = _matrices(input, "MatrixInverse")
    return execute(_inv, (_swap(a) if adjoint else a,))


@primitive("MatrixDeterminant")
def _det(a):
    return np.asarray(np.linalg.det(a))


_det.jvp(forwardprop.FROM_VJP)  # JVP: the transposed gradient rule


@_det.gradient
def _det_grad(dy, d, a):
    scale = _array.reshape(_math.multiply(dy, d), tuple(d.shape) + (1, 1))
    return _math.multiply(scale, _swap(inv(a)))


def det(input: TensorLike, name: str | None = None) -> Tensor:  # noqa: A002 - TensorFlow's name
    """Determinant of each square matrix in the last two axes.

    Args:
        input: ``[..., M, M]`` floating-point tensor.

    Returns:
        ``[...]`` determinants; the gradient needs invertible matrices.

    Raises:
        InvalidArgumentError: for non-square matrices.

    Examples:
        >>> import eagerflow as ef
        >>> ef.linalg.det([[[1.0, 2.0], [3.0, 4.0]]])
        ef.Tensor([-2.], shape=(1,), dtype=float32)
    """
    return execute(_det, (_matrices(input, "MatrixDeterminant"),))


def logdet(matrix: TensorLike, name: str | None = None) -> Tensor:
    """``log(det(matrix))`` of Hermitian positive-definite matrices, via Cholesky.

    Computed as ``2 * sum(log(diag(cholesky(matrix))))``, which neither overflows nor
    underflows where ``det`` would.

    Args:
        matrix: ``[..., M, M]`` symmetric positive-definite matrices.

    Returns:
        ``[...]`` log-determinants.

    Raises:
        InvalidArgumentError: for non-square or non-positive-definite matrices.

    Examples:
        >>> import eagerflow as ef
        >>> ef.linalg.logdet([[1e30, 0.0], [0.0, 1e30]])
        ef.Tensor(138.1551, shape=(), dtype=float32)
    """
    diagonal = diag_part(cholesky(matrix))
    return _math.multiply(_reduce.reduce_sum(_unary.log(diagonal), -1), 2.0)


def diag(diagonal: TensorLike, name: str | None = None, k: int = 0, num_rows: int = -1,
         num_cols: int = -1, padding_value: Any = 0, align: str = "RIGHT_LEFT") -> Tensor:
    """Matrices with `diagonal` on their `k`-th diagonal, as ``tf.linalg.diag``:
    ``[..., N] -> [..., num_rows, num_cols]``, the rest `padding_value`.

    Args:
        diagonal: a tensor of rank >= 1 (one diagonal per matrix).
        k: the diagonal: 0 the main one, > 0 above it, < 0 below it.
        num_rows, num_cols: the matrices' size; -1 for the smallest that holds the
            diagonal (both -1: a square of side ``N + |k|``).
        padding_value: the value off the diagonal.
        align: accepted for TensorFlow compatibility (it only matters for several
            diagonals, which eagerflow does not take).

    Raises:
        InvalidArgumentError: for a scalar, a non-integer `k`, or sizes that cannot hold the
            diagonal or leave part of it out.

    Examples:
        >>> import eagerflow as ef
        >>> ef.linalg.diag([1.0, 2.0]).numpy().tolist()
        [[1.0, 0.0], [0.0, 2.0]]
        >>> ef.linalg.diag([1.0, 2.0], k=-1, num_rows=4, padding_value=9).numpy().tolist()
        [[9.0, 9.0], [1.0, 9.0], [9.0, 2.0], [9.0, 9.0]]
    """
    del name, align
    x = convert_input(diagonal)
    if x.ndim < 1:
        raise errors.InvalidArgumentError(
            f"diagonal must be at least 1-dim, received shape: {list(x.shape)}", "MatrixDiagV3")
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
        raise errors.InvalidArgumentError(
            f"k must be one int (one diagonal), got {k!r}", "MatrixDiagV3")
    k, count = int(k), x.shape[-1]
    least_rows, least_cols = count + max(-k, 0), count + max(k, 0)
    rows, cols = int(num_rows), int(num_cols)
    if rows == -1 and cols == -1:
        rows = cols = max(least_rows, least_cols)
    rows = least_rows if rows == -1 else rows
    cols = least_cols if cols == -1 else cols
    if rows < least_rows or cols < least_cols:
        raise errors.InvalidArgumentError(
            f"The number of {'rows' if rows < least_rows else 'columns'} is too small: a "
            f"diagonal of {count} values at k={k} needs at least {least_rows} x {least_cols} "
            f"matrices, got {rows} x {cols}", "MatrixDiagV3")
    if count != min(rows - max(-k, 0), cols - max(k, 0)):
        raise errors.InvalidArgumentError(
            f"a {rows} x {cols} matrix has a diagonal of "
            f"{min(rows - max(-k, 0), cols - max(k, 0))} values at k={k}; the given diagonal "
            f"has {count}: the sizes are not consistent with the diagonal", "MatrixDiagV3")
    # Placement as data: value n goes to (n + max(-k, 0), n + max(k, 0)).
    place = np.zeros((count, rows, cols), x.dtype)
    index = np.arange(count)
    place[index, index + max(-k, 0), index + max(k, 0)] = 1
    out = _einsum.einsum("...n,nrc->...rc", x, place)
    if padding_value is not None and np.any(np.asarray(padding_value) != 0):
        off = (1 - place.sum(0)).astype(x.dtype)
        out = _math.add(out, _math.multiply(
            _math.cast(convert_input(padding_value), x.dtype), off))
    return out


def diag_part(input: TensorLike,
              name: str | None = None) -> Tensor:  # noqa: A002 - TensorFlow's name
    """The main diagonal of each matrix in the last two axes: ``[..., M, N] -> [..., min]``.

    Args:
        input: a tensor of rank >= 2.

    Returns:
        ``[..., min(M, N)]``.

    Raises:
        InvalidArgumentError: for a tensor of rank < 2.

    Examples:
        >>> import eagerflow as ef
        >>> ef.linalg.diag_part([[1.0, 2.0], [3.0, 4.0]])
        ef.Tensor([1. 4.], shape=(2,), dtype=float32)
    """
    x = convert_input(input)
    if x.ndim < 2:
        raise errors.InvalidArgumentError(
            f"input must have rank >= 2, got shape {x.shape}", "MatrixDiagPart"
        )
    rows, cols = x.shape[-2:]
    if rows != cols:
        x = x[..., :min(rows, cols), :min(rows, cols)]
    return _einsum.einsum("...ii->...i", x)


def trace(x: TensorLike, name: str | None = None) -> Tensor:
    """Sum of the main diagonal of each matrix in the last two axes.

    Args:
        x: a tensor of rank >= 2.

    Returns:
        ``[...]`` traces.

    Raises:
        InvalidArgumentError: for a tensor of rank < 2.

    Examples:
        >>> import eagerflow as ef
        >>> ef.linalg.trace([[1.0, 2.0], [3.0, 4.0]])
        ef.Tensor(5.0, shape=(), dtype=float32)
    """
    return _reduce.reduce_sum(diag_part(x), -1)


# -- linear solves ------------------------------------------------------------------------
def _check_rhs(a, b, op_name):
    if b.dtype != a.dtype or b.ndim < 2 or b.shape[-2] != a.shape[-1]:
        raise errors.InvalidArgumentError(
            f"rhs must be [..., M, K] with the matrix's dtype and M = {a.shape[-1]}; got "
            f"matrix {a.dtype.name}{list(a.shape)} and rhs {b.dtype.name}{list(b.shape)}",
            op_name,
        )


@primitive("MatrixSolve")
def _solve(a, b, adjoint):
    matrix = np.swapaxes(a, -1, -2) if adjoint else a
    return _lapack(lambda: np.linalg.solve(matrix, b),
                   f"Input matrix is not invertible: a matrix of the batch of shape {a.shape} "
                   "is singular")


_solve.jvp(forwardprop.FROM_VJP)  # JVP: the transposed gradient rule


@_solve.gradient
def _solve_grad(dy, x, a, b, needs, adjoint):
    db = execute(_solve, (a, dy), {"adjoint": not adjoint})
    da = None
    if needs[0]:
        da = _unary.negative(_linalg.matmul(x, db, transpose_b=True) if adjoint
                            else _linalg.matmul(db, x, transpose_b=True))
    return da, db


def solve(matrix: TensorLike, rhs: TensorLike, adjoint: bool = False,
          name: str | None = None) -> Tensor:
    """Solves ``matrix @ X = rhs`` for each matrix in the batch.

    Args:
        matrix: ``[..., M, M]``.
        rhs: ``[..., M, K]``, same dtype.
        adjoint: solve with the transposed matrix instead.

    Returns:
        ``X``, ``[..., M, K]``.

    Raises:
        InvalidArgumentError: for mismatched shapes or dtypes, or a singular matrix.

    Examples:
        >>> import eagerflow as ef
        >>> ef.linalg.solve([[1.0, 1.0], [0.0, 2.0]], [[3.0], [2.0]], adjoint=True)
        ef.Tensor(
        [[ 3. ]
         [-0.5]], shape=(2, 1), dtype=float32)
    """
    a = _matrices(matrix, "MatrixSolve", "matrix")
    b = convert_input(rhs)
    _check_rhs(a, b, "MatrixSolve")
    return execute(_solve, (a, b), {"adjoint": bool(adjoint)})


@primitive("MatrixTriangularSolve")
def _triangular_solve(a, b, lower, adjoint):
    triangle = np.tril(a) if lower else np.triu(a)
    if adjoint:
        triangle = np.swapaxes(triangle, -1, -2)
    # NumPy has no triangular solver; LAPACK's general solve on the triangle is exact too.
    return _lapack(lambda: np.linalg.solve(triangle, b),
                   f"Input matrix is singular: a triangle of the batch of shape {a.shape} has "
                   "a zero on its diagonal")


_triangular_solve.jvp(forwardprop.FROM_VJP)  # JVP: the transposed gradient rule


@_triangular_solve.gradient
def _triangular_solve_grad(dy, x, a, b, needs, lower, adjoint):
    db = execute(_triangular_solve, (a, dy), {"lower": lower, "adjoint": not adjoint})
    da = None
    if needs[0]:
        outer = (_linalg.matmul(x, db, transpose_b=True) if adjoint
                 else _linalg.matmul(db, x, transpose_b=True))
        # Only the triangle the forward read gets a gradient.
        da = _unary.negative(_math.multiply(outer, _triangle_mask(a.shape[-1], a.dtype, lower)))
    return da, db


def triangular_solve(matrix: TensorLike, rhs: TensorLike, lower: bool = True,
                     adjoint: bool = False, name: str | None = None) -> Tensor:
    """Solves ``matrix @ X = rhs`` where `matrix` is triangular (its other half is ignored).

    Args:
        matrix: ``[..., M, M]``; only the lower (or upper) triangle is read.
        rhs: ``[..., M, K]``.
        lower: whether `matrix` is lower triangular.
        adjoint: solve with the transposed triangle instead.

    Returns:
        ``X``, ``[..., M, K]``.

    Raises:
        InvalidArgumentError: for mismatched shapes or a zero on the diagonal.

    Examples:
        >>> import eagerflow as ef
        >>> ef.linalg.triangular_solve([[2.0, 99.0], [1.0, 1.0]], [[2.0], [3.0]])
        ef.Tensor(
        [[1.]
         [2.]], shape=(2, 1), dtype=float32)
    """
    a = _matrices(matrix, "MatrixTriangularSolve", "matrix")
    b = convert_input(rhs)
    _check_rhs(a, b, "MatrixTriangularSolve")
    return execute(_triangular_solve, (a, b), {"lower": bool(lower), "adjoint": bool(adjoint)})


# -- Cholesky -----------------------------------------------------------------------------
@primitive("Cholesky")
def _cholesky(a):
    return _lapack(lambda: np.linalg.cholesky(a),
                   "Cholesky decomposition was not successful. The input might not be valid: "
                   f"a matrix of the batch of shape {a.shape} is not positive definite")


_cholesky.jvp(forwardprop.FROM_VJP)  # JVP: the transposed gradient rule


@_cholesky.gradient
def _cholesky_grad(dl, l_factor, a):
    n = a.shape[-1]
    eye = _array.broadcast_to(_creation.eye(n, dtype=a.dtype), l_factor.shape)
    l_inverse = triangular_solve(l_factor, eye, lower=True)
    middle = _linalg.matmul(l_factor, dl, transpose_a=True)
    middle = _math.multiply(middle, _triangle_mask(n, a.dtype, lower=True, diagonal=0.5))
    grad = _linalg.matmul(_linalg.matmul(l_inverse, middle, transpose_a=True), l_inverse)
    return _math.multiply(_math.add(grad, _swap(grad)), 0.5)


def cholesky(input: TensorLike,
             name: str | None = None) -> Tensor:  # noqa: A002 - TensorFlow's name
    """Lower-triangular ``L`` with ``L @ L^T = input``, for symmetric positive-definite input.

    Only the lower triangle of `input` is read. The gradient treats the input as symmetric
    (it is symmetric itself), as in TensorFlow.

    Args:
        input: ``[..., M, M]`` symmetric positive-definite matrices.

    Returns:
        ``[..., M, M]`` lower-triangular factors.

    Raises:
        InvalidArgumentError: for non-square or non-positive-definite matrices.

    Examples:
        >>> import eagerflow as ef
        >>> ef.linalg.cholesky([[4.0, 2.0], [2.0, 2.0]])
        ef.Tensor(
        [[2. 0.]
         [1. 1.]], shape=(2, 2), dtype=float32)
    """
    return execute(_cholesky, (_matrices(input, "Cholesky"),))
