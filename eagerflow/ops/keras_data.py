"""Keras 3's ops whose output size depends on the data (`keras.ops.unique`, `nonzero`,
`bincount`, `histogram`) and `argpartition`, part of `ef.ops.numpy`, with NumPy's values
and Keras's dtypes.

They run eagerly. Inside `ef.function` the size of their output is not known while the
function traces, so they raise an error saying so, unless an argument Keras offers fixes
the size: `unique(size=...)` pads or truncates to `size`, `bincount(minlength=...)` counts
into exactly `minlength` bins (larger values are dropped, as JAX's `length=`), and
`histogram` always has `bins` bins. `argpartition` has the input's shape and traces.

Examples:
    >>> import eagerflow as ef
    >>> ef.ops.unique([3, 1, 3, 2])
    ef.Tensor([1 2 3], shape=(3,), dtype=int32)
    >>> ef.ops.bincount([0, 2, 2])
    ef.Tensor([1 0 2], shape=(3,), dtype=int32)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from eagerflow.core import context, errors
from eagerflow.core.dispatch import execute, primitive
from eagerflow.ops import creation as _creation
from eagerflow.ops import keras_core as _core
from eagerflow.ops import segment_ops as _segment
from eagerflow.ops.typing import Tensor, TensorLike


def _t(x: TensorLike) -> Tensor:
    return _creation.convert_to_tensor(x)


@primitive("Unique", differentiable=False, num_outputs=-1)
def _unique(x, axis, size, fill_value, outputs):
    values, index, inverse, counts = np.unique(x, return_index=True, return_inverse=True,
                                               return_counts=True, axis=axis)
    index, inverse = index.astype(np.int32), inverse.astype(np.int32)
    counts = counts.astype(np.int32)
    if size is not None:
        dim = 0 if axis is None else axis
        found = values.shape[dim]
        if found >= size:
            values = np.take(values, np.arange(size), axis=dim)
            index, counts = index[:size], counts[:size]
        else:
            pad = [(0, 0)] * values.ndim
            pad[dim] = (0, size - found)
            values = np.pad(values, pad, constant_values=0 if fill_value is None else fill_value)
            index = np.pad(index, (0, size - found), constant_values=1)
            counts = np.pad(counts, (0, size - found), constant_values=0)
    parts = {"values": values, "index": index, "inverse": inverse.reshape(-1)
             if axis is None else inverse, "counts": counts}
    return tuple(parts[name] for name in outputs)


def unique(x: TensorLike, sorted: bool = True, return_index: bool = False,  # noqa: A002
           return_inverse: bool = False, return_counts: bool = False, axis: int | None = None,
           size: int | None = None, fill_value: Any = None) -> Any:
    """The sorted unique entries of `x` (flattened when `axis` is None), and optionally the
    index of each one's first occurrence, the inverse map and the counts, int32
    (`keras.ops.unique`). With `size`, the values are padded (with `fill_value`, default 0;
    indices with 1, counts with 0) or truncated to `size`.

    Raises:
        InvalidArgumentError: inside `ef.function` without `size`.
    """
    if size is None:
        _segment.data_dependent("keras.ops.unique", "size=")
    x = _t(x)
    outputs = ["values"] + [name for name, wanted in (("index", return_index),
                                                        ("inverse", return_inverse),
                                                        ("counts", return_counts)) if wanted]
    attrs = {"axis": None if axis is None else int(axis) % x.ndim, "size": size,
             "fill_value": fill_value, "outputs": tuple(outputs)}
    result = execute(_unique, (x,), attrs)
    return result[0] if len(outputs) == 1 else tuple(result)


def nonzero(x: TensorLike) -> tuple[Tensor, ...]:
    """The indices of the non-zero entries, one int32 vector per axis (`keras.ops.nonzero`).

    Raises:
        InvalidArgumentError: inside `ef.function` (the count depends on the data).
    """
    _segment.data_dependent("keras.ops.nonzero", "")
    return tuple(_creation.constant(i.astype(np.int32)) for i in np.nonzero(_t(x).numpy()))


def bincount(x: TensorLike, weights: TensorLike | None = None, minlength: int = 0,
             sparse: bool = False) -> Tensor:
    """Counts of each non-negative integer in `x` (per row of a 2-D `x`), summing
    `weights` instead when given (`keras.ops.bincount`); `minlength` bins at least.

    Raises:
        ValueError: for `sparse=True` or a negative `minlength`.
        InvalidArgumentError: for negative values, or inside `ef.function` without
            `minlength` (which then fixes the bin count).
    """
    if sparse:
        raise ValueError("Unsupported value `sparse=True`: eagerflow has no sparse tensors")
    if minlength < 0:
        raise ValueError(f"`minlength` must be non-negative. Received: minlength={minlength}")
    values = _t(x)
    per_row = values.ndim == 2
    if context.thread.tracer is not None:
        if not minlength:
            _segment.data_dependent("keras.ops.bincount", "minlength=")
        length = int(minlength)
    else:
        array = values.numpy()
        if array.size and array.min() < 0:
            raise errors.InvalidArgumentError(
                f"bincount: x must be non-negative, got minimum {array.min()}", op="Bincount")
        length = max(int(array.max()) + 1 if array.size else 0, int(minlength))
    if weights is None:
        dtype = "int32"
    else:
        dtype = _core.result_type(values, weights).name
        weights = _core.as_tensor(weights, dtype)
    return _segment.count_into(values, weights, length, dtype, per_row, False)


@primitive("Histogram", differentiable=False, num_outputs=2)
def _histogram(x, bins, value_range):
    counts, edges = np.histogram(x, bins=bins, range=value_range)
    if x.dtype.kind == "f":  # Keras's TensorFlow backend counts in the input's dtype
        return counts.astype(x.dtype), edges.astype(x.dtype)
    return counts.astype(np.int32), edges.astype(np.float32)


def histogram(x: TensorLike, bins: int = 10, range: Any = None) -> tuple[Tensor, Tensor]:  # noqa: A002
    """The counts of `x`'s entries in `bins` equal bins over `range` (default: the data's
    min and max), and the bin edges (`keras.ops.histogram`); both in a float `x`'s dtype.

    Raises:
        ValueError: for a non-positive `bins` or a non-1-D `x`.
    """
    x = _t(x)
    if int(bins) < 1:
        raise ValueError(f"`bins` must be a positive int. Received: bins={bins}")
    if x.ndim != 1:
        raise ValueError(f"`histogram` expects a 1-D input. Received: x.shape={x.shape}")
    value_range = None if range is None else (float(range[0]), float(range[1]))
    counts, edges = execute(_histogram, (x,), {"bins": int(bins), "value_range": value_range})
    return counts, edges


@primitive("ArgPartition", differentiable=False)
def _argpartition(x, kth, axis):
    return np.argpartition(x, kth, axis).astype(np.int32)


def argpartition(x: TensorLike, kth: int, axis: int = -1) -> Tensor:
    """Indices that partition `x` along `axis` around its `kth` smallest entry: that one in
    place, smaller ones before, larger ones after (`keras.ops.argpartition`), int32."""
    x = _t(x)
    return execute(_argpartition, (x,), {"kth": int(kth), "axis": int(axis)})
