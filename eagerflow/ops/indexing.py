"""Gather and scatter ops, masks, one-hot encoding and padding.

Indices are bounds-checked: a negative or too-large index is an `InvalidArgumentError`
that names it, never a silent wrap-around.

Examples:
    >>> import eagerflow as ef
    >>> ef.gather([10, 20, 30], [2, 0])
    ef.Tensor([30 10], shape=(2,), dtype=int32)
    >>> ef.gather(ef.zeros([128, 4]), [3081])
    Traceback (most recent call last):
      ...
    eagerflow.core.errors.InvalidArgumentError: indices[0] = 3081 is not in [0, 128) [Op:Gather]
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from eagerflow.core import buffers, context, dtypes, errors, forwardprop
from eagerflow.core.dispatch import convert_input, execute, primitive
from eagerflow.ops import array_ops as _array
from eagerflow.ops import creation as _creation
from eagerflow.ops import math as _math
from eagerflow.ops.kernels import kernel_sets, scatter
from eagerflow.ops.typing import DTypeLike, ShapeLike, Tensor, TensorLike


def _int_tensor(value: TensorLike, op_name: str) -> Tensor:
    tensor = convert_input(value)
    if tensor.dtype.kind not in "iu":
        raise errors.InvalidArgumentError(
            f"indices must be an integer tensor, got dtype {tensor.dtype.name}", op_name
        )
    return tensor


# -- gather along one axis ----------------------------------------------------------------
def _batched(params, indices, axis, batch_dims):
    """Flattens `batch_dims` leading dims into offsets so one `np.take` does the gather."""
    batch = math.prod(params.shape[:batch_dims])
    n = params.shape[axis]
    offsets = (np.arange(batch) * n).reshape((batch,) + (1,) * (indices.ndim - batch_dims))
    flat_indices = indices.reshape((batch,) + indices.shape[batch_dims:]) + offsets
    flat_params = params.reshape((batch * n,) + params.shape[axis + 1:])
    return flat_indices, flat_params


@primitive("Gather", fresh=True, returns_array=True)
def _gather(params, indices, axis, batch_dims):
    scatter.check_indices(indices, params.shape[axis], "Gather")
    if batch_dims == 0:
        return np.take(params, indices, axis=axis)
    flat_indices, flat_params = _batched(params, indices, axis, batch_dims)
    result = np.take(flat_params, flat_indices, axis=0)
    return result.reshape(indices.shape + params.shape[axis + 1:])


_gather.jvp(forwardprop.LINEAR)  # JVP: linear: the op applied to the tangents


@_gather.gradient
def _gather_grad(dy, out, params, indices, axis, batch_dims):
    grad = execute(_gather_grad_op, (dy, indices),
                   {"shape": params.shape, "axis": axis, "batch_dims": batch_dims})
    return grad, None


@primitive("GatherGrad", fresh=True, returns_array=True, unknown_dims=True)  # fills None from dy
def _gather_grad_op(dy, indices, shape, axis, batch_dims):
    # Scatter-add: the transpose of gather. Repeated indices accumulate.
    return scatter.gather_grad(dy, indices, shape, axis, batch_dims)


_gather_grad_op.jvp(forwardprop.LINEAR)  # JVP: linear: the op applied to the tangents


@_gather_grad_op.gradient
def _gather_grad_op_grad(ddx, out, dy, indices, shape, axis, batch_dims):
    return gather(ddx, indices, axis=axis, batch_dims=batch_dims), None


# The compiled scatter-add (the numba kernel set; `kernel_sets.py`).
kernel_sets.register("GatherGrad", forward="eagerflow.ops.kernels.scatter_jit:gather_grad")


def gather(params: TensorLike, indices: TensorLike, validate_indices: Any = None,
           axis: int | None = None, batch_dims: int = 0, name: str | None = None) -> Tensor:
    """Takes slices of `params` along `axis` at `indices`.

    Args:
        params: the tensor to gather from.
        indices: integer tensor of positions in ``[0, params.shape[axis])``.
        axis: the axis to gather along (default `batch_dims`).
        batch_dims: number of leading dimensions shared by `params` and `indices`
            (negative: counted back from the rank of `indices`).

    Raises:
        InvalidArgumentError: for an index out of range, naming it.

    Examples:
        >>> import eagerflow as ef
        >>> ef.gather([[1, 2], [3, 4], [5, 6]], [2, 0])
        ef.Tensor(
        [[5 6]
         [1 2]], shape=(2, 2), dtype=int32)
    """
    del validate_indices  # indices are always validated
    params = convert_input(params)
    indices = _int_tensor(indices, "Gather")
    batch_dims = int(batch_dims)
    if batch_dims < 0:
        batch_dims += indices.ndim  # counts from the end of the indices' dimensions, like TF
    axis = batch_dims if axis is None else int(axis)
    if not -params.ndim <= axis < params.ndim:
        raise errors.InvalidArgumentError(
            f"Expected axis in the range [{-params.ndim}, {params.ndim}), but got {axis}",
            "Gather",
        )
    axis %= params.ndim
    if batch_dims:
        if axis != batch_dims or params.shape[:batch_dims] != indices.shape[:batch_dims]:
            raise errors.InvalidArgumentError(
                f"batch_dims={batch_dims} needs axis == batch_dims and matching leading "
                f"dimensions; got axis={axis}, params {params.shape}, indices {indices.shape}",
                "Gather",
            )
    return execute(_gather, (params, indices), {"axis": axis, "batch_dims": batch_dims})


# -- gather_nd / scatter_nd ---------------------------------------------------------------
def _nd_coordinates(indices: np.ndarray, shape, op_name: str) -> tuple:
    depth = indices.shape[-1]
    if depth > len(shape):
        raise errors.InvalidArgumentError(
            f"indices.shape[-1] = {depth} must be <= the rank of the indexed tensor "
            f"({len(shape)}, shape {tuple(shape)})", op_name
        )
    bad = ((indices < 0) | (indices >= np.asarray(shape[:depth], np.int64))).any(axis=-1)
    if bad.any():
        where = tuple(int(i) for i in np.argwhere(bad)[0])
        position = f"[{', '.join(str(i) for i in where)}]" if where else ""
        target = "param shape" if op_name == "GatherNd" else "shape"
        raise errors.InvalidArgumentError(
            f"indices{position} = {indices[where].tolist()} does not index into {target} "
            f"{list(shape)}", op_name
        )
    return tuple(np.moveaxis(indices, -1, 0))


@primitive("GatherNd")
def _gather_nd(params, indices):
    return params[_nd_coordinates(indices, params.shape, "GatherNd")]


_gather_nd.jvp(forwardprop.LINEAR)  # JVP: linear: the op applied to the tangents


@_gather_nd.gradient
def _gather_nd_grad(dy, out, params, indices):
    return scatter_nd(indices, dy, params.shape), None


def gather_nd(params: TensorLike, indices: TensorLike, batch_dims: int = 0,
              name: str | None = None) -> Tensor:
    """Gathers slices of `params` addressed by the last axis of `indices`.

    Examples:
        >>> import eagerflow as ef
        >>> ef.gather_nd([[1, 2], [3, 4]], [[1, 0], [0, 1]])
        ef.Tensor([3 2], shape=(2,), dtype=int32)
    """
    if batch_dims:
        raise errors.UnimplementedError("gather_nd with batch_dims != 0", "GatherNd")
    params = convert_input(params)
    indices = _int_tensor(indices, "GatherNd")
    if indices.ndim == 0:
        raise errors.InvalidArgumentError("indices must have rank >= 1", "GatherNd")
    return execute(_gather_nd, (params, indices))


@primitive("ScatterNd")
def _scatter_nd(indices, updates, shape):
    budget = context.thread.load_budget
    if budget is not None:  # loading a file: bound the output first
        budget.charge(shape, updates.dtype, f"op ScatterNd: output of shape "
                      f"{tuple(shape)}", transient=True)
    result = np.zeros(shape, updates.dtype)
    np.add.at(result, _nd_coordinates(indices, shape, "ScatterNd"), updates)
    return result


_scatter_nd.jvp(forwardprop.LINEAR)  # JVP: linear: the op applied to the tangents


@_scatter_nd.gradient
def _scatter_nd_grad(dy, out, indices, updates, shape):
    return None, gather_nd(dy, indices)


def scatter_nd(indices: TensorLike, updates: TensorLike, shape: ShapeLike,
               name: str | None = None) -> Tensor:
    """Scatters `updates` into zeros of `shape` at `indices`; duplicates are summed.

    Examples:
        >>> import eagerflow as ef
        >>> ef.scatter_nd([[1], [3], [1]], [1.0, 2.0, 3.0], [4])
        ef.Tensor([0. 4. 0. 2.], shape=(4,), dtype=float32)
    """
    indices = _int_tensor(indices, "ScatterNd")
    if indices.ndim == 0:
        raise errors.InvalidArgumentError("indices must have rank >= 1", "ScatterNd")
    updates = convert_input(updates)
    shape = tuple(int(s) for s in buffers.read(convert_input(shape)).reshape(-1))
    expected = indices.shape[:-1] + shape[indices.shape[-1]:]
    if updates.shape != expected:
        raise errors.InvalidArgumentError(
            f"updates must have shape indices.shape[:-1] + shape[indices.shape[-1]:] = "
            f"{expected}, got {updates.shape}", "ScatterNd"
        )
    return execute(_scatter_nd, (indices, updates), {"shape": shape})


def scatter_along_last_axis(updates, indices, depth):
    """Scatters ``updates[..., j]`` to position ``indices[..., j]`` of a new last axis of
    size `depth` (zeros elsewhere); the gradient of `top_k` and similar selections."""
    indices = convert_input(indices)
    batch_shape = indices.shape[:-1]
    grids = np.meshgrid(*[np.arange(n) for n in batch_shape], indexing="ij")
    coords = [np.broadcast_to(g[..., None], indices.shape) for g in grids]
    if getattr(indices, "_symbolic", False):  # traced by ef.function: indices known at run time
        parts = [_creation.constant(c.astype(np.int64)) for c in coords]
        full: Any = _array.stack([*parts, _math.cast(indices, np.int64)], axis=-1)
    else:
        full = np.stack(coords + [buffers.read(indices)], axis=-1).astype(np.int64)
    return scatter_nd(full, updates, batch_shape + (int(depth),))


# -- masks and encodings ------------------------------------------------------------------
def boolean_mask(tensor: TensorLike, mask: TensorLike, axis: int | None = None,
                 name: str | None = None) -> Tensor:
    """Keeps the entries of `tensor` where `mask` is true (mask covers dims from `axis`).

    Examples:
        >>> import eagerflow as ef
        >>> ef.boolean_mask([[1, 2], [3, 4], [5, 6]], [True, False, True])
        ef.Tensor(
        [[1 2]
         [5 6]], shape=(2, 2), dtype=int32)
    """
    x = convert_input(tensor)
    mask = convert_input(mask)
    if mask.dtype != np.bool_:
        raise errors.InvalidArgumentError(
            f"mask must be a bool tensor, got dtype {mask.dtype.name}", "BooleanMask"
        )
    if mask.ndim == 0:
        raise errors.InvalidArgumentError("mask cannot be scalar", "BooleanMask")
    axis = 0 if axis is None else int(axis)
    if not -x.ndim <= axis < x.ndim:
        raise errors.InvalidArgumentError(
            f"axis {axis} is out of bounds for a tensor of rank {x.ndim}: expected "
            f"[{-x.ndim}, {x.ndim})", "BooleanMask"
        )
    axis %= x.ndim
    covered = x.shape[axis:axis + mask.ndim]
    if covered != mask.shape:
        raise errors.InvalidArgumentError(
            f"Shapes {x.shape} (tensor) and {mask.shape} (mask) are incompatible: the "
            f"mask must match dimensions {axis}..{axis + mask.ndim - 1} of the tensor",
            "BooleanMask",
        )
    flat_shape = x.shape[:axis] + (-1,) + x.shape[axis + mask.ndim:]
    flat = _array.reshape(x, flat_shape)
    if getattr(mask, "_symbolic", False):  # traced by ef.function: positions known at run time
        positions = _array.reshape(_math.where(_array.reshape(mask, [-1])), [-1])
        return gather(flat, positions, axis=axis)
    return gather(flat, np.flatnonzero(buffers.read(mask)).astype(np.int64), axis=axis)


@primitive("OneHot", differentiable=False, fresh=True, returns_array=True)
def _one_hot(indices, depth, on_value, off_value, axis, dtype):
    budget = context.thread.load_budget
    if budget is not None:  # loading a file: bound the output first
        budget.charge((*indices.shape, depth), dtype, f"op OneHot: output of shape "
                      f"{(*indices.shape, depth)}", transient=True)
    hot = np.expand_dims(indices, -1) == np.arange(depth)
    result = np.where(hot, np.asarray(on_value, dtype), np.asarray(off_value, dtype))
    return result if axis == -1 else np.moveaxis(result, -1, axis)


def one_hot(indices: TensorLike, depth: Any, on_value: Any = None, off_value: Any = None,
            axis: int | None = None, dtype: DTypeLike = None, name: str | None = None) -> Tensor:
    """One-hot encodes integer `indices` along a new axis of size `depth`.

    Indices outside ``[0, depth)`` give a row of `off_value` (like TensorFlow).

    Examples:
        >>> import eagerflow as ef
        >>> ef.one_hot([0, 2], 3)
        ef.Tensor(
        [[1. 0. 0.]
         [0. 0. 1.]], shape=(2, 3), dtype=float32)
    """
    indices = _int_tensor(indices, "OneHot")
    if int(depth) < 0:
        raise errors.InvalidArgumentError(f"depth must be non-negative, got {depth}", "OneHot")
    if dtype is None:
        # The dtype of on_value as ef.constant would give it (5 -> int32, 5.0 -> float32).
        dtype = convert_input(on_value).dtype if on_value is not None else dtypes.float32
    dtype = dtypes.as_dtype(dtype)
    on = 1 if on_value is None else buffers.read(convert_input(on_value))
    off = 0 if off_value is None else buffers.read(convert_input(off_value))
    axis = -1 if axis is None else int(axis)
    if not -1 <= axis <= indices.ndim:
        raise errors.InvalidArgumentError(
            f"axis must be in [-1, {indices.ndim}], got {axis}", "OneHot"
        )
    return execute(_one_hot, (indices,), {"depth": int(depth), "on_value": on,
                                          "off_value": off, "axis": axis, "dtype": dtype})


def sequence_mask(lengths: Any, maxlen: Any = None, dtype: DTypeLike = dtypes.bool,
                  name: str | None = None) -> Tensor:
    """Returns a mask whose row ``i`` is true for its first ``lengths[i]`` positions.

    Examples:
        >>> import eagerflow as ef
        >>> ef.sequence_mask([1, 3], 4)
        ef.Tensor(
        [[ True False False False]
         [ True  True  True False]], shape=(2, 4), dtype=bool)
    """
    lengths = buffers.read(_int_tensor(lengths, "SequenceMask"))
    if maxlen is None:
        maxlen = int(lengths.max()) if lengths.size else 0
    mask = np.arange(int(maxlen)) < np.expand_dims(lengths, -1)
    return _creation.constant(mask.astype(dtypes.as_dtype(dtype)))


# -- padding ------------------------------------------------------------------------------
def _charge_padded(op: str, x, paddings) -> None:
    budget = context.thread.load_budget
    if budget is not None:  # loading a file: bound the output first
        shape = tuple(n + int(lo) + int(hi) for n, (lo, hi) in zip(x.shape, paddings,
                                                                   strict=False))
        budget.charge(shape, x.dtype, f"op {op}: output of shape {shape}", transient=True)


@primitive("PadV2")
def _pad(x, paddings, constant_values):
    _charge_padded("PadV2", x, paddings)
    return np.pad(x, paddings, constant_values=constant_values)


@_pad.jvp
def _pad_jvp(tangents, out, x, paddings, constant_values):
    # affine in x: the padding value is a constant, so the tangent is padded with zeros
    return execute(_pad, (tangents[0],), {"paddings": paddings, "constant_values": 0})


@_pad.gradient
def _pad_grad(dy, out, x, paddings, constant_values):
    # Stops counted from the end: a traced input may have unknown sizes (batch None).
    inner = tuple(slice(lo, -hi if hi else None) for lo, hi in paddings)
    return _array.getitem(dy, inner)


def _mirror_index(n: int, lo: int, hi: int, mode: str) -> np.ndarray:
    return np.pad(np.arange(n), (lo, hi), mode=mode)  # type: ignore[call-overload]  # (a str mode)


@primitive("MirrorPad")
def _mirror_pad(x, paddings, mode):
    _charge_padded("MirrorPad", x, paddings)
    return np.pad(x, paddings, mode=mode)


_mirror_pad.jvp(forwardprop.LINEAR)  # JVP: linear: the op applied to the tangents


@_mirror_pad.gradient
def _mirror_pad_grad(dy, out, x, paddings, mode):
    return execute(_mirror_pad_grad_op, (dy,), {"paddings": paddings, "mode": mode})


@primitive("MirrorPadGrad")
def _mirror_pad_grad_op(dy, paddings, mode):
    # Fold each padded axis back onto the positions its values were copied from.
    result = dy
    for axis, (lo, hi) in enumerate(paddings):
        if not lo and not hi:
            continue
        n = result.shape[axis] - lo - hi
        moved = np.moveaxis(result, axis, 0)
        folded = np.zeros((n,) + moved.shape[1:], dy.dtype)
        np.add.at(folded, _mirror_index(n, lo, hi, mode), moved)
        result = np.moveaxis(folded, 0, axis)
    return result


_mirror_pad_grad_op.jvp(forwardprop.LINEAR)  # JVP: linear: the op applied to the tangents


@_mirror_pad_grad_op.gradient
def _mirror_pad_grad_op_grad(ddx, out, dy, paddings, mode):
    return execute(_mirror_pad, (ddx,), {"paddings": paddings, "mode": mode})


def pad(tensor: TensorLike, paddings: Any, mode: str = "CONSTANT", constant_values: TensorLike = 0,
        name: str | None = None) -> Tensor:
    """Pads `tensor`; ``paddings[i] = [before, after]`` for axis `i`.

    Args:
        mode: ``"CONSTANT"``, ``"REFLECT"`` (mirror without the edge) or ``"SYMMETRIC"``
            (mirror with the edge).

    Examples:
        >>> import eagerflow as ef
        >>> ef.pad([[1, 2]], [[0, 0], [1, 1]])
        ef.Tensor([[0 1 2 0]], shape=(1, 4), dtype=int32)
        >>> ef.pad([1, 2, 3], [[2, 0]], mode="REFLECT")
        ef.Tensor([3 2 1 2 3], shape=(5,), dtype=int32)
    """
    x = convert_input(tensor)
    pads = buffers.read(convert_input(paddings))
    if pads.shape != (x.ndim, 2) or pads.dtype.kind not in "iu" or (pads < 0).any():
        raise errors.InvalidArgumentError(
            f"paddings must be non-negative integers of shape [{x.ndim}, 2] for a tensor of "
            f"shape {x.shape}, got {pads.tolist()}", "PadV2"
        )
    paddings = tuple((int(lo), int(hi)) for lo, hi in pads)
    mode = mode.upper()
    if mode == "CONSTANT":
        fill = buffers.read(convert_input(constant_values))
        return execute(_pad, (x,), {"paddings": paddings, "constant_values": fill})
    if mode not in ("REFLECT", "SYMMETRIC"):
        raise errors.InvalidArgumentError(
            f"mode must be CONSTANT, REFLECT or SYMMETRIC, got {mode!r}", "MirrorPad"
        )
    limit = 0 if mode == "REFLECT" else 1
    for (lo, hi), n in zip(paddings, x.shape, strict=True):
        if max(lo, hi) > n - 1 + limit:
            raise errors.InvalidArgumentError(
                f"paddings {paddings} too large for {mode} padding of shape {x.shape}",
                "MirrorPad",
            )
    return execute(_mirror_pad, (x,), {"paddings": paddings, "mode": mode.lower()})
