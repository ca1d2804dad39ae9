"""Keras 3's products and correlations of tensors (`keras.ops.cross`, `correlate`,
`corrcoef`, `cdist`), part of `ef.ops.numpy`, with NumPy's values and Keras's dtypes,
composed from differentiable ops.

Examples:
    >>> import eagerflow as ef
    >>> ef.ops.cross([1.0, 0.0, 0.0], [0.0, 1.0, 0.0])
    ef.Tensor([0. 0. 1.], shape=(3,), dtype=float32)
    >>> ef.ops.correlate([1.0, 2.0, 3.0], [0.0, 1.0, 0.5])
    ef.Tensor([3.5], shape=(1,), dtype=float32)
"""

from __future__ import annotations

import numpy as np

from eagerflow.ops import array_ops as _array
from eagerflow.ops import creation as _creation
from eagerflow.ops import indexing as _indexing
from eagerflow.ops import keras_core as _core
from eagerflow.ops import linalg_ops as _linalg
from eagerflow.ops import math as _math
from eagerflow.ops import reduce as _reduce
from eagerflow.ops import tf_linalg as _tf_linalg
from eagerflow.ops import unary as _unary
from eagerflow.ops.typing import Tensor, TensorLike


def _last(x: Tensor, axis: int) -> Tensor:
    axis %= x.ndim
    order = [a for a in range(x.ndim) if a != axis] + [axis]
    return _array.transpose(x, order)


def cross(x1: TensorLike, x2: TensorLike, axisa: int = -1, axisb: int = -1, axisc: int = -1,
          axis: int | None = None) -> Tensor:
    """The cross product of 2- or 3-vectors along `axisa` of `x1` and `axisb` of `x2`, placed
    along `axisc` (`axis` sets all three), NumPy's `cross` (`keras.ops.cross`): two
    2-vectors give the scalar z component.

    Raises:
        ValueError: when a vector axis has a size other than 2 or 3.
    """
    if axis is not None:
        axisa = axisb = axisc = axis
    dtype = _core.result_type(x1, x2)
    a = _last(_core.as_tensor(x1, dtype), axisa)
    b = _last(_core.as_tensor(x2, dtype), axisb)
    if a.shape[-1] not in (2, 3) or b.shape[-1] not in (2, 3):
        raise ValueError("Incompatible dimensions for cross product (dimension must be 2 or "
                         f"3). Received: x1.shape={a.shape}, x2.shape={b.shape}")
    if a.shape[-1] == b.shape[-1] == 2:
        return _math.subtract(_math.multiply(a[..., 0], b[..., 1]),
                              _math.multiply(a[..., 1], b[..., 0]))

    def widen(v: Tensor) -> Tensor:
        if v.shape[-1] == 3:
            return v
        return _array.concat([v, _creation.zeros_like(v[..., :1])], axis=-1)

    result = _tf_linalg.cross(*_broadcast(widen(a), widen(b)))
    axisc %= result.ndim
    order = list(range(result.ndim - 1))
    order.insert(axisc, result.ndim - 1)
    return _array.transpose(result, order)


def _broadcast(a: Tensor, b: Tensor) -> tuple[Tensor, Tensor]:
    shape = np.broadcast_shapes(a.shape, b.shape)
    return _array.broadcast_to(a, shape), _array.broadcast_to(b, shape)


def _float_dtype(*values: TensorLike) -> np.dtype:
    """Keras's float for these ops: float64 from float64 or int64, float16 stays, else
    float32."""
    name = _core.result_type(*values).name
    return np.dtype("float64" if name in ("int64", "float64") else
                    "float16" if name == "float16" else "float32")


def correlate(x1: TensorLike, x2: TensorLike, mode: str = "valid") -> Tensor:
    """The cross-correlation ``c[k] = sum_n x1[n + k] * x2[n]`` of two vectors, NumPy's
    `correlate` with `mode` "valid", "same" or "full" (`keras.ops.correlate`).

    Raises:
        ValueError: for non-1-D inputs or an unknown `mode`.
    """
    dtype = _float_dtype(x1, x2)
    a, v = _core.as_tensor(x1, dtype), _core.as_tensor(x2, dtype)
    if a.ndim != 1 or v.ndim != 1:
        raise ValueError(f"`correlate` expects 1-D inputs. Received: x1.shape={a.shape}, "
                         f"x2.shape={v.shape}")
    if mode not in ("valid", "same", "full"):
        raise ValueError(f"`mode` must be 'valid', 'same' or 'full'. Received: mode={mode!r}")
    m, n = a.shape[0], v.shape[0]
    padded = _indexing.pad(a, [[n - 1, n - 1]])
    windows = np.arange(m + n - 1)[:, None] + np.arange(n)[None, :]
    full = _linalg.matmul(_indexing.gather(padded, _creation.constant(windows)),
                          _array.expand_dims(v, -1))[:, 0]
    short, long = min(m, n), max(m, n)
    if mode == "full":
        return full
    if mode == "valid":
        return full[short - 1:long]
    start = (short - 1) // 2 if m >= n else short // 2
    return full[start:start + long]


def corrcoef(x: TensorLike) -> Tensor:
    """The Pearson correlation coefficients of the rows of `x` (variables in rows), NumPy's
    `corrcoef`, clipped to [-1, 1] (`keras.ops.corrcoef`)."""
    x = _core.as_tensor(x, _float_dtype(x))
    rows = x if x.ndim == 2 else _array.reshape(x, [1, -1])
    centered = _math.subtract(rows, _reduce.reduce_mean(rows, 1, keepdims=True))
    covariance = _linalg.matmul(centered, centered, transpose_b=True)
    scale = _unary.sqrt(_array.expand_dims(_diagonal(covariance), -1))
    result = _math.divide(_math.divide(covariance, scale), _array.transpose(scale))
    result = _math.clip_by_value(result, -1.0, 1.0)
    return result if x.ndim == 2 else _array.reshape(result, [])


def _diagonal(matrix: Tensor) -> Tensor:
    eye = _creation.constant(np.eye(matrix.shape[-1], dtype=matrix.dtype))
    return _reduce.reduce_sum(_math.multiply(matrix, eye), -1)


def cdist(x: TensorLike, y: TensorLike) -> Tensor:
    """The Euclidean distances between the rows of `x` [..., M, D] and of `y` [..., N, D]:
    [..., M, N] (`keras.ops.cdist`).

    Raises:
        ValueError: for inputs of rank below 2 or mismatched last axes.
    """
    dtype = _float_dtype(x, y)
    a, b = _core.as_tensor(x, dtype), _core.as_tensor(y, dtype)
    if a.ndim < 2 or b.ndim < 2:
        raise ValueError(f"`cdist` inputs must have rank >= 2. Received: x.shape={a.shape}, "
                         f"y.shape={b.shape}")
    if a.shape[-1] != b.shape[-1]:
        raise ValueError(f"Last dimension of inputs to `cdist` must match. Received: "
                         f"x.shape={a.shape}, y.shape={b.shape}")
    difference = _math.subtract(_array.expand_dims(a, -2), _array.expand_dims(b, -3))
    return _unary.sqrt(_reduce.reduce_sum(_unary.square(difference), -1))
