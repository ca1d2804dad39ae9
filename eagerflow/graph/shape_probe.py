"""Shape inference by probing: the one way eagerflow finds shapes it does not know yet.

eagerflow has no shape functions. The output shape of an op while a function is traced
(`graph/trace.py`), or of a layer called on a functional model's symbolic inputs
(`layers/symbolic.py`), is found by running the very forward that later runs on real data:

1. on example values whose unknown dimensions (None) take a size (`dummy`, `concrete`);
2. when a dimension is unknown, a second time with other sizes in its place (the
   "probe": new `dummy` values, or the first values `resize`\\ d along the unknown axes);
3. an output dimension equal in both runs is known, one that changed is unknown (`merge`).
   The output dtype is the first run's: a forward's dtype never depends on sizes.

So a shape found this way can never disagree with what the forward does, and unknown
sizes (an unknown batch, a variable sequence length) stay None through any computation.
The two users differ only in their sizes and dummy values (`TRACE_SIZES`, `LAYER_SIZES`,
the `fill` of `dummy`), for the reasons given there.

Examples:
    >>> from eagerflow.graph import shape_probe
    >>> shape_probe.concrete((None, 3), 2)
    (2, 3)
    >>> shape_probe.merge((2, 3, 8), (4, 3, 16))
    (None, 3, None)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np

Shape = Sequence[int | None]

# The tracer's sizes for an unknown dimension: its example values ("shadows") and its
# probes. Small, since a trace runs every op of the function on them.
TRACE_SIZES = (2, 4)
# The functional API's sizes for an unknown dimension, (batch axis, other axes), in its two
# runs: other axes get sizes large enough for a few valid-padded convolutions and poolings.
LAYER_SIZES = ((2, 32), (3, 33))


def is_known(shape: Shape) -> bool:
    """Whether every dimension of `shape` is known (no None)."""
    return all(d is not None for d in shape)


def concrete(shape: Shape, size: int, batch_size: int | None = None) -> tuple[int, ...]:
    """`shape` with `size` in place of each unknown dimension (`batch_size`, when given,
    in place of an unknown first dimension)."""
    first = size if batch_size is None else batch_size
    return tuple((first if axis == 0 else size) if d is None else int(d)
                 for axis, d in enumerate(shape))


def dummy(shape: Shape, dtype: np.typing.DTypeLike, size: int = TRACE_SIZES[0],
          batch_size: int | None = None,
          fill: Literal["identity", "ones"] = "identity") -> np.ndarray:
    """A dummy value of `shape` (unknown dimensions as in `concrete`) and `dtype`.

    Integers (and complex numbers) are 0, a valid index for token ids and gathers; text is
    empty bytes, as `ef.string` stores it. Floats depend on `fill`:

    * ``"identity"`` (the tracer's): identity matrices over the last two axes when they are
      square, so inverses and factorizations in a traced function succeed; zeros otherwise.
    * ``"ones"`` (the functional API's): ones, so divisions and logarithms in a layer's
      forward stay finite.
    """
    shape = concrete(shape, size, batch_size)
    dtype = np.dtype(dtype)
    if dtype.kind == "O":  # ef.string
        return np.full(shape, b"", dtype)
    if dtype.kind != "f":
        return np.zeros(shape, dtype)
    if fill == "ones":
        return np.ones(shape, dtype)
    if fill != "identity":
        raise ValueError(f"shape_probe.dummy: fill must be 'identity' or 'ones', got {fill!r}")
    if len(shape) >= 2 and shape[-1] == shape[-2]:
        return np.broadcast_to(np.eye(shape[-1], dtype=dtype), shape).copy()
    return np.zeros(shape, dtype)


def resize(value: np.ndarray, shape: Shape) -> np.ndarray:
    """`value` at twice its size along the unknown dimensions of `shape` (its entries
    repeated, so it stays a valid input where `value` was). An empty axis cannot be
    repeated: then the probe is a dummy with size 3 there (any size but 0 tells)."""
    for axis, dim in enumerate(shape):
        if dim is None:
            n = value.shape[axis]
            if n == 0:
                return dummy(shape, value.dtype, size=3)
            value = np.take(value, np.arange(2 * n) % n, axis=axis)
    return value


def merge(first: Shape, second: Shape) -> tuple[int | None, ...]:
    """The shape with None wherever `first` and `second` (two runs' shapes) differ; all
    None, of the first's rank, when their ranks differ."""
    if len(first) != len(second):
        return (None,) * len(first)
    return tuple(a if a == b else None for a, b in zip(first, second, strict=True))
