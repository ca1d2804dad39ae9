"""Element-wise and length transformations: map, filter, enumerate, repeat, take, skip,
shard, concatenate.

Examples:
    >>> import eagerflow as ef
    >>> ds = ef.data.Dataset.range(10).skip(2).take(5).filter(lambda x: x % 2 == 1)
    >>> [int(v) for v in ds]
    [3, 5]
"""

from __future__ import annotations

import functools
from contextlib import closing
from itertools import islice
from typing import Any

import numpy as np

from eagerflow.core import errors, nest
from eagerflow.core.spec import TensorSpec
from eagerflow.data import dataset, iterator, parallel, structure
from eagerflow.ops import random as random_ops

_INFINITE = dataset.INFINITE_CARDINALITY
_UNKNOWN = dataset.UNKNOWN_CARDINALITY


def _check_callable(fn, method: str) -> None:
    if not callable(fn):
        raise TypeError(f"{method} expects a function. Received: {fn!r}")


class _SameStructure:
    """Checks that every element a function returns has the structure and dtypes of the
    first one (tf.data fixes them by tracing the function once)."""

    __slots__ = ("_expected", "_first", "_what")

    def __init__(self, what: str):
        self._what = what
        self._expected = None
        self._first: Any = None

    def __call__(self, element, index: int) -> None:
        found = structure.signature(element)
        if self._expected is None:
            self._expected = found
            self._first = (index, structure.describe(element))
        elif found != self._expected:
            first_index, first = self._first
            raise errors.InvalidArgumentError(
                f"{self._what} returned {structure.describe(element)} for element {index}, "
                f"but {first} for element {first_index}: it must return the same structure "
                "and dtypes for every element (shapes may differ)"
            )


class MapDataset(dataset.Dataset):
    """`Dataset.map`: a function applied to each element, inline or on worker threads."""

    def __init__(self, input_dataset, map_func, num_parallel_calls, deterministic):
        _check_callable(map_func, "map")
        self._inputs = (input_dataset,)
        self._fn = map_func
        self._workers = parallel.resolve_workers(num_parallel_calls)
        self._deterministic = deterministic is None or bool(deterministic)
        self._function_seed = random_ops.next_function_seed()

    def _apply(self, element, index, streams):
        with random_ops.function_streams(streams):  # (on worker threads too)
            result = structure.call(self._fn, element)
        return structure.from_function(result, f"map function at element {index}")

    def _elements(self):
        check = _SameStructure("map function")
        # Random ops in the function restart at every pass, as in a traced tf.data map.
        streams = random_ops.FunctionStreams(self._function_seed)
        apply = functools.partial(self._apply, streams=streams)
        with closing(self._inputs[0]._elements()) as elements:
            if self._workers is None:
                for index, element in enumerate(elements):
                    result = apply(element, index)
                    check(result, index)
                    yield result
                return
            results = parallel.parallel_map(
                enumerate(elements), apply, self._workers, self._deterministic
            )
            with closing(results):
                for index, result in results:
                    check(result, index)
                    yield result

    def _has_static_spec(self) -> bool:
        return False

    def _compute_spec(self):
        first = iterator.probe(self)
        if first is None:
            raise errors.InvalidArgumentError(
                "The element_spec of a map() dataset is read from its first element, and "
                "the input dataset is empty"
            )
        return structure.spec_of(first)

    def _cardinality(self) -> int:
        return self._inputs[0]._cardinality()


class FilterDataset(dataset.Dataset):
    """`Dataset.filter`: keeps the elements whose predicate is True."""

    def __init__(self, input_dataset, predicate):
        _check_callable(predicate, "filter")
        self._inputs = (input_dataset,)
        self._predicate = predicate

    def _elements(self):
        predicate = self._predicate
        with closing(self._inputs[0]._elements()) as elements:
            for index, element in enumerate(elements):
                keep = structure.from_user(
                    structure.call(predicate, element), f"filter predicate at element {index}"
                )
                if type(keep) is not np.ndarray or keep.shape != () or keep.dtype != bool:
                    raise errors.InvalidArgumentError(
                        "filter predicate must return a scalar bool, but returned "
                        f"{structure.describe(keep)} for element {index}"
                    )
                if keep:
                    yield element

    def _compute_spec(self):
        return self._inputs[0].element_spec

    def _cardinality(self) -> int:
        return _UNKNOWN


class EnumerateDataset(dataset.Dataset):
    """`Dataset.enumerate`: ``(index, element)`` pairs, the index an int64 scalar."""

    def __init__(self, input_dataset, start):
        self._inputs = (input_dataset,)
        self._start = dataset.int_argument(start, "start", -(2**63))

    def _elements(self):
        counter = self._start
        with closing(self._inputs[0]._elements()) as elements:
            for element in elements:
                yield np.array(counter, np.int64), element
                counter += 1

    def _compute_spec(self):
        return (TensorSpec((), np.int64), self._inputs[0].element_spec)

    def _cardinality(self) -> int:
        return self._inputs[0]._cardinality()


class RepeatDataset(dataset.Dataset):
    """`Dataset.repeat`: the input `count` times (forever for None / -1)."""

    def __init__(self, input_dataset, count):
        self._inputs = (input_dataset,)
        self._count = -1 if count is None else dataset.int_argument(count, "count", -1)

    def _elements(self):
        source, count = self._inputs[0], self._count
        epoch = 0
        while count < 0 or epoch < count:
            produced = False
            with closing(source._elements()) as elements:
                for element in elements:
                    produced = True
                    yield element
            if not produced:
                return  # repeating an empty dataset forever would never yield: stop
            epoch += 1

    def _compute_spec(self):
        return self._inputs[0].element_spec

    def _cardinality(self) -> int:
        size = self._inputs[0]._cardinality()
        if self._count < 0:
            return 0 if size == 0 else _INFINITE
        if self._count == 0:
            return 0
        if size in (_INFINITE, _UNKNOWN):
            return size
        return self._count * size


class TakeDataset(dataset.Dataset):
    """`Dataset.take`: at most `count` elements (-1: all)."""

    def __init__(self, input_dataset, count):
        self._inputs = (input_dataset,)
        self._count = dataset.int_argument(count, "count", -1)

    def _elements(self):
        with closing(self._inputs[0]._elements()) as elements:
            if self._count < 0:
                yield from elements
            else:
                yield from islice(elements, self._count)

    def _compute_spec(self):
        return self._inputs[0].element_spec

    def _cardinality(self) -> int:
        size = self._inputs[0]._cardinality()
        if self._count < 0 or size == _UNKNOWN:
            return size
        if size == _INFINITE:
            return self._count
        return min(size, self._count)


class SkipDataset(dataset.Dataset):
    """`Dataset.skip`: all but the first `count` elements (-1: none)."""

    def __init__(self, input_dataset, count):
        self._inputs = (input_dataset,)
        self._count = dataset.int_argument(count, "count", -1)

    def _elements(self):
        if self._count < 0:
            return
        with closing(self._inputs[0]._elements()) as elements:
            yield from islice(elements, self._count, None)

    def _compute_spec(self):
        return self._inputs[0].element_spec

    def _cardinality(self) -> int:
        size = self._inputs[0]._cardinality()
        if self._count < 0:
            return 0
        if size in (_INFINITE, _UNKNOWN):
            return size
        return max(size - self._count, 0)


class ShardDataset(dataset.Dataset):
    """`Dataset.shard`: elements ``index, index + num_shards, ...``."""

    def __init__(self, input_dataset, num_shards, index):
        self._inputs = (input_dataset,)
        self._num_shards = dataset.int_argument(num_shards, "num_shards", 1)
        self._index = dataset.int_argument(index, "index", 0)
        if self._index >= self._num_shards:
            raise errors.InvalidArgumentError(
                f"shard: `index` must be in [0, num_shards). Received: index={index}, "
                f"num_shards={num_shards}"
            )

    def _elements(self):
        with closing(self._inputs[0]._elements()) as elements:
            yield from islice(elements, self._index, None, self._num_shards)

    def _compute_spec(self):
        return self._inputs[0].element_spec

    def _cardinality(self) -> int:
        size = self._inputs[0]._cardinality()
        if size in (_INFINITE, _UNKNOWN):
            return size
        return size // self._num_shards + (1 if size % self._num_shards > self._index else 0)


def combine_specs(first, second, what: str):
    """The most specific spec both fit (differing dimensions become None), or raises."""
    stand_ins = [structure.map_leaves(_spec_stand_in, spec) for spec in (first, second)]
    if structure.signature(stand_ins[0]) != structure.signature(stand_ins[1]):
        raise TypeError(f"{what}: incompatible dataset elements: {first} vs. {second}")
    merged = []
    for a, b in zip(nest.flatten(first), nest.flatten(second), strict=True):
        if a.shape is None or b.shape is None or len(a.shape) != len(b.shape):
            shape = None
        else:
            shape = tuple(x if x == y else None for x, y in zip(a.shape, b.shape, strict=True))
        merged.append(TensorSpec(shape, a.dtype))
    return nest.pack_sequence_as(first, merged)


def _spec_stand_in(spec):
    # An empty array with the spec's dtype, so `structure.signature` compares specs.
    return np.empty(0, spec.dtype)


class ConcatenateDataset(dataset.Dataset):
    """`Dataset.concatenate`: one dataset, then the other."""

    def __init__(self, first, second):
        if not isinstance(second, dataset.Dataset):
            raise TypeError(
                f"concatenate expects a Dataset. Received: {type(second).__name__}"
            )
        self._inputs = (first, second)
        if first._has_static_spec() and second._has_static_spec():
            self._spec_cache = combine_specs(
                first.element_spec, second.element_spec, "concatenate"
            )

    def _elements(self):
        first, second = self._inputs
        expected = None
        with closing(first._elements()) as elements:
            for element in elements:
                if expected is None:
                    expected = structure.signature(element), structure.describe(element)
                yield element
        with closing(second._elements()) as elements:
            for index, element in enumerate(elements):
                # A dataset keeps one structure, so checking its first element is enough.
                if index == 0 and expected and structure.signature(element) != expected[0]:
                    raise errors.InvalidArgumentError(
                        "concatenate: the second dataset's elements are "
                        f"{structure.describe(element)} but the first dataset's are "
                        f"{expected[1]}: both must have the same structure and dtypes"
                    )
                yield element

    def _compute_spec(self):
        first, second = self._inputs
        return combine_specs(first.element_spec, second.element_spec, "concatenate")

    def _cardinality(self) -> int:
        sizes = [d._cardinality() for d in self._inputs]
        if _INFINITE in sizes:
            return _INFINITE
        if _UNKNOWN in sizes:
            return _UNKNOWN
        return sum(sizes)
