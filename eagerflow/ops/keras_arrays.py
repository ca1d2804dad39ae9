"""Keras 3's array-creation, bitwise and smaller NumPy ops (`keras.ops.zeros`, `arange`,
`tril`, `bitwise_and`, `kron`, `rot90`, ...), part of `keras.ops.numpy`
(`eagerflow/ops/numpy.py` re-exports them).

Examples:
    >>> import eagerflow as ef
    >>> ef.ops.arange(3), ef.ops.full((2,), 7)
    (ef.Tensor([0 1 2], shape=(3,), dtype=int32), ef.Tensor([7. 7.], shape=(2,), dtype=float32))
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from eagerflow.ops import array_ops as _array
from eagerflow.ops import creation as _creation
from eagerflow.ops import decompositions as _decompositions
from eagerflow.ops import indexing as _indexing
from eagerflow.ops import keras_core as _core
from eagerflow.ops import logic as _logic
from eagerflow.ops import math as _math
from eagerflow.ops import reduce as _reduce
from eagerflow.ops import unary as _unary
from eagerflow.ops.typing import DTypeLike, Tensor, TensorLike

_t = _creation.convert_to_tensor
_binary = _core.binary


def zeros(shape: int | Sequence[int], dtype: DTypeLike = None) -> Tensor:
    """A tensor of zeros, float32 by default (`keras.ops.zeros`)."""
    return _creation.zeros(shape, dtype=dtype or "float32")


def ones(shape: int | Sequence[int], dtype: DTypeLike = None) -> Tensor:
    """A tensor of ones, float32 by default (`keras.ops.ones`)."""
    return _creation.ones(shape, dtype=dtype or "float32")


def empty(shape: int | Sequence[int], dtype: DTypeLike = None) -> Tensor:
    """An uninitialized tensor (zeros here) (`keras.ops.empty`)."""
    return zeros(shape, dtype)


def full(shape: int | Sequence[int], fill_value: Any, dtype: DTypeLike = None) -> Tensor:
    """A tensor of `fill_value`, float32 by default (`keras.ops.full`)."""
    value = _core.convert_to_tensor(fill_value, dtype=dtype or "float32")
    return _array.broadcast_to(value, [shape] if isinstance(shape, int) else list(shape))


def zeros_like(x: TensorLike, dtype: DTypeLike = None) -> Tensor:
    """Zeros of the shape (and dtype) of `x` (`keras.ops.zeros_like`)."""
    return _creation.zeros_like(x, dtype=dtype)


def ones_like(x: TensorLike, dtype: DTypeLike = None) -> Tensor:
    """Ones of the shape (and dtype) of `x` (`keras.ops.ones_like`)."""
    return _creation.ones_like(x, dtype=dtype)


empty_like = zeros_like
"""Zeros of the shape (and dtype) of `x` (`keras.ops.empty_like`; `zeros_like`)."""


def full_like(x: TensorLike, fill_value: Any, dtype: DTypeLike = None) -> Tensor:
    """`fill_value` in the shape (and dtype) of `x` (`keras.ops.full_like`)."""
    x = _t(x)
    return full(x.shape, fill_value, dtype=dtype or x.dtype)


def eye(N: int, M: int | None = None, k: int = 0, dtype: DTypeLike = None) -> Tensor:  # noqa: N803
    """An `N x M` matrix with ones on diagonal `k` (`keras.ops.eye`)."""
    return _creation.constant(np.eye(N, M, k, dtype=np.dtype(dtype or "float32")))


def identity(n: int, dtype: DTypeLike = None) -> Tensor:
    """The `n x n` identity matrix (`keras.ops.identity`)."""
    return eye(n, dtype=dtype)


def tri(N: int, M: int | None = None, k: int = 0, dtype: DTypeLike = None) -> Tensor:  # noqa: N803
    """Ones at and below diagonal `k` (`keras.ops.tri`)."""
    return _creation.constant(np.tri(N, M, k, dtype=np.dtype(dtype or "float32")))


def _band(x: TensorLike, k: int, lower: bool) -> Tensor:
    x = _t(x)
    rows, cols = x.shape[-2], x.shape[-1]
    mask = np.tri(rows, cols, k, dtype=bool)
    return _math.where(mask if lower else ~np.tri(rows, cols, k - 1, dtype=bool), x,
                       _creation.zeros_like(x))


def tril(x: TensorLike, k: int = 0) -> Tensor:
    """`x` with entries above diagonal `k` zeroed (`keras.ops.tril`)."""
    return _band(x, k, lower=True)


def triu(x: TensorLike, k: int = 0) -> Tensor:
    """`x` with entries below diagonal `k` zeroed (`keras.ops.triu`)."""
    return _band(x, k, lower=False)


def arange(start: Any, stop: Any = None, step: Any = 1, dtype: DTypeLike = None) -> Tensor:
    """Evenly spaced values in `[start, stop)` (`keras.ops.arange`); Python ints give int32,
    floats float32."""
    if stop is None:
        start, stop = 0, start
    kind = dtype or _core.result_type(start, stop, step)
    return _creation.constant(np.arange(start, stop, step).astype(np.dtype(kind)))


def linspace(start: Any, stop: Any, num: int = 50, endpoint: bool = True,
             retstep: bool = False, dtype: DTypeLike = None, axis: int = 0) -> Any:
    """`num` evenly spaced values from `start` to `stop` (`keras.ops.linspace`)."""
    values, step = np.linspace(start, stop, num, endpoint=endpoint, retstep=True, axis=axis)
    result = _creation.constant(values.astype(np.dtype(dtype or "float32")))
    return (result, step) if retstep else result


def array(x: TensorLike, dtype: DTypeLike = None) -> Tensor:
    """`x` as a tensor (`keras.ops.array`)."""
    return _core.convert_to_tensor(x, dtype=dtype)


def copy(x: TensorLike) -> Tensor:
    """A copy of `x` (`keras.ops.copy`)."""
    return _array.identity(x)


# -- bits ------------------------------------------------------------------------------------
def bitwise_and(x: TensorLike, y: TensorLike) -> Tensor:
    """Bitwise AND of integers (`keras.ops.bitwise_and`)."""
    return _binary(_logic.bitwise_and, x, y)


def bitwise_or(x: TensorLike, y: TensorLike) -> Tensor:
    """Bitwise OR of integers (`keras.ops.bitwise_or`)."""
    return _binary(_logic.bitwise_or, x, y)


def bitwise_xor(x: TensorLike, y: TensorLike) -> Tensor:
    """Bitwise XOR of integers (`keras.ops.bitwise_xor`)."""
    return _binary(_logic.bitwise_xor, x, y)


def bitwise_invert(x: TensorLike) -> Tensor:
    """Bitwise NOT of integers (`keras.ops.bitwise_invert`, also `bitwise_not`)."""
    return _logic.invert(_t(x))


bitwise_not = bitwise_invert
"""Bitwise NOT of integers (`keras.ops.bitwise_not`, the same as `bitwise_invert`)."""


# -- more NumPy helpers ----------------------------------------------------------------------
def fabs(x: TensorLike) -> Tensor:
    """Absolute value as floats (`keras.ops.fabs`)."""
    return _unary.abs(_core.as_float(x))


def _flip_axis(x: TensorLike, axis: int) -> Tensor:
    tensor = _t(x)
    key = tuple(slice(None, None, -1) if i == axis else slice(None) for i in range(tensor.ndim))
    return _array.getitem(tensor, key)


def fliplr(x: TensorLike) -> Tensor:
    """`x` reversed along axis 1 (`keras.ops.fliplr`)."""
    return _flip_axis(x, 1)


def flipud(x: TensorLike) -> Tensor:
    """`x` reversed along axis 0 (`keras.ops.flipud`)."""
    return _flip_axis(x, 0)


def _nan_aware(pick: Any, x1: TensorLike, x2: TensorLike) -> Tensor:
    dtype = _core.result_type(x1, x2)
    a, b = _core.as_tensor(x1, dtype), _core.as_tensor(x2, dtype)
    if dtype.kind != "f":
        return pick(a, b)
    a, b = _array.broadcast_to(a, np.broadcast_shapes(a.shape, b.shape)), b
    b = _array.broadcast_to(b, a.shape)
    picked = pick(a, b)
    picked = _math.where(_logic.not_equal(a, a), b, picked)  # NaN in x1: take x2
    return _math.where(_logic.not_equal(b, b), a, picked)


def fmax(x1: TensorLike, x2: TensorLike) -> Tensor:
    """Elementwise maximum ignoring NaNs (`keras.ops.fmax`)."""
    return _nan_aware(_math.maximum, x1, x2)


def fmin(x1: TensorLike, x2: TensorLike) -> Tensor:
    """Elementwise minimum ignoring NaNs (`keras.ops.fmin`)."""
    return _nan_aware(_math.minimum, x1, x2)


def fmod(x1: TensorLike, x2: TensorLike) -> Tensor:
    """Remainder with the sign of `x1`, as C's fmod (`keras.ops.fmod`)."""
    dtype = _core.result_type(x1, x2)
    a, b = _core.as_tensor(x1, dtype), _core.as_tensor(x2, dtype)
    return _math.multiply(_unary.sign(a), _math.mod(_unary.abs(a), _unary.abs(b)))


def isneginf(x: TensorLike) -> Tensor:
    """Whether each entry is -inf (`keras.ops.isneginf`)."""
    tensor = _t(x)
    if tensor.dtype.kind != "f":
        return _creation.zeros_like(tensor, "bool")
    return _logic.equal(tensor, _creation.constant(-np.inf, tensor.dtype))


def isposinf(x: TensorLike) -> Tensor:
    """Whether each entry is +inf (`keras.ops.isposinf`)."""
    tensor = _t(x)
    if tensor.dtype.kind != "f":
        return _creation.zeros_like(tensor, "bool")
    return _logic.equal(tensor, _creation.constant(np.inf, tensor.dtype))


def logaddexp2(x1: TensorLike, x2: TensorLike) -> Tensor:
    """`log2(2**x1 + 2**x2)`, computed stably (`keras.ops.logaddexp2`)."""
    dtype = _core.result_type(x1, x2, 1.0)
    a, b = _core.as_tensor(x1, dtype), _core.as_tensor(x2, dtype)
    gap = _math.multiply(_unary.negative(_unary.abs(_math.subtract(a, b))), float(np.log(2.0)))
    return _math.add(_math.maximum(a, b),
                     _math.divide(_unary.log1p(_unary.exp(gap)), float(np.log(2.0))))


def sinc(x: TensorLike) -> Tensor:
    """`sin(pi x) / (pi x)`, 1 at 0 (`keras.ops.sinc`)."""
    x = _core.as_float(x)
    zero = _logic.equal(x, 0.0)
    safe = _math.multiply(_math.where(zero, _creation.ones_like(x), x), float(np.pi))
    return _math.where(zero, _creation.ones_like(x), _math.divide(_unary.sin(safe), safe))


def ldexp(x1: TensorLike, x2: TensorLike) -> Tensor:
    """`x1 * 2**x2` (`keras.ops.ldexp`)."""
    a = _core.as_float(x1)
    return _math.multiply(a, _math.pow(_creation.constant(2.0, a.dtype), _math.cast(x2, a.dtype)))


def logspace(start: Any, stop: Any, num: int = 50, endpoint: bool = True, base: float = 10,
             dtype: DTypeLike = None, axis: int = 0) -> Tensor:
    """`base ** linspace(start, stop, num)` (`keras.ops.logspace`)."""
    values = np.logspace(start, stop, num, endpoint=endpoint, base=base, axis=axis)
    return _creation.constant(values.astype(np.dtype(dtype or "float32")))


def geomspace(start: Any, stop: Any, num: int = 50, endpoint: bool = True,
              dtype: DTypeLike = None, axis: int = 0) -> Tensor:
    """`num` values evenly spaced on a log scale (`keras.ops.geomspace`)."""
    values = np.geomspace(start, stop, num, endpoint=endpoint, axis=axis)
    return _creation.constant(values.astype(np.dtype(dtype or "float32")))


def diag(x: TensorLike, k: int = 0) -> Tensor:
    """The `k`-th diagonal of a matrix, or a matrix with vector `x` on it (`keras.ops.diag`).

    Raises:
        ValueError: for `x` of rank other than 1 or 2.
    """
    tensor = _t(x)
    if tensor.ndim == 2:
        part = tensor[:, k:] if k >= 0 else tensor[-k:, :]
        n = min(part.shape)
        return _decompositions.diag_part(part[:n, :n])
    if tensor.ndim != 1:
        raise ValueError(f"diag: `x` must be a vector or a matrix. Received: x.shape={tensor.shape}")
    n = tensor.shape[0] + abs(k)
    rows = np.arange(tensor.shape[0]) + max(-k, 0)
    index = np.stack([rows, rows + k], axis=1).astype(np.int32)
    return _indexing.scatter_nd(index, tensor, [n, n])


def diagflat(x: TensorLike, k: int = 0) -> Tensor:
    """A matrix with the flattened `x` on diagonal `k` (`keras.ops.diagflat`)."""
    return diag(_array.reshape(x, [-1]), k)


def _split_along(x: TensorLike, sections: Any, axis: int) -> list:
    tensor = _t(x)
    if isinstance(sections, int):
        return _array.split(tensor, sections, axis=axis)
    bounds = [0, *sections, tensor.shape[axis]]
    return _array.split(tensor, [b - a for a, b in zip(bounds, bounds[1:])], axis=axis)


def hsplit(x: TensorLike, indices_or_sections: Any) -> list:
    """`x` split along axis 1 (axis 0 for vectors) (`keras.ops.hsplit`)."""
    return _split_along(x, indices_or_sections, 0 if _t(x).ndim == 1 else 1)


def vsplit(x: TensorLike, indices_or_sections: Any) -> list:
    """`x` split along axis 0 (`keras.ops.vsplit`)."""
    return _split_along(x, indices_or_sections, 0)


def dsplit(x: TensorLike, indices_or_sections: Any) -> list:
    """`x` split along axis 2 (`keras.ops.dsplit`)."""
    return _split_along(x, indices_or_sections, 2)


def dstack(xs: Sequence[TensorLike]) -> Tensor:
    """`xs` joined along axis 2, vectors and matrices made 3-D first (`keras.ops.dstack`)."""
    dtype = _core.result_type(*xs)
    tensors: list[Any] = []
    for x in xs:
        t = _core.as_tensor(x, dtype)
        shape = {0: [1, 1, 1], 1: [1, -1, 1], 2: [*t.shape, 1]}.get(t.ndim)
        tensors.append(_array.reshape(t, shape) if shape is not None else t)
    return _array.concat(tensors, axis=2)


def rot90(array: TensorLike, k: int = 1, axes: tuple[int, int] = (0, 1)) -> Tensor:
    """`array` rotated by 90 degrees `k` times in the plane of `axes` (`keras.ops.rot90`)."""
    x = _t(array)
    first, second = (a % x.ndim for a in axes)
    order = list(range(x.ndim))
    order[first], order[second] = order[second], order[first]
    for _ in range(k % 4):  # one quarter turn: flip the second axis, then swap the two
        x = _array.transpose(_flip_axis(x, second), order)
    return x


def meshgrid(*x: TensorLike, indexing: str = "xy") -> list:
    """Coordinate grids from vectors (`keras.ops.meshgrid`).

    Raises:
        ValueError: for `indexing` other than "xy" or "ij".
    """
    if indexing not in ("xy", "ij"):
        raise ValueError(f"meshgrid: `indexing` must be 'xy' or 'ij'. Received: {indexing!r}")
    vectors = [_array.reshape(v, [-1]) for v in x]
    shape = [v.shape[0] for v in vectors]
    if indexing == "xy" and len(vectors) > 1:
        shape[0], shape[1] = shape[1], shape[0]
    grids = []
    for i, v in enumerate(vectors):
        axis = {0: 1, 1: 0}.get(i, i) if indexing == "xy" and len(vectors) > 1 else i
        view = [1] * len(vectors)
        view[axis] = -1
        grids.append(_array.broadcast_to(_array.reshape(v, view), shape))
    return grids


def kron(x1: TensorLike, x2: TensorLike) -> Tensor:
    """Kronecker product (`keras.ops.kron`)."""
    dtype = _core.result_type(x1, x2)
    a, b = _core.as_tensor(x1, dtype), _core.as_tensor(x2, dtype)
    ndim = max(a.ndim, b.ndim)
    a = _array.reshape(a, [1] * (ndim - a.ndim) + list(a.shape))
    b = _array.reshape(b, [1] * (ndim - b.ndim) + list(b.shape))
    a_view = [d for s in a.shape for d in (s, 1)]
    b_view = [d for s in b.shape for d in (1, s)]
    product = _math.multiply(_array.reshape(a, a_view), _array.reshape(b, b_view))
    return _array.reshape(product, [p * q for p, q in zip(a.shape, b.shape)])


def trapezoid(y: TensorLike, x: TensorLike | None = None, dx: float = 1.0,
              axis: int = -1) -> Tensor:
    """Integral of `y` by the trapezoidal rule along `axis` (`keras.ops.trapezoid`)."""
    values = _core.as_float(y)
    axis %= values.ndim
    head = tuple(slice(1, None) if i == axis else slice(None) for i in range(values.ndim))
    tail = tuple(slice(None, -1) if i == axis else slice(None) for i in range(values.ndim))
    mean = _math.multiply(_math.add(values[head], values[tail]), 0.5)
    if x is None:
        return _math.multiply(_reduce.reduce_sum(mean, axis=axis), dx)
    points = _core.as_tensor(x, values.dtype)
    if points.ndim == 1:
        points = _array.reshape(points, [-1 if i == axis else 1 for i in range(values.ndim)])
    steps = _math.subtract(points[head] if points.ndim > 1 else points[1:],
                           points[tail] if points.ndim > 1 else points[:-1])
    return _reduce.reduce_sum(_math.multiply(mean, steps), axis=axis)


def vander(x: TensorLike, N: int | None = None, increasing: bool = False) -> Tensor:  # noqa: N803
    """The Vandermonde matrix of vector `x` (`keras.ops.vander`)."""
    tensor = _t(x)
    count = tensor.shape[0] if N is None else N
    powers = np.arange(count) if increasing else np.arange(count)[::-1]
    exponent = _creation.constant(powers.astype(tensor.dtype if tensor.dtype.kind != "b"
                                                else np.int32))
    return _math.pow(_array.reshape(tensor, [-1, 1]), exponent)
