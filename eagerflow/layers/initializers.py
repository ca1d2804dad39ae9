"""Weight initializers (`ef.initializers`), with Keras 3's names, defaults and formulas.

An initializer is called as ``init(shape, dtype=None)`` and returns a Tensor. Random ones
draw from eagerflow's random streams: without a `seed` they use the global generator, so
``ef.random.set_seed(s)`` makes a model built twice get equal weights; with a `seed` they
return the same values on every call (like Keras 3).

Examples:
    >>> import eagerflow as ef
    >>> ef.initializers.get("ones")((2,))
    ef.Tensor([1. 1.], shape=(2,), dtype=float32)
    >>> ef.random.set_seed(7)
    >>> a = ef.initializers.GlorotUniform()((3, 4))
    >>> ef.random.set_seed(7)
    >>> bool(ef.reduce_all(ef.equal(a, ef.initializers.GlorotUniform()((3, 4)))))
    True
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from eagerflow import absent as _absent
from eagerflow import backend
from eagerflow.core import buffers, dtypes, tensor
from eagerflow.ops import random
from eagerflow.ops.typing import DTypeLike, Tensor
from eagerflow.saving import registry
from eagerflow.utils.naming import snake_case

__all__ = [
    "Constant", "GlorotNormal", "GlorotUniform", "HeNormal", "HeUniform", "Identity",
    "Initializer", "LecunNormal", "LecunUniform", "Ones", "Orthogonal", "RandomNormal",
    "RandomUniform", "TruncatedNormal", "VarianceScaling", "Zeros", "constant", "deserialize",
    "get", "glorot_normal", "glorot_uniform", "he_normal", "he_uniform", "identity",
    "lecun_normal", "lecun_uniform", "ones", "orthogonal", "random_normal", "random_uniform",
    "serialize", "truncated_normal", "variance_scaling", "zeros",
]


def _shape(shape) -> tuple:
    try:
        shape = tuple(int(d) for d in shape)
    except TypeError:
        raise ValueError(f"An initializer needs a shape of ints, got {shape!r}") from None
    if any(d < 0 for d in shape):
        raise ValueError(f"An initializer needs non-negative sizes, got shape {shape}")
    return shape


def _dtype(dtype):
    return dtypes.as_dtype(backend.floatx() if dtype is None else dtype)


def _generator(seed):
    # A seeded initializer restarts its own stream on every call, so it always returns
    # the same values; an unseeded one continues the global stream (ef.random.set_seed).
    return random.get_global_generator() if seed is None else random.Generator.from_seed(seed)


class Initializer(registry.Configurable):
    """Base class: subclasses implement ``__call__(shape, dtype=None)``.

    Examples:
        >>> import eagerflow as ef
        >>> class Twos(ef.initializers.Initializer):
        ...     def __call__(self, shape, dtype=None):
        ...         return ef.fill(shape, 2.0)
        >>> Twos()((2,))
        ef.Tensor([2. 2.], shape=(2,), dtype=float32)
    """

    def __call__(self, shape: Sequence[int], dtype: DTypeLike = None) -> Any:
        raise TypeError(f"{type(self).__name__} must implement __call__(shape, dtype=None)")


class Zeros(Initializer):
    """All zeros.

    Examples:
        >>> import eagerflow as ef
        >>> ef.initializers.Zeros()((2,))
        ef.Tensor([0. 0.], shape=(2,), dtype=float32)
    """

    def __call__(self, shape: Sequence[int], dtype: DTypeLike = None) -> Tensor:
        return tensor.new_tensor(np.zeros(_shape(shape), _dtype(dtype)))


class Ones(Initializer):
    """All ones.

    Examples:
        >>> import eagerflow as ef
        >>> ef.initializers.Ones()((1, 2))
        ef.Tensor([[1. 1.]], shape=(1, 2), dtype=float32)
    """

    def __call__(self, shape: Sequence[int], dtype: DTypeLike = None) -> Tensor:
        return tensor.new_tensor(np.ones(_shape(shape), _dtype(dtype)))


class Constant(Initializer):
    """A constant value (a scalar, or an array broadcast to the shape).

    Args:
        value: the value.

    Examples:
        >>> import eagerflow as ef
        >>> ef.initializers.Constant(3.0)((2,))
        ef.Tensor([3. 3.], shape=(2,), dtype=float32)
    """

    def __init__(self, value: float = 0.0) -> None:
        self.value = value

    def __call__(self, shape: Sequence[int], dtype: DTypeLike = None) -> Tensor:
        shape = _shape(shape)
        try:
            values = np.broadcast_to(np.asarray(self.value, _dtype(dtype)), shape)
        except ValueError:
            raise ValueError(
                f"Constant initializer value of shape {np.shape(self.value)} cannot fill a "
                f"weight of shape {shape}"
            ) from None
        return tensor.new_tensor(values.copy())

    def get_config(self) -> dict:
        value = self.value
        return {"value": value.tolist() if isinstance(value, np.ndarray) else value}


class RandomNormal(Initializer):
    """Normal distribution with `mean` and `stddev`.

    Examples:
        >>> import eagerflow as ef
        >>> ef.initializers.RandomNormal(stddev=0.1, seed=1)((2, 2)).shape
        (2, 2)
    """

    def __init__(self, mean: float = 0.0, stddev: float = 0.05, seed: int | None = None) -> None:
        self.mean, self.stddev, self.seed = mean, stddev, seed

    def __call__(self, shape: Sequence[int], dtype: DTypeLike = None) -> Any:
        return _generator(self.seed).normal(_shape(shape), self.mean, self.stddev, _dtype(dtype))

    def get_config(self) -> dict:
        return {"mean": self.mean, "stddev": self.stddev, "seed": self.seed}


class TruncatedNormal(Initializer):
    """Normal distribution with values beyond two standard deviations redrawn.

    Examples:
        >>> import eagerflow as ef
        >>> w = ef.initializers.TruncatedNormal(stddev=1.0, seed=0)((1000,))
        >>> float(ef.reduce_max(ef.abs(w))) <= 2.0
        True
    """

    def __init__(self, mean: float = 0.0, stddev: float = 0.05, seed: int | None = None) -> None:
        self.mean, self.stddev, self.seed = mean, stddev, seed

    def __call__(self, shape: Sequence[int], dtype: DTypeLike = None) -> Any:
        return _generator(self.seed).truncated_normal(_shape(shape), self.mean, self.stddev,
                                                      _dtype(dtype))

    def get_config(self) -> dict:
        return {"mean": self.mean, "stddev": self.stddev, "seed": self.seed}


class RandomUniform(Initializer):
    """Uniform distribution on ``[minval, maxval)``.

    Examples:
        >>> import eagerflow as ef
        >>> w = ef.initializers.RandomUniform(0.0, 1.0, seed=3)((100,))
        >>> 0.0 <= float(ef.reduce_min(w)) and float(ef.reduce_max(w)) < 1.0
        True
    """

    def __init__(self, minval: Any = -0.05, maxval: float = 0.05, seed: int | None = None) -> None:
        self.minval, self.maxval, self.seed = minval, maxval, seed

    def __call__(self, shape: Sequence[int], dtype: DTypeLike = None) -> Any:
        return _generator(self.seed).uniform(_shape(shape), self.minval, self.maxval,
                                             _dtype(dtype))

    def get_config(self) -> dict:
        return {"minval": self.minval, "maxval": self.maxval, "seed": self.seed}


def compute_fans(shape) -> tuple:
    """``(fan_in, fan_out)`` of a weight: conv kernels count their receptive field."""
    shape = tuple(shape)
    if not shape:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    receptive = math.prod(shape[:-2])
    return shape[-2] * receptive, shape[-1] * receptive


_TRUNCATED_STDDEV = 0.87962566103423978  # stddev of a unit normal truncated at +-2


class VarianceScaling(Initializer):
    """Scales its distribution to the weight's fan: the family behind Glorot, He, LeCun.

    Args:
        scale: variance scale (positive).
        mode: ``"fan_in"``, ``"fan_out"`` or ``"fan_avg"``.
        distribution: ``"truncated_normal"``, ``"untruncated_normal"`` or ``"uniform"``.
        seed: optional seed.

    Raises:
        ValueError: for a non-positive scale or an unknown mode or distribution.

    Examples:
        >>> import eagerflow as ef
        >>> init = ef.initializers.VarianceScaling(2.0, "fan_in", "uniform", seed=0)
        >>> limit = (3 * 2.0 / 100) ** 0.5
        >>> float(ef.reduce_max(ef.abs(init((100, 50))))) <= limit
        True
    """

    def __init__(self, scale: float = 1.0, mode: str = "fan_in",
                 distribution: str = "truncated_normal", seed: int | None = None) -> None:
        if scale <= 0.0:
            raise ValueError(f"`scale` must be positive. Received: scale={scale}")
        if mode not in ("fan_in", "fan_out", "fan_avg"):
            raise ValueError(
                f"`mode` must be 'fan_in', 'fan_out' or 'fan_avg'. Received: mode={mode!r}")
        distribution = distribution.lower()
        if distribution == "normal":
            distribution = "truncated_normal"
        if distribution not in ("truncated_normal", "untruncated_normal", "uniform"):
            raise ValueError(
                "`distribution` must be 'truncated_normal', 'untruncated_normal' or "
                f"'uniform'. Received: distribution={distribution!r}")
        self.scale, self.mode, self.distribution, self.seed = scale, mode, distribution, seed

    def __call__(self, shape: Sequence[int], dtype: DTypeLike = None) -> Any:
        shape, dtype = _shape(shape), _dtype(dtype)
        fan_in, fan_out = compute_fans(shape)
        fan = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2.0}
        scale = self.scale / max(1.0, fan[self.mode])
        generator = _generator(self.seed)
        if self.distribution == "truncated_normal":
            return generator.truncated_normal(shape, 0.0, math.sqrt(scale) / _TRUNCATED_STDDEV,
                                              dtype)
        if self.distribution == "untruncated_normal":
            return generator.normal(shape, 0.0, math.sqrt(scale), dtype)
        limit = math.sqrt(3.0 * scale)
        return generator.uniform(shape, -limit, limit, dtype)

    def get_config(self) -> dict:
        return {"scale": self.scale, "mode": self.mode, "distribution": self.distribution,
                "seed": self.seed}


class _Preset(VarianceScaling):
    """A VarianceScaling with fixed parameters; only the seed is configurable."""

    _PARAMS: tuple = ()

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(*self._PARAMS, seed=seed)  # type: ignore[misc]  # (_PARAMS has no seed)

    def get_config(self) -> dict:
        return {"seed": self.seed}


class GlorotUniform(_Preset):
    """Uniform on ``+-sqrt(6 / (fan_in + fan_out))`` (Xavier); the Dense/Conv default.

    Examples:
        >>> import eagerflow as ef
        >>> ef.initializers.GlorotUniform(seed=0)((3, 2)).shape
        (3, 2)
    """

    _PARAMS = (1.0, "fan_avg", "uniform")


class GlorotNormal(_Preset):
    """Truncated normal with stddev ``sqrt(2 / (fan_in + fan_out))``.

    Examples:
        >>> import eagerflow as ef
        >>> ef.initializers.GlorotNormal(seed=0)((3, 2)).dtype
        dtype('float32')
    """

    _PARAMS = (1.0, "fan_avg", "truncated_normal")


class HeNormal(_Preset):
    """Truncated normal with stddev ``sqrt(2 / fan_in)``, for ReLU networks.

    Examples:
        >>> import eagerflow as ef
        >>> ef.initializers.HeNormal(seed=0)((3, 2)).shape
        (3, 2)
    """

    _PARAMS = (2.0, "fan_in", "truncated_normal")


class HeUniform(_Preset):
    """Uniform on ``+-sqrt(6 / fan_in)``.

    Examples:
        >>> import eagerflow as ef
        >>> ef.initializers.HeUniform(seed=0)((3, 2)).shape
        (3, 2)
    """

    _PARAMS = (2.0, "fan_in", "uniform")


class LecunNormal(_Preset):
    """Truncated normal with stddev ``sqrt(1 / fan_in)``, for SELU networks.

    Examples:
        >>> import eagerflow as ef
        >>> ef.initializers.LecunNormal(seed=0)((3, 2)).shape
        (3, 2)
    """

    _PARAMS = (1.0, "fan_in", "truncated_normal")


class LecunUniform(_Preset):
    """Uniform on ``+-sqrt(3 / fan_in)``.

    Examples:
        >>> import eagerflow as ef
        >>> ef.initializers.LecunUniform(seed=0)((3, 2)).shape
        (3, 2)
    """

    _PARAMS = (1.0, "fan_in", "uniform")


class Orthogonal(Initializer):
    """A (semi-)orthogonal matrix times `gain`; the recurrent-kernel default of LSTM/GRU.

    The weight is viewed as a matrix of ``prod(shape[:-1])`` rows and ``shape[-1]``
    columns; its rows (or columns, whichever are fewer) are orthonormal.

    Raises:
        ValueError: for weights of rank below 2.

    Examples:
        >>> import eagerflow as ef, numpy as np
        >>> q = ef.initializers.Orthogonal(seed=0)((4, 4)).numpy()
        >>> np.allclose(q @ q.T, np.eye(4), atol=1e-5)
        True
    """

    def __init__(self, gain: float = 1.0, seed: int | None = None) -> None:
        self.gain, self.seed = gain, seed

    def __call__(self, shape: Sequence[int], dtype: DTypeLike = None) -> Tensor:
        shape, dtype = _shape(shape), _dtype(dtype)
        if len(shape) < 2:
            raise ValueError(
                f"Orthogonal initializer needs a weight of rank >= 2, got shape {shape}")
        rows, cols = math.prod(shape[:-1]), shape[-1]
        flat = (max(rows, cols), min(rows, cols))
        draw = buffers.read(_generator(self.seed).normal(flat, dtype=dtypes.float64))
        q, r = np.linalg.qr(draw)
        # Multiplying by the signs of diag(r) makes the decomposition unique, so q is
        # uniformly distributed over orthogonal matrices.
        q = q * np.where(np.diag(r) < 0, -1.0, 1.0)
        if rows < cols:
            q = q.T
        return tensor.new_tensor((self.gain * q).reshape(shape).astype(dtype))

    def get_config(self) -> dict:
        return {"gain": self.gain, "seed": self.seed}


class Identity(Initializer):
    """`gain` times the identity matrix (2-D weights only).

    Raises:
        ValueError: for weights that are not 2-D.

    Examples:
        >>> import eagerflow as ef
        >>> ef.initializers.Identity()((2, 2))
        ef.Tensor(
        [[1. 0.]
         [0. 1.]], shape=(2, 2), dtype=float32)
    """

    def __init__(self, gain: float = 1.0) -> None:
        self.gain = gain

    def __call__(self, shape: Sequence[int], dtype: DTypeLike = None) -> Tensor:
        shape, dtype = _shape(shape), _dtype(dtype)
        if len(shape) != 2:
            raise ValueError(
                f"Identity initializer needs a 2-D weight, got shape {shape}. Use "
                "Orthogonal for other ranks.")
        return tensor.new_tensor((self.gain * np.eye(*shape)).astype(dtype))

    def get_config(self) -> dict:
        return {"gain": self.gain}


# Keras 3 aliases: lower-case names are the classes themselves.
zeros = Zeros
"""Keras's lower-case name of `Zeros` (the class itself)."""

ones = Ones
"""Keras's lower-case name of `Ones` (the class itself)."""

constant = Constant
"""Keras's lower-case name of `Constant` (the class itself)."""
random_normal = RandomNormal
"""Keras's lower-case name of `RandomNormal` (the class itself)."""

random_uniform = RandomUniform
"""Keras's lower-case name of `RandomUniform` (the class itself)."""

truncated_normal = TruncatedNormal
"""Keras's lower-case name of `TruncatedNormal` (the class itself)."""
variance_scaling = VarianceScaling
"""Keras's lower-case name of `VarianceScaling` (the class itself)."""

orthogonal = Orthogonal
"""Keras's lower-case name of `Orthogonal` (the class itself)."""

identity = Identity
"""Keras's lower-case name of `Identity` (the class itself)."""
glorot_uniform = GlorotUniform
"""Keras's lower-case name of `GlorotUniform` (the class itself)."""

glorot_normal = GlorotNormal
"""Keras's lower-case name of `GlorotNormal` (the class itself)."""
he_normal = HeNormal
"""Keras's lower-case name of `HeNormal` (the class itself)."""

he_uniform = HeUniform
"""Keras's lower-case name of `HeUniform` (the class itself)."""

lecun_normal = LecunNormal
"""Keras's lower-case name of `LecunNormal` (the class itself)."""

lecun_uniform = LecunUniform
"""Keras's lower-case name of `LecunUniform` (the class itself)."""

for _class in (Zeros, Ones, Constant, RandomNormal, RandomUniform, TruncatedNormal,
               VarianceScaling, GlorotUniform, GlorotNormal, HeNormal, HeUniform, LecunNormal,
               LecunUniform, Orthogonal, Identity):
    registry.register("initializer", _class, snake_case(_class.__name__))
registry.register("initializer", RandomUniform, "uniform")
registry.register("initializer", RandomNormal, "normal")


def get(identifier: Any) -> Any:
    """Returns an initializer from a name, a config dict, an instance or a callable.

    Raises:
        ValueError: for an unknown name, listing the known ones.

    Examples:
        >>> import eagerflow as ef
        >>> ef.initializers.get("he_normal")
        HeNormal(seed=None)
    """
    return registry.get("initializer", identifier)


def serialize(initializer: Any) -> Any:
    """The ``{"class_name", "config"}`` of an initializer (callables are returned as is).

    Examples:
        >>> import eagerflow as ef
        >>> ef.initializers.serialize(ef.initializers.Zeros())
        {'class_name': 'Zeros', 'config': {}}
    """
    return registry.serialize(initializer, "initializer")


def deserialize(config: dict[str, Any]) -> Any:
    """Inverse of `serialize`.

    Examples:
        >>> import eagerflow as ef
        >>> ef.initializers.deserialize({"class_name": "Constant", "config": {"value": 2}})
        Constant(value=2)
    """
    return get(config)


__getattr__ = _absent.namespace_getattr(__name__, "keras.initializers")
