"""`Dataset`: a lazily evaluated, composable input pipeline, like `tf.data.Dataset`.

A dataset is a recipe: sources (`from_tensor_slices`, `from_generator`, `range`, ...)
and transformations (`map`, `shuffle`, `batch`, ...) build a chain of objects, and each
`iter(dataset)` (every `for` loop) runs the chain from the start. Elements are Tensors
in the element's structure (a tensor, a tuple, a dict, nested).

This module holds the public class and its documented methods; the work happens in the
sibling modules (`sources`, `transforms`, `batching`, `shuffling`, `parallel`, `caching`,
`interleaving`), one family each. Those subclass `Dataset`, so each method imports its
module when it is called: importing any of them first, or this one, always works.

Examples:
    >>> import eagerflow as ef
    >>> ds = ef.data.Dataset.range(6).map(lambda x: x * 2).batch(4)
    >>> [b.numpy().tolist() for b in ds]
    [[0, 2, 4, 6], [8, 10]]
"""

from __future__ import annotations

import abc
import operator
from collections.abc import Callable, Iterator
from contextlib import closing
from typing import TYPE_CHECKING, Any

import numpy as np

from eagerflow.core import errors
from eagerflow.core import tensor as tensor_lib
from eagerflow.data import iterator, structure
from eagerflow.ops.typing import DTypeLike, Tensor

AUTOTUNE = -1
"""Lets the pipeline choose a parallelism or buffer size (`map`, `prefetch`, ...)."""
# tf.data methods eagerflow lacks, and what to write instead.
_NOT_SUPPORTED = {
    "rebatch": "write ds.unbatch().batch(batch_size, drop_remainder) (the same elements).",
    "window": "ds.batch(size) gives non-overlapping windows (as tensors, not datasets); "
              "build overlapping ones in NumPy before from_tensor_slices.",
    "scan": "loop over the dataset in Python, or keep the state in a from_generator "
            "generator.",
    "group_by_window": "group the examples in NumPy before from_tensor_slices, then batch "
                       "or padded_batch each group.",
    "bucket_by_sequence_length": "sort or bucket the sequences by length in NumPy before "
                                 "from_tensor_slices, then padded_batch.",
    "take_while": "stop a Python loop over the dataset with `break`.",
    "unique": "deduplicate the arrays before from_tensor_slices (np.unique with "
              "return_index=True keeps the first occurrences, in order).",
    "ignore_errors": "drop the bad elements with filter() before the step that fails.",
    "get_single_element": "write next(iter(ds)).",
    "snapshot": "cache(filename) stores the elements in a file.",
    "save": "cache(filename) stores the elements in a file.",
    "options": "eagerflow datasets have no tf.data.Options; leave the call out.",
    "with_options": "eagerflow datasets have no tf.data.Options; leave the call out.",
}

INFINITE_CARDINALITY = -1
"""What `cardinality()` returns for a dataset that never ends (`repeat()`)."""
UNKNOWN_CARDINALITY = -2
"""What `cardinality()` returns when the length cannot be known without iterating."""


def int_argument(value, name: str, minimum: int, special=()) -> int:
    """Validates an integer argument (Tensors and NumPy ints accepted).

    Raises:
        TypeError: if `value` is not an integer (tf.data's class for a wrong type).
        InvalidArgumentError: if `value` is an int below `minimum` and not in `special`.

    Examples:
        >>> import numpy as np
        >>> int_argument(np.int64(3), "count", -1)
        3
    """
    try:
        number = operator.index(value)
    except TypeError:
        number = None
    if number is None or (number < minimum and number not in special):
        allowed = f" or one of {list(special)}" if special else ""
        raise (TypeError if number is None else errors.InvalidArgumentError)(
            f"`{name}` must be an int >= {minimum}{allowed}. Received: {name}={value!r}"
        )
    return number


class Dataset(abc.ABC):
    """A sequence of elements built lazily from sources and transformations.

    Build one with a source (`Dataset.from_tensor_slices`, `from_tensors`,
    `from_generator`, `range`, `zip`, `ef.data.TextLineDataset`), chain
    transformations, and iterate it with a `for` loop. Every iteration starts over.

    Examples:
        >>> import eagerflow as ef, numpy as np
        >>> x, y = np.arange(8.0).reshape(4, 2), np.array([0, 1, 0, 1])
        >>> ds = ef.data.Dataset.from_tensor_slices((x, y)).batch(3)
        >>> [(bx.shape, by.numpy().tolist()) for bx, by in ds]
        [((3, 2), [0, 1, 0]), ((1, 2), [1])]
    """

    _spec_cache = None
    _inputs: tuple = ()  # the datasets this one reads (empty for sources)

    @abc.abstractmethod
    def _elements(self):
        """A new generator of this dataset's elements (structures of ndarrays)."""

    @abc.abstractmethod
    def _compute_spec(self):
        """The nested `TensorSpec` of the elements."""

    @abc.abstractmethod
    def _cardinality(self) -> int:
        """The number of elements, `INFINITE_CARDINALITY` or `UNKNOWN_CARDINALITY`."""

    def _has_static_spec(self) -> bool:
        """Whether `element_spec` is known without running a user function."""
        return all(source._has_static_spec() for source in self._inputs)

    # -- iteration and inspection -----------------------------------------------------
    def __iter__(self) -> iterator.Iterator:
        return iterator.Iterator(self)

    @property
    def element_spec(self) -> Any:
        """The structure of `ef.TensorSpec` describing one element.

        For datasets made by user functions (`map`, `flat_map`, `interleave`) it is read
        from the first element, so a dimension that varies shows the first one's size.

        Examples:
            >>> import eagerflow as ef
            >>> ef.data.Dataset.range(3).element_spec
            TensorSpec(shape=(), dtype=int64, name=None)
        """
        if self._spec_cache is None:
            self._spec_cache = self._compute_spec()
        return self._spec_cache

    def cardinality(self) -> Tensor:
        """The number of elements as an int64 scalar tensor.

        Returns:
            The length, `INFINITE_CARDINALITY` (-1) or `UNKNOWN_CARDINALITY` (-2).

        Examples:
            >>> import eagerflow as ef
            >>> int(ef.data.Dataset.range(10).batch(3).cardinality())
            4
            >>> int(ef.data.Dataset.range(3).repeat().cardinality())
            -1
        """
        return tensor_lib.new_tensor(np.array(self._cardinality(), np.int64))

    def __len__(self) -> int:
        size = self._cardinality()
        if size == INFINITE_CARDINALITY:
            raise TypeError("The dataset is infinite.")
        if size == UNKNOWN_CARDINALITY:
            raise TypeError("The dataset length is unknown.")
        return size

    if not TYPE_CHECKING:  # (mypy would accept any attribute of a Dataset)
        def __getattr__(self, name: str) -> Any:
            # Only for names not found: tf.data methods eagerflow does not have.
            hint = _NOT_SUPPORTED.get(name)
            if hint is None:
                raise AttributeError(
                    f"{type(self).__name__!r} object has no attribute {name!r}")
            raise AttributeError(f"Dataset.{name} is not supported by eagerflow: {hint}")

    def __bool__(self) -> bool:
        return True  # `__len__` must not decide truth: it raises for unknown lengths

    def __repr__(self) -> str:
        try:
            spec = self.element_spec
        except Exception:  # a repr must not fail, e.g. on an empty mapped dataset
            spec = "<unknown>"
        return f"<{type(self).__name__} element_spec={spec}>"

    def as_numpy_iterator(self) -> Iterator[Any]:
        """Iterates over the elements as NumPy values (read-only arrays, NumPy scalars).

        Examples:
            >>> import eagerflow as ef
            >>> [int(v) for v in ef.data.Dataset.range(3).as_numpy_iterator()]
            [0, 1, 2]
        """
        return iterator.NumpyIterator(self._elements())

    def reduce(self, initial_state: Any, reduce_func: Callable[..., Any]) -> Any:
        """Folds the dataset into one value: ``state = reduce_func(state, element)``.

        Args:
            initial_state: the starting state (tensors, arrays, numbers, nested).
            reduce_func: a function of ``(state, element)`` returning the new state with
                the same structure and dtypes.

        Returns:
            The final state, as tensors.

        Raises:
            InvalidArgumentError: if `reduce_func` changes the state's structure.
            TypeError: if it keeps the structure but changes a dtype (as tf.data).

        Examples:
            >>> import eagerflow as ef, numpy as np
            >>> ds = ef.data.Dataset.range(5)
            >>> int(ds.reduce(np.int64(0), lambda total, x: total + x))
            10
        """
        state = initial = structure.from_user(initial_state, "reduce: initial_state")
        expected = structure.signature(state)
        with closing(self._elements()) as elements:
            for index, element in enumerate(elements):
                result = reduce_func(structure.to_tensors(state), structure.to_tensors(element))
                state = structure.from_function(result, f"reduce_func at element {index}")
                if structure.signature(state) != expected:
                    # Same structure, other dtypes: TypeError, as tf.data raises; another
                    # structure: InvalidArgumentError (a ValueError), as tf.data raises.
                    same_structure = (structure.leaf_paths(state)
                                      == structure.leaf_paths(initial))
                    raise (TypeError if same_structure else errors.InvalidArgumentError)(
                        f"reduce_func returned {structure.describe(state)} at element {index}, "
                        f"but the state must keep the structure and dtypes of the initial "
                        f"state"
                    )
        return structure.to_tensors(state)

    def apply(self, transformation_func: Callable[..., Any]) -> Dataset:
        """Returns ``transformation_func(self)``, for reusable chains of transformations.

        Examples:
            >>> import eagerflow as ef
            >>> evens = lambda ds: ds.filter(lambda x: x % 2 == 0)
            >>> [int(v) for v in ef.data.Dataset.range(6).apply(evens)]
            [0, 2, 4]
        """
        result = transformation_func(self)
        if not isinstance(result, Dataset):
            raise TypeError(
                "`transformation_func` must return a Dataset. Received: "
                f"{type(result).__name__}"
            )
        return result

    # -- sources ------------------------------------------------------------------------
    @staticmethod
    def from_tensor_slices(tensors: Any, name: str | None = None) -> Dataset:
        """One element per row of `tensors` (sliced along their first dimension).

        Args:
            tensors: an array/tensor or a tuple/dict structure of them (a list is one
                tensor). All must have the same first dimension. The data is copied
                once, so later changes to the arrays do not reach the dataset.

        Raises:
            InvalidArgumentError: for scalars or mismatched first dimensions.

        Examples:
            >>> import eagerflow as ef
            >>> [int(v) for v in ef.data.Dataset.from_tensor_slices([1, 2, 3])]
            [1, 2, 3]
        """
        from eagerflow.data import sources
        return sources.TensorSliceDataset(tensors)

    @staticmethod
    def from_tensors(tensors: Any, name: str | None = None) -> Dataset:
        """A dataset with the single element `tensors`.

        Examples:
            >>> import eagerflow as ef
            >>> [t.shape for t in ef.data.Dataset.from_tensors([[1, 2], [3, 4]])]
            [(2, 2)]
        """
        from eagerflow.data import sources
        return sources.TensorDataset(tensors)

    @staticmethod
    def from_generator(generator: Any, output_types: Any = None, output_shapes: Any = None,
                       args: Any = None, output_signature: Any = None,
                       name: str | None = None) -> Dataset:
        """Elements produced by calling ``generator(*args)`` on each iteration.

        Args:
            generator: a callable returning an iterable (a generator function).
            output_types: TensorFlow's older form of the signature: a structure of dtypes
                (use it or `output_signature`, not both).
            output_shapes: with `output_types`, the matching structure of shapes (lists
                of ints and None); a component without one has an unknown shape.
            args: a tuple of arguments for `generator`.
            output_signature: the structure of `ef.TensorSpec` every element must match.
                Python numbers are converted to the spec's dtype; arrays must have it
                (or a dtype that converts without loss).

        Raises:
            TypeError: without a signature, or with both forms of it.
            InvalidArgumentError: (while iterating) for an element that does not match
                the signature, naming its index, shape and dtype.

        Examples:
            >>> import eagerflow as ef
            >>> def gen():
            ...     yield from ([1.0, 2.0], [3.0])
            >>> ds = ef.data.Dataset.from_generator(
            ...     gen, output_signature=ef.TensorSpec([None], ef.float32))
            >>> [t.numpy().tolist() for t in ds]
            [[1.0, 2.0], [3.0]]
            >>> ef.data.Dataset.from_generator(gen, output_types=ef.float32,
            ...                                output_shapes=[None]).element_spec
            TensorSpec(shape=(None,), dtype=float32, name=None)
        """
        from eagerflow.data import sources
        if output_types is not None and output_signature is not None:
            raise TypeError(
                "from_generator: pass `output_signature`, or the older `output_types` (with "
                "optional `output_shapes`), not both."
            )
        if output_shapes is not None and output_types is None:
            raise TypeError(
                "from_generator: `output_shapes` needs `output_types` (or use "
                "`output_signature=` a structure of ef.TensorSpec)."
            )
        if output_types is not None:
            output_signature = sources.signature_from_types(output_types, output_shapes)
        return sources.GeneratorDataset(generator, output_signature, args)

    @staticmethod
    def range(*args: Any, output_type: DTypeLike = None, dtype: DTypeLike = None,
              name: str | None = None) -> Dataset:
        """Integers like Python's ``range(start, stop, step)``, as int64 scalars.

        `output_type` (tf.data's name) or `dtype` picks another dtype.

        Examples:
            >>> import eagerflow as ef
            >>> [int(v) for v in ef.data.Dataset.range(1, 8, 3)]
            [1, 4, 7]
            >>> ef.data.Dataset.range(3, output_type=ef.int32).element_spec
            TensorSpec(shape=(), dtype=int32, name=None)
        """
        from eagerflow.data import sources
        if output_type is not None and dtype is not None:
            raise TypeError(
                "Dataset.range: pass `output_type` (tf.data's name) or `dtype`, not both. "
                f"Received: output_type={output_type!r}, dtype={dtype!r}"
            )
        chosen = output_type if output_type is not None else dtype
        return sources.RangeDataset(args, np.int64 if chosen is None else chosen)

    @staticmethod
    def zip(*datasets: Any, name: str | None = None) -> Dataset:
        """Combines datasets element by element; stops at the shortest.

        Args:
            *datasets: datasets (elements are tuples), or one tuple/dict structure of
                datasets (elements have that structure).

        Examples:
            >>> import eagerflow as ef
            >>> ds = ef.data.Dataset.zip(ef.data.Dataset.range(3), ef.data.Dataset.range(5, 7))
            >>> [(int(a), int(b)) for a, b in ds]
            [(0, 5), (1, 6)]
        """
        from eagerflow.data import sources
        if len(datasets) == 1:  # one structure of datasets (or a lone dataset)
            datasets = datasets[0]
        return sources.ZipDataset(datasets)

    # -- element-wise transformations ---------------------------------------------------
    def map(self, map_func: Callable[..., Any], num_parallel_calls: Any = None,
            deterministic: Any = None, name: str | None = None) -> Dataset:
        """Applies `map_func` to each element (a tuple element is unpacked into arguments).

        Args:
            map_func: receives the element's tensors and returns the new element.
            num_parallel_calls: None runs `map_func` in the consuming thread; an int or
                `AUTOTUNE` runs it on that many worker threads (AUTOTUNE: one per CPU).
            deterministic: with parallel calls, keep the input order (default True);
                False yields results as soon as they are ready.

        Raises:
            InvalidArgumentError: (while iterating) if `map_func` returns a different
                structure or dtype than for the first element.

        Examples:
            >>> import eagerflow as ef
            >>> ds = ef.data.Dataset.range(4).map(lambda x: (x, x * x), num_parallel_calls=2)
            >>> [int(b) for _, b in ds]
            [0, 1, 4, 9]
        """
        from eagerflow.data import transforms
        return transforms.MapDataset(self, map_func, num_parallel_calls, deterministic)

    def filter(self, predicate: Callable[..., Any], name: str | None = None) -> Dataset:
        """Keeps the elements for which `predicate` returns True (a scalar bool).

        Examples:
            >>> import eagerflow as ef
            >>> [int(v) for v in ef.data.Dataset.range(5).filter(lambda x: x > 2)]
            [3, 4]
        """
        from eagerflow.data import transforms
        return transforms.FilterDataset(self, predicate)

    def enumerate(self, start: int = 0, name: str | None = None) -> Dataset:
        """Pairs each element with its index: ``(index, element)``, index an int64.

        Examples:
            >>> import eagerflow as ef
            >>> [(int(i), int(v)) for i, v in ef.data.Dataset.range(5, 7).enumerate()]
            [(0, 5), (1, 6)]
        """
        from eagerflow.data import transforms
        return transforms.EnumerateDataset(self, start)

    # -- batching -------------------------------------------------------------------------
    def batch(self, batch_size: Any, drop_remainder: bool = False, num_parallel_calls: Any = None,
              deterministic: Any = None, name: str | None = None) -> Dataset:
        """Stacks consecutive elements into batches along a new first dimension.

        Args:
            batch_size: elements per batch.
            drop_remainder: drop a last batch smaller than `batch_size`.
            num_parallel_calls, deterministic: accepted for tf.data compatibility;
                batches are stacked in the consuming thread.

        Raises:
            InvalidArgumentError: (while iterating) for elements of different shapes,
                naming the element indices and shapes; use `padded_batch` for those.

        Examples:
            >>> import eagerflow as ef
            >>> [b.shape for b in ef.data.Dataset.range(5).batch(2, drop_remainder=True)]
            [(2,), (2,)]
        """
        from eagerflow.data import batching
        return batching.BatchDataset(self, batch_size, drop_remainder)

    def padded_batch(self, batch_size: Any, padded_shapes: Any = None, padding_values: Any = None,
                     drop_remainder: bool = False, name: str | None = None) -> Dataset:
        """Batches elements of different shapes, padding each to a common shape.

        Args:
            batch_size: elements per batch.
            padded_shapes: per component, the shape to pad to; None (or a None/-1
                dimension) pads to the longest in the batch. Default: all longest.
            padding_values: per component, the scalar to pad with (default 0, or
                ``b""`` for strings).
            drop_remainder: drop a last batch smaller than `batch_size`.

        Raises:
            InvalidArgumentError: (while iterating) if an element does not fit
                `padded_shapes` or the ranks differ.

        Examples:
            >>> import eagerflow as ef
            >>> ds = ef.data.Dataset.range(1, 4).map(lambda n: ef.fill([n], n))
            >>> next(iter(ds.padded_batch(3))).numpy().tolist()
            [[1, 0, 0], [2, 2, 0], [3, 3, 3]]
        """
        from eagerflow.data import batching
        return batching.PaddedBatchDataset(
            self, batch_size, padded_shapes, padding_values, drop_remainder
        )

    def unbatch(self, name: str | None = None) -> Dataset:
        """Splits each element along its first dimension into separate elements.

        Examples:
            >>> import eagerflow as ef
            >>> [int(v) for v in ef.data.Dataset.range(5).batch(2).unbatch()]
            [0, 1, 2, 3, 4]
        """
        from eagerflow.data import batching
        return batching.UnbatchDataset(self)

    # -- order and length ----------------------------------------------------------------
    def shuffle(self, buffer_size: Any, seed: int | None = None,
                reshuffle_each_iteration: bool = True, name: str | None = None) -> Dataset:
        """Shuffles with a buffer: each output is a random pick among `buffer_size` elements.

        A buffer as large as the dataset gives a uniform shuffle; a buffer of 1 keeps the
        order. With `seed` (or after `ef.random.set_seed`) the orders are reproducible.

        Args:
            buffer_size: elements held in the buffer (`AUTOTUNE` is not accepted).
            seed: an int for a reproducible order.
            reshuffle_each_iteration: a new order on every iteration (default), or the
                same order each time.

        Examples:
            >>> import eagerflow as ef
            >>> ds = ef.data.Dataset.range(5).shuffle(5, seed=3)
            >>> sorted(int(v) for v in ds)
            [0, 1, 2, 3, 4]
        """
        from eagerflow.data import shuffling
        return shuffling.ShuffleDataset(self, buffer_size, seed, reshuffle_each_iteration)

    def repeat(self, count: Any = None, name: str | None = None) -> Dataset:
        """Repeats the dataset `count` times (None or -1: forever).

        Examples:
            >>> import eagerflow as ef
            >>> [int(v) for v in ef.data.Dataset.range(2).repeat(2)]
            [0, 1, 0, 1]
        """
        from eagerflow.data import transforms
        return transforms.RepeatDataset(self, count)

    def take(self, count: Any, name: str | None = None) -> Dataset:
        """The first `count` elements (-1: all).

        Examples:
            >>> import eagerflow as ef
            >>> [int(v) for v in ef.data.Dataset.range(10).take(2)]
            [0, 1]
        """
        from eagerflow.data import transforms
        return transforms.TakeDataset(self, count)

    def skip(self, count: Any, name: str | None = None) -> Dataset:
        """All but the first `count` elements (-1: skip everything).

        Examples:
            >>> import eagerflow as ef
            >>> [int(v) for v in ef.data.Dataset.range(4).skip(2)]
            [2, 3]
        """
        from eagerflow.data import transforms
        return transforms.SkipDataset(self, count)

    def shard(self, num_shards: Any, index: Any, name: str | None = None) -> Dataset:
        """Every `num_shards`-th element starting at `index` (one worker's share).

        Examples:
            >>> import eagerflow as ef
            >>> [int(v) for v in ef.data.Dataset.range(10).shard(3, 1)]
            [1, 4, 7]
        """
        from eagerflow.data import transforms
        return transforms.ShardDataset(self, num_shards, index)

    def concatenate(self, dataset: Any, name: str | None = None) -> Dataset:
        """This dataset's elements followed by those of `dataset` (same structure/dtypes).

        Examples:
            >>> import eagerflow as ef
            >>> ds = ef.data.Dataset.range(2).concatenate(ef.data.Dataset.range(7, 8))
            >>> [int(v) for v in ds]
            [0, 1, 7]
        """
        from eagerflow.data import transforms
        return transforms.ConcatenateDataset(self, dataset)

    # -- datasets of datasets --------------------------------------------------------------
    def flat_map(self, map_func: Callable[..., Any], name: str | None = None) -> Dataset:
        """Maps each element to a dataset and chains the results in order.

        Examples:
            >>> import eagerflow as ef
            >>> ds = ef.data.Dataset.range(1, 3).flat_map(lambda n: ef.data.Dataset.range(n))
            >>> [int(v) for v in ds]
            [0, 0, 1]
        """
        from eagerflow.data import interleaving
        return interleaving.InterleaveDataset(self, map_func, 1, 1, None)

    def interleave(self, map_func: Callable[..., Any], cycle_length: Any = None,
                   block_length: Any = None, num_parallel_calls: Any = None,
                   deterministic: Any = None, name: str | None = None) -> Dataset:
        """Maps elements to datasets and mixes them: `block_length` from each in turn.

        Args:
            map_func: returns a Dataset for an element.
            cycle_length: how many of those datasets are open at once (default/AUTOTUNE:
                the number of CPUs).
            block_length: consecutive elements taken from each (default 1).
            num_parallel_calls: if set, each open dataset is read ahead in its own
                thread (useful for file readers); the output order stays the same.
            deterministic: accepted for tf.data compatibility; the order is always
                deterministic.

        Examples:
            >>> import eagerflow as ef
            >>> ds = ef.data.Dataset.range(1, 3).interleave(
            ...     lambda x: ef.data.Dataset.from_tensors(x).repeat(3), cycle_length=2)
            >>> [int(v) for v in ds]
            [1, 2, 1, 2, 1, 2]
        """
        from eagerflow.data import interleaving
        return interleaving.InterleaveDataset(
            self, map_func, cycle_length, block_length, num_parallel_calls
        )

    # -- performance ---------------------------------------------------------------------
    def prefetch(self, buffer_size: Any, name: str | None = None) -> Dataset:
        """Prepares up to `buffer_size` elements ahead in a background thread.

        The thread stops when the loop ends, breaks, raises, or the iterator is closed or
        garbage-collected; errors reach the loop with their original traceback.
        `AUTOTUNE` starts with one element and grows the buffer (up to 16) whenever the
        consumer has to wait.

        Examples:
            >>> import eagerflow as ef
            >>> [int(v) for v in ef.data.Dataset.range(3).prefetch(2)]
            [0, 1, 2]
        """
        from eagerflow.data import parallel
        return parallel.PrefetchDataset(self, buffer_size)

    def cache(self, filename: str = "", name: str | None = None) -> Dataset:
        """Keeps the elements after the first complete iteration; later ones replay them.

        Args:
            filename: empty for an in-memory cache; otherwise a file path: the elements
                are written there (atomically, in NumPy's .npz format, without pickle)
                when the first iteration completes, and any later iteration, also in
                another process, reads the file instead of running the pipeline.

        An iteration that stops early caches nothing (with a warning).

        Examples:
            >>> import eagerflow as ef
            >>> ds = ef.data.Dataset.range(3).map(lambda x: x + 1).cache()
            >>> [int(v) for v in ds] == [int(v) for v in ds] == [1, 2, 3]
            True
        """
        from eagerflow.data import caching
        return caching.CacheDataset(self, filename)



def cardinality(input_dataset: Dataset) -> Tensor:
    """The number of elements of a dataset, as `tf.data.experimental.cardinality`.

    Same as ``input_dataset.cardinality()``.

    Args:
        input_dataset: an `ef.data.Dataset`.

    Returns:
        An int64 scalar tensor: the length, `INFINITE_CARDINALITY` (-1) or
        `UNKNOWN_CARDINALITY` (-2).

    Raises:
        TypeError: if `input_dataset` is not a Dataset.

    Examples:
        >>> import eagerflow as ef
        >>> ds = ef.data.Dataset.range(10)
        >>> print("Number of samples: %d" % ef.data.experimental.cardinality(ds))
        Number of samples: 10
        >>> int(ef.data.experimental.cardinality(ds.filter(lambda x: x > 4)))
        -2
    """
    if not isinstance(input_dataset, Dataset):
        raise TypeError("`input_dataset` must be an ef.data.Dataset. Received: "
                        f"input_dataset={input_dataset!r} of type "
                        f"{type(input_dataset).__name__}")
    return input_dataset.cardinality()
