"""`interleave` and `flat_map`: datasets made from elements, read in turn.

The order is tf.data's: `cycle_length` slots each hold a dataset made by `map_func`;
the cycle takes `block_length` elements from a slot, then moves to the next slot. A
slot whose dataset ends is refilled from the next input element when the cycle comes
back to it. `flat_map` is the special case of one slot.

Examples:
    >>> import eagerflow as ef
    >>> ds = ef.data.Dataset.range(1, 6).interleave(
    ...     lambda x: ef.data.Dataset.from_tensors(x).repeat(6), cycle_length=2,
    ...     block_length=4)
    >>> [int(v) for v in ds][:12]
    [1, 1, 1, 1, 2, 2, 2, 2, 1, 1, 2, 2]
"""

from __future__ import annotations

import os
from contextlib import ExitStack, closing
from typing import Any

from eagerflow.core import errors
from eagerflow.data import dataset, iterator, parallel, structure


class InterleaveDataset(dataset.Dataset):
    """`Dataset.interleave` (and `flat_map` with one slot)."""

    def __init__(self, input_dataset, map_func, cycle_length, block_length,
                 num_parallel_calls):
        if not callable(map_func):
            raise TypeError(f"interleave expects a function. Received: {map_func!r}")
        self._inputs = (input_dataset,)
        self._fn = map_func
        if cycle_length is None or cycle_length == dataset.AUTOTUNE:
            cycle_length = os.cpu_count() or 1
        self._cycle_length = dataset.int_argument(cycle_length, "cycle_length", 1)
        self._block_length = dataset.int_argument(
            1 if block_length is None else block_length, "block_length", 1
        )
        self._threaded = parallel.resolve_workers(num_parallel_calls) is not None

    def _open(self, element, index):
        made = structure.call(self._fn, element)
        if not isinstance(made, dataset.Dataset):
            raise errors.InvalidArgumentError(
                f"interleave/flat_map: map_func must return a Dataset, but returned "
                f"{type(made).__name__} for element {index}"
            )
        if self._threaded:  # read ahead in a thread of its own (e.g. a file reader)
            return parallel.background(
                made._elements, self._block_length, self._block_length, "eagerflow-interleave"
            )
        return made._elements()

    def _elements(self):
        cycle, block = self._cycle_length, self._block_length
        slots: list[Any] = [None] * cycle
        # the input index of each slot's dataset, until checked
        made_from: list[Any] = [None] * cycle
        expected = None
        with ExitStack() as stack, closing(self._inputs[0]._elements()) as inputs:
            stack.callback(lambda: [s.close() for s in slots if s is not None])
            input_index = position = taken = opened = 0
            ended = False
            while not ended or opened:
                current = slots[position]
                if current is not None:
                    element = next(current, _END)
                    if element is not _END:
                        if made_from[position] is not None:  # each dataset's first element
                            expected = self._check(element, made_from[position], expected)
                            made_from[position] = None
                        yield element
                        taken += 1
                        if taken == block:
                            position, taken = (position + 1) % cycle, 0
                        continue
                    current.close()
                    slots[position] = None
                    opened -= 1
                    position, taken = (position + 1) % cycle, 0
                elif not ended:
                    element = next(inputs, _END)
                    if element is _END:
                        ended = True
                    else:
                        slots[position] = self._open(element, input_index)
                        made_from[position] = input_index
                        input_index += 1
                        opened += 1
                else:
                    position, taken = (position + 1) % cycle, 0

    @staticmethod
    def _check(element, index, expected):
        """The datasets must all yield one structure and dtypes, as tf.data requires."""
        if expected is None:
            return structure.signature(element), structure.describe(element), index
        if structure.signature(element) != expected[0]:
            raise errors.InvalidArgumentError(
                f"interleave/flat_map: the dataset made from element {index} yields "
                f"{structure.describe(element)}, but the one made from element {expected[2]} "
                f"yields {expected[1]}: all must have the same structure and dtypes"
            )
        return expected

    def _has_static_spec(self) -> bool:
        return False

    def _compute_spec(self):
        first = iterator.probe(self._inputs[0])
        if first is None:
            raise errors.InvalidArgumentError(
                "The element_spec of an interleave()/flat_map() dataset is read from the "
                "dataset made from the first input element, and the input is empty"
            )
        made = structure.call(self._fn, first)
        if not isinstance(made, dataset.Dataset):
            raise errors.InvalidArgumentError(
                "interleave/flat_map: map_func must return a Dataset, but returned "
                f"{type(made).__name__} for element 0"
            )
        try:
            return made.element_spec
        except errors.InvalidArgumentError:
            if made._has_static_spec():
                raise
        # Its spec is read from its own first element, and it had none (tf.data traces
        # instead): read the first element of the result.
        element = iterator.probe(self)
        if element is None:
            raise errors.InvalidArgumentError(
                "The element_spec of an interleave()/flat_map() dataset built by user "
                "functions is read from its first element, and it has none"
            )
        return structure.spec_of(element)

    def _cardinality(self) -> int:
        return dataset.UNKNOWN_CARDINALITY


_END = object()
