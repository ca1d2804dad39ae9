"""dtype names and the dtype table: every dtype rule of eagerflow is written here.

eagerflow's numeric and bool dtypes are plain `numpy.dtype` objects; text has one dtype,
`string` (`ef.string`, see `StringDType`): its tensors hold Python `bytes` in a NumPy
object array, and `str` data is encoded as UTF-8, as TensorFlow does.

The table (DESIGN.md, "dtypes"), and where each rule lives:

* Python data converts the way TensorFlow converts it: floats to float32, ints to int32
  (int64 when one does not fit), complex to complex128, bools to bool; NumPy arrays and
  NumPy scalars keep their dtype (`to_array`, behind every conversion).
* Binary arithmetic promotes like NumPy 2, with weak Python numbers (``float32 * 2.0``
  stays float32), except that an integer meeting a float becomes that float's dtype,
  float32 for a Python float: ``int32 + float32`` and ``int32 * 1.5`` are float32, never
  float64 (`promotion`, which the dispatcher applies).
* A Python list of numbers next to a tensor is weak too, when its values fit the
  tensor's dtype exactly: ``float16 * [0.5]`` stays float16 (the dispatcher's
  `convert_inputs`).

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
_OBJECT = np.dtype("object")
# `ef.range`'s rule (TensorFlow's): its arguments (Python ints int32, floats float32) take
# the dtype that comes last in this order among theirs.
RANGE_ORDER = (int8, int16, int32, int64, float16, float32, float64)


class StringDType:
    """The dtype of text tensors: `ef.string`, TensorFlow's `tf.string`.

    NumPy has no dtype that compares equal to ``"string"`` (and its dtypes cannot be
    subclassed), so text gets this one object, the only eagerflow dtype that is not a
    `numpy.dtype`. It compares equal to ``"string"``, to itself and to what NumPy calls
    text or object dtypes (as ``tf.string == np.object_``), and hashes like
    ``np.dtype(object)``. Its `dtype` attribute, NumPy's dtype protocol, makes
    ``np.dtype(ef.string)`` the object dtype that stores the `bytes` elements, so
    ``np.empty(3, ef.string)`` works too.

    Examples:
        >>> import eagerflow as ef
        >>> t = ef.constant(["a", "b"])
        >>> t.dtype == "string", t.dtype == ef.string, t.dtype is ef.string
        (True, True, True)
        >>> t.numpy()
        array([b'a', b'b'], dtype=object)
        >>> ef.string.name, str(ef.string), ef.string
        ('string', 'string', ef.string)
    """

    __slots__ = ()
    name = "string"
    kind = "O"  # as np.dtype(object): code that asks `dtype.kind` sees the storage kind
    char = "O"
    itemsize = _OBJECT.itemsize
    fields = None
    type = bytes  # the Python type of one element
    dtype = _OBJECT  # NumPy's dtype protocol: np.dtype(ef.string) is the storage dtype

    def __eq__(self, other: object) -> builtins.bool:
        if other is self:
            return True
        if other is None:  # np.dtype(None) would be float64
            return False
        try:
            return as_dtype(other) is self  # type: ignore[arg-type]
        except TypeError:
            return False

    def __hash__(self) -> int:
        return hash(_OBJECT)

    def __repr__(self) -> str:
        return "ef.string"

    def __str__(self) -> str:
        return "string"

    def __reduce__(self) -> str:
        return "string"  # pickles as the module attribute: one instance


string = StringDType()
DType = np.dtype | StringDType  # what `Tensor.dtype` and `as_dtype` return


def public(dtype: np.dtype) -> DType:
    """The dtype a tensor holding an array of NumPy dtype `dtype` shows: `string` for text
    (bytes, str or object arrays), `dtype` itself otherwise."""
    return string if dtype.kind in "SUO" else dtype


def as_array(value) -> np.ndarray:
    """An op's result as an ndarray. On 0-d object arrays NumPy returns the bare element:
    a `bytes` result must stay a string (an object array), not become NumPy's
    fixed-width bytes."""
    if type(value) is bytes:
        boxed = np.empty((), _OBJECT)
        boxed[()] = value
        return boxed
    return np.asarray(value)


_INT32_MIN, _INT32_MAX = -(2**31), 2**31 - 1
_PYTHON_SCALARS = (float, int, complex, builtins.bool)


def as_dtype(dtype: np.typing.DTypeLike | StringDType | None) -> DType:
    """Converts a dtype-like value (`ef.float32`, `np.float32`, `"float32"`) to a dtype.

    Args:
        dtype: anything `numpy.dtype` accepts, ``"string"`` or `ef.string`. Text and
            object dtypes (``str``, ``bytes``, ``np.object_``) become `ef.string`.

    Returns:
        A `numpy.dtype`, or `ef.string` for text.

    Raises:
        TypeError: if `dtype` names no dtype.

    Examples:
        >>> as_dtype("float64"), as_dtype("string"), as_dtype(str)
        (dtype('float64'), ef.string, ef.string)
    """
    if isinstance(dtype, np.dtype):
        return string if dtype.kind in "SUO" else dtype
    if dtype is string or isinstance(dtype, str) and dtype == "string":
        return string
    try:
        return public(np.dtype(dtype))
    except TypeError as e:
        raise TypeError(f"Cannot interpret {dtype!r} as a dtype.") from e


def promotion(a, b) -> np.dtype | None:
    """The dtype table of binary arithmetic, where it departs from NumPy's promotion.

    Operands are tensors, arrays or Python scalars. NumPy's rules stand (a Python number
    next to a tensor is weak and takes its dtype, as in NumPy 2: ``float32 * 2.0`` stays
    float32, ``int32 + 1`` int32), except that an integer meeting a float never gives
    float64: it becomes that float's dtype, float32 for a Python float (``int32 +
    float32`` and ``int32 * 1.5`` are float32). The dispatcher applies it to every binary
    arithmetic op (``Op.promotes``).

    Returns:
        The dtype the integer operand is cast to, or None where NumPy's answer stands.

    Examples:
        >>> import numpy as np
        >>> from eagerflow.core import dtypes
        >>> i32, f16 = np.zeros(2, np.int32), np.zeros(2, np.float16)
        >>> dtypes.promotion(i32, f16), dtypes.promotion(1.5, i32), dtypes.promotion(i32, 2)
        (dtype('float16'), dtype('float32'), None)
    """
    da, db = getattr(a, "dtype", None), getattr(b, "dtype", None)
    if da is None or db is None:  # a weak Python scalar: only a float next to integers
        dtype, other = (db, a) if da is None else (da, b)
        return float32 if type(other) is float and dtype is not None and dtype.kind in "iu" \
            else None
    if da.kind in "iu" and db.kind == "f":
        return db
    return da if db.kind in "iu" and da.kind == "f" else None


def weak_list(values: np.ndarray, partner) -> np.ndarray:
    """The values of a Python list of numbers used next to a tensor of dtype `partner`:
    converted to `partner` when they fit it exactly (numbers into a float dtype, integers
    into an integer one), so ``float32 * [1, 0]`` stays float32 and ``float16 * [0.5]``
    float16; as they are otherwise (then `promotion` applies).

    Examples:
        >>> import numpy as np
        >>> weak_list(np.array([0.5]), np.dtype("float16")).dtype
        dtype('float16')
        >>> weak_list(np.array([70000]), np.dtype("int16")).dtype  # does not fit
        dtype('int64')
    """
    kind = values.dtype.kind
    if values.dtype == partner or not values.size or not (
            partner.kind in "fc" and kind in "iuf" or partner.kind in "iu" and kind in "iu"):
        return values
    with np.errstate(all="ignore"):
        converted = values.astype(partner)
    exact = (np.array_equal(converted, values) if partner.kind in "iu" else
             np.all(np.isfinite(converted) | ~np.isfinite(values)))
    return converted if exact else values


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
    kind = array.dtype.kind
    wanted = None if dtype is None else as_dtype(dtype)
    if kind in "SU" or kind == "O" and _is_string_array(array):
        if wanted is not None and wanted is not string:
            raise errors.InvalidArgumentError(
                f"Cannot convert {_short_repr(value)} to dtype {wanted.name}: it holds "
                "strings. Parse them with ef.strings.to_number."
            )
        return _to_bytes(value, array)
    if wanted is string:
        if array.size == 0 and isinstance(value, (list, tuple)):
            return np.empty(array.shape, _OBJECT)
        raise errors.InvalidArgumentError(
            f"Cannot convert {_short_repr(value)} to dtype string: it holds "
            f"{array.dtype.name} values. Format numbers with ef.strings.as_string."
        )
    if kind == "O":
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


def _to_bytes(value, array: np.ndarray) -> np.ndarray:
    """Text data as an object array of Python `bytes`, `str` encoded as UTF-8."""
    if isinstance(value, (list, tuple, str, bytes)):
        # NumPy's fixed-width str/bytes arrays drop trailing NULs: copy Python data again.
        exact = np.empty(array.shape, _OBJECT)
        exact[...] = value
        array = exact
    items = [item if type(item) is bytes
             else item.encode("utf-8") if isinstance(item, str) else bytes(item)
             for item in array.reshape(-1).tolist()]
    out = np.empty(len(items), _OBJECT)
    out[:] = items
    return out.reshape(array.shape)


def _is_string_array(array: np.ndarray) -> builtins.bool:
    return all(isinstance(item, (str, bytes)) for item in array.flat)


def _short_repr(value, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
