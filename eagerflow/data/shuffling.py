"""`Dataset.shuffle`: a real shuffle buffer, as in tf.data, with a vectorized twin.

The buffer algorithm: fill the buffer with the first `buffer_size` elements; then, for
each further input element, output the element in a random slot and put the new one in
its place; when the input ends, output what is left in a random order. So a buffer of 1
keeps the order and a buffer as large as the dataset gives a uniform permutation.

Randomness comes from one stream of uniform floats per iteration (slot = ``int(u *
buffer_size)``). Floats are drawn the same way whether one at a time or a block at a
time, so `shuffle_order` can replay the whole algorithm on indices with NumPy (the
fused `from_tensor_slices(...).shuffle(...).batch(...)` path) and give exactly the
order the per-element path gives.

Examples:
    >>> import numpy as np
    >>> from eagerflow.data import shuffling
    >>> rng = np.random.default_rng(0)
    >>> order = shuffling.shuffle_order(10, 1, shuffling.UniformStream(rng))
    >>> order.tolist()  # a buffer of one element does not shuffle
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]
"""

from __future__ import annotations

import itertools
from contextlib import closing

import numpy as np

from eagerflow.core import errors
from eagerflow.data import dataset, sources
from eagerflow.ops import random as random_lib

_BLOCK = 512
_SEED_MASK = 2**63 - 1


class UniformStream:
    """Uniform floats in [0, 1) from `rng`, drawn in blocks.

    `next()` and `take(k)` consume the same sequence whatever mix of calls reads it.
    """

    def __init__(self, rng: np.random.Generator):
        self._rng = rng
        self._block: list = []
        self._pos = 0

    def next(self) -> float:
        if self._pos == len(self._block):
            self._block = self._rng.random(_BLOCK).tolist()  # Python floats index fastest
            self._pos = 0
        value = self._block[self._pos]
        self._pos += 1
        return value

    def take(self, count: int) -> np.ndarray:
        rest = np.asarray(self._block[self._pos:], dtype=np.float64)
        if count <= len(rest):
            self._pos += count
            return rest[:count]
        self._block, self._pos = [], 0
        return np.concatenate([rest, self._rng.random(count - len(rest))])


def shuffle_order(count: int, buffer_size: int, stream: UniformStream) -> np.ndarray:
    """The order the buffer algorithm gives `count` elements, computed without a loop.

    While the buffer is full (steps ``t < count - buffer_size``), step t outputs slot
    ``j[t]`` and stores input ``buffer_size + t`` there. So the output at step t is the
    value last stored in slot ``j[t]`` before t: the initial ``j[t]``, or
    ``buffer_size + t'`` for the latest earlier step t' that used the same slot. A
    stable sort by slot lines each step up after its predecessor in the same slot.
    """
    if count <= buffer_size:
        return np.argsort(stream.take(count), kind="stable")
    steps = count - buffer_size
    slots = (stream.take(steps) * buffer_size).astype(np.int64)
    by_slot = np.argsort(slots, kind="stable")
    sorted_slots = slots[by_slot]
    same_as_previous = np.zeros(steps, bool)
    same_as_previous[1:] = sorted_slots[1:] == sorted_slots[:-1]
    previous_step = np.empty(steps, np.int64)
    previous_step[0] = 0
    previous_step[1:] = by_slot[:-1]
    outputs = np.empty(steps, np.int64)
    outputs[by_slot] = np.where(same_as_previous, buffer_size + previous_step, sorted_slots)
    # What each slot holds when the input ends: its last store, or its initial element.
    buffer = np.arange(buffer_size, dtype=np.int64)
    last = np.ones(steps, bool)
    last[:-1] = sorted_slots[:-1] != sorted_slots[1:]
    buffer[sorted_slots[last]] = buffer_size + by_slot[last]
    drained = buffer[np.argsort(stream.take(buffer_size), kind="stable")]
    return np.concatenate([outputs, drained])


def _buffered(elements, buffer_size: int, stream: UniformStream):
    """The per-element buffer algorithm (the reference `shuffle_order` reproduces)."""
    buffer = list(itertools.islice(elements, buffer_size))
    if len(buffer) == buffer_size:
        draw = stream.next
        for element in elements:
            slot = int(draw() * buffer_size)
            out = buffer[slot]
            buffer[slot] = element
            yield out
    for slot in np.argsort(stream.take(len(buffer)), kind="stable"):
        yield buffer[slot]


def _base_seed(seed) -> tuple:
    """The seed material fixed when `shuffle()` is called (tf.data's rules).

    An op seed is combined with the global seed (or TensorFlow's default one), so the
    same seed gives the same orders; without one, a seed is drawn from the global
    generator: reproducible after `ef.random.set_seed`, different runs otherwise.
    """
    if seed is not None:
        base = random_lib.effective_global_seed()
        return (base & _SEED_MASK, int(seed) & _SEED_MASK)
    draw = random_lib.get_global_generator().uniform([2], 0, _SEED_MASK, dtype=np.int64)
    return tuple(int(v) for v in draw.numpy())


def _warn_if_sorted(source, buffer_size: int) -> None:
    """Warns when a small buffer meets sorted labels: batches would hold runs of one label."""
    for name, array in source.components():
        if array.ndim != 1 or array.dtype.kind not in "iub" or array[0] == array[-1]:
            continue
        steps = np.diff(array.astype(np.int64))
        if (steps >= 0).all() or (steps <= 0).all():
            errors.warn_once(
                f"shuffle-sorted-{name}",
                f"shuffle(buffer_size={buffer_size}) over {source.count} elements whose "
                f"component {name} is sorted: a buffer smaller than the dataset only mixes "
                "nearby elements, so batches will hold runs of the same value. Use "
                f"shuffle({source.count}) (cheap for from_tensor_slices) or shuffle the "
                "arrays first.",
            )
            return


class ShuffleDataset(dataset.Dataset):
    """`Dataset.shuffle`: see the module docstring for the algorithm."""

    def __init__(self, input_dataset, buffer_size, seed, reshuffle_each_iteration):
        self._inputs = (input_dataset,)
        if buffer_size == dataset.AUTOTUNE:
            raise errors.InvalidArgumentError(
                "shuffle: `buffer_size` must be given explicitly (AUTOTUNE is not "
                "supported). Use the dataset size for a uniform shuffle."
            )
        self._buffer_size = dataset.int_argument(buffer_size, "buffer_size", 1)
        self._seed = _base_seed(seed)
        self._reshuffle = reshuffle_each_iteration is None or bool(reshuffle_each_iteration)
        self.next_iteration = 0  # the epoch of the next pass (an iterator checkpoint's state)
        source = self.sliced_source()
        if source is not None and self._buffer_size < source.count:
            _warn_if_sorted(source, self._buffer_size)

    def new_stream(self) -> UniformStream:
        """The random stream of a new iteration (one per epoch when reshuffling)."""
        epoch = 0
        if self._reshuffle:
            epoch, self.next_iteration = self.next_iteration, self.next_iteration + 1
        return UniformStream(np.random.default_rng([*self._seed, epoch]))

    def sliced_source(self):
        """The input when it is a `from_tensor_slices` dataset (fast path), else None."""
        source = self._inputs[0]
        return source if isinstance(source, sources.TensorSliceDataset) else None

    def new_order(self) -> np.ndarray:
        """A new iteration's order of the sliced source's rows (see `shuffle_order`)."""
        return shuffle_order(self.sliced_source().count, self._buffer_size, self.new_stream())

    def _elements(self):
        source = self.sliced_source()
        if source is not None:
            # The order of the whole iteration at once; rows are read on demand.
            for index in self.new_order().tolist():
                yield source.element(index)
            return
        stream = self.new_stream()
        with closing(self._inputs[0]._elements()) as elements:
            yield from _buffered(elements, self._buffer_size, stream)

    def _compute_spec(self):
        return self._inputs[0].element_spec

    def _cardinality(self) -> int:
        return self._inputs[0]._cardinality()
