"""Seeded random ops.

`set_seed(s)` makes every later random op (and everything built on them: initializers,
dropout, shuffles) reproducible. An op-level `seed` picks its own stream, still derived
from the global seed; repeated calls with the same op seed draw new values. A
`Generator` holds explicit state for code that wants no global state at all.

Examples:
    >>> import eagerflow as ef
    >>> ef.random.set_seed(1)
    >>> a = ef.random.normal([2])
    >>> ef.random.set_seed(1)
    >>> bool(ef.reduce_all(ef.equal(a, ef.random.normal([2]))))
    True
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from eagerflow import absent as _absent
from eagerflow.core import buffers, context, dtypes, errors
from eagerflow.core.variable import Variable
from eagerflow.core.dispatch import convert_input, execute, primitive
from eagerflow.ops import math as _math
from eagerflow.ops.typing import DTypeLike, ShapeLike, Tensor, TensorLike

__all__ = [
    "Generator",
    "SeedGenerator",
    "categorical",
    "get_global_generator",
    "get_global_seed",
    "get_state",
    "normal",
    "set_global_generator",
    "set_seed",
    "set_state",
    "shuffle",
    "truncated_normal",
    "uniform",
]

# TensorFlow's default graph seed, used with an op seed when no global seed is set.
_DEFAULT_GLOBAL_SEED = 87654321
_TENSORS = (Tensor, Variable)


def _shape(shape, op_name) -> tuple:
    if isinstance(shape, (list, tuple)):  # e.g. [ef.shape(x)[0], 4]: scalar tensors inside
        shape = [buffers.read(convert_input(v)) if isinstance(v, _TENSORS) else v for v in shape]
    if isinstance(shape, _TENSORS):
        shape = buffers.read(convert_input(shape))
    values = np.asarray(shape)
    if values.ndim > 1 or (values.size and values.dtype.kind not in "iu") or (values < 0).any():
        raise errors.InvalidArgumentError(
            f"shape must be non-negative integers, got {shape!r}", op_name
        )
    return tuple(int(v) for v in values.reshape(-1))


def _float_dtype(dtype, op_name):
    dtype = dtypes.as_dtype(dtype)
    if dtype.kind != "f":
        raise errors.InvalidArgumentError(
            f"{op_name} needs a floating-point dtype, got {dtype.name}", op_name
        )
    return dtype


@primitive("RandomStandardNormal", differentiable=False, stateful=True)
def _standard_normal(shape, dtype, rng):
    budget = context.thread.load_budget
    if budget is not None:  # loading a file: bound the output first
        budget.charge(shape, dtype, f"op RandomStandardNormal: output of shape "
                      f"{tuple(shape)}", transient=True)
    if dtype in (dtypes.float32, dtypes.float64):
        return rng.standard_normal(shape, dtype=dtype)
    return rng.standard_normal(shape, dtype=np.float32).astype(dtype)


@primitive("RandomUniform", differentiable=False, stateful=True)
def _uniform(shape, dtype, rng):
    budget = context.thread.load_budget
    if budget is not None:  # loading a file: bound the output first
        budget.charge(shape, dtype, f"op RandomUniform: output of shape "
                      f"{tuple(shape)}", transient=True)
    if dtype in (dtypes.float32, dtypes.float64):
        return rng.random(shape, dtype=dtype)
    return rng.random(shape, dtype=np.float32).astype(dtype)


@primitive("RandomUniformInt", differentiable=False, stateful=True)
def _uniform_int(shape, minval, maxval, dtype, rng):
    budget = context.thread.load_budget
    if budget is not None:  # loading a file: bound the output first
        budget.charge(shape, dtype, f"op RandomUniformInt: output of shape "
                      f"{tuple(shape)}", transient=True)
    return rng.integers(minval, maxval, shape, dtype=dtype)


@primitive("TruncatedNormal", differentiable=False, stateful=True)
def _truncated_normal(shape, dtype, rng):
    budget = context.thread.load_budget
    if budget is not None:  # loading a file: bound the output first
        budget.charge(shape, np.float64, f"op TruncatedNormal: output of shape "
                      f"{tuple(shape)}", transient=True)
    # Redraw every value beyond two standard deviations, as TensorFlow does.
    values = rng.standard_normal(shape)
    bad = np.abs(values) > 2
    while bad.any():
        values[bad] = rng.standard_normal(int(bad.sum()))
        bad = np.abs(values) > 2
    return values.astype(dtype)


@primitive("Multinomial", differentiable=False, stateful=True)
def _categorical(logits, num_samples, dtype, rng):
    # Gumbel-max: argmax(logits + Gumbel noise) samples from softmax(logits).
    noise = rng.gumbel(size=(logits.shape[0], num_samples, logits.shape[1]))
    return np.argmax(logits[:, None, :] + noise, axis=-1).astype(dtype)


@primitive("RandomShuffle", differentiable=False, stateful=True)
def _shuffle(value, rng):
    return value[rng.permutation(value.shape[0])] if value.ndim else value


class Generator:
    """A random number generator with explicit state.

    Examples:
        >>> import eagerflow as ef
        >>> g = ef.random.Generator.from_seed(42)
        >>> g.uniform([3]).shape
        (3,)
    """

    def __init__(self, seed: int | Sequence[int] | None = None) -> None:
        self._seed = seed
        self._rng = np.random.default_rng(seed)

    @classmethod
    def from_seed(cls, seed: int | None, alg: Any = None) -> Generator:
        """Creates a generator whose stream is determined by `seed`."""
        return cls(seed)

    @classmethod
    def from_non_deterministic_state(cls, alg: Any = None) -> Generator:
        """Creates a generator seeded from the operating system's entropy."""
        return cls(None)

    @property
    def numpy_generator(self) -> np.random.Generator:
        """The NumPy generator that draws this generator's numbers, for code that samples
        arrays directly (the input pipeline's epoch orders; a traced function's record of
        which stream an op draws from)."""
        return self._rng

    def reset_from_seed(self, seed: int | None) -> None:
        """Restarts the stream from `seed`."""
        self._seed = seed
        self._rng = np.random.default_rng(seed)

    def split(self, count: int = 1) -> list:
        """Returns `count` new independent generators derived from this one."""
        return [Generator(int(s)) for s in self._rng.integers(0, 2**63 - 1, count)]

    def normal(self, shape: ShapeLike, mean: TensorLike = 0.0, stddev: TensorLike = 1.0,
               dtype: DTypeLike = dtypes.float32, name: str | None = None) -> Tensor:
        """Draws from a normal distribution."""
        dtype = _float_dtype(dtype, "RandomStandardNormal")
        values = execute(_standard_normal, (), {"shape": _shape(shape, "RandomStandardNormal"),
                                                "dtype": dtype, "rng": self._rng})
        return _scale(values, mean, stddev)

    def truncated_normal(self, shape: ShapeLike, mean: TensorLike = 0.0, stddev: TensorLike = 1.0,
                         dtype: DTypeLike = dtypes.float32, name: str | None = None) -> Tensor:
        """Draws from a normal distribution, redrawing values beyond two stddevs."""
        dtype = _float_dtype(dtype, "TruncatedNormal")
        values = execute(_truncated_normal, (), {"shape": _shape(shape, "TruncatedNormal"),
                                                 "dtype": dtype, "rng": self._rng})
        return _scale(values, mean, stddev)

    def uniform(self, shape: ShapeLike, minval: Any = 0, maxval: Any = None,
                dtype: DTypeLike = dtypes.float32, name: str | None = None) -> Tensor:
        """Draws uniformly from ``[minval, maxval)`` (integers need `maxval`)."""
        dtype = dtypes.as_dtype(dtype)
        if dtype.kind in "iu":
            if maxval is None:
                raise errors.InvalidArgumentError(
                    f"uniform with integer dtype {dtype.name} needs maxval", "RandomUniformInt"
                )
            if int(maxval) <= int(minval):
                raise errors.InvalidArgumentError(
                    f"Need minval < maxval, got {minval} >= {maxval}", "RandomUniformInt"
                )
            return execute(_uniform_int, (), {"shape": _shape(shape, "RandomUniformInt"),
                                              "minval": int(minval),
                                              "maxval": int(maxval), "dtype": dtype,
                                              "rng": self._rng})
        dtype = _float_dtype(dtype, "RandomUniform")
        values = execute(_uniform, (), {"shape": _shape(shape, "RandomUniform"), "dtype": dtype,
                                        "rng": self._rng})
        maxval = 1 if maxval is None else maxval
        if isinstance(minval, (int, float)) and isinstance(maxval, (int, float)):
            if (minval, maxval) == (0, 1):
                return values
            return _math.add(_math.multiply(values, maxval - minval), minval)
        return _math.add(_math.multiply(values, _math.subtract(maxval, minval)), minval)

    def categorical(self, logits: TensorLike, num_samples: Any, dtype: DTypeLike = dtypes.int64,
                    name: str | None = None) -> Tensor:
        """Draws class indices from the softmax of each row of `logits`."""
        logits = convert_input(logits)
        if logits.ndim != 2:
            raise errors.InvalidArgumentError(
                f"logits must be 2-D [batch, classes], got shape {logits.shape}", "Multinomial"
            )
        if int(num_samples) < 0:
            raise errors.InvalidArgumentError(
                f"num_samples must be non-negative, got {num_samples}", "Multinomial"
            )
        return execute(_categorical, (logits,), {"num_samples": int(num_samples),
                                                 "dtype": dtypes.as_dtype(dtype),
                                                 "rng": self._rng})

    def shuffle(self, value: TensorLike, name: str | None = None) -> Tensor:
        """Randomly permutes `value` along its first axis."""
        return execute(_shuffle, (value,), {"rng": self._rng})


class SeedGenerator(Generator):
    """Keras 3's seed object: a stream of random numbers of its own, passed as the `seed`
    of random ops (``ef.random.normal(shape, seed=gen)``); every call draws new values.

    Args:
        seed: an int for a reproducible stream; None for one seeded from the OS.

    Examples:
        >>> import eagerflow as ef
        >>> a = ef.random.normal([2], seed=ef.random.SeedGenerator(1337))
        >>> b = ef.random.normal([2], seed=ef.random.SeedGenerator(1337))
        >>> bool(ef.reduce_all(a == b))
        True
    """

    def __init__(self, seed: int | None = None, name: str | None = None) -> None:
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer))
                                 or seed < 0):
            raise errors.InvalidArgumentError(
                f"SeedGenerator: seed must be a non-negative int or None, got {seed!r}",
                "SeedGenerator")
        super().__init__(seed)
        self.name = name or "seed_generator"


def _scale(values, mean, stddev):
    if isinstance(stddev, (int, float)) and stddev == 1:
        scaled = values
    else:
        scaled = _math.multiply(values, stddev)
    if isinstance(mean, (int, float)) and mean == 0:
        return scaled
    return _math.add(scaled, mean)


_global_seed: int | None = None
_global_generator = Generator.from_non_deterministic_state()
_op_generators: dict = {}
_function_count = 0  # functions given their own streams since the last set_seed
_scoped = threading.local()  # the FunctionStreams in force in this thread, if any


class FunctionStreams:
    """The random streams of one run of a function that TensorFlow traces once and runs
    afresh per iterator, such as a `Dataset.map` function: every pass over the dataset
    gets new `FunctionStreams`, so seeded ops (and, with a global seed, unseeded ones)
    draw the same numbers on every pass, as in tf.data.

    Args:
        function_seed: this function's number (`next_function_seed`), which separates the
            unseeded streams of two functions.
    """

    def __init__(self, function_seed: int) -> None:
        self.ops: dict = {}
        self.unseeded = None if _global_seed is None else Generator([_global_seed, function_seed])


def next_function_seed() -> int:
    """A number for a new function's `FunctionStreams` (restarting at every `set_seed`, as
    TensorFlow's op seeds restart with each graph)."""
    global _function_count
    _function_count += 1
    return _function_count


@contextlib.contextmanager
def function_streams(streams: FunctionStreams | None) -> Iterator[None]:
    """Random ops in this thread draw from `streams` inside the block (None: from the
    global streams again, as a layer's own randomness does, see `active_streams`)."""
    previous = getattr(_scoped, "streams", None)
    _scoped.streams = streams
    try:
        yield
    finally:
        _scoped.streams = previous


def active_streams() -> FunctionStreams | None:
    """The `FunctionStreams` in force in this thread. Layers suspend them while they run:
    a seeded augmentation or dropout layer keeps its own state across passes over a
    dataset, as Keras's `SeedGenerator` does, where a bare seeded op restarts."""
    return getattr(_scoped, "streams", None)


def set_seed(seed: int | None) -> None:
    """Sets the global seed: later random ops (and initializers, dropout, shuffles) repeat.

    Examples:
        >>> import eagerflow as ef
        >>> ef.random.set_seed(0)
    """
    global _global_seed, _global_generator, _function_count
    _global_seed = None if seed is None else int(seed)
    _global_generator = Generator(_global_seed)
    _op_generators.clear()
    _function_count = 0


def get_global_seed() -> int | None:
    """The seed last given to `set_seed` (None when no global seed is set).

    Examples:
        >>> import eagerflow as ef
        >>> ef.random.set_seed(3)
        >>> ef.random.get_global_seed()
        3
    """
    return _global_seed


def get_state() -> dict:
    """A snapshot of every eagerflow random stream (the global one and each op seed's).

    The snapshot is plain data (JSON-serialisable); `set_state` rewinds the streams to it,
    so that code run again draws the same numbers (e.g. to resume training exactly).

    Examples:
        >>> import eagerflow as ef
        >>> state = ef.random.get_state()
        >>> a = ef.random.normal([2])
        >>> ef.random.set_state(state)
        >>> bool(ef.reduce_all(ef.random.normal([2]) == a))
        True
    """
    return {
        "global_seed": _global_seed,
        "global": _global_generator._rng.bit_generator.state,
        "ops": {str(key): gen._rng.bit_generator.state for key, gen in _op_generators.items()},
    }


_BIT_GENERATOR = type(np.random.default_rng(0).bit_generator).__name__  # "PCG64"
_STATE_BOUND = 2**128  # PCG64's state and increment are 128-bit; seeds stay below too


def _shown(value, limit: int = 200) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


def _natural(value, bound: int) -> bool:
    return type(value) is int and 0 <= value < bound


def _check_generator_state(state, where: str) -> None:
    expected = (f"{{'bit_generator': '{_BIT_GENERATOR}', 'state': {{'state': int, 'inc': "
                "int}, 'has_uint32': 0 or 1, 'uinteger': int}")
    inner = state.get("state") if isinstance(state, dict) else None
    if not (isinstance(state, dict) and set(state) == {"bit_generator", "state", "has_uint32",
                                                        "uinteger"}
            and state["bit_generator"] == _BIT_GENERATOR
            and isinstance(inner, dict) and set(inner) == {"state", "inc"}
            and _natural(inner["state"], _STATE_BOUND) and _natural(inner["inc"], _STATE_BOUND)
            and _natural(state["has_uint32"], 2) and _natural(state["uinteger"], 2**32)):
        raise ValueError(f"set_state: {where} is not a generator state: expected {expected} "
                         f"(integers non-negative, below 2**128). Received: {_shown(state)}")


def check_state(state: Any) -> None:
    """Raises unless `state` is a snapshot `get_state` could have returned.

    Every part is checked (keys, types, integer ranges, the bit generator's name), so
    that `set_state` adopts all of a snapshot or none of it.

    Raises:
        ValueError: naming the first part that is wrong.

    Examples:
        >>> import eagerflow as ef
        >>> from eagerflow.ops import random
        >>> random.check_state(ef.random.get_state())
        >>> random.check_state({"global_seed": -1})  # doctest: +ELLIPSIS
        Traceback (most recent call last):
          ...
        ValueError: set_state: expected a dict with exactly the keys ... ['global_seed']
    """
    if not isinstance(state, dict) or set(state) != {"global_seed", "global", "ops"}:
        keys = sorted(map(str, state)) if isinstance(state, dict) else type(state).__name__
        raise ValueError("set_state: expected a dict with exactly the keys ['global', "
                         "'global_seed', 'ops'] (from ef.random.get_state()). Received keys: "
                         f"{keys}")
    seed = state["global_seed"]
    if seed is not None and not _natural(seed, _STATE_BOUND):
        raise ValueError(f"set_state: global_seed must be None or a non-negative int below "
                         f"2**128. Received: {_shown(seed)}")
    _check_generator_state(state["global"], "'global'")
    if not isinstance(state["ops"], dict):
        raise ValueError(f"set_state: 'ops' must be a dict of op seed -> generator state. "
                         f"Received: {type(state['ops']).__name__}")
    for key, generator_state in state["ops"].items():
        if not (isinstance(key, str) and key.isdigit() and key.isascii() and len(key) <= 39
                and int(key) < _STATE_BOUND):
            raise ValueError(f"set_state: the op seeds in 'ops' must be non-negative integers "
                             f"below 2**128, written in decimal. Received: {_shown(key)}")
        _check_generator_state(generator_state, f"'ops'[{key!r}]")


def set_state(state: dict) -> None:
    """Rewinds every random stream to a `get_state` snapshot.

    Generators are updated in place, so traced functions holding them stay in step.
    The snapshot is checked first (`check_state`): a malformed one changes nothing.

    Raises:
        ValueError: if `state` is not a snapshot from `get_state` (naming what is wrong).
    """
    global _global_seed
    check_state(state)
    _global_seed = state["global_seed"]
    _global_generator._rng.bit_generator.state = state["global"]
    wanted = {int(key) for key in state["ops"]}
    for key in [k for k in _op_generators if k not in wanted]:
        del _op_generators[key]  # created after the snapshot: start afresh when next used
    for key, generator_state in state["ops"].items():
        generator_for(int(key))._rng.bit_generator.state = generator_state


def get_global_generator() -> Generator:
    """The generator random ops use when they get no op seed."""
    return _global_generator


def set_global_generator(generator: Generator) -> None:
    """Replaces the global generator."""
    global _global_generator
    _global_generator = generator


def seeded_generators() -> dict:
    """The generators of the op-level seeds used so far, by seed (a copy: a snapshot of
    which seeds exist now)."""
    return dict(_op_generators)


def effective_global_seed() -> int:
    """The global seed op-level seeds combine with: the one `set_seed` set, or, with none
    set, TensorFlow's fixed default graph seed (so an op seed alone is reproducible)."""
    return _DEFAULT_GLOBAL_SEED if _global_seed is None else _global_seed


def generator_for(seed) -> Generator:
    """The generator an op with op-level `seed` draws from (the global one for None, the
    generator itself for a `Generator` such as a `SeedGenerator`)."""
    scoped = getattr(_scoped, "streams", None)
    if seed is None:
        if scoped is not None and scoped.unseeded is not None:
            return scoped.unseeded
        return _global_generator
    if isinstance(seed, Generator):
        return seed
    key = int(seed)
    table = _op_generators if scoped is None else scoped.ops
    gen = table.get(key)
    if gen is None:
        gen = table[key] = Generator([effective_global_seed(), key])
    return gen


def normal(shape: ShapeLike, mean: TensorLike = 0.0, stddev: TensorLike = 1.0,
           dtype: DTypeLike = dtypes.float32, seed: int | Generator | None = None,
           name: str | None = None) -> Tensor:
    """Draws from a normal distribution.

    Examples:
        >>> import eagerflow as ef
        >>> ef.random.normal([2, 3], stddev=0.1).shape
        (2, 3)
    """
    return generator_for(seed).normal(shape, mean, stddev, dtype)


def truncated_normal(shape: ShapeLike, mean: TensorLike = 0.0, stddev: TensorLike = 1.0,
                     dtype: DTypeLike = dtypes.float32, seed: int | Generator | None = None,
                     name: str | None = None) -> Tensor:
    """Draws from a normal distribution truncated to two standard deviations.

    Examples:
        >>> import eagerflow as ef
        >>> bool(ef.reduce_all(ef.abs(ef.random.truncated_normal([100])) <= 2.0))
        True
    """
    return generator_for(seed).truncated_normal(shape, mean, stddev, dtype)


def uniform(shape: ShapeLike, minval: TensorLike = 0, maxval: TensorLike | None = None,
            dtype: DTypeLike = dtypes.float32, seed: int | Generator | None = None,
            name: str | None = None) -> Tensor:
    """Draws uniformly from ``[minval, maxval)`` (maxval defaults to 1 for floats).

    Examples:
        >>> import eagerflow as ef
        >>> x = ef.random.uniform([100], minval=2.0, maxval=3.0)
        >>> bool(ef.reduce_all((x >= 2.0) & (x < 3.0)))
        True
    """
    return generator_for(seed).uniform(shape, minval, maxval, dtype)


def categorical(logits: TensorLike, num_samples: Any, dtype: DTypeLike = dtypes.int64,
                seed: int | Generator | None = None, name: str | None = None) -> Tensor:
    """Draws `num_samples` class indices per row from the softmax of `logits`.

    Examples:
        >>> import eagerflow as ef
        >>> ef.random.categorical([[0.0, 100.0]], 3)
        ef.Tensor([[1 1 1]], shape=(1, 3), dtype=int64)
    """
    return generator_for(seed).categorical(logits, num_samples, dtype)


def shuffle(value: TensorLike, seed: int | Generator | None = None,
            name: str | None = None) -> Tensor:
    """Randomly permutes `value` along its first axis.

    Examples:
        >>> import eagerflow as ef
        >>> sorted(ef.random.shuffle([1, 2, 3]).numpy().tolist())
        [1, 2, 3]
    """
    return generator_for(seed).shuffle(value)


__getattr__ = _absent.namespace_getattr(__name__, "tf.random", "keras.random")
