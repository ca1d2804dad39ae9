"""String ops (`ef.strings`), TensorFlow's `tf.strings` for what Keras preprocessing uses.

String tensors hold Python `bytes` (``str`` is encoded as UTF-8 on the way in), so every
op works on bytes as TensorFlow's do: `length` counts bytes unless ``unit="UTF8_CHAR"``,
`lower`/`upper` change ASCII letters unless ``encoding="utf-8"``. The ops are elementwise
over any shape and not differentiable; they run eagerly, inside `ef.function` and inside
`Dataset.map`. Patterns are RE2's syntax (see `eagerflow.ops.re2`).

TensorFlow returns a `RaggedTensor` from `split` and `unicode_split`; eagerflow has no
ragged tensors, so a scalar string gives a 1-D tensor and a batch needs ``padding=``: its
rows are padded with that value to the longest row (``.to_tensor(default_value=...)`` of
TensorFlow's result).

Examples:
    >>> import eagerflow as ef
    >>> ef.strings.lower(ef.strings.regex_replace(["A<br />B"], "<br />", " "))
    ef.Tensor([b'a b'], shape=(1,), dtype=string)
    >>> ef.strings.split("a b  c")
    ef.Tensor([b'a' b'b' b'c'], shape=(3,), dtype=string)
"""

from __future__ import annotations

import numpy as np

from eagerflow.core import dtypes, errors
from eagerflow.core.dispatch import execute, primitive
from eagerflow.ops import re2
from eagerflow.ops.typing import AxisLike, DTypeLike, Tensor, TensorLike

_OBJECT = np.dtype(object)
_UNITS = ("BYTE", "UTF8_CHAR")
_ENCODINGS = {"UTF-8": "utf-8", "UTF-16-BE": "utf-16-be", "UTF-32-BE": "utf-32-be"}
_ASCII_SPACE = b" \t\n\v\f\r"


def _text(array: np.ndarray, what: str = "input") -> np.ndarray:
    """`array` checked to be a string tensor's value (object array of bytes)."""
    if array.dtype.kind in "SU":
        return dtypes.to_array(array)
    if array.dtype.kind != "O":
        raise errors.InvalidArgumentError(
            f"{what} must be a string tensor, got dtype {dtypes.public(array.dtype).name} "
            f"with shape {array.shape}; convert numbers with ef.strings.as_string")
    return array


def _map(function, *arrays: np.ndarray, dtype: np.dtype = _OBJECT) -> np.ndarray:
    """`function` applied to the (broadcast) elements, as an array of `dtype`."""
    result = np.frompyfunc(function, len(arrays), 1)(*arrays)
    if not isinstance(result, np.ndarray):  # a 0-d input gives the bare object
        boxed = np.empty((), _OBJECT)
        boxed[()] = result
        result = boxed
    return result if dtype is _OBJECT else result.astype(dtype)


def _scalar_text(array: np.ndarray, what: str) -> bytes:
    if array.ndim != 0:
        raise errors.InvalidArgumentError(
            f"{what} must be scalar, but received {list(array.shape)}")
    return _text(array, what).item()


def _check_choice(value: str, allowed: tuple, what: str) -> None:
    if value not in allowed:
        raise errors.InvalidArgumentError(
            f"Value for attr '{what}' of \"{value}\" is not in the list of allowed values: "
            + ", ".join(f'"{a}"' for a in allowed))


def _as_text(value: TensorLike) -> TensorLike:
    """Python or NumPy data as string data, so that ``[]`` is an empty string tensor."""
    if isinstance(value, (list, tuple)):
        return dtypes.to_array(value, dtypes.string)
    return value


# -- case and whitespace -------------------------------------------------------------------
def _change_case(array: np.ndarray, encoding: str, method: str) -> np.ndarray:
    array = _text(array)
    if encoding == "":  # ASCII letters only, as TensorFlow without an encoding
        return _map(getattr(bytes, method), array)
    if encoding.lower() not in ("utf-8", "utf8"):
        raise errors.InvalidArgumentError(
            f"only utf-8 or '' (no encoding) is supported, received {encoding}")
    return _map(lambda b: getattr(b.decode("utf-8", "surrogateescape"), method)()
                .encode("utf-8", "surrogateescape"), array)


@primitive("StringLower", differentiable=False)
def _lower(x, encoding=""):
    return _change_case(x, encoding, "lower")


def lower(input: TensorLike, encoding: str = "", name: str | None = None) -> Tensor:
    """Converts the strings to lowercase.

    Args:
        input: a string tensor.
        encoding: ``""`` changes ASCII letters only (TensorFlow's default); ``"utf-8"``
            lowercases every Unicode letter.
        name: unused (TensorFlow's op name).

    Returns:
        A string tensor of the input's shape.

    Raises:
        InvalidArgumentError: for a non-string input or another encoding.

    Example:
        >>> import eagerflow as ef
        >>> ef.strings.lower(["CamelCase", "ÀB"])
        ef.Tensor([b'camelcase' b'\\xc3\\x80b'], shape=(2,), dtype=string)
    """
    return execute(_lower, (_as_text(input),), {"encoding": encoding})


@primitive("StringUpper", differentiable=False)
def _upper(x, encoding=""):
    return _change_case(x, encoding, "upper")


def upper(input: TensorLike, encoding: str = "", name: str | None = None) -> Tensor:
    """Converts the strings to uppercase (ASCII letters only unless ``encoding="utf-8"``).

    Args:
        input: a string tensor.
        encoding: ``""`` or ``"utf-8"``, as for `lower`.
        name: unused.

    Returns:
        A string tensor of the input's shape.

    Raises:
        InvalidArgumentError: for a non-string input or another encoding.

    Example:
        >>> import eagerflow as ef
        >>> ef.strings.upper("abc")
        ef.Tensor(b'ABC', shape=(), dtype=string)
    """
    return execute(_upper, (_as_text(input),), {"encoding": encoding})


@primitive("StringStrip", differentiable=False)
def _strip(x):
    return _map(bytes.strip, _text(x))


def strip(input: TensorLike, name: str | None = None) -> Tensor:
    """Strips leading and trailing ASCII whitespace (space, ``\\t \\n \\v \\f \\r``).

    Args:
        input: a string tensor.
        name: unused.

    Returns:
        A string tensor of the input's shape.

    Raises:
        InvalidArgumentError: for a non-string input.

    Example:
        >>> import eagerflow as ef
        >>> ef.strings.strip([" a b \\n"])
        ef.Tensor([b'a b'], shape=(1,), dtype=string)
    """
    return execute(_strip, (_as_text(input),))


# -- regular expressions -------------------------------------------------------------------
def _decode(value: bytes) -> str:
    return value.decode("utf-8", "surrogateescape")  # invalid bytes survive the round trip


def _replace(compiled, parts: tuple, text: str, replace_global: bool) -> str:
    pieces, position, last_end = [], 0, -1
    for match in compiled.finditer(text):
        start, end = match.span()
        if start == end == last_end:
            continue  # RE2 allows no empty match right where the previous match ended
        pieces.append(text[position:start])
        pieces.extend(part if isinstance(part, str) else (match.group(part) or "")
                      for part in parts)
        position = last_end = end
        if not replace_global:
            break
    pieces.append(text[position:])
    return "".join(pieces)


@primitive("RegexReplace", differentiable=False)
def _regex_replace(x, pattern, rewrite, replace_global=True):
    compiled = re2.compile_pattern(_scalar_text(pattern, "Pattern"))
    parts = re2.parse_rewrite(_scalar_text(rewrite, "Rewrite"), compiled.groups)
    return _map(lambda b: _replace(compiled, parts, _decode(b), replace_global)
                .encode("utf-8", "surrogateescape"), _text(x))


def regex_replace(input: TensorLike, pattern: TensorLike, rewrite: TensorLike,
                  replace_global: bool = True, name: str | None = None) -> Tensor:
    """Replaces the matches of RE2 regex `pattern` in each string with `rewrite`.

    Args:
        input: a string tensor.
        pattern: a scalar string, an RE2 pattern (see `eagerflow.ops.re2` for what
            translates to Python's `re` and what is refused).
        rewrite: a scalar string; ``\\1`` to ``\\9`` insert groups, ``\\0`` the whole
            match, ``\\\\`` a backslash.
        replace_global: replace every match (True) or only the first.
        name: unused.

    Returns:
        A string tensor of the input's shape.

    Raises:
        InvalidArgumentError: for an invalid or untranslatable pattern, a rewrite with
            another escape or a group the pattern lacks (RE2 would silently leave the
            string unchanged), or non-scalar `pattern`/`rewrite`.

    Example:
        >>> import eagerflow as ef
        >>> ef.strings.regex_replace("hello world", r"(\\w+) (\\w+)", r"\\2 \\1")
        ef.Tensor(b'world hello', shape=(), dtype=string)
    """
    return execute(_regex_replace, (_as_text(input), pattern, rewrite),
                   {"replace_global": bool(replace_global)})


@primitive("RegexFullMatch", differentiable=False)
def _regex_full_match(x, pattern):
    compiled = re2.compile_pattern(_scalar_text(pattern, "Pattern"))
    return _map(lambda b: compiled.fullmatch(_decode(b)) is not None, _text(x),
                dtype=np.dtype(bool))


def regex_full_match(input: TensorLike, pattern: TensorLike, name: str | None = None) -> Tensor:
    """Whether each whole string matches RE2 regex `pattern`.

    Args:
        input: a string tensor.
        pattern: a scalar string, an RE2 pattern.
        name: unused.

    Returns:
        A bool tensor of the input's shape.

    Raises:
        InvalidArgumentError: for an invalid or untranslatable pattern.

    Example:
        >>> import eagerflow as ef
        >>> ef.strings.regex_full_match(["abc", "ab"], "a.c")
        ef.Tensor([ True False], shape=(2,), dtype=bool)
    """
    return execute(_regex_full_match, (_as_text(input), pattern))


# -- splitting and joining -----------------------------------------------------------------
def _rows(pieces: np.ndarray, padding, op: str) -> np.ndarray:
    """Lists of bytes per element: one 1-D array for a scalar, else padded rows."""
    if pieces.ndim == 0:
        row = pieces[()]
        out = np.empty(len(row), _OBJECT)
        out[:] = row
        return out
    if padding is None:
        raise errors.InvalidArgumentError(
            f"{op}: the input has shape {pieces.shape}, and TensorFlow returns a RaggedTensor "
            "for a batch, which eagerflow does not have. Pass padding=b'' to get a dense "
            "tensor of shape (*input.shape, longest) padded with it (what "
            ".to_tensor() gives in TensorFlow), or split one string at a time.")
    longest = max((len(row) for row in pieces.flat), default=0)
    out = np.full((*pieces.shape, longest), padding, _OBJECT)
    for index, row in np.ndenumerate(pieces):
        out[index][:len(row)] = row
    return out


def _padding_value(padding) -> bytes | None:
    if padding is None or isinstance(padding, bytes):
        return padding
    if isinstance(padding, str):
        return padding.encode("utf-8")
    raise errors.InvalidArgumentError(
        f"padding must be bytes, str or None. Received: padding={padding!r}")


@primitive("StringSplitV2", differentiable=False, value_shaped_axis=-1)
def _split(x, sep=None, maxsplit=-1, padding=None):
    if sep == b"":
        sep = None  # TensorFlow: an empty separator splits on whitespace
    pieces = _map(lambda b: b.split(sep, maxsplit), _text(x))
    return _rows(pieces, padding, "StringSplitV2")


def split(input: TensorLike, sep: str | bytes | None = None, maxsplit: int = -1,
          name: str | None = None, *, padding: str | bytes | None = None) -> Tensor:
    """Splits each string at `sep`, or at runs of ASCII whitespace when `sep` is None.

    With a separator, empty pieces are kept (``"1<>2<><>3"`` gives ``1, 2, "", 3``);
    on whitespace they are not, as `str.split`.

    Args:
        input: a string tensor.
        sep: the separator, or None (or empty) for whitespace.
        maxsplit: at most this many splits; -1 for no limit.
        name: unused.
        padding: eagerflow only, needed for a non-scalar `input`: the value that pads
            every row to the longest (TensorFlow returns a RaggedTensor instead).

    Returns:
        For a scalar input, a 1-D string tensor of the pieces; otherwise a tensor of shape
        ``(*input.shape, longest)``.

    Raises:
        InvalidArgumentError: for a non-scalar input without `padding`.

    Example:
        >>> import eagerflow as ef
        >>> ef.strings.split("a,b,,c", sep=",")
        ef.Tensor([b'a' b'b' b'' b'c'], shape=(4,), dtype=string)
        >>> ef.strings.split(["a b", "c"], padding="")
        ef.Tensor(
        [[b'a' b'b']
         [b'c' b'']], shape=(2, 2), dtype=string)
    """
    attrs = {"sep": None if sep is None else _padding_value(sep), "maxsplit": int(maxsplit),
             "padding": _padding_value(padding)}
    return execute(_split, (_as_text(input),), attrs)


@primitive("UnicodeSplit", differentiable=False, value_shaped_axis=-1)
def _unicode_split(x, input_encoding="UTF-8", errors_mode="replace", replacement_char=65533,
                   padding=None):
    _check_choice(input_encoding, tuple(_ENCODINGS), "input_encoding")
    _check_choice(errors_mode, ("strict", "replace", "ignore"), "errors")
    codec = _ENCODINGS[input_encoding]
    replacement = chr(replacement_char)

    def characters(value: bytes) -> list:
        try:
            text = value.decode(codec, errors_mode)
        except UnicodeDecodeError:
            raise errors.InvalidArgumentError(
                f"Invalid formatting on input string {value!r}") from None
        if errors_mode == "replace" and replacement != "\ufffd":
            text = text.replace("\ufffd", replacement)
        return [char.encode(codec) for char in text]

    return _rows(_map(characters, _text(x)), padding, "UnicodeSplit")


def unicode_split(input: TensorLike, input_encoding: str, errors: str = "replace",
                  replacement_char: int = 65533, name: str | None = None, *,
                  padding: str | bytes | None = None) -> Tensor:
    """Splits each string into its Unicode characters, each encoded as the input was.

    Args:
        input: a string tensor.
        input_encoding: ``"UTF-8"``, ``"UTF-16-BE"`` or ``"UTF-32-BE"``.
        errors: for invalid input, ``"replace"`` it by `replacement_char`, ``"ignore"``
            it, or raise (``"strict"``).
        replacement_char: the code point that replaces invalid input.
        name: unused.
        padding: as for `split`: needed for a non-scalar input (TensorFlow returns a
            RaggedTensor).

    Returns:
        For a scalar input, a 1-D string tensor of characters; otherwise shape
        ``(*input.shape, longest)``.

    Raises:
        InvalidArgumentError: for another encoding, invalid input with
            ``errors="strict"``, or a non-scalar input without `padding`.

    Example:
        >>> import eagerflow as ef
        >>> ef.strings.unicode_split("hé", "UTF-8")
        ef.Tensor([b'h' b'\\xc3\\xa9'], shape=(2,), dtype=string)
    """
    return execute(_unicode_split, (_as_text(input),), {
        "input_encoding": input_encoding, "errors_mode": errors,
        "replacement_char": int(replacement_char), "padding": _padding_value(padding)})


@primitive("StringJoin", differentiable=False)
def _join(*inputs, separator=b""):
    shapes = [x.shape for x in inputs if x.ndim]
    for shape in shapes:
        if shape != shapes[0]:
            raise errors.InvalidArgumentError(
                f"Input shapes do not match: {_dims(shapes[0])} vs. {_dims(shape)}")
    if not inputs:
        return np.array(b"", _OBJECT)
    return _map(lambda *parts: separator.join(parts), *[_text(x, "inputs") for x in inputs])


def _dims(shape: tuple) -> str:
    return "[" + ",".join(str(d) for d in shape) + "]"  # as TensorFlow prints shapes


def join(inputs: list | tuple, separator: str | bytes = "", name: str | None = None) -> Tensor:
    """Joins the strings of several tensors elementwise with `separator`.

    Args:
        inputs: a list of string tensors of one shape, or scalars (which broadcast).
        separator: put between the parts.
        name: unused.

    Returns:
        A string tensor of the inputs' shape.

    Raises:
        InvalidArgumentError: if the non-scalar inputs differ in shape.

    Example:
        >>> import eagerflow as ef
        >>> ef.strings.join([["a", "b"], "x"], separator="-")
        ef.Tensor([b'a-x' b'b-x'], shape=(2,), dtype=string)
    """
    sep = _padding_value(separator)
    return execute(_join, tuple(_as_text(x) for x in inputs), {"separator": sep})


@primitive("ReduceJoin", differentiable=False)
def _reduce_join(x, axis=None, keepdims=False, separator=b""):
    x = _text(x, "inputs")
    ndim = x.ndim
    axes = tuple(range(ndim - 1, -1, -1)) if axis is None else axis
    normalized: list[int] = []
    for a in axes:
        if not -ndim <= a < ndim:
            raise errors.OutOfRangeError(
                f"Invalid reduction dimension {a} for input with {ndim} dimension(s)")
        if a % ndim in normalized:
            raise errors.InvalidArgumentError(f"Duplicate reduction dimension {a}")
        normalized.append(a % ndim)
    kept = [a for a in range(ndim) if a not in normalized]
    # The first listed axis varies fastest, as TensorFlow's kernel iterates.
    moved = np.transpose(x, kept + normalized[::-1])
    count = int(np.prod([x.shape[a] for a in normalized]))
    rows = moved.reshape(*[x.shape[a] for a in kept], count)
    out = np.empty(rows.shape[:-1], _OBJECT)
    for index in np.ndindex(out.shape):
        out[index] = separator.join(rows[index])
    if keepdims:
        out = out.reshape([1 if a in normalized else x.shape[a] for a in range(ndim)])
    return out


def reduce_join(inputs: TensorLike, axis: AxisLike = None, keepdims: bool = False,
                separator: str | bytes = "", name: str | None = None) -> Tensor:
    """Joins the strings along `axis` (all axes when None, in row-major order).

    Args:
        inputs: a string tensor.
        axis: an int, a list of ints, or None. With several axes the first listed varies
            fastest, as in TensorFlow.
        keepdims: keep the reduced axes with length 1.
        separator: put between the joined strings.
        name: unused.

    Returns:
        The joined string tensor.

    Raises:
        OutOfRangeError: for an axis outside the input's rank.
        InvalidArgumentError: for an axis given twice.

    Example:
        >>> import eagerflow as ef
        >>> ef.strings.reduce_join([["a", "b"], ["c", "d"]], axis=1, separator=",")
        ef.Tensor([b'a,b' b'c,d'], shape=(2,), dtype=string)
    """
    if axis is not None:
        axis = tuple(int(a) for a in np.atleast_1d(np.asarray(axis)).tolist())
    return execute(_reduce_join, (_as_text(inputs),), {
        "axis": axis, "keepdims": bool(keepdims), "separator": _padding_value(separator)})


# -- length and substrings -----------------------------------------------------------------
def _is_char_start(byte: int) -> bool:
    return byte & 0xC0 != 0x80  # not a UTF-8 continuation byte


def _char_offsets(value: bytes) -> list:
    """Byte offsets where each UTF-8 character starts, then the length."""
    return [i for i, byte in enumerate(value) if _is_char_start(byte)] + [len(value)]


@primitive("StringLength", differentiable=False)
def _length(x, unit="BYTE"):
    _check_choice(unit, _UNITS, "unit")
    count = len if unit == "BYTE" else (lambda b: sum(map(_is_char_start, b)))
    return _map(count, _text(x), dtype=np.dtype(np.int32))


def length(input: TensorLike, unit: str = "BYTE", name: str | None = None) -> Tensor:
    """The length of each string, in bytes or in UTF-8 characters.

    Args:
        input: a string tensor.
        unit: ``"BYTE"`` or ``"UTF8_CHAR"`` (bytes that start a character).
        name: unused.

    Returns:
        An int32 tensor of the input's shape.

    Raises:
        InvalidArgumentError: for another unit or a non-string input.

    Example:
        >>> import eagerflow as ef
        >>> ef.strings.length(["héllo", ""]), ef.strings.length("héllo", unit="UTF8_CHAR")
        (ef.Tensor([6 0], shape=(2,), dtype=int32), ef.Tensor(5, shape=(), dtype=int32))
    """
    return execute(_length, (_as_text(input),), {"unit": unit})


@primitive("Substr", differentiable=False)
def _substr(x, pos, size, unit="BYTE"):
    _check_choice(unit, _UNITS, "unit")
    x, pos, size = _text(x), np.asarray(pos), np.asarray(size)  # Python ints stay weak
    if pos.dtype.kind not in "iu" or size.dtype.kind not in "iu":
        raise errors.InvalidArgumentError(
            f"pos and len must be integer tensors, got {pos.dtype.name} and {size.dtype.name}")
    if pos.shape != size.shape:
        raise errors.InvalidArgumentError(
            f"pos and len should have the same shape, got: {list(pos.shape)} vs. "
            f"{list(size.shape)}")
    try:
        shape = np.broadcast_shapes(x.shape, pos.shape)
    except ValueError:
        raise errors.InvalidArgumentError(
            f"Incompatible shapes: {x.shape} vs. {pos.shape}") from None
    out = np.empty(shape, _OBJECT)
    values, starts, sizes = (np.broadcast_to(a, shape) for a in (x, pos, size))
    for flat, index in enumerate(np.ndindex(shape)):
        value, start, count = values[index], int(starts[index]), int(sizes[index])
        offsets = _char_offsets(value) if unit == "UTF8_CHAR" else None
        total = len(value) if offsets is None else len(offsets) - 1
        first = start + total if start < 0 else start
        if not 0 <= first <= total:
            shown = f" {value!r}" if offsets is None else ""
            raise errors.InvalidArgumentError(
                f"pos {start} out of range for string{shown} at index {flat}")
        last = total if count < 0 else min(first + count, total)
        if offsets is not None:
            first, last = offsets[first], offsets[last]
        out[index] = value[first:last]
    return out


def substr(input: TensorLike, pos: TensorLike, len: TensorLike, unit: str = "BYTE",
           name: str | None = None) -> Tensor:
    """The substring of each string starting at `pos` with `len` bytes or characters.

    Args:
        input: a string tensor.
        pos: int start positions (negative ones count from the end), a scalar or of one
            shape with `len` that broadcasts with `input`.
        len: int lengths; a substring stops at the end of its string.
        unit: ``"BYTE"`` or ``"UTF8_CHAR"``.
        name: unused.

    Returns:
        A string tensor of the broadcast shape.

    Raises:
        InvalidArgumentError: for a position outside a string, or shapes that do not fit.

    Example:
        >>> import eagerflow as ef
        >>> ef.strings.substr(["hello", "world"], 1, 3)
        ef.Tensor([b'ell' b'orl'], shape=(2,), dtype=string)
    """
    return execute(_substr, (_as_text(input), pos, len), {"unit": unit})


# -- numbers -------------------------------------------------------------------------------
_NUMBER_TYPES = tuple(np.dtype(t) for t in ("float32", "float64", "int32", "int64", "uint32",
                                            "uint64"))


def _parse(value: bytes, dtype: np.dtype):
    text = value.strip(_ASCII_SPACE)
    try:
        if not text.isascii() or b"_" in text:
            raise ValueError
        if dtype.kind == "f":
            decoded = text.decode()
            lowered = decoded.lower().lstrip("+-")
            number = float.fromhex(decoded) if lowered.startswith("0x") else float(decoded)
            with np.errstate(over="ignore"):
                return dtype.type(number)
        number = int(text)
        info = np.iinfo(dtype)
        if not info.min <= number <= info.max:
            raise ValueError
        return number
    except ValueError:
        raise errors.InvalidArgumentError(
            f"StringToNumberOp could not correctly convert string: "
            f"{value.decode('utf-8', 'replace')}") from None


@primitive("StringToNumber", differentiable=False)
def _to_number(x, out_type=np.dtype(np.float32)):
    return _map(lambda b: _parse(b, out_type), _text(x, "string_tensor"), dtype=out_type)


def to_number(string_tensor: TensorLike, out_type: DTypeLike = dtypes.float32,
              name: str | None = None) -> Tensor:
    """Parses each string as a number of type `out_type`.

    Surrounding ASCII whitespace is allowed; floats accept ``1e3``, ``inf``, ``nan`` and
    hex (``0x10``); integers must be decimal and in range.

    Args:
        string_tensor: a string tensor.
        out_type: float32, float64, int32, int64, uint32 or uint64.
        name: unused.

    Returns:
        A tensor of `out_type` and the input's shape.

    Raises:
        InvalidArgumentError: for a string that is not such a number, or another type.

    Example:
        >>> import eagerflow as ef
        >>> ef.strings.to_number(["1.5", " -2"])
        ef.Tensor([ 1.5 -2. ], shape=(2,), dtype=float32)
    """
    dtype = dtypes.as_dtype(out_type)
    if dtype not in _NUMBER_TYPES:
        raise errors.InvalidArgumentError(
            f"Value for attr 'out_type' of {dtype.name} is not in the list of allowed values: "
            "float, double, int32, int64, uint32, uint64", op="StringToNumber")
    return execute(_to_number, (_as_text(string_tensor),), {"out_type": dtype})


_FLAGS = ("", " ", "0", "-", "+")


@primitive("AsString", differentiable=False)
def _as_string(x, precision=-1, scientific=False, shortest=False, width=-1, fill=""):
    if fill not in _FLAGS:
        raise errors.InvalidArgumentError(f'Fill argument not supported: "{fill}"')
    if scientific and shortest:
        raise errors.InvalidArgumentError("Cannot select both scientific and shortest notation")
    kind = x.dtype.kind
    if precision > -1 and kind not in "fc":
        raise errors.InvalidArgumentError(
            f"precision not supported for datatype {dtypes.public(x.dtype).name}")
    if (scientific or shortest) and kind not in "fc":
        raise errors.InvalidArgumentError(
            f"scientific and shortest format not supported for datatype "
            f"{dtypes.public(x.dtype).name}")
    spec = "%" + fill + (str(width) if width > -1 else "")
    if kind in "fc":
        spec += (f".{precision}" if precision > -1 else "") + (
            "e" if scientific else "g" if shortest else "f")
    elif kind in "iu":
        spec += "d"
    else:
        spec += "s"
    if kind == "b":
        return _map(lambda v: (spec % ("true" if v else "false")).encode(), x)
    if kind == "O":
        return _map(lambda v: (spec % _decode(v)).encode("utf-8", "surrogateescape"), x)
    if kind == "c":
        return _map(lambda v: f"({spec % v.real},{spec % v.imag})".encode(), x)
    if kind not in "iuf":
        raise errors.InvalidArgumentError(f"as_string does not support dtype {x.dtype.name}")
    values = x.astype(np.float64) if kind == "f" else x
    return _map(lambda v: (spec % v).encode(), values)


def as_string(input: TensorLike, precision: int = -1, scientific: bool = False,
              shortest: bool = False, width: int = -1, fill: str = "",
              name: str | None = None) -> Tensor:
    """Formats each number (or bool, or string) as a string, as C's ``printf``.

    Args:
        input: a number, bool or string tensor.
        precision: digits after the point for floats (-1: 6).
        scientific: use ``%e`` notation for floats.
        shortest: use the shorter of plain and scientific (``%g``).
        width: pad to this many characters (-1: no padding).
        fill: the printf flag that pads: ``""`` or ``" "`` (spaces), ``"0"``, ``"-"``
            (left-justify) or ``"+"`` (always a sign).
        name: unused.

    Returns:
        A string tensor of the input's shape.

    Raises:
        InvalidArgumentError: for another `fill`, `precision` on integers, or both
            `scientific` and `shortest`.

    Example:
        >>> import eagerflow as ef
        >>> ef.strings.as_string([3.5, 2.0], precision=2)
        ef.Tensor([b'3.50' b'2.00'], shape=(2,), dtype=string)
        >>> ef.strings.as_string([True, False])
        ef.Tensor([b'true' b'false'], shape=(2,), dtype=string)
    """
    return execute(_as_string, (input,), {
        "precision": int(precision), "scientific": bool(scientific),
        "shortest": bool(shortest), "width": int(width), "fill": fill})
