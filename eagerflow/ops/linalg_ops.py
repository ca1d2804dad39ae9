"""Matrix products, norms and norm clipping.

Examples:
    >>> import eagerflow as ef
    >>> ef.matmul([[2.0]], [[2.0]])
    ef.Tensor([[4.]], shape=(1, 1), dtype=float32)
    >>> ef.norm([3.0, 4.0])
    ef.Tensor(5.0, shape=(), dtype=float32)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, cast

import numpy as np

from eagerflow.core import errors, forwardprop
from eagerflow.core.dispatch import convert_input, execute, primitive
from eagerflow.ops import array_ops as _array
from eagerflow.ops import logic as _logic
from eagerflow.ops import math as _math
from eagerflow.ops import reduce as _reduce
from eagerflow.ops import unary as _unary
from eagerflow.ops.kernels import extrema, kernel_sets
from eagerflow.ops.typing import AxisLike, Tensor, TensorLike


def _swap(x):
    return np.swapaxes(x, -1, -2)


_np_matmul = np.matmul


@primitive("BatchMatMulV2", fresh=True, promotes=True, returns_array=True)
def _matmul(a, b, transpose_a=False, transpose_b=False, out=None):
    if transpose_a:
        a = _swap(a)
    if transpose_b:
        b = _swap(b)
    try:
        out = _np_matmul(a, b) if out is None else _np_matmul(a, b, out=out)
    except ValueError:
        out = None
    # Rank-1 operands give a result of rank < 2 (NumPy's vector rules); TensorFlow's
    # matmul rejects them, and checking the result costs one attribute read.
    if out is None or out.ndim < 2:
        if a.ndim < 2 or b.ndim < 2:
            raise errors.InvalidArgumentError(
                f"In[0] and In[1] must have rank >= 2, got shapes {a.shape} and {b.shape}"
            )
        raise errors.InvalidArgumentError(
            f"Matrix size-incompatible: In[0]: {list(a.shape)}, In[1]: {list(b.shape)}"
        )
    return out


_matmul.jvp(forwardprop.MULTILINEAR)  # JVP: linear in each input: one term per input


@_matmul.gradient
def _matmul_grad(dy, out, a, b, needs, transpose_a=False, transpose_b=False):
    # For C = A B: dA = dC B^T and dB = A^T dC; transposed operands swap roles.
    da = db = None
    if not transpose_a and not transpose_b:
        da = matmul(dy, b, transpose_b=True) if needs[0] else None
        db = matmul(a, dy, transpose_a=True) if needs[1] else None
    elif not transpose_a:
        da = matmul(dy, b) if needs[0] else None
        db = matmul(dy, a, transpose_a=True) if needs[1] else None
    elif not transpose_b:
        da = matmul(b, dy, transpose_b=True) if needs[0] else None
        db = matmul(a, dy) if needs[1] else None
    else:
        da = matmul(b, dy, transpose_a=True, transpose_b=True) if needs[0] else None
        db = matmul(dy, a, transpose_a=True, transpose_b=True) if needs[1] else None
    return da, db


# The numba set runs small products on one BLAS thread (`ops/kernels/matmul_jit.py`).
kernel_sets.register("BatchMatMulV2", forward="eagerflow.ops.kernels.matmul_jit:matmul")


# -- a dense layer's product, bias and relu in one op (`graph/passes/matmul_bias.py`) ------
@primitive("MatMulBias", fresh=True, returns_array=True)
def _matmul_bias(a, b, bias, transpose_a=False, transpose_b=False, relu=False, out=None):
    # op(a) @ op(b) + bias for 2-D a and b, each row added the bias (any shape of the row's
    # size, read flat), then max(., 0) if `relu`: bitwise the three ops, in place.
    out = kernel_sets.numpy_forward("BatchMatMulV2")(a, b, transpose_a, transpose_b, out)
    if out.ndim != 2 or bias.size != out.shape[1]:
        raise errors.InvalidArgumentError(
            f"MatMulBias: expected 2-D operands and a bias of the product's row size, got "
            f"shapes {a.shape}, {b.shape} and bias {bias.shape}")
    return extrema.add_rows_then_relu(out, bias, relu)


_matmul_bias.jvp(forwardprop.FROM_VJP)  # JVP: the transposed gradient rule


@_matmul_bias.gradient
def _matmul_bias_grad(dy, out, a, b, bias, needs, transpose_a=False, transpose_b=False,
                      relu=False):
    if relu:
        dy = _math.multiply(dy, _logic.greater(out, 0))
    da, db = _matmul_grad(dy, None, a, b, needs[:2], transpose_a, transpose_b)
    dbias = _array.reshape(_reduce.reduce_sum(dy, axis=0), bias.shape) if needs[2] else None
    return da, db, dbias


kernel_sets.register("MatMulBias", forward="eagerflow.ops.kernels.matmul_jit:matmul_bias")


# -- and its gradient's weight and bias parts in one op (`graph/passes/matmul_bias.py`) -----
@primitive("MatMulSum", num_outputs=2, differentiable=False, fresh=True)
def _matmul_sum(a, b, d, axis):
    # (a^T @ b, the sum of d over `axis`): a dense layer's kernel gradient (a: its input
    # rows, b: the output gradient's rows) and bias gradient (d: the output gradient, b
    # its rows as a 2-D view), as the BatchMatMulV2 and Sum ops it replaces give them.
    product = kernel_sets.numpy_forward("BatchMatMulV2")(a, b, True, False)
    return product, kernel_sets.numpy_forward("Sum")(d, axis)


# The numba set computes the sum in the product's parts (`ops/kernels/matmul_jit.py`).
kernel_sets.register("MatMulSum", forward="eagerflow.ops.kernels.matmul_jit:matmul_sum")


_NO_TRANSPOSE: dict = {}


def matmul(a: TensorLike, b: TensorLike, transpose_a: bool = False, transpose_b: bool = False,
           adjoint_a: bool = False, adjoint_b: bool = False, name: str | None = None) -> Tensor:
    """Multiplies matrices (or batches of matrices, with broadcasting batch dimensions).

    Args:
        a, b: tensors of rank >= 2 whose inner dimensions agree.
        transpose_a, transpose_b: transpose the last two axes of an operand first.
        adjoint_a, adjoint_b: same as transposing, for real tensors.

    Raises:
        InvalidArgumentError: naming both shapes when the inner dimensions differ.

    Examples:
        >>> import eagerflow as ef
        >>> ef.matmul([[1.0, 2.0]], [[3.0], [4.0]])
        ef.Tensor([[11.]], shape=(1, 1), dtype=float32)
        >>> ef.matmul(ef.ones([2, 3]), ef.ones([4, 5]))  # doctest: +ELLIPSIS
        Traceback (most recent call last):
          ...
        eagerflow.core.errors.InvalidArgumentError: Matrix size-incompatible: In[0]: [2, 3], ...
    """
    transpose_a = transpose_a or adjoint_a
    transpose_b = transpose_b or adjoint_b
    if not transpose_a and not transpose_b:
        return execute(_matmul, (a, b), _NO_TRANSPOSE)
    return execute(_matmul, (a, b), {"transpose_a": bool(transpose_a),
                                     "transpose_b": bool(transpose_b)})


def matmul_bias(a: TensorLike, b: TensorLike, bias: TensorLike, transpose_a: bool = False,
                transpose_b: bool = False, relu: bool = False,
                name: str | None = None) -> Tensor:
    """``op(a) @ op(b) + bias`` (then ``relu`` if asked) in one op: the fused form of a
    dense layer's product, bias add and relu.

    Bit for bit the ops it replaces (the same IEEE additions, and relu as ``maximum(x, 0)``:
    NaN kept, -0.0 to 0.0). `ef.function` rewrites that chain into this op (see
    `graph/passes/matmul_bias.py`); the numba kernel set adds the bias and clamps in each
    thread's rows of the product while they are in cache.

    Args:
        a, b: 2-D floats of one dtype whose inner dimensions agree.
        bias: one value per column of the product (any shape of that size, read flat), the
            dtype of `a`.
        transpose_a, transpose_b: transpose an operand first.
        relu: clamp the sums at 0.

    Raises:
        InvalidArgumentError: for operands that are not 2-D floats of one dtype, or a bias
            of another size or dtype.

    Examples:
        >>> import eagerflow as ef
        >>> from eagerflow.ops import linalg_ops
        >>> linalg_ops.matmul_bias([[1.0, 2.0]], [[1.0, -1.0], [1.0, -1.0]], [0.5, 1.0],
        ...                        relu=True)
        ef.Tensor([[3.5 0. ]], shape=(1, 2), dtype=float32)
    """
    a, b, bias = convert_input(a), convert_input(b), convert_input(bias)
    n = b.shape[-2] if transpose_b else b.shape[-1]
    if (a.ndim != 2 or b.ndim != 2 or a.dtype.kind != "f" or b.dtype != a.dtype
            or bias.dtype != a.dtype or math.prod(bias.shape) != n):
        raise errors.InvalidArgumentError(
            f"expected 2-D float operands of one dtype and a bias of the product's row size "
            f"in that dtype, got {a.dtype.name}{list(a.shape)}, {b.dtype.name}{list(b.shape)} "
            f"and bias {bias.dtype.name}{list(bias.shape)}", "MatMulBias")
    return execute(_matmul_bias, (a, b, bias), {"transpose_a": bool(transpose_a),
                                                "transpose_b": bool(transpose_b),
                                                "relu": bool(relu)})


def tensordot(a: TensorLike, b: TensorLike, axes: Any, name: str | None = None) -> Tensor:
    """Sums products over the given axes of `a` and `b` (like `numpy.tensordot`).

    Args:
        axes: an int N (last N axes of `a` with the first N of `b`) or a pair of axis lists.

    Examples:
        >>> import eagerflow as ef
        >>> ef.tensordot(ef.ones([2, 3]), ef.ones([3, 4]), axes=1).shape
        (2, 4)
    """
    a, b = convert_input(a), convert_input(b)
    if isinstance(axes, (int, np.integer)):
        n = int(axes)
        if n < 0 or n > min(a.ndim, b.ndim):
            raise errors.InvalidArgumentError(
                f"axes={n} must be in [0, {min(a.ndim, b.ndim)}] for shapes {a.shape} and "
                f"{b.shape}", "Tensordot"
            )
        axes_a, axes_b = list(range(a.ndim - n, a.ndim)), list(range(n))
    else:
        axes_a, axes_b = ([int(i) for i in np.atleast_1d(ax)] for ax in axes)
        if not all(-a.ndim <= i < a.ndim for i in axes_a) or not all(
            -b.ndim <= j < b.ndim for j in axes_b
        ):
            raise errors.InvalidArgumentError(
                f"axes {[axes_a, axes_b]} are out of range for shapes {a.shape} and {b.shape}",
                "Tensordot",
            )
        axes_a = [i % a.ndim for i in axes_a]
        axes_b = [i % b.ndim for i in axes_b]
    if len(axes_a) != len(axes_b) or any(a.shape[i] != b.shape[j] for i, j in
                                          zip(axes_a, axes_b, strict=True)):
        raise errors.InvalidArgumentError(
            f"Cannot contract axes {axes_a} of shape {a.shape} with axes {axes_b} of shape "
            f"{b.shape}", "Tensordot"
        )
    free_a = [i for i in range(a.ndim) if i not in axes_a]
    free_b = [i for i in range(b.ndim) if i not in axes_b]
    inner = math.prod(a.shape[i] for i in axes_a)
    left = _array.reshape(_array.transpose(a, free_a + axes_a), [-1, inner])
    right = _array.reshape(_array.transpose(b, axes_b + free_b), [inner, -1])
    shape = [a.shape[i] for i in free_a] + [b.shape[i] for i in free_b]
    return _array.reshape(matmul(left, right), shape)


def norm(tensor: TensorLike, ord: str | float = "euclidean", axis: AxisLike = None,
         keepdims: bool | None = None, name: str | None = None) -> Tensor:  # noqa: A002
    """Vector or matrix norm.

    Args:
        ord: for vectors ``"euclidean"``/2, 1, ``np.inf`` or any p > 0; for matrices (a
            pair of axes) ``"fro"``/``"euclidean"``, 1 or ``np.inf``.
        axis: None (whole tensor as a vector), an int, or a pair of ints (matrix norm).

    Raises:
        InvalidArgumentError: for an unsupported `ord`.

    Examples:
        >>> import eagerflow as ef
        >>> ef.norm([[3.0, 4.0], [0.0, 0.0]], axis=1)
        ef.Tensor([5. 0.], shape=(2,), dtype=float32)
        >>> ef.norm([[1.0, -2.0], [3.0, 4.0]], ord=1, axis=[0, 1])
        ef.Tensor(6.0, shape=(), dtype=float32)
    """
    x = convert_input(tensor)
    keepdims = bool(keepdims)
    matrix = axis is not None and not isinstance(axis, (int, np.integer)) and len(axis) == 2
    if matrix:
        pair = cast(Sequence[int], axis)  # two ints: checked just above
        if not all(-x.ndim <= int(a) < x.ndim for a in pair) or (
            int(pair[0]) % x.ndim == int(pair[1]) % x.ndim
        ):
            raise errors.InvalidArgumentError(
                f"axis {list(pair)} must be two distinct axes of a tensor of rank {x.ndim} "
                f"(shape {x.shape})", "Norm"
            )
        rows, cols = (int(a) % x.ndim for a in pair)
        if ord in ("fro", "euclidean"):
            return _reduce.reduce_euclidean(x, (rows, cols), keepdims)
        if ord not in (1, np.inf):
            raise errors.InvalidArgumentError(
                f"Unsupported matrix norm ord={ord!r}: use 'fro', 'euclidean', 1 or np.inf",
                "Norm",
            )
        # ord=1: largest column sum (sum over rows); ord=inf: largest row sum.
        inner, outer = (rows, cols) if ord == 1 else (cols, rows)
        summed = _reduce.reduce_sum(_unary.abs(x), inner, keepdims=True)
        result = _reduce.reduce_max(summed, outer, keepdims=True)
        return result if keepdims else _array.squeeze(result, [rows, cols])
    if ord in ("euclidean", 2, 2.0):
        return _reduce.reduce_euclidean(x, axis, keepdims)
    if ord == 1:
        return _reduce.reduce_sum(_unary.abs(x), axis, keepdims)
    if ord == np.inf:
        return _reduce.reduce_max(_unary.abs(x), axis, keepdims)
    if isinstance(ord, (int, float)) and ord > 0:
        powered = _reduce.reduce_sum(_math.pow(_unary.abs(x), float(ord)), axis, keepdims)
        return _math.pow(powered, 1.0 / ord)
    raise errors.InvalidArgumentError(
        f"Unsupported vector norm ord={ord!r}: use 'euclidean', 1, 2, np.inf or a p > 0",
        "Norm",
    )


def _safe_l2(sum_of_squares):
    """sqrt with a finite gradient at 0 (where it is 0), as TensorFlow's clip ops use."""
    positive = _logic.greater(sum_of_squares, 0)
    safe = _math.where(positive, sum_of_squares, 1)
    return _math.where(positive, _unary.sqrt(safe), 0)


def clip_by_norm(t: TensorLike, clip_norm: Any, axes: Any = None,
                 name: str | None = None) -> Tensor:
    """Rescales `t` so its L2 norm (over `axes`) is at most `clip_norm`.

    Examples:
        >>> import eagerflow as ef
        >>> ef.clip_by_norm([3.0, 4.0], 1.0)
        ef.Tensor([0.6 0.8], shape=(2,), dtype=float32)
    """
    t = convert_input(t)
    l2 = _safe_l2(_reduce.reduce_sum(_unary.square(t), axes, keepdims=True))
    scaled = _math.multiply(t, clip_norm)
    return _math.divide(scaled, _math.maximum(l2, clip_norm))


def global_norm(t_list: Any, name: str | None = None) -> Tensor:
    """The L2 norm of all tensors in `t_list` together (None entries are skipped).

    Examples:
        >>> import eagerflow as ef
        >>> ef.linalg.global_norm([[3.0], None, [4.0]])
        ef.Tensor(5.0, shape=(), dtype=float32)
    """
    squares = [_reduce.reduce_sum(_unary.square(t)) for t in t_list if t is not None]
    if not squares:
        raise errors.InvalidArgumentError("global_norm of a list with no tensors", "GlobalNorm")
    total = squares[0]
    for s in squares[1:]:
        total = _math.add(total, s)
    return _unary.sqrt(total)


def clip_by_global_norm(t_list: Any, clip_norm: Any, use_norm: Any = None,
                        name: str | None = None) -> tuple[list[Any], Tensor]:
    """Scales all tensors of `t_list` by one factor so their global norm is <= `clip_norm`.

    Returns:
        ``(clipped_list, global_norm)``; None entries stay None.

    Examples:
        >>> import eagerflow as ef
        >>> clipped, norm = ef.clip_by_global_norm([[3.0], [4.0]], 1.0)
        >>> float(norm), [c.numpy().tolist() for c in clipped]
        (5.0, [[0.6000], [0.8000]])
    """
    if isinstance(t_list, (str, bytes)) or not isinstance(t_list, (list, tuple)):
        raise TypeError(f"t_list must be a list or tuple of tensors, got {type(t_list).__name__}")
    values = [None if t is None else convert_input(t) for t in t_list]
    total = global_norm(values) if use_norm is None else convert_input(use_norm)
    scale = _math.divide(clip_norm, _math.maximum(total, clip_norm))
    clipped = [None if t is None else _math.multiply(t, _math.cast(scale, t.dtype))
               for t in values]
    return clipped, total
