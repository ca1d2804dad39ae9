"""Keras 3's array-creation and bitwise ops (`keras.ops.zeros`, `arange`, `tril`,
`bitwise_and`, ...), part of `keras.ops.numpy` (`eagerflow/ops/numpy.py` re-exports them).

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
from eagerflow.ops import keras_core as _core
from eagerflow.ops import logic as _logic
from eagerflow.ops import math as _math
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
