"""Keras 3's number-theoretic, bitwise and lookup ops (`keras.ops.gcd`, `lcm`, `signbit`,
`nextafter`, `isin`, `left_shift`, `right_shift`, `digitize`, `searchsorted`,
`unravel_index`), the complex-number ops on real tensors (`real`, `imag`, `conj`,
`isreal`: eagerflow has no complex dtypes, so these are what Keras gives for real
inputs) and the window functions (`bartlett`, `blackman`, `hamming`, `hanning`,
`kaiser`), part of `ef.ops.numpy`, with NumPy's values and Keras's dtypes.

The integer and lookup ops have no gradient (their outputs are integers or booleans, or,
for `nextafter`, piecewise constant).

Examples:
    >>> import eagerflow as ef
    >>> ef.ops.gcd([12, 18], [8, 12])
    ef.Tensor([4 6], shape=(2,), dtype=int32)
    >>> ef.ops.searchsorted([1.0, 2.0, 3.0], [2.5, 0.0])
    ef.Tensor([2 0], shape=(2,), dtype=int32)
"""

from __future__ import annotations

import math

import numpy as np

from eagerflow.core.dispatch import execute, primitive
from eagerflow.ops import bessel as _bessel
from eagerflow.ops import creation as _creation
from eagerflow.ops import keras_core as _core
from eagerflow.ops import math as _math
from eagerflow.ops.typing import Tensor, TensorLike

_FLOATX = np.dtype("float32")


def _t(x: TensorLike) -> Tensor:
    return _creation.convert_to_tensor(x)


def _pair(x1: TensorLike, x2: TensorLike, need_int: str = "") -> tuple[Tensor, Tensor]:
    dtype = _core.result_type(x1, x2)
    if need_int and dtype.kind not in "iub":
        raise TypeError(f"`{need_int}` expects integer inputs. Received: dtype={dtype.name}")
    return _core.as_tensor(x1, dtype), _core.as_tensor(x2, dtype)


@primitive("Gcd", differentiable=False)
def _gcd(a, b):
    return np.gcd(a, b)


@primitive("Lcm", differentiable=False)
def _lcm(a, b):
    return np.lcm(a, b)


def gcd(x1: TensorLike, x2: TensorLike) -> Tensor:
    """The greatest common divisor, elementwise (`keras.ops.gcd`).

    Raises:
        TypeError: for floating-point inputs.
    """
    return execute(_gcd, _pair(x1, x2, "gcd"))


def lcm(x1: TensorLike, x2: TensorLike) -> Tensor:
    """The least common multiple, elementwise (`keras.ops.lcm`).

    Raises:
        TypeError: for floating-point inputs.
    """
    return execute(_lcm, _pair(x1, x2, "lcm"))


@primitive("LeftShift", differentiable=False)
def _left_shift(a, b):
    return np.left_shift(a, b)


@primitive("RightShift", differentiable=False)
def _right_shift(a, b):
    return np.right_shift(a, b)


def bitwise_left_shift(x: TensorLike, y: TensorLike) -> Tensor:
    """`x` shifted left by `y` bits (`keras.ops.bitwise_left_shift`).

    Raises:
        TypeError: for non-integer inputs.
    """
    return execute(_left_shift, _pair(x, y, "bitwise_left_shift"))


def bitwise_right_shift(x: TensorLike, y: TensorLike) -> Tensor:
    """`x` shifted right by `y` bits, arithmetic for signed integers
    (`keras.ops.bitwise_right_shift`).

    Raises:
        TypeError: for non-integer inputs.
    """
    return execute(_right_shift, _pair(x, y, "bitwise_right_shift"))


left_shift = bitwise_left_shift
"""Another name for `bitwise_left_shift` (`keras.ops.left_shift`)."""
right_shift = bitwise_right_shift
"""Another name for `bitwise_right_shift` (`keras.ops.right_shift`)."""


@primitive("Signbit", differentiable=False)
def _signbit(x):
    return np.signbit(x)


def signbit(x: TensorLike) -> Tensor:
    """Whether the sign bit is set (true for negatives, -0.0 and -NaN) (`keras.ops.signbit`)."""
    return execute(_signbit, (_t(x),))


@primitive("NextAfter", differentiable=False)
def _nextafter(a, b):
    return np.nextafter(a, b)


def nextafter(x1: TensorLike, x2: TensorLike) -> Tensor:
    """The next representable float after `x1` towards `x2` (`keras.ops.nextafter`);
    integers are computed in float32."""
    dtype = _core.result_type(x1, x2, 1.0)
    return execute(_nextafter, (_core.as_tensor(x1, dtype), _core.as_tensor(x2, dtype)))


@primitive("IsIn", differentiable=False)
def _isin(a, b, invert):
    return np.isin(a, b, invert=invert)


def isin(x1: TensorLike, x2: TensorLike, assume_unique: bool = False,
         invert: bool = False) -> Tensor:
    """Whether each entry of `x1` occurs in `x2` (or not, with `invert`) (`keras.ops.isin`)."""
    a, b = _pair(x1, x2)
    return execute(_isin, (a, b), {"invert": bool(invert)})


def real(x: TensorLike) -> Tensor:
    """The real part: `x` itself, as eagerflow's tensors are real (`keras.ops.real`)."""
    return _t(x)


def imag(x: TensorLike) -> Tensor:
    """The imaginary part: zeros of `x`'s shape and dtype for real tensors
    (`keras.ops.imag`)."""
    return _creation.zeros_like(_t(x))


def conj(x: TensorLike) -> Tensor:
    """The complex conjugate: `x` itself for real tensors (`keras.ops.conj`)."""
    return _t(x)


conjugate = conj
"""Another name for `conj` (`keras.ops.conjugate`)."""


def isreal(x: TensorLike) -> Tensor:
    """Whether each entry has no imaginary part: all true for real tensors
    (`keras.ops.isreal`)."""
    return _creation.ones_like(_t(x), "bool")


@primitive("Digitize", differentiable=False)
def _digitize(x, bins):
    return np.digitize(x, bins).astype(np.int32)


def digitize(x: TensorLike, bins: TensorLike) -> Tensor:
    """The index of the bin each entry of `x` falls in, for monotonic `bins`, int32
    (`keras.ops.digitize`)."""
    return execute(_digitize, (_t(x), _t(bins)))


@primitive("SearchSorted", differentiable=False)
def _searchsorted(sequence, values, side):
    return np.searchsorted(sequence, values, side=side).astype(np.int32)


def searchsorted(sorted_sequence: TensorLike, values: TensorLike, side: str = "left") -> Tensor:
    """Where to insert `values` into the 1-D `sorted_sequence` to keep it sorted, int32
    (`keras.ops.searchsorted`).

    Raises:
        ValueError: for a sequence that is not 1-D or a `side` other than "left"/"right".
    """
    sequence = _t(sorted_sequence)
    if sequence.ndim != 1:
        raise ValueError("`searchsorted` only supports 1-D sorted sequences. You can use "
                         "`keras.ops.vectorized_map` to extend it to N-D sequences. "
                         f"Received: sorted_sequence.shape={sequence.shape}")
    if side not in ("left", "right"):
        raise ValueError(f"`side` must be 'left' or 'right'. Received: side={side!r}")
    return execute(_searchsorted, (sequence, _t(values)), {"side": side})


def unravel_index(indices: TensorLike, shape: tuple[int, ...]) -> tuple[Tensor, ...]:
    """The coordinates in an array of `shape` of each flat index (`keras.ops.unravel_index`),
    in `indices`' dtype."""
    indices = _t(indices)
    coordinates = []
    stride = math.prod(int(s) for s in shape)
    for size in shape:
        stride //= int(size)
        coordinates.append(_math.mod(_math.floordiv(indices, stride), int(size)))
    return tuple(coordinates)


def _window(values: np.ndarray) -> Tensor:
    return _creation.constant(values.astype(_FLOATX))


def _length(x: TensorLike) -> int:
    return int(np.asarray(_t(x).numpy()))


def bartlett(x: TensorLike) -> Tensor:
    """The Bartlett (triangular) window of `x` points, float32 (`keras.ops.bartlett`)."""
    return _window(np.bartlett(_length(x)))


def blackman(x: TensorLike) -> Tensor:
    """The Blackman window of `x` points, float32 (`keras.ops.blackman`)."""
    return _window(np.blackman(_length(x)))


def hamming(x: TensorLike) -> Tensor:
    """The Hamming window of `x` points, float32 (`keras.ops.hamming`)."""
    return _window(np.hamming(_length(x)))


def hanning(x: TensorLike) -> Tensor:
    """The Hann window of `x` points, float32 (`keras.ops.hanning`)."""
    return _window(np.hanning(_length(x)))


def kaiser(x: TensorLike, beta: float) -> Tensor:
    """The Kaiser window of `x` points with shape parameter `beta`, float32
    (`keras.ops.kaiser`)."""
    return _window(np.kaiser(_length(x), float(beta)))



def i0(x: TensorLike) -> Tensor:
    """The modified Bessel function of the first kind of order 0 (`keras.ops.i0`);
    integers are computed as floats (float64 for int64)."""
    x = _t(x)
    if x.dtype.kind != "f":
        x = _math.cast(x, "float64" if x.dtype == np.int64 else "float32")
    return _bessel.bessel_i0(x)
