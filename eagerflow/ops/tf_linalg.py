"""TensorFlow's `tf.linalg` functions that are compositions of other ops: transposes
(`matrix_transpose`, `adjoint`), masks on the last two axes (`band_part`, `set_diag`),
`matvec`, `cross` and `cholesky_solve`, all differentiable.

Examples:
    >>> import eagerflow as ef
    >>> ef.linalg.band_part(ef.ones((3, 3)), 0, 1)
    ef.Tensor(
    [[1. 1. 0.]
     [0. 1. 1.]
     [0. 0. 1.]], shape=(3, 3), dtype=float32)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from eagerflow.core import errors
from eagerflow.ops import array_ops as _array
from eagerflow.ops import creation as _creation
from eagerflow.ops import decompositions as _decompositions
from eagerflow.ops import einsum_ops as _einsum
from eagerflow.ops import linalg_ops as _linalg
from eagerflow.ops import math as _math
from eagerflow.ops import reduce as _reduce
from eagerflow.ops.typing import Tensor, TensorLike


def _at_least_matrix(x: TensorLike, op_name: str) -> Tensor:
    x = _creation.convert_to_tensor(x)
    if x.ndim < 2:
        raise errors.InvalidArgumentError(
            f"input must be at least 2-D ([..., M, N]), got shape {x.shape}", op=op_name)
    return x


def matrix_transpose(a: TensorLike, name: str = "matrix_transpose",
                     conjugate: bool = False) -> Tensor:
    """Swaps the last two axes of `a` (a batch of matrices).

    Raises:
        InvalidArgumentError: for an input of rank below 2.

    Examples:
        >>> import eagerflow as ef
        >>> ef.linalg.matrix_transpose(ef.zeros((2, 3, 4))).shape
        (2, 4, 3)
    """
    a = _at_least_matrix(a, "MatrixTranspose")
    return _array.transpose(a, list(range(a.ndim - 2)) + [a.ndim - 1, a.ndim - 2])


def adjoint(matrix: TensorLike, name: str | None = None) -> Tensor:
    """The conjugate transpose of the last two axes; for real dtypes (eagerflow's only
    ones) the transpose.

    Raises:
        InvalidArgumentError: for an input of rank below 2.

    Examples:
        >>> import eagerflow as ef
        >>> ef.linalg.adjoint([[1.0, 2.0]])
        ef.Tensor(
        [[1.]
         [2.]], shape=(2, 1), dtype=float32)
    """
    return matrix_transpose(matrix)


def band_part(input: TensorLike, num_lower: int, num_upper: int,  # noqa: A002
              name: str | None = None) -> Tensor:
    """Keeps `num_lower` subdiagonals and `num_upper` superdiagonals of each matrix (a
    negative count keeps the whole triangle) and zeroes the rest.

    Raises:
        InvalidArgumentError: for an input of rank below 2.

    Examples:
        >>> import eagerflow as ef
        >>> ef.linalg.band_part(ef.ones((2, 2)), -1, 0)
        ef.Tensor(
        [[1. 0.]
         [1. 1.]], shape=(2, 2), dtype=float32)
    """
    x = _at_least_matrix(input, "MatrixBandPart")
    m, n = x.shape[-2:]
    offset = np.arange(n)[None, :] - np.arange(m)[:, None]  # column - row
    keep = np.ones((m, n), bool)
    if int(num_lower) >= 0:
        keep &= -offset <= int(num_lower)
    if int(num_upper) >= 0:
        keep &= offset <= int(num_upper)
    return _math.where(_creation.constant(keep), x, _creation.zeros_like(x))


def set_diag(input: TensorLike, diagonal: TensorLike, name: str = "set_diag",  # noqa: A002
             k: int = 0, align: str = "RIGHT_LEFT") -> Tensor:
    """`input` with its `k`-th diagonal (0 main, > 0 above, < 0 below) replaced by
    `diagonal`, of shape ``input.shape[:-2] + (length,)``.

    Raises:
        InvalidArgumentError: for a `diagonal` of the wrong shape, or an input of rank
            below 2.

    Examples:
        >>> import eagerflow as ef
        >>> ef.linalg.set_diag(ef.zeros((2, 2)), [1.0, 2.0])
        ef.Tensor(
        [[1. 0.]
         [0. 2.]], shape=(2, 2), dtype=float32)
    """
    x = _at_least_matrix(input, "MatrixSetDiag")
    m, n = x.shape[-2:]
    k = int(k)
    rows = np.arange(max(0, -k), min(m, n - k))
    length = rows.size
    diagonal = _math.cast(diagonal, x.dtype)
    if diagonal.shape != x.shape[:-2] + (length,):
        raise errors.InvalidArgumentError(
            f"diagonal must have shape {x.shape[:-2] + (length,)} for input shape {x.shape} "
            f"and k={k}, got {diagonal.shape}", op="MatrixSetDiag")
    place = np.zeros((length, m, n), x.dtype)  # place[i] puts entry i on the diagonal
    place[np.arange(length), rows, rows + k] = 1
    spread = _einsum.einsum("...l,lmn->...mn", diagonal, _creation.constant(place))
    return _math.where(_creation.constant(place.sum(0) > 0), spread, x)


def matvec(a: TensorLike, b: TensorLike, transpose_a: bool = False, adjoint_a: bool = False,
           a_is_sparse: bool = False, b_is_sparse: bool = False,
           name: str | None = None) -> Tensor:
    """The product of matrices `a` [..., M, N] and vectors `b` [..., N]: [..., M].

    Raises:
        InvalidArgumentError: for incompatible shapes.

    Examples:
        >>> import eagerflow as ef
        >>> ef.linalg.matvec([[1.0, 2.0], [3.0, 4.0]], [1.0, 1.0])
        ef.Tensor([3. 7.], shape=(2,), dtype=float32)
    """
    b = _array.expand_dims(_creation.convert_to_tensor(b), -1)
    product = _linalg.matmul(a, b, transpose_a=transpose_a or adjoint_a)
    return _array.squeeze(product, [-1])


def cross(a: TensorLike, b: TensorLike, name: str | None = None) -> Tensor:
    """The cross product of 3-vectors along the last axis (broadcast).

    Raises:
        InvalidArgumentError: when the last axis is not 3.

    Examples:
        >>> import eagerflow as ef
        >>> ef.linalg.cross([1.0, 0.0, 0.0], [0.0, 1.0, 0.0])
        ef.Tensor([0. 0. 1.], shape=(3,), dtype=float32)
    """
    a, b = _creation.convert_to_tensor(a), _creation.convert_to_tensor(b)
    if a.shape[-1:] != (3,) or b.shape[-1:] != (3,):
        raise errors.InvalidArgumentError(
            f"cross expects vectors of 3 entries on the last axis, got shapes {a.shape} "
            f"and {b.shape}", op="Cross")
    a0, a1, a2 = a[..., 0], a[..., 1], a[..., 2]
    b0, b1, b2 = b[..., 0], b[..., 1], b[..., 2]
    return _array.stack([
        _math.subtract(_math.multiply(a1, b2), _math.multiply(a2, b1)),
        _math.subtract(_math.multiply(a2, b0), _math.multiply(a0, b2)),
        _math.subtract(_math.multiply(a0, b1), _math.multiply(a1, b0)),
    ], axis=-1)


def cholesky_solve(chol: TensorLike, rhs: TensorLike, name: str | None = None) -> Tensor:
    """Solves ``A X = rhs`` given ``chol = cholesky(A)`` (lower triangular), by two
    triangular solves.

    Raises:
        InvalidArgumentError: for incompatible shapes.

    Examples:
        >>> import eagerflow as ef
        >>> ef.linalg.cholesky_solve([[2.0, 0.0], [0.0, 1.0]], [[4.0], [1.0]])
        ef.Tensor(
        [[1.]
         [1.]], shape=(2, 1), dtype=float32)
    """
    half = _decompositions.triangular_solve(chol, rhs, lower=True)
    return _decompositions.triangular_solve(chol, half, lower=True, adjoint=True)


def normalize(tensor: TensorLike, ord: Any = "euclidean", axis: Any = None,  # noqa: A002
              name: str | None = None) -> tuple[Tensor, Tensor]:
    """`tensor` divided by its norm along `axis`, and that norm (kept dims).

    Args:
        tensor: a floating-point tensor.
        ord, axis: as `ef.linalg.norm`.

    Returns:
        ``(normalized, norm)``.

    Examples:
        >>> import eagerflow as ef
        >>> unit, norm = ef.linalg.normalize([3.0, 4.0])
        >>> unit, norm
        (ef.Tensor([0.6 0.8], shape=(2,), dtype=float32), ef.Tensor([5.], shape=(1,), dtype=float32))
    """
    norm = _linalg.norm(tensor, ord=ord, axis=axis, keepdims=True)
    return _math.divide(tensor, norm), norm


def tensor_diag(diagonal: TensorLike, name: str | None = None) -> Tensor:
    """The tensor with `diagonal` on its diagonal: shape ``s + s`` for a `diagonal` of
    shape ``s``, ``out[i..., i...] = diagonal[i...]``.

    Examples:
        >>> import eagerflow as ef
        >>> ef.linalg.tensor_diag([1.0, 2.0])
        ef.Tensor(
        [[1. 0.]
         [0. 2.]], shape=(2, 2), dtype=float32)
    """
    diagonal = _creation.convert_to_tensor(diagonal)
    size = int(np.prod(diagonal.shape, dtype=np.int64))
    eye = _creation.constant(np.eye(size, dtype=diagonal.dtype))
    flat = _math.multiply(_array.reshape(diagonal, [size, 1]), eye)
    return _array.reshape(flat, diagonal.shape + diagonal.shape)


def tensor_diag_part(input: TensorLike, name: str | None = None) -> Tensor:  # noqa: A002
    """The diagonal of a tensor of shape ``s + s``: ``out[i...] = input[i..., i...]``.

    Raises:
        InvalidArgumentError: when the shape is not two equal halves.

    Examples:
        >>> import eagerflow as ef
        >>> ef.linalg.tensor_diag_part([[1.0, 5.0], [7.0, 2.0]])
        ef.Tensor([1. 2.], shape=(2,), dtype=float32)
    """
    x = _creation.convert_to_tensor(input)
    half = x.ndim // 2
    if x.ndim % 2 or x.shape[:half] != x.shape[half:]:
        raise errors.InvalidArgumentError(
            f"input must have shape s + s, got {x.shape}", op="DiagPart")
    size = int(np.prod(x.shape[:half], dtype=np.int64))
    eye = _creation.constant(np.eye(size, dtype=x.dtype))
    flat = _reduce.reduce_sum(_math.multiply(_array.reshape(x, [size, size]), eye), -1)
    return _array.reshape(flat, x.shape[:half])
