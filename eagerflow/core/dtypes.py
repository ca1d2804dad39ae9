"""dtype names and the rules that turn Python and NumPy values into arrays.

eagerflow's dtypes are plain `numpy.dtype` objects. Python data converts the way
TensorFlow converts it (floats to float32, ints to int32, complex to complex128, bools to
bool); NumPy arrays
and NumPy scalars keep their dtype. Binary ops promote like NumPy 2: a Python scalar
next to a tensor is "weak" and adopts the tensor's dtype.

Examples:
    >>> from eagerflow.core import dtypes
    >>> dtypes.to_array([1.0, 2.0]).dtype
    dtype('float32')
    >>> dtypes.to_array(3).dtype
    dtype('int32')
"""

from __future__ import annotations

import builtins

import numpy as np

from eagerflow.core import errors

float16 = np.dtype("float16")
float32 = np.dtype("float32")
float64 = np.dtype("float64")
int8 = np.dtype("int8")
int16 = np.dtype("int16")
int32 = np.dtype("int32")
int64 = np.dtype("int64")
uint8 = np.dtype("uint8")
bool = np.dtype("bool")  # noqa: A001 - the public name is `ef.bool`, as in TensorFlow
complex64 = np.dtype("complex64")
complex128 = np.dtype("complex128")
string = np.dtype("object")

_INT32_MIN, _INT32_MAX = -(2**31), 2**31 - 1
_PYTHON_SCALARS = (float, int, complex, builtins.bool)


def as_dtype(dtype: np.typing.DTypeLike | None) -> np.dtype:
    """Converts a dtype-like value (`ef.float32`, `np.float32`, `"float32"`) to a `numpy.dtype`.

    Args:
        dtype: anything `numpy.dtype` accepts.

    Returns:
        The `numpy.dtype`.

    Raises:
        TypeError: if `dtype` names no dtype.

    Examples:
        >>> as_dtype("float64")
        dtype('float64')
    """
    if isinstance(dtype, np.dtype):
        return dtype
    try:
        return np.dtype(dtype)
    except TypeError as e:
        raise TypeError(f"Cannot interpret {dtype!r} as a dtype.") from e


def is_floating(dtype) -> builtins.bool:
    """Whether `dtype` is a real or complex floating-point dtype (one that can have gradients)."""
    return dtype.kind in "fc"


def is_integer(dtype) -> builtins.bool:
    """Whether `dtype` is a signed or unsigned integer dtype."""
    return dtype.kind in "iu"


def _python_dtype(array: np.ndarray, value) -> np.dtype | None:
    """The dtype Python data should get, or None when NumPy's choice stands."""
    kind = array.dtype.kind
    if kind == "f" and array.dtype == float64 and _all_python_leaves(value):
        return float32
    if kind == "i" and _all_python_leaves(value):
        if array.size and (array.min() < _INT32_MIN or array.max() > _INT32_MAX):
            return int64
        return int32
    return None


def _all_python_leaves(value) -> builtins.bool:
    """Whether every leaf of a nested list/tuple is a Python scalar (not a NumPy value)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, (list, tuple)):
            stack.extend(item)
        elif not isinstance(item, _PYTHON_SCALARS) or isinstance(item, np.generic):
            return False  # np.float64 subclasses float, but keeps its dtype
    return True


def to_array(value, dtype=None) -> np.ndarray:
    """Converts Python or NumPy data to an ndarray with eagerflow's dtype rules.

    Args:
        value: a Python scalar, a nested list/tuple, a NumPy array or scalar, or any
            object with ``__array__`` (tensors, variables).
        dtype: the dtype wanted, or None for the default rules.

    Returns:
        A NumPy array; a new one whenever `value` is a mutable array, so that later
        changes to `value` do not reach the result.

    Raises:
        InvalidArgumentError: if `value` cannot be converted, or converting it to
            `dtype` would lose information (e.g. 1.5 to int32).
    """
    if value is None:
        raise errors.InvalidArgumentError(
            "Attempt to convert a value (None) with an unsupported type (NoneType) to a Tensor."
        )
    try:
        array = np.array(value, copy=True)
    except (ValueError, TypeError) as e:
        raise errors.InvalidArgumentError(
            f"Cannot convert {_short_repr(value)} to a Tensor: {e}. Nested lists must be "
            "rectangular and hold numbers, bools or strings."
        ) from None
    if array.dtype.kind == "O" and not _is_string_array(array):
        if _all_python_leaves(value):  # only ints beyond int64 make NumPy fall back to objects
            raise errors.InvalidArgumentError(
                f"Cannot convert {_short_repr(value)} to a Tensor: an integer is out of the "
                "int64 range."
            )
        raise errors.InvalidArgumentError(
            f"Cannot convert {_short_repr(value)} to a Tensor: unsupported element type "
            f"{_unsupported_type(array)}."
        )
    if dtype is None:
        if isinstance(value, _PYTHON_SCALARS) or isinstance(value, (list, tuple)):
            wanted = _python_dtype(array, value)
            if wanted is not None:
                array = array.astype(wanted)
        return array
    dtype = as_dtype(dtype)
    if array.dtype == dtype:
        return array
    python_data = not isinstance(value, (np.ndarray, np.generic))
    if python_data and dtype.kind in "iu" and array.dtype.kind in "iuf" and array.size:
        # NumPy would wrap 2**40 to 0 in int32: an explicit ef.cast is the way to wrap.
        info = np.iinfo(dtype)
        if array.min() < info.min or array.max() > info.max:
            raise errors.InvalidArgumentError(
                f"Cannot convert {_short_repr(value)} to dtype {dtype.name}: out of its "
                f"range [{info.min}, {info.max}]."
            )
    if (
        dtype.kind in "iub"
        and array.dtype.kind in "fc"
        and not isinstance(value, np.ndarray)
        and not np.all(np.equal(np.mod(array.real, 1), 0))
    ):
        raise errors.InvalidArgumentError(
            f"Cannot convert {_short_repr(value)} to dtype {dtype.name}: the value is not "
            "integral. Use ef.cast to truncate explicitly."
        )
    return array.astype(dtype)


def _unsupported_type(array: np.ndarray) -> str:
    """The type name of the first element of an object array that is not a number or string."""
    for item in array.flat:
        if not isinstance(item, (*_PYTHON_SCALARS, str, bytes, np.generic)):
            return type(item).__name__
    return "object"


def _is_string_array(array: np.ndarray) -> builtins.bool:
    return all(isinstance(item, (str, bytes)) for item in array.flat)


def _short_repr(value, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
