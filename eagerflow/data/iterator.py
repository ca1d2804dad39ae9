"""`Iterator`: one pass over a dataset, and `probe`, a peek at its first element.

Example:
    >>> import eagerflow as ef
    >>> it = iter(ef.data.Dataset.range(3))
    >>> [int(v) for v in it]
    [0, 1, 2]
"""

from __future__ import annotations

import threading
from contextlib import closing

from eagerflow.core import errors
from eagerflow.data import structure

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


class Iterator:
    """Iterates over a dataset; `next(iterator)` returns the next element as tensors.

    Created by `iter(dataset)`. Closing it (or dropping the last reference to it) stops
    the background threads of `prefetch` and parallel `map` at once.

    Example:
        >>> import eagerflow as ef
        >>> it = iter(ef.data.Dataset.range(2))
        >>> next(it), it.get_next()
        (ef.Tensor(0, shape=(), dtype=int64), ef.Tensor(1, shape=(), dtype=int64))
    """

    __slots__ = ("_dataset", "_elements", "__weakref__")

    def __init__(self, dataset):
        self._dataset = dataset
        self._elements = dataset._elements()

    def __iter__(self) -> Iterator:
        return self

    def __next__(self):
        return structure.to_tensors(next(self._elements))

    def get_next(self):
        """Returns the next element, like `next(iterator)`.

        Raises:
            OutOfRangeError: at the end of the dataset (where `next` raises StopIteration).

        Example:
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
    def element_spec(self):
        """The `TensorSpec` structure of the elements (the dataset's `element_spec`)."""
        return self._dataset.element_spec

    def close(self) -> None:
        """Stops the iteration and any background thread it started.

        Example:
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


