"""Array ops: shape manipulation, joining and splitting, and indexing.

The creation ops (constant, zeros, fill, range, ...) live in `ops/creation.py`.

Examples:
    >>> import eagerflow as ef
    >>> x = ef.reshape(ef.range(6), [2, 3])
    >>> ef.transpose(x)
    ef.Tensor(
    [[0 3]
     [1 4]
     [2 5]], shape=(3, 2), dtype=int32)
    >>> x[:, 1]
    ef.Tensor([1 4], shape=(2,), dtype=int32)
"""

from __future__ import annotations

import builtins
import math
from typing import Any

import numpy as np

from eagerflow.core import buffers, context, dtypes, errors, forwardprop, tensor
from eagerflow.core.dispatch import convert_input, execute, primitive
from eagerflow.core.variable import Variable
from eagerflow.ops import creation
from eagerflow.ops import reduce as _reduce
from eagerflow.ops.typing import AxisLike, ShapeLike, Tensor, TensorLike

_Tensor = tensor.Tensor


def _axis(axis, ndim: int, op_name: str) -> int:
    axis = int(axis)
    if not -ndim <= axis < ndim:
        raise errors.InvalidArgumentError(
            f"axis {axis} is out of bounds for a tensor of rank {ndim}: expected "
            f"[{-ndim}, {ndim})", op_name
        )
    return axis % ndim if ndim else 0


# -- identity, shape, reshape -------------------------------------------------------------
@primitive("Identity", elidable=True, returns_array=True)
def _identity(x):
    return x


_identity.jvp(forwardprop.LINEAR)  # JVP: linear: the op applied to the tangents


@_identity.gradient
def _identity_grad(dy, out, x):
    return dy


def identity(input: TensorLike,
             name: str | None = None) -> Tensor:  # noqa: A002 - TensorFlow's name
    """Returns a tensor with the same value as `input` (a new tensor object).

    Examples:
        >>> import eagerflow as ef
        >>> ef.identity([1, 2])
        ef.Tensor([1 2], shape=(2,), dtype=int32)
    """
    return execute(_identity, (input,))


@primitive("StopGradient", differentiable=False, elidable=True, returns_array=True)
def _stop_gradient(x):
    return x


def stop_gradient(input: TensorLike,
                  name: str | None = None) -> Tensor:  # noqa: A002 - TensorFlow's name
    """Returns `input` as a value that gradients do not flow through.

    Examples:
        >>> import eagerflow as ef
        >>> x = ef.constant(3.0)
        >>> with ef.GradientTape() as tape:
        ...     tape.watch(x)
        ...     y = x * ef.stop_gradient(x)
        >>> tape.gradient(y, x)
        ef.Tensor(3.0, shape=(), dtype=float32)
    """
    return execute(_stop_gradient, (input,))


@primitive("Shape", differentiable=False, shape_only=True)
def _shape_op(x, out_type):
    return np.asarray(x.shape, out_type)


def shape(input: TensorLike, out_type: Any = dtypes.int32,
          name: str | None = None) -> Tensor:  # noqa: A002
    """Returns the shape of `input` as a 1-D integer tensor.

    Examples:
        >>> import eagerflow as ef
        >>> ef.shape(ef.zeros([2, 3]))
        ef.Tensor([2 3], shape=(2,), dtype=int32)
    """
    x = convert_input(input)
    if None in x.shape:  # a traced tensor with unknown dimensions: known when the graph runs
        return execute(_shape_op, (x,), {"out_type": dtypes.as_dtype(out_type)})
    return tensor.new_tensor(np.asarray(x.shape, dtypes.as_dtype(out_type)))


@primitive("Size", differentiable=False, shape_only=True)
def _size_op(x, out_type):
    return np.asarray(x.size, out_type)


def size(input: TensorLike, out_type: Any = dtypes.int32,
         name: str | None = None) -> Tensor:  # noqa: A002
    """Returns the number of elements of `input` as a scalar integer tensor.

    Examples:
        >>> import eagerflow as ef
        >>> ef.size(ef.zeros([2, 3]))
        ef.Tensor(6, shape=(), dtype=int32)
    """
    x = convert_input(input)
    if None in x.shape:  # a traced tensor with unknown dimensions: known when the graph runs
        return execute(_size_op, (x,), {"out_type": dtypes.as_dtype(out_type)})
    return tensor.new_tensor(np.asarray(math.prod(x.shape), dtypes.as_dtype(out_type)))


def rank(input: TensorLike, name: str | None = None) -> Tensor:  # noqa: A002
    """Returns the number of dimensions of `input` as a scalar int32 tensor.

    Examples:
        >>> import eagerflow as ef
        >>> ef.rank(ef.zeros([2, 3]))
        ef.Tensor(2, shape=(), dtype=int32)
    """
    return tensor.new_tensor(np.asarray(convert_input(input).ndim, np.int32))


@primitive("Reshape", elidable="shape", returns_array=True, unknown_dims=True)
def _reshape(x, shape):
    try:
        return x.reshape(shape)
    except ValueError:
        raise errors.InvalidArgumentError(
            f"Input to reshape is a tensor with {x.size} values (shape {x.shape}), which "
            f"cannot take the requested shape {list(shape)}"
        ) from None


_reshape.jvp(forwardprop.LINEAR)  # JVP: linear: the op applied to the tangents


@_reshape.gradient
def _reshape_grad(dy, out, x, shape):
    return reshape(dy, x.shape)


def reshape(tensor: TensorLike, shape: ShapeLike,
            name: str | None = None) -> Tensor:  # noqa: F811 - TensorFlow's argument name
    """Reshapes `tensor` to `shape` (one entry may be -1, inferred from the size).

    Examples:
        >>> import eagerflow as ef
        >>> ef.reshape([1, 2, 3, 4], [2, -1])
        ef.Tensor(
        [[1 2]
         [3 4]], shape=(2, 2), dtype=int32)
    """
    if isinstance(shape, (list, tuple)) and any(d is None for d in shape):
        # An unknown dimension (a traced input signature's None) is the one to infer.
        if sum(d is None for d in shape) > 1 or any(d == -1 for d in shape if d is not None):
            raise errors.InvalidArgumentError(
                f"shape {list(shape)} has more than one unknown dimension (None or -1)",
                "Reshape")
        shape = [-1 if d is None else d for d in shape]
    return execute(_reshape, (tensor,), {"shape": creation.shape_list(shape, "Reshape")})


@primitive("Transpose", returns_array=True)
def _transpose(x, perm):
    if perm is None:
        return x.T
    if sorted(perm) != list(builtins.range(x.ndim)):
        raise errors.InvalidArgumentError(
            f"perm {list(perm)} is not a permutation of the {x.ndim} dimensions of a tensor "
            f"of shape {x.shape}"
        )
    return x.transpose(perm)


_transpose.jvp(forwardprop.LINEAR)  # JVP: linear: the op applied to the tangents


@_transpose.gradient
def _transpose_grad(dy, out, x, perm):
    return transpose(dy, None if perm is None else list(np.argsort(perm)))


def transpose(a: TensorLike, perm: Any = None, conjugate: bool = False,
              name: str | None = None) -> Tensor:
    """Permutes the dimensions of `a` (reverses them when `perm` is None).

    Examples:
        >>> import eagerflow as ef
        >>> ef.transpose(ef.zeros([2, 3, 4]), [2, 0, 1]).shape
        (4, 2, 3)
    """
    perm = None if perm is None else creation.shape_list(perm, "Transpose")
    result = execute(_transpose, (a,), {"perm": perm})
    if conjugate and result.dtype.kind == "c":
        raise errors.UnimplementedError("conjugate=True for complex tensors", "Transpose")
    return result


def expand_dims(input: TensorLike, axis: int,
                name: str | None = None) -> Tensor:  # noqa: A002
    """Inserts a dimension of size 1 at `axis`.

    Examples:
        >>> import eagerflow as ef
        >>> ef.expand_dims([1, 2], 0).shape
        (1, 2)
    """
    x = convert_input(input)
    axis = int(axis)
    if not -x.ndim - 1 <= axis <= x.ndim:
        raise errors.InvalidArgumentError(
            f"axis {axis} is out of bounds for expand_dims of a tensor of rank {x.ndim}: "
            f"expected [{-x.ndim - 1}, {x.ndim}]", "ExpandDims"
        )
    axis = axis % (x.ndim + 1)
    return reshape(x, x.shape[:axis] + (1,) + x.shape[axis:])


def squeeze(input: TensorLike, axis: AxisLike = None,
            name: str | None = None) -> Tensor:  # noqa: A002
    """Removes dimensions of size 1 (all of them, or those listed in `axis`).

    Raises:
        InvalidArgumentError: if a listed axis does not have size 1.

    Examples:
        >>> import eagerflow as ef
        >>> ef.squeeze(ef.zeros([1, 2, 1])).shape
        (2,)
    """
    x = convert_input(input)
    if axis is None:
        new_shape = tuple(n for n in x.shape if n != 1)
    else:
        axes = {_axis(a, x.ndim, "Squeeze") for a in np.atleast_1d(axis)}
        for a in axes:
            if x.shape[a] != 1:
                raise errors.InvalidArgumentError(
                    f"Can not squeeze dim[{a}], expected a dimension of 1, got {x.shape[a]} "
                    f"(shape {x.shape})", "Squeeze"
                )
        new_shape = tuple(n for i, n in enumerate(x.shape) if i not in axes)
    return reshape(x, new_shape)


@primitive("BroadcastTo", returns_array=True)
def _broadcast_to(x, shape):
    budget = context.thread.load_budget
    if budget is not None:  # loading a file: bound the output first
        budget.charge(shape, x.dtype, f"op BroadcastTo: output of shape "
                      f"{tuple(shape)}", transient=True)
    try:
        return np.broadcast_to(x, shape)
    except ValueError:
        raise errors.InvalidArgumentError(
            f"Incompatible shapes: {x.shape} vs. {tuple(shape)}"
        ) from None


_broadcast_to.jvp(forwardprop.LINEAR)  # JVP: linear: the op applied to the tangents


@_broadcast_to.gradient
def _broadcast_to_grad(dy, out, x, shape):
    return dy  # the tape sums it back to x's shape


def broadcast_to(input: TensorLike, shape: ShapeLike,
                 name: str | None = None) -> Tensor:  # noqa: A002
    """Broadcasts `input` to `shape` with NumPy's rules.

    Examples:
        >>> import eagerflow as ef
        >>> ef.broadcast_to([1, 2], [2, 2])
        ef.Tensor(
        [[1 2]
         [1 2]], shape=(2, 2), dtype=int32)
    """
    return execute(_broadcast_to, (input,), {"shape": creation.shape_list(shape, "BroadcastTo")})


# -- joining and splitting ----------------------------------------------------------------
@primitive("ConcatV2", fresh=True, returns_array=True)
def _concat(*values, axis):
    return np.concatenate(values, axis=axis)


_concat.jvp(forwardprop.LINEAR)  # JVP: linear: the op applied to the tangents


@_concat.gradient
def _concat_grad(dy, out, *values, axis):
    sizes = [v.shape[axis] for v in values]
    return split(dy, sizes, axis=axis)


def concat(values: list[TensorLike] | tuple[TensorLike, ...], axis: int,
           name: str | None = None) -> Tensor:
    """Joins a list of tensors along an existing axis.

    Examples:
        >>> import eagerflow as ef
        >>> ef.concat([[[1, 2]], [[3, 4]]], axis=0)
        ef.Tensor(
        [[1 2]
         [3 4]], shape=(2, 2), dtype=int32)
    """
    tensors = _tensor_list(values, "ConcatV2")
    if len(tensors) == 1:
        return identity(tensors[0])
    return execute(_concat, tensors, {"axis": _axis(axis, tensors[0].ndim, "ConcatV2")})


def _tensor_list(values: object, op_name: str) -> tuple[Tensor, ...]:
    if isinstance(values, _Tensor) or not isinstance(values, (list, tuple)):
        raise errors.InvalidArgumentError(
            f"expected a list of tensors, got {type(values).__name__}", op_name
        )
    if not values:
        raise errors.InvalidArgumentError("expected a non-empty list of tensors", op_name)
    converted = tuple(convert_input(v) for v in values)
    return converted


@primitive("Pack", fresh=True, returns_array=True)
def _stack(*values, axis):
    return np.stack(values, axis=axis)


_stack.jvp(forwardprop.LINEAR)  # JVP: linear: the op applied to the tangents


@_stack.gradient
def _stack_grad(dy, out, *values, axis):
    return unstack(dy, axis=axis)


def stack(values: list[TensorLike] | tuple[TensorLike, ...], axis: int = 0,
          name: str | None = None) -> Tensor:
    """Joins a list of same-shaped tensors along a new axis.

    Examples:
        >>> import eagerflow as ef
        >>> ef.stack([[1, 2], [3, 4]], axis=1)
        ef.Tensor(
        [[1 3]
         [2 4]], shape=(2, 2), dtype=int32)
    """
    tensors = _tensor_list(values, "Pack")
    ndim = tensors[0].ndim + 1
    return execute(_stack, tensors, {"axis": _axis(axis, ndim, "Pack")})


@primitive("Unpack", num_outputs=-1)
def _unstack(x, axis):
    return tuple(np.moveaxis(x, axis, 0))


_unstack.jvp(forwardprop.LINEAR)  # JVP: linear: the op applied to the tangents


@_unstack.gradient
def _unstack_grad(dys, outs, x, axis):
    return stack(list(dys), axis=axis)


def unstack(value: TensorLike, num: int | None = None, axis: int = 0,
            name: str | None = None) -> list[Tensor]:
    """Splits `value` along `axis` into a list of tensors with that axis removed.

    Examples:
        >>> import eagerflow as ef
        >>> [t.numpy().tolist() for t in ef.unstack([[1, 2], [3, 4]])]
        [[1, 2], [3, 4]]
    """
    x = convert_input(value)
    if x.ndim == 0:
        raise errors.InvalidArgumentError("Cannot unstack a scalar tensor", "Unpack")
    axis = _axis(axis, x.ndim, "Unpack")
    if num is not None and num != x.shape[axis]:
        raise errors.InvalidArgumentError(
            f"num={num} does not match dimension {axis} of shape {x.shape}", "Unpack"
        )
    if x.shape[axis] == 0:
        return []
    return list(execute(_unstack, (x,), {"axis": axis}))


@primitive("SplitV", num_outputs=-1)
def _split(x, sizes, axis):
    return tuple(np.split(x, np.cumsum(sizes)[:-1], axis=axis))


_split.jvp(forwardprop.LINEAR)  # JVP: linear: the op applied to the tangents


@_split.gradient
def _split_grad(dys, outs, x, sizes, axis):
    return concat(list(dys), axis=axis)


def split(value: TensorLike, num_or_size_splits: Any, axis: int = 0, num: Any = None,
          name: str | None = None) -> list[Tensor]:
    """Splits `value` along `axis` into equal parts or parts of the given sizes.

    Args:
        value: the tensor to split.
        num_or_size_splits: a number of equal parts, or a list of sizes (one may be -1).
        axis: the axis to split.

    Examples:
        >>> import eagerflow as ef
        >>> [t.shape for t in ef.split(ef.zeros([6, 2]), [1, 2, -1])]
        [(1, 2), (2, 2), (3, 2)]
    """
    x = convert_input(value)
    axis = _axis(axis, x.ndim, "SplitV")
    length = x.shape[axis]
    if isinstance(num_or_size_splits, (int, np.integer)) or (
        isinstance(num_or_size_splits, _Tensor) and num_or_size_splits.ndim == 0
    ):
        parts = int(num_or_size_splits)
        if parts <= 0 or length % parts:
            raise errors.InvalidArgumentError(
                f"Number of ways to split should evenly divide the split dimension, but got "
                f"split_dim {axis} (size = {length}) and num_split {parts}", "SplitV"
            )
        sizes: list[int] | tuple[int, ...] = (length // parts,) * parts
    else:
        given = list(creation.shape_list(num_or_size_splits, "SplitV"))
        if given.count(-1) > 1:
            raise errors.InvalidArgumentError(f"only one size may be -1, got {given}", "SplitV")
        resolved = list(given)
        if -1 in resolved:
            resolved[resolved.index(-1)] = length - (sum(resolved) + 1)
        sizes = resolved
        if sum(sizes) != length or any(s < 0 for s in sizes):
            raise errors.InvalidArgumentError(
                f"Determined shape must either match input shape along split_dim exactly if "
                f"fully specified, or be less than the size of the input along split_dim if "
                f"not fully specified. Got sizes {given} for dimension {axis} of size {length}",
                "SplitV",
            )
        sizes = tuple(sizes)
    return list(execute(_split, (x,), {"sizes": sizes, "axis": axis}))


@primitive("Tile", fresh=True, returns_array=True)
def _tile(x, multiples):
    budget = context.thread.load_budget
    if budget is not None:  # loading a file: bound the output first
        rank = max(len(multiples), x.ndim)
        shape = tuple(int(a) * int(b) for a, b in zip(
            (1,) * (rank - x.ndim) + x.shape, (1,) * (rank - len(multiples)) + tuple(multiples),
            strict=True))
        budget.charge(shape, x.dtype, f"op Tile: output of shape {shape}", transient=True)
    return np.tile(x, multiples)


_tile.jvp(forwardprop.LINEAR)  # JVP: linear: the op applied to the tangents


@_tile.gradient
def _tile_grad(dy, out, x, multiples):
    # Split each tiled axis into (multiple, size) and sum over the multiples.
    split_shape = []
    for m, n in zip(multiples, x.shape, strict=True):
        split_shape += [m, n]
    multiple_axes = tuple(builtins.range(0, 2 * x.ndim, 2))
    return _reduce.reduce_sum(reshape(dy, split_shape), axis=multiple_axes)


def tile(input: TensorLike, multiples: Any, name: str | None = None) -> Tensor:  # noqa: A002
    """Repeats `input` `multiples[i]` times along axis `i`.

    Examples:
        >>> import eagerflow as ef
        >>> ef.tile([[1, 2]], [2, 1])
        ef.Tensor(
        [[1 2]
         [1 2]], shape=(2, 2), dtype=int32)
    """
    x = convert_input(input)
    multiples = creation.shape_list(multiples, "Tile")
    if len(multiples) != x.ndim:
        raise errors.InvalidArgumentError(
            f"Expected multiples argument to be a vector of length {x.ndim} but got length "
            f"{len(multiples)}", "Tile"
        )
    for i, m in enumerate(multiples):
        if m < 0:
            raise errors.InvalidArgumentError(
                f"Expected multiples[{i}] >= 0, but got {m}", "Tile"
            )
    return execute(_tile, (x,), {"multiples": multiples})


# -- indexing -----------------------------------------------------------------------------
def index_value(value: Any) -> Any:
    """The indexing rule for a value used inside an index or an index-like attribute: a 0-d
    integer array becomes a Python int, so ``x[i]`` with a scalar tensor ``i`` stays basic
    indexing (a view, as ``x[2]``); anything else is returned as it is. Eager indexing and
    `ef.function`'s tracer and executor all apply this one rule.

    Examples:
        >>> import numpy as np
        >>> from eagerflow.ops import array_ops
        >>> array_ops.index_value(np.array(2)), array_ops.index_value(np.array([2]))
        (2, array([2]))
    """
    if type(value) is np.ndarray and value.ndim == 0 and value.dtype.kind in "iu":
        return value.item()
    return value


def _index_key(key):
    """Converts tensors inside an indexing key to NumPy values (hashable where possible)."""
    if isinstance(key, tuple):
        return tuple(_index_key(k) for k in key)
    if isinstance(key, (_Tensor, Variable)):
        key = convert_input(key)
        if getattr(key, "_symbolic", False):  # traced by ef.function: read when the graph runs
            return key
        return index_value(buffers.read(key))
    if isinstance(key, list):
        return np.asarray(key)
    return key


def _is_basic(key) -> bool:
    parts = key if isinstance(key, tuple) else (key,)
    return all(
        isinstance(k, (int, np.integer, slice)) or k is None or k is Ellipsis for k in parts
    )


class IndexOutOfBoundsError(errors.InvalidArgumentError, IndexError):
    """An index past the end of an axis: TensorFlow's `InvalidArgumentError`, and also the
    `IndexError` that NumPy raises and Python's sequence protocol stops at."""


@primitive("StridedSlice", returns_array=True)
def _getitem(x, key):
    try:
        return x[key]
    except IndexError as e:
        raise IndexOutOfBoundsError(f"{e} (indexing a tensor of shape {x.shape})") from None


_getitem.jvp(forwardprop.LINEAR)  # JVP: linear: the op applied to the tangents


@_getitem.gradient
def _getitem_grad(dy, out, x, key):
    # A traced tensor with unknown dimensions passes its shape as a tensor, read at run time.
    target = x.shape if None not in x.shape else shape(x)
    return execute(_getitem_grad_op, (dy,), {"key": key, "shape": target})


@primitive("StridedSliceGrad", returns_array=True)
def _getitem_grad_op(dy, key, shape):
    dx = np.zeros(tuple(shape), dy.dtype)
    if _is_basic(key):
        dx[key] = dy
    else:
        np.add.at(dx, key, dy)  # repeated indices accumulate
    return dx


_getitem_grad_op.jvp(forwardprop.LINEAR)  # JVP: linear: the op applied to the tangents


@_getitem_grad_op.gradient
def _getitem_grad_op_grad(ddx, out, dy, key, shape):
    return getitem(ddx, key)


def getitem(tensor, key):
    """NumPy-style indexing and slicing (``tensor[key]``); differentiable.

    Examples:
        >>> import eagerflow as ef
        >>> x = ef.constant([[1, 2, 3], [4, 5, 6]])
        >>> x[1, ::2]
        ef.Tensor([4 6], shape=(2,), dtype=int32)
        >>> x[ef.constant([1, 0])][:, 0]
        ef.Tensor([4 1], shape=(2,), dtype=int32)
    """
    return execute(_getitem, (tensor,), {"key": _index_key(key)})
