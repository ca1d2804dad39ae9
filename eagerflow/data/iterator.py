"""`Iterator`: one pass over a dataset, and `probe`, a peek at its first element.

Examples:
    >>> import eagerflow as ef
    >>> it = iter(ef.data.Dataset.range(3))
    >>> [int(v) for v in it]
    [0, 1, 2]
"""

from __future__ import annotations

import threading
from contextlib import closing
from typing import Any

import numpy as np

from eagerflow.core import context, errors, trackable, variable
from eagerflow.data import structure

_END = object()


def _pipeline_state(dataset):
    """The `shuffle` stages of a pipeline (in a fixed order) and the name of the first stage
    that cannot be replayed (or None)."""
    from eagerflow.data import interleaving, shuffling, sources, transforms

    shuffles, blocker, todo, seen = [], None, [dataset], set()
    while todo:
        stage = todo.pop(0)
        if id(stage) in seen:
            continue
        seen.add(id(stage))
        if isinstance(stage, shuffling.ShuffleDataset):
            shuffles.append(stage)
        elif blocker is None and (
                isinstance(stage, (sources.GeneratorDataset, interleaving.InterleaveDataset))
                or (isinstance(stage, transforms.MapDataset) and not stage._deterministic)):
            blocker = type(stage).__name__
        todo.extend(stage._inputs)
    return shuffles, blocker

def shuffle_stages(dataset) -> list:
    """The `shuffle` stages of a pipeline, in a fixed order (the same on every process
    that builds the same pipeline): what must be kept or reset to replay its order."""
    return _pipeline_state(dataset)[0]


_probing = threading.local()


def probe(dataset):
    """The first element of `dataset` (or None when it is empty), found by iterating it.

    Used for the `element_spec` of datasets built from user functions: eagerflow runs
    functions on values instead of tracing them, so the first element shows the result.
    """
    _probing.active = getattr(_probing, "active", 0) + 1
    try:
        with closing(dataset._elements()) as elements:
            return next(elements, None)
    finally:
        _probing.active -= 1


def is_probing() -> bool:
    """Whether this thread is reading a first element for `element_spec`."""
    return getattr(_probing, "active", 0) > 0


def _stopped_by(error: BaseException, index: int, what: str) -> errors.InvalidArgumentError:
    return errors.InvalidArgumentError(
        f"{what}: this iterator stopped at element {index}, where the pipeline raised "
        f"{type(error).__name__}: {error}. An eagerflow iterator cannot go on after an error "
        "(a tf.data iterator goes on with the next element): start a new iterator, or drop "
        "the bad elements with filter() before the step that fails."
    )


def _advance(it: Any, convert: Any, what: str) -> Any:
    """`convert` of the next element of ``it._elements``, counted in ``it._count``. An error
    ends the iteration for good: it is kept in ``it._error``, and every later call raises
    (`_stopped_by`) instead of going on as if the data had ended."""
    if it._error is not None:
        raise _stopped_by(it._error, it._count, what)
    try:
        element = convert(next(it._elements))
    except StopIteration:
        raise
    except Exception as e:
        it._error = e
        raise
    it._count += 1
    return element


class NumpyIterator:
    """`Dataset.as_numpy_iterator()`: elements as NumPy values.

    After an error in the pipeline it raises again instead of ending early.
    """

    def __init__(self, elements) -> None:
        self._elements = elements
        self._count = 0
        self._error: BaseException | None = None

    def __iter__(self) -> NumpyIterator:
        return self

    def __next__(self) -> Any:
        return _advance(self, structure.to_numpy, "as_numpy_iterator")

    def close(self) -> None:
        """Stops the iteration and any background thread it started."""
        self._elements.close()


class Iterator(trackable.Trackable):
    """Iterates over a dataset; `next(iterator)` returns the next element as tensors.

    Created by `iter(dataset)`. Closing it (or dropping the last reference to it) stops
    the background threads of `prefetch` and parallel `map` at once.

    An iterator is checkpointable (``ef.Checkpoint(iterator=it)``, as in TensorFlow): it
    saves how many elements it returned and the pass numbers of its `shuffle` stages, and
    a restore replays the pipeline to that point on the next `next()`, so a resumed run
    sees the same remaining elements in the same order. That needs a pipeline that gives
    the same elements again: `from_generator`, `interleave`/`flat_map` and parallel `map`
    with ``deterministic=False`` cannot be checkpointed (saving raises, naming the stage),
    and `map`/`filter` functions must be deterministic.

    Examples:
        >>> import eagerflow as ef
        >>> it = iter(ef.data.Dataset.range(2))
        >>> next(it), it.get_next()
        (ef.Tensor(0, shape=(), dtype=int64), ef.Tensor(1, shape=(), dtype=int64))
    """

    def __init__(self, dataset: Any) -> None:
        self._dataset = dataset
        self._shuffles, self._blocker = _pipeline_state(dataset)
        epochs = [stage.next_iteration for stage in self._shuffles]
        self._count = 0
        made = context.thread.variables_made  # bookkeeping, not user state: an
        self._position = variable.Variable(np.int64(0), trainable=False, name="position")
        self._shuffle_epochs = variable.Variable(np.asarray(epochs, np.int64),
                                                 trainable=False, name="shuffle_epochs")
        context.thread.variables_made = made  # iterator made in ef.function is no new state
        self._elements = dataset._elements()
        self._error: BaseException | None = None
        self._made_in_trace = context.thread.tracer is not None
        # The trace that made it, and whether the graph reads it (see `__next__`).
        self._tracer = context.thread.tracer
        self._read_by_graph = False
        if self._made_in_trace and (self._shuffles or self._blocker):
            # its loop is unrolled while tracing: the graph would keep one pass's elements
            stage = "shuffle" if self._shuffles else self._blocker
            raise errors.InvalidArgumentError(
                f"A dataset with a {stage} stage cannot be iterated inside ef.function: the "
                "loop runs while tracing, so every call would see the elements of that one "
                "pass. Iterate it outside the function and pass each element in, or pass "
                "an iterator made outside (iter(dataset)) and call next(iterator) inside.")

    def _trackable_children(self) -> dict:
        if self._blocker is not None:
            raise errors.InvalidArgumentError(
                f"This iterator cannot be checkpointed: its pipeline has a "
                f"{self._blocker} stage, which cannot give the same elements again after a "
                "restore. Checkpointable stages: sources from arrays/tensors/range/text "
                "files, map (deterministic), filter, batch, padded_batch, unbatch, shuffle, "
                "repeat, take, skip, shard, enumerate, zip, concatenate, cache, prefetch.")
        return {"position": self._position, "shuffle_epochs": self._shuffle_epochs}

    def _sync_with_restore(self) -> None:
        """Replays the pipeline when a restore changed the saved position."""
        position = int(self._position.numpy())
        if position == self._count:
            return
        epochs = self._shuffle_epochs.numpy()
        if epochs.shape != (len(self._shuffles),):
            raise errors.InvalidArgumentError(
                f"The restored iterator state has {epochs.size} shuffle stages, but this "
                f"iterator's pipeline has {len(self._shuffles)}: it was saved from another "
                "pipeline.")
        self._elements.close()
        for stage, epoch in zip(self._shuffles, epochs.tolist(), strict=True):
            stage.next_iteration = int(epoch)
        self._elements = self._dataset._elements()
        self._error = None
        for skipped in range(position):
            if next(self._elements, _END) is _END:
                raise errors.InvalidArgumentError(
                    f"The restored iterator position {position} is past the end of this "
                    f"dataset ({skipped} elements): it was saved from another pipeline.")
        self._count = position

    def __iter__(self) -> Iterator:
        return self

    def __next__(self):
        tracer = context.thread.tracer
        if tracer is not None and (not self._made_in_trace or self._read_by_graph
                                   or tracer is not self._tracer):
            # An iterator from outside ef.function: the graph reads it each time it runs.
            # One made inside is read while tracing (a Python `for` over a dataset unrolls)
            # until a graph loop or branch reads it (`next(it)` in a tensor `while`): from
            # then on the graph reads it, from where the trace left it (as TensorFlow's
            # IteratorGetNext, an effect in program order).
            from eagerflow.graph import python_ops

            if self._made_in_trace and not self._read_by_graph:
                self._read_by_graph = True
                python_ops.traced_effect(self._tracer, self._restart, self._count)
            return python_ops.traced_next(self.get_next, self.element_spec)
        if int(self._position.numpy()) != self._count:
            self._sync_with_restore()
        element = _advance(self, structure.to_tensors, "next(iterator)")
        self._position.assign(self._count)
        return element

    def _restart(self, count: int) -> None:
        """Starts the pipeline afresh and skips `count` elements: where the trace that
        made this iterator left it, on each run of that trace's graph."""
        self._elements.close()
        self._elements = self._dataset._elements()
        self._error = None
        self._count = 0
        for _ in range(count):
            if next(self._elements, _END) is _END:
                break
            self._count += 1
        self._position.assign(self._count)

    def get_next(self) -> Any:
        """Returns the next element, like `next(iterator)`.

        Raises:
            OutOfRangeError: at the end of the dataset (where `next` raises StopIteration).

        Examples:
            >>> import eagerflow as ef
            >>> it = iter(ef.data.Dataset.range(1))
            >>> int(it.get_next())
            0
            >>> it.get_next()
            Traceback (most recent call last):
            ...
            eagerflow.core.errors.OutOfRangeError: End of sequence [Op:IteratorGetNext]
        """
        try:
            return self.__next__()
        except StopIteration:
            raise errors.OutOfRangeError("End of sequence", "IteratorGetNext") from None

    @property
    def element_spec(self) -> Any:
        """The `TensorSpec` structure of the elements (the dataset's `element_spec`)."""
        return self._dataset.element_spec

    def close(self) -> None:
        """Stops the iteration and any background thread it started.

        Examples:
            >>> import eagerflow as ef
            >>> it = iter(ef.data.Dataset.range(10).prefetch(2))
            >>> int(next(it))
            0
            >>> it.close()
            >>> next(it, "done")
            'done'
        """
        self._elements.close()

    def __enter__(self) -> Iterator:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()


