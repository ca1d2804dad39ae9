"""Keras 3's `keras.backend` settings (`ef.backend`): the fuzz factor, the default float
dtype, the image data format, and `clear_session`.

These are process-wide settings read where Keras reads them: `epsilon()` by the losses and
metrics that clip probabilities or guard a division, `floatx()` by layers, `ef.Input` and
the initializers when no dtype is given, `image_data_format()` by layers whose
`data_format` is left as None.

Examples:
    >>> import eagerflow as ef
    >>> ef.backend.epsilon(), ef.backend.floatx(), ef.backend.image_data_format()
    (1e-07, 'float32', 'channels_last')
    >>> ef.backend.set_floatx("float64")
    >>> ef.layers.Dense(2).dtype
    dtype('float64')
    >>> ef.backend.set_floatx("float32")
"""

from typing import Any

import numpy as np

from eagerflow.utils import naming

__all__ = [
    "backend", "clear_session", "epsilon", "floatx", "get_uid", "image_data_format",
    "is_float_dtype", "is_int_dtype", "set_epsilon", "set_floatx", "set_image_data_format",
    "standardize_dtype",
]

_FLOATX = ("float16", "float32", "float64")
_DATA_FORMATS = ("channels_first", "channels_last")


class _Settings:
    __slots__ = ("epsilon", "floatx", "image_data_format")

    def __init__(self) -> None:
        self.epsilon = 1e-7
        self.floatx = "float32"
        self.image_data_format = "channels_last"


_settings = _Settings()


def backend() -> str:
    """The name of the backend: ``"eagerflow"`` (Keras 3 answers ``"tensorflow"``, ...)."""
    return "eagerflow"


def epsilon() -> float:
    """The fuzz factor (default ``1e-7``): the margin by which losses clip probabilities and
    the constant that guards their divisions, as Keras's ``backend.epsilon()``."""
    return _settings.epsilon


def set_epsilon(value: float) -> None:
    """Sets the fuzz factor that `epsilon()` returns and the losses use.

    Args:
        value: a finite float (Keras accepts any number, a negative one included).

    Raises:
        ValueError: if `value` is not a finite real number.
    """
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"set_epsilon expects a number, got {value!r}") from None
    if not np.isfinite(number):
        raise ValueError(f"set_epsilon expects a finite number, got {value!r}")
    _settings.epsilon = number


def floatx() -> str:
    """The default float dtype (``"float32"``): the dtype of layers, `ef.Input` and
    initializers created without one."""
    return _settings.floatx


def set_floatx(value: str) -> None:
    """Sets the default float dtype of layers, `ef.Input` and initializers made from now on.

    Args:
        value: ``"float16"``, ``"float32"`` or ``"float64"``.

    Raises:
        ValueError: for another value (bfloat16, which Keras also accepts, has no NumPy
            dtype).
    """
    if not isinstance(value, str) or value not in _FLOATX:
        raise ValueError(f"Unknown `floatx` value: {value}. Expected one of {set(_FLOATX)}"
                         + (" (bfloat16 has no NumPy dtype, so eagerflow has none)"
                            if value == "bfloat16" else ""))
    _settings.floatx = value


def image_data_format() -> str:
    """The default `data_format` of image layers: ``"channels_last"`` (NHWC)."""
    return _settings.image_data_format


def set_image_data_format(data_format: str) -> None:
    """Sets the default image data format.

    eagerflow's convolution and pooling layers work on channels-last images (NHWC) only, so
    ``"channels_first"`` is refused rather than half-applied.

    Raises:
        ValueError: for a value other than ``"channels_first"``/``"channels_last"``, and for
            ``"channels_first"``.
    """
    if data_format not in _DATA_FORMATS:
        raise ValueError("The `data_format` argument must be one of "
                         f"{set(_DATA_FORMATS)}. Received: data_format={data_format}")
    if data_format == "channels_first":
        raise ValueError("set_image_data_format('channels_first'): eagerflow's convolution "
                         "and pooling layers take channels-last images (NHWC) only; transpose "
                         "NCHW data with ef.transpose(x, [0, 2, 3, 1]) instead")
    _settings.image_data_format = data_format


def clear_session() -> None:
    """Resets the state Keras's ``clear_session`` resets: automatic layer names start again
    from ``dense``, ``dense_1``, ... and `get_uid` counts from 1.

    Models and variables still referenced by the program are left as they are (eagerflow
    keeps no global graph, so there is nothing else to free).
    """
    naming.reset_name_uids()


def get_uid(prefix: str = "") -> int:
    """How many times `prefix` has been counted, this call included (1, 2, ...), sharing
    the counter that names layers, as Keras's ``backend.get_uid``."""
    return naming.count_name_uid(prefix)


def standardize_dtype(dtype: Any) -> str:
    """The canonical name of `dtype` (``"float32"``, ``"int64"``, ``"bool"``, ...).

    Raises:
        ValueError: for something that is not a dtype (as Keras: ``"float"`` too).
    """
    if dtype is None:
        return floatx()
    if dtype is float:  # Python's types, as Keras names them
        return "float32"
    if dtype is int:
        return "int64"
    if isinstance(dtype, str) and dtype == "string":
        return "string"
    if isinstance(dtype, str) and dtype in ("float", "int", "double", "complex", "str"):
        raise ValueError(f"Invalid dtype: {dtype}")
    try:
        name = np.dtype(dtype).name
    except TypeError:
        raise ValueError(f"Invalid dtype: {dtype}") from None
    if name.startswith(("str", "bytes", "object", "void")):
        raise ValueError(f"Invalid dtype: {dtype}")
    return name


def is_float_dtype(dtype: Any) -> bool:
    """Whether `dtype` is a floating dtype."""
    return standardize_dtype(dtype).startswith(("float", "bfloat"))


def is_int_dtype(dtype: Any) -> bool:
    """Whether `dtype` is a (signed or unsigned) integer dtype."""
    return standardize_dtype(dtype).startswith(("int", "uint"))
