"""Keras 3's core and math ops (`keras.ops.cast`, `shape`, `segment_sum`, `top_k`, ...),
with Keras's signatures and dtype rules, built from eagerflow's differentiable ops.

They are reached as `ef.ops.<name>` (see `eagerflow/ops/__init__.py`); the dtype rule
`result_type` is the one Keras applies to every binary op (`keras.backend.result_type`):
integers with floats give the float, Python numbers are weak (an `int32` tensor plus a
Python float is float32, a float16 tensor times 2.0 stays float16).

Examples:
    >>> import eagerflow as ef
    >>> ef.ops.shape(ef.ops.zeros((2, 3)))
    (2, 3)
    >>> ef.ops.segment_sum(ef.constant([1.0, 2.0, 3.0]), ef.constant([0, 0, 1]))
    ef.Tensor([3. 3.], shape=(2,), dtype=float32)
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from eagerflow.core import dtypes as _dtypes
from eagerflow.ops import array_ops as _array
from eagerflow.ops import creation as _creation
from eagerflow.ops import decompositions as _decompositions
from eagerflow.ops import inverse_erf as _inverse_erf
from eagerflow.ops import image_ops as _image
from eagerflow.ops import indexing as _indexing
from eagerflow.ops import linalg_ops as _linalg
from eagerflow.ops import logic as _logic
from eagerflow.ops import math as _math
from eagerflow.ops import reduce as _reduce
from eagerflow.ops import special as _special
from eagerflow.ops import unary as _unary
from eagerflow.ops.typing import AxisLike, DTypeLike, Tensor, TensorLike

_FLOATX = np.dtype("float32")


# -- dtypes ----------------------------------------------------------------------------------
def _strong_dtype(x: Any) -> np.dtype | None:
    """The dtype a value imposes, or None for a weak Python number."""
    if isinstance(x, (bool, int, float)) and not isinstance(x, np.generic):
        return None
    if hasattr(x, "dtype"):
        return np.dtype(x.dtype)
    return np.dtype(_creation.convert_to_tensor(x).dtype)


def _promote(a: np.dtype, b: np.dtype) -> np.dtype:
    if (a.kind == "f") != (b.kind == "f"):
        return a if a.kind == "f" else b  # int with float gives the float (JAX's lattice)
    return np.promote_types(a, b)


def result_type(*values: Any) -> np.dtype:
    """The dtype Keras gives a binary op on `values` (`keras.backend.result_type`).

    Args:
        *values: tensors, arrays or Python numbers (weak: they adopt the tensor's dtype).

    Returns:
        A NumPy dtype.

    Examples:
        >>> import eagerflow as ef
        >>> ef.ops.keras_core.result_type(ef.constant([1, 2]), 1.5)
        dtype('float32')
    """
    strong = [d for d in builtins.map(_strong_dtype, values) if d is not None]
    weak = [type(v) for v in values if _strong_dtype(v) is None]
    result = None
    for dtype in strong:
        result = dtype if result is None else _promote(result, dtype)
    if float in weak:
        return result if result is not None and result.kind == "f" else _FLOATX
    if int in weak and (result is None or result.kind == "b"):
        return np.dtype("int32")
    return result if result is not None else np.dtype("bool")


def as_tensor(x: TensorLike, dtype: _dtypes.DType) -> Tensor:
    """`x` as a tensor of `dtype` (Python numbers exactly, tensors by a cast)."""
    if isinstance(x, (bool, int, float)):
        return _creation.constant(np.asarray(x, dtype))
    tensor = _creation.convert_to_tensor(x)
    return tensor if tensor.dtype == dtype else _math.cast(tensor, dtype)


def as_float(x: TensorLike) -> Tensor:
    """`x` as a float tensor: integers and bools become float32, as Keras's float ops do."""
    tensor = _creation.convert_to_tensor(x)
    return tensor if tensor.dtype.kind == "f" else _math.cast(tensor, _FLOATX)


def binary(op: Callable[..., Tensor], x1: TensorLike, x2: TensorLike) -> Tensor:
    """Applies `op` to `x1` and `x2` promoted to Keras's common dtype."""
    dtype = result_type(x1, x2)
    return op(as_tensor(x1, dtype), as_tensor(x2, dtype))


# -- core ------------------------------------------------------------------------------------
def cast(x: TensorLike, dtype: DTypeLike) -> Tensor:
    """Casts `x` to `dtype` (`keras.ops.cast`)."""
    return _math.cast(x, dtype)


def convert_to_tensor(x: TensorLike, dtype: DTypeLike = None, sparse: bool | None = None,
                      ragged: bool | None = None) -> Tensor:
    """Converts `x` to a tensor (`keras.ops.convert_to_tensor`).

    Raises:
        ValueError: for `sparse=True` or `ragged=True` (eagerflow's tensors are dense).
    """
    if sparse or ragged:
        raise ValueError(f"convert_to_tensor: eagerflow has no sparse or ragged tensors. "
                         f"Received: sparse={sparse}, ragged={ragged}")
    if dtype is not None and isinstance(x, (bool, int, float)):
        return _creation.constant(np.asarray(x, np.dtype(dtype)))
    tensor = _creation.convert_to_tensor(x)
    return tensor if dtype is None or tensor.dtype == dtype else _math.cast(tensor, dtype)


def convert_to_numpy(x: TensorLike) -> np.ndarray:
    """The value of `x` as a NumPy array (`keras.ops.convert_to_numpy`)."""
    return np.asarray(_creation.convert_to_tensor(x).numpy())


def is_tensor(x: Any) -> bool:
    """Whether `x` is an eagerflow tensor (`keras.ops.is_tensor`)."""
    return isinstance(x, Tensor)


def shape(x: TensorLike) -> tuple:
    """The shape of `x` as a tuple of ints (`keras.ops.shape`)."""
    return tuple(_creation.convert_to_tensor(x).shape)


def dtype(x: TensorLike) -> str:
    """The dtype name of `x`, such as "float32" (`keras.ops.dtype`)."""
    return _creation.convert_to_tensor(x).dtype.name


def stop_gradient(variable: TensorLike) -> Tensor:
    """`variable` with no gradient flowing back (`keras.ops.stop_gradient`)."""
    return _array.stop_gradient(variable)


def saturate_cast(x: TensorLike, dtype: DTypeLike) -> Tensor:
    """Casts `x` to `dtype`, clipping to the range of `dtype` first (`keras.ops.saturate_cast`)."""
    return _image.saturate_cast(_creation.convert_to_tensor(x), np.dtype(dtype))


def map(f: Callable[[Any], Any], xs: TensorLike) -> Any:  # noqa: A001
    """`f` applied to each slice of `xs` along the first axis, stacked (`keras.ops.map`)."""
    outputs = [f(x) for x in _array.unstack(xs)]
    if outputs and isinstance(outputs[0], (tuple, list)):
        return type(outputs[0])(_array.stack(list(part)) for part in zip(*outputs))
    if outputs and isinstance(outputs[0], dict):
        return {key: _array.stack([o[key] for o in outputs]) for key in outputs[0]}
    return _array.stack(outputs)


def vectorized_map(function: Callable[[Any], Any], elements: TensorLike) -> Any:
    """`function` applied to each slice of `elements`, stacked (`keras.ops.vectorized_map`)."""
    return map(function, elements)


def scan(f: Callable[[Any, Any], Any], init: Any, xs: TensorLike | None = None,
         length: int | None = None, reverse: bool = False, unroll: int = 1) -> tuple:
    """Loops `carry, y = f(carry, x)` over `xs` (`keras.ops.scan`): `(carry, stacked ys)`."""
    items: list[Any] = (list(_array.unstack(xs)) if xs is not None
                        else [None] * int(length or 0))
    if reverse:
        items = items[::-1]
    carry, ys = init, []
    for x in items:
        carry, y = f(carry, x)
        ys.append(y)
    if reverse:
        ys = ys[::-1]
    stacked = _array.stack(ys) if ys and ys[0] is not None else None
    return carry, stacked


def switch(index: TensorLike, branches: Sequence[Callable[..., Any]], *operands: Any) -> Any:
    """Calls `branches[index](*operands)`, the index clipped to range (`keras.ops.switch`)."""
    chosen = builtins.min(builtins.max(int(_creation.convert_to_tensor(index)), 0),
                          len(branches) - 1)
    return branches[chosen](*operands)


def scatter(indices: TensorLike, values: TensorLike, shape: Sequence[int]) -> Tensor:
    """A zero tensor of `shape` with `values` added at `indices` (`keras.ops.scatter`)."""
    return _indexing.scatter_nd(indices, values, list(shape))


def scatter_update(inputs: TensorLike, indices: TensorLike, updates: TensorLike) -> Tensor:
    """`inputs` with the entries at `indices` replaced by `updates` (`keras.ops.scatter_update`)."""
    inputs = _creation.convert_to_tensor(inputs)
    updates = as_tensor(updates, inputs.dtype)
    hit = _indexing.scatter_nd(indices, _creation.ones_like(updates, dtype="bool"), inputs.shape)
    placed = _indexing.scatter_nd(indices, updates, inputs.shape)
    return _math.where(hit, placed, inputs)


def slice(inputs: TensorLike, start_indices: Sequence[int],  # noqa: A001
          shape: Sequence[int]) -> Tensor:
    """The block of `shape` starting at `start_indices` (`keras.ops.slice`)."""
    key = tuple(builtins.slice(int(s), int(s) + int(n)) for s, n in zip(start_indices, shape))
    return _array.getitem(_creation.convert_to_tensor(inputs), key)


def slice_update(inputs: TensorLike, start_indices: Sequence[int],
                 updates: TensorLike) -> Tensor:
    """`inputs` with the block at `start_indices` replaced by `updates` (`keras.ops.slice_update`)."""
    inputs = _creation.convert_to_tensor(inputs)
    updates = as_tensor(updates, inputs.dtype)
    paddings = [[int(s), n - int(s) - u] for s, n, u in zip(start_indices, inputs.shape,
                                                            updates.shape)]
    placed = _indexing.pad(updates, paddings)
    hit = _indexing.pad(_creation.ones_like(updates, dtype="bool"), paddings)
    return _math.where(hit, placed, inputs)


def unstack(x: TensorLike, num: int | None = None, axis: int = 0) -> list:
    """The slices of `x` along `axis` (`keras.ops.unstack`)."""
    return _array.unstack(x, num=num, axis=axis)


# -- math ------------------------------------------------------------------------------------
def _segments(data: TensorLike, segment_ids: TensorLike, num_segments: int | None,
              op_name: str) -> tuple[Tensor, Tensor, int]:
    data = _creation.convert_to_tensor(data)
    ids = _creation.convert_to_tensor(segment_ids)
    if ids.ndim != 1 or ids.shape[0] != data.shape[0]:
        raise ValueError(f"{op_name}: `segment_ids` must be a vector as long as the first axis "
                         f"of `data`. Received: data.shape={data.shape}, "
                         f"segment_ids.shape={ids.shape}")
    if num_segments is None:
        num_segments = int(np.max(ids.numpy())) + 1 if ids.shape[0] else 0
    member = _indexing.one_hot(ids, num_segments, dtype="bool", axis=0)  # (segments, n)
    return data, member, num_segments


def segment_sum(data: TensorLike, segment_ids: TensorLike, num_segments: int | None = None,
                sorted: bool = False) -> Tensor:  # noqa: A002
    """Sums of the rows of `data` that share a segment id (`keras.ops.segment_sum`)."""
    data, member, _ = _segments(data, segment_ids, num_segments, "segment_sum")
    return _linalg.tensordot(_math.cast(member, data.dtype), data, axes=1)


def segment_max(data: TensorLike, segment_ids: TensorLike, num_segments: int | None = None,
                sorted: bool = False) -> Tensor:  # noqa: A002
    """Maxima of the rows of `data` that share a segment id (`keras.ops.segment_max`);
    an empty segment gives the dtype's lowest value, as TensorFlow."""
    data, member, _ = _segments(data, segment_ids, num_segments, "segment_max")
    lowest = (np.finfo(data.dtype).min if data.dtype.kind == "f"
              else np.iinfo(data.dtype).min)
    mask = _array.reshape(member, member.shape + (1,) * (data.ndim - 1))
    return _reduce.reduce_max(_math.where(mask, data, _creation.constant(lowest, data.dtype)),
                              axis=1)


def segment_min(data: TensorLike, segment_ids: TensorLike, num_segments: int | None = None,
                sorted: bool = False) -> Tensor:  # noqa: A002
    """Minima of the rows of `data` that share a segment id (`keras.ops.segment_min`);
    an empty segment gives the dtype's largest value, as TensorFlow."""
    data, member, _ = _segments(data, segment_ids, num_segments, "segment_min")
    largest = (np.finfo(data.dtype).max if data.dtype.kind == "f"
               else np.iinfo(data.dtype).max)
    mask = _array.reshape(member, member.shape + (1,) * (data.ndim - 1))
    return _reduce.reduce_min(_math.where(mask, data, _creation.constant(largest, data.dtype)),
                              axis=1)


def segment_prod(data: TensorLike, segment_ids: TensorLike, num_segments: int | None = None,
                 sorted: bool = False) -> Tensor:  # noqa: A002
    """Products of the rows of `data` that share a segment id (`keras.ops.segment_prod`);
    an empty segment gives 1."""
    data, member, _ = _segments(data, segment_ids, num_segments, "segment_prod")
    mask = _array.reshape(member, member.shape + (1,) * (data.ndim - 1))
    return _reduce.reduce_prod(_math.where(mask, data, _creation.ones_like(data)), axis=1)


def top_k(x: TensorLike, k: int, sorted: bool = True) -> tuple[Tensor, Tensor]:  # noqa: A002
    """The `k` largest entries along the last axis and their int32 indices (`keras.ops.top_k`)."""
    values, indices = _reduce.top_k(x, k=k, sorted=sorted)
    return values, _math.cast(indices, "int32")


def in_top_k(targets: TensorLike, predictions: TensorLike, k: int) -> Tensor:
    """Whether each target class is among the `k` top predictions (`keras.ops.in_top_k`)."""
    predictions = _creation.convert_to_tensor(predictions)
    targets = _creation.convert_to_tensor(targets)
    picked = _indexing.gather(predictions, targets, axis=1, batch_dims=1)
    above = _reduce.reduce_sum(_math.cast(_logic.greater(predictions, picked[:, None]), "int32"),
                               axis=1)
    return _logic.less(above, k)


def logsumexp(x: TensorLike, axis: AxisLike = None, keepdims: bool = False) -> Tensor:
    """`log(sum(exp(x)))` along `axis`, computed stably (`keras.ops.logsumexp`)."""
    return _reduce.reduce_logsumexp(as_float(x), axis=axis, keepdims=keepdims)


def erf(x: TensorLike) -> Tensor:
    """The error function (`keras.ops.erf`)."""
    return _special.erf(as_float(x))


def erfc(x: TensorLike) -> Tensor:
    """The complementary error function, `1 - erf(x)` without its cancellation
    (`keras.ops.erfc`)."""
    return _special.erfc(as_float(x))


def erfinv(x: TensorLike) -> Tensor:
    """The inverse error function (`keras.ops.erfinv`); integers are computed as floats."""
    return _inverse_erf.erfinv(as_float(x))


def rsqrt(x: TensorLike) -> Tensor:
    """`1 / sqrt(x)` (`keras.ops.rsqrt`)."""
    return _unary.rsqrt(as_float(x))


def logdet(x: TensorLike) -> Tensor:
    """`log(det(x))` of symmetric positive definite matrices (`keras.ops.logdet`)."""
    return _decompositions.logdet(x)


def extract_sequences(x: TensorLike, sequence_length: int, sequence_stride: int) -> Tensor:
    """Frames of `sequence_length` every `sequence_stride` along the last axis
    (`keras.ops.extract_sequences`)."""
    x = _creation.convert_to_tensor(x)
    count = 1 + (x.shape[-1] - sequence_length) // sequence_stride
    frames: list[Any] = [x[..., i * sequence_stride:i * sequence_stride + sequence_length]
              for i in builtins.range(count)]
    return _array.stack(frames, axis=-2)
