"""Creation ops: tensors from data (constant, convert_to_tensor) and filled tensors.

zeros, ones, fill, eye, range and linspace build a tensor from a shape and values;
zeros_like and ones_like take the shape of another tensor. All of them are at the top
level (``ef.zeros``).

Examples:
    >>> import eagerflow as ef
    >>> ef.zeros([2, 3]).shape, ef.fill([2], 7.0)
    ((2, 3), ef.Tensor([7. 7.], shape=(2,), dtype=float32))
    >>> ef.range(3)
    ef.Tensor([0 1 2], shape=(3,), dtype=int32)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from eagerflow.core import buffers, context, dtypes, errors, forwardprop, tensor
from eagerflow.core.dispatch import convert_input, execute, primitive
from eagerflow.core.variable import Variable
from eagerflow.ops import math as _math
from eagerflow.ops import reduce as _reduce
from eagerflow.ops.typing import DTypeLike, ShapeLike, Tensor, TensorLike

_Tensor = tensor.Tensor


def shape_list(shape, op_name: str) -> tuple:
    """Converts a shape argument (list, tuple, tensor, int) to a tuple of Python ints.

    The shape check of the creation ops and of the array ops (reshape, tile, ...).

    Raises:
        InvalidArgumentError: naming `op_name`, for a shape that is not a list of
            integers or has an unknown (None) dimension.

    Examples:
        >>> import eagerflow as ef
        >>> from eagerflow.ops import creation
        >>> creation.shape_list(ef.constant([2, 3]), "Reshape"), creation.shape_list(4, "Fill")
        ((2, 3), (4,))
    """
    if isinstance(shape, (int, np.integer)):
        return (int(shape),)
    if isinstance(shape, (list, tuple)) and any(d is None for d in shape):
        raise errors.InvalidArgumentError(
            f"shape {tuple(shape)} has an unknown dimension (None): it comes from a function "
            "traced with an input_signature (or reduce_retracing) that leaves that dimension "
            "unknown, and this op needs it fixed. Use ef.reshape with -1, broadcast by "
            "arithmetic, or give the dimension a fixed size in the input_signature.", op_name
        )
    if isinstance(shape, (list, tuple)):  # e.g. [ef.shape(x)[0], 1]: scalar tensors inside
        shape = [buffers.read(v) if isinstance(v, tensor.Tensor) else v for v in shape]
    try:
        values = np.asarray(shape)
    except Exception:  # noqa: BLE001 - reported below with the offending value
        values = None
    if values is None or values.ndim > 1 or (values.size and values.dtype.kind not in "iu"):
        raise errors.InvalidArgumentError(
            f"shape must be a list of integers, got {shape!r}", op_name
        )
    return tuple(int(v) for v in values.reshape(-1))


def constant(value: TensorLike, dtype: DTypeLike = None, shape: ShapeLike | None = None,
             name: str | None = None) -> Tensor:
    """Creates a tensor from Python or NumPy data.

    Args:
        value: a Python scalar, nested list, NumPy array or tensor.
        dtype: the dtype; by default floats become float32 and ints int32.
        shape: optional shape; a scalar `value` is broadcast to it, otherwise the number
            of elements must match.

    Returns:
        A Tensor (a copy: later changes to `value` do not affect it).

    Examples:
        >>> import eagerflow as ef
        >>> ef.constant([[1, 2], [3, 4]], dtype=ef.float32)
        ef.Tensor(
        [[1. 2.]
         [3. 4.]], shape=(2, 2), dtype=float32)
        >>> ef.constant(0.5, shape=[2])
        ef.Tensor([0.5 0.5], shape=(2,), dtype=float32)
    """
    if isinstance(value, (_Tensor, Variable)):
        value = convert_input(value)
        result = value if dtype is None else _math.cast(value, dtype)
    else:  # a copy: the tensor must not change when `value` does
        result = tensor.new_tensor(dtypes.to_array(value, dtype))
    if shape is not None:
        shape = shape_list(shape, "Const")
        array = buffers.read(result)
        if array.size == 1:
            array = np.broadcast_to(array.reshape(()), shape).copy()
        elif int(np.prod(shape)) == array.size:
            array = array.reshape(shape)
        else:
            raise errors.InvalidArgumentError(
                f"Cannot reshape a value with {array.size} elements to shape {shape}", "Const"
            )
        result = tensor.new_tensor(array)
    return result


def convert_to_tensor(value: TensorLike, dtype: DTypeLike = None, dtype_hint: Any = None,
                      name: str | None = None) -> Tensor:
    """Converts `value` to a Tensor; tensors pass through, variables are read.

    Args:
        value: anything `constant` accepts, or a Variable.
        dtype: required dtype; a tensor of another dtype is an error.
        dtype_hint: dtype to use for Python data when `dtype` is not given.

    Raises:
        InvalidArgumentError: if a tensor's dtype differs from `dtype`.

    Examples:
        >>> import eagerflow as ef
        >>> ef.convert_to_tensor([1.0, 2.0]).dtype
        dtype('float32')
    """
    if isinstance(value, (_Tensor, Variable)):
        result = convert_input(value)
        if dtype is not None and result.dtype != dtypes.as_dtype(dtype):
            raise errors.InvalidArgumentError(
                f"Tensor conversion requested dtype {dtypes.as_dtype(dtype).name} for a "
                f"tensor of dtype {result.dtype.name}; use ef.cast to change it"
            )
        return result
    tracer = context.thread.tracer  # a list holding traced tensors keeps their dtype
    if dtype is None and not (tracer is not None and isinstance(value, (list, tuple)) and
                              tracer.holds_tensor(value)):
        dtype = dtype_hint
    if isinstance(value, np.ndarray) and value.dtype.kind in "SUO":
        value = dtypes.to_array(value)  # text as `bytes`, as TensorFlow's string tensors
    return convert_input(value, copy=True, dtype=dtype)


def from_dlpack(x: Any) -> Tensor:
    """Creates a tensor from any array that speaks DLPack (PyTorch, NumPy, JAX, TF, ...).

    The data is copied: the tensor is immutable, and a buffer shared with `x` would change
    whenever `x` is written. (The other way, `torch.from_dlpack(t)` and
    `np.from_dlpack(t)` take an eagerflow tensor or variable, also as a copy.)

    Args:
        x: an object with a `__dlpack__` method on the CPU, such as a `torch.Tensor` or a
            NumPy array.

    Returns:
        A tensor with the values, shape and dtype of `x`.

    Raises:
        TypeError: if `x` has no `__dlpack__` method.
        BufferError: if `x` cannot be exported to the CPU (its device or dtype).

    Examples:
        >>> import numpy as np
        >>> import eagerflow as ef
        >>> ef.from_dlpack(np.arange(3, dtype=np.int64))
        ef.Tensor([0 1 2], shape=(3,), dtype=int64)
    """
    if not hasattr(x, "__dlpack__"):
        raise TypeError(
            f"ef.from_dlpack expects an array with a __dlpack__ method (a torch.Tensor, a NumPy "
            f"array, ...). Received: an object of type {type(x).__name__}"
        )
    try:
        array = np.from_dlpack(x)
    except (BufferError, RuntimeError, TypeError, ValueError) as error:
        raise BufferError(
            f"ef.from_dlpack cannot import this {type(x).__name__} into a CPU tensor: {error}"
        ) from error
    return tensor.new_tensor(np.array(array, copy=True))


def _zeros(shape, dtype) -> np.ndarray:
    if dtype.kind == "O":  # ef.string: the empty string, as TensorFlow
        return np.full(shape, b"", object)
    return np.zeros(shape, dtype)


def _ones(shape, dtype, op: str) -> np.ndarray:
    if dtype.kind == "O":
        raise errors.InvalidArgumentError(
            "dtype string has no one: ones and ones_like take numbers and bools", op)
    return np.ones(shape, dtype)


def zeros(shape: ShapeLike, dtype: DTypeLike = dtypes.float32, name: str | None = None) -> Tensor:
    """Creates a tensor of zeros.

    Examples:
        >>> import eagerflow as ef
        >>> ef.zeros([2])
        ef.Tensor([0. 0.], shape=(2,), dtype=float32)
    """
    return tensor.new_tensor(_zeros(shape_list(shape, "Zeros"), dtypes.as_dtype(dtype)))


def ones(shape: ShapeLike, dtype: DTypeLike = dtypes.float32, name: str | None = None) -> Tensor:
    """Creates a tensor of ones.

    Examples:
        >>> import eagerflow as ef
        >>> ef.ones([2], dtype=ef.int32)
        ef.Tensor([1 1], shape=(2,), dtype=int32)
    """
    return tensor.new_tensor(_ones(shape_list(shape, "Ones"), dtypes.as_dtype(dtype), "Ones"))


@primitive("ZerosLike", differentiable=False, fresh=True, shape_only=True, returns_array=True)
def _zeros_like(x, dtype):
    return _zeros(x.shape, dtype or x.dtype)


def zeros_like(input: TensorLike, dtype: DTypeLike = None,
               name: str | None = None) -> Tensor:  # noqa: A002 - TensorFlow's name
    """Creates zeros with the shape (and by default the dtype) of `input`.

    Examples:
        >>> import eagerflow as ef
        >>> ef.zeros_like([[1, 2]])
        ef.Tensor([[0 0]], shape=(1, 2), dtype=int32)
    """
    dtype = None if dtype is None else dtypes.as_dtype(dtype)
    return execute(_zeros_like, (input,), {"dtype": dtype})


@primitive("OnesLike", differentiable=False, fresh=True, shape_only=True, returns_array=True)
def _ones_like(x, dtype):
    return _ones(x.shape, dtype or x.dtype, "OnesLike")


def ones_like(input: TensorLike, dtype: DTypeLike = None,
              name: str | None = None) -> Tensor:  # noqa: A002 - TensorFlow's name
    """Creates ones with the shape (and by default the dtype) of `input`.

    Examples:
        >>> import eagerflow as ef
        >>> ef.ones_like([1.0, 2.0])
        ef.Tensor([1. 1.], shape=(2,), dtype=float32)
    """
    dtype = None if dtype is None else dtypes.as_dtype(dtype)
    return execute(_ones_like, (input,), {"dtype": dtype})


@primitive("Fill", fresh=True, returns_array=True)
def _fill(value, shape):
    budget = context.thread.load_budget
    if budget is not None:  # loading a file: bound the output first
        budget.charge(shape, np.asarray(value).dtype, f"op Fill: output of shape "
                      f"{tuple(shape)}", transient=True)
    return np.full(shape, value, dtype=np.asarray(value).dtype)


_fill.jvp(forwardprop.LINEAR)  # JVP: linear: the op applied to the tangents


@_fill.gradient
def _fill_grad(dy, out, value, shape):
    return _reduce.reduce_sum(dy)


def fill(dims: Any, value: TensorLike, name: str | None = None) -> Tensor:
    """Creates a tensor of shape `dims` filled with the scalar `value`.

    Examples:
        >>> import eagerflow as ef
        >>> ef.fill([2, 2], 7)
        ef.Tensor(
        [[7 7]
         [7 7]], shape=(2, 2), dtype=int32)
    """
    value = convert_input(value)
    if value.ndim != 0:
        raise errors.InvalidArgumentError(
            f"value must be a scalar, got shape {value.shape}", "Fill"
        )
    return execute(_fill, (value,), {"shape": shape_list(dims, "Fill")})


def eye(num_rows: Any, num_columns: Any = None, batch_shape: Any = None,
        dtype: DTypeLike = dtypes.float32, name: str | None = None) -> Tensor:
    """Creates an identity matrix (or a batch of them).

    Examples:
        >>> import eagerflow as ef
        >>> ef.eye(2)
        ef.Tensor(
        [[1. 0.]
         [0. 1.]], shape=(2, 2), dtype=float32)
    """
    matrix = np.eye(int(num_rows), None if num_columns is None else int(num_columns),
                    dtype=dtypes.as_dtype(dtype))
    if batch_shape is not None:
        batch = shape_list(batch_shape, "Eye")
        matrix = np.broadcast_to(matrix, batch + matrix.shape).copy()
    return tensor.new_tensor(matrix)


def range(start: Any, limit: Any = None, delta: Any = 1, dtype: DTypeLike = None,
          name: str | None = None) -> Tensor:  # noqa: A001 - TF's name
    """Creates ``[start, start + delta, ...]`` up to (not including) `limit`.

    Without `dtype`, the arguments' dtypes decide, as in TensorFlow: Python ints count as
    int32 and floats as float32, and the result takes the one that comes last in
    int8, int16, int32, int64, float16, float32, float64 (``ef.range(np.int64(0), 2.5, 0.5)``
    is float32).

    Examples:
        >>> import eagerflow as ef
        >>> ef.range(5)
        ef.Tensor([0 1 2 3 4], shape=(5,), dtype=int32)
        >>> ef.range(1.0, 2.0, 0.5)
        ef.Tensor([1.  1.5], shape=(2,), dtype=float32)
    """
    if limit is None:
        start, limit = 0, start
    values = [_scalar_value(v) for v in (start, limit, delta)]
    if values[2] == 0:
        raise errors.InvalidArgumentError("Requires delta != 0", "Range")
    if dtype is None:
        # (np.float64 is a Python float subclass: only the exact Python types count as such)
        kinds = [dtypes.float32 if type(v) is float else dtypes.int32
                 if type(v) is int else np.asarray(v).dtype for v in values]
        if not all(kind in dtypes.RANGE_ORDER for kind in kinds):
            raise errors.InvalidArgumentError(
                f"range: arguments of dtypes {[k.name for k in kinds]}; expected integers or "
                "floats (int8 to int64, float16 to float64)", "Range")
        dtype = max(kinds, key=dtypes.RANGE_ORDER.index)
    return tensor.new_tensor(np.arange(*values, dtype=dtypes.as_dtype(dtype)))


def _scalar_value(value):
    if isinstance(value, (int, float)):
        return value
    if isinstance(value, tensor.Tensor):  # e.g. ef.shape(x)[-1], a trace-time constant
        value = buffers.read(value)
    array = np.asarray(value)
    if array.ndim != 0:
        raise errors.InvalidArgumentError(f"expected a scalar, got shape {array.shape}", "Range")
    return array[()]


def linspace(start: Any, stop: Any, num: Any, name: str | None = None, axis: int = 0) -> Tensor:
    """Creates `num` evenly spaced values from `start` to `stop` inclusive.

    Examples:
        >>> import eagerflow as ef
        >>> ef.linspace(0.0, 1.0, 3)
        ef.Tensor([0.  0.5 1. ], shape=(3,), dtype=float32)
    """
    start_t, stop_t = convert_input(start), convert_input(stop)
    dtype = dtypes.promotion(start_t, stop_t) or np.result_type(start_t.dtype, stop_t.dtype)
    if dtype.kind not in "fc":
        dtype = dtypes.float32
    values = np.linspace(buffers.read(start_t), buffers.read(stop_t), int(num), axis=axis,
                         dtype=dtype)
    return tensor.new_tensor(values)
