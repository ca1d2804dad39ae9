"""`batch`, `padded_batch` and `unbatch`, with the fused fast path for sliced sources.

`from_tensor_slices(data).batch(n)` and `from_tensor_slices(data).shuffle(k).batch(n)`
never touch single elements: the batch reads contiguous rows, or gathers the rows of
the shuffle order with one fancy-indexing call per component. The results (values,
dtypes, shapes, and the order for a given seed) are those of the per-element path.

Examples:
    >>> import eagerflow as ef, numpy as np
    >>> ds = ef.data.Dataset.from_tensor_slices(np.arange(10)).shuffle(10, seed=1).batch(4)
    >>> sorted(np.concatenate([b.numpy() for b in ds]).tolist()) == list(range(10))
    True
"""

from __future__ import annotations

from collections.abc import Iterable
from contextlib import closing
from itertools import islice
from typing import Any

import numpy as np

from eagerflow.core import dtypes, errors, nest
from eagerflow.core.spec import TensorSpec
from eagerflow.data import dataset, shuffling, sources, structure


def _batches(source, batch_size: int, drop_remainder: bool):
    """Yields ``(index of the batch's first element, list of elements)``."""
    index = 0
    while True:
        chunk = list(islice(source, batch_size))
        if not chunk or (drop_remainder and len(chunk) < batch_size):
            return
        yield index, chunk
        index += len(chunk)


def is_batched(source) -> bool:
    """Whether a Dataset pipeline has a batch stage (`batch`, `padded_batch`) anywhere."""
    stack = [source]
    while stack:
        stage = stack.pop()
        if isinstance(stage, _Batching):
            return True
        stack.extend(stage._inputs)
    return False


class _Batching(dataset.Dataset):
    """The batch count shared by `batch` and `padded_batch`.

    Subclasses set ``_inputs``, ``_batch_size`` and ``_drop_remainder``.
    """

    _batch_size: int
    _drop_remainder: bool

    def _cardinality(self) -> int:
        size = self._inputs[0]._cardinality()
        if size < 0:
            return size
        if self._drop_remainder:
            return size // self._batch_size
        return -(-size // self._batch_size)


class BatchDataset(_Batching):
    """`Dataset.batch`: stacks `batch_size` consecutive elements."""

    def __init__(self, input_dataset, batch_size, drop_remainder):
        self._inputs = (input_dataset,)
        self._batch_size = dataset.int_argument(batch_size, "batch_size", 1)
        self._drop_remainder = bool(drop_remainder)

    def _fused(self):
        """``(sliced source, row order or None)`` when the fast path applies, else None."""
        upstream = self._inputs[0]
        if isinstance(upstream, sources.TensorSliceDataset):
            return upstream, None
        if isinstance(upstream, shuffling.ShuffleDataset) and upstream.sliced_source():
            return upstream.sliced_source(), upstream.new_order()
        return None

    def _elements(self):
        fused = self._fused()
        if fused is not None:
            yield from self._fused_elements(*fused)
            return
        with closing(self._inputs[0]._elements()) as elements:
            flatten: Any = None
            pack: Any = None
            for first_index, chunk in _batches(elements, self._batch_size,
                                               self._drop_remainder):
                if flatten is None:  # every element of a dataset has one structure
                    flatten, pack = structure.flattener(chunk[0]), structure.packer(chunk[0])
                columns = zip(*map(flatten, chunk), strict=True)
                yield pack([_stack(column, chunk[0], c, first_index)
                            for c, column in enumerate(columns)])

    def _fused_elements(self, source, order):
        size, count = self._batch_size, source.count
        stop = count - count % size if self._drop_remainder else count
        for start in range(0, stop, size):
            end = min(start + size, count)
            if order is None:
                yield source.rows(start, end)
            else:
                yield source.gather(order[start:end])

    def _compute_spec(self):
        size = self._batch_size if self._drop_remainder else None
        return structure.map_leaves(
            lambda s: TensorSpec(None if s.shape is None else (size, *s.shape), s.dtype),
            self._inputs[0].element_spec,
        )


def _stack(column, example, component: int, first_index: int) -> np.ndarray | None:
    if column[0] is None:  # a None component (from a map function) batches to None
        return None
    try:
        return np.stack(column)
    except ValueError:
        shapes = [a.shape for a in column]
        other = next(i for i, s in enumerate(shapes) if s != shapes[0])
        where = _component(structure.leaf_paths(example)[component])
        raise errors.InvalidArgumentError(
            f"batch: cannot stack elements of different shapes{where}: element "
            f"{first_index} has shape {shapes[0]} but element {first_index + other} has "
            f"shape {shapes[other]}. Use padded_batch() to pad them to a common shape."
        ) from None


def _component(path: str) -> str:
    """`` in component [1]`` for a part of a structure, nothing for a lone tensor."""
    return "" if path == "element" else f" in component {path}"


def _leaf_values(template, value, what: str, out: list) -> list:
    """Appends to `out` the part of `value` for each leaf of `template`, in flatten order."""
    if isinstance(template, (dict, tuple)):
        if isinstance(template, dict):
            ok = isinstance(value, dict) and set(value) == set(template)
            keys: Iterable[Any] = nest.sorted_keys(template)
        else:
            ok = isinstance(value, (tuple, list)) and len(value) == len(template)
            keys = range(len(template))
        if not ok:
            raise errors.InvalidArgumentError(
                f"padded_batch: `{what}` must have the structure of the elements "
                f"({structure.describe(template)}). Received: {value!r}"
            )
        for key in keys:
            _leaf_values(template[key], value[key], what, out)
    else:
        out.append(value)
    return out


def _as_shape(shape, path):
    if shape is None:
        return None
    try:
        dims = [None if d is None or int(d) == -1 else int(d) for d in np.asarray(
            shape, dtype=object).reshape(-1)]
    except (TypeError, ValueError):
        dims = None
    if dims is None or any(d is not None and d < 0 for d in dims):
        raise errors.InvalidArgumentError(
            f"padded_batch: padded_shapes{_component(path)} must be a list of "
            f"non-negative ints or None/-1. Received: {shape!r}"
        )
    return tuple(dims)


class PaddedBatchDataset(_Batching):
    """`Dataset.padded_batch`: batches elements padded to a common shape."""

    def __init__(self, input_dataset, batch_size, padded_shapes, padding_values,
                 drop_remainder):
        self._inputs = (input_dataset,)
        self._batch_size = dataset.int_argument(batch_size, "batch_size", 1)
        self._padded_shapes = padded_shapes
        self._padding_values = padding_values
        self._drop_remainder = bool(drop_remainder)
        if input_dataset._has_static_spec():
            self._check_static(input_dataset.element_spec)

    def _check_static(self, spec):
        """Refuses, when the dataset is built (as tf.data does), padded shapes and padding
        values that cannot fit the input's static element spec."""
        leaves = nest.flatten(spec)
        paths = structure.leaf_paths(spec)
        if self._padded_shapes is not None:
            shapes = _leaf_values(spec, self._padded_shapes, "padded_shapes", [])
            for leaf, shape, path in zip(leaves, shapes, paths, strict=True):
                padded = _as_shape(shape, path)
                if padded is None or leaf.shape is None:
                    continue
                if len(padded) != len(leaf.shape) or any(
                        p is not None and d is not None and p < d
                        for p, d in zip(padded, leaf.shape, strict=True)):
                    raise errors.InvalidArgumentError(
                        f"padded_batch: padded_shapes {padded}{_component(path)} is not "
                        f"compatible with the element shape {tuple(leaf.shape)}: it needs the "
                        "same rank and no dimension smaller than the element's"
                    )
        if self._padding_values is not None:
            for leaf, path, value in zip(leaves, paths, self._plan(spec)[2], strict=True):
                if value is not None:
                    _check_padding_value(value, np.dtype(leaf.dtype), path)

    def _plan(self, example):
        """Per component: (target shape or None, padding value or None)."""
        paths = structure.leaf_paths(example)
        count = len(paths)
        if self._padded_shapes is None:
            shapes = [None] * count
        else:
            shapes = _leaf_values(example, self._padded_shapes, "padded_shapes", [])
            shapes = [_as_shape(s, p) for s, p in zip(shapes, paths, strict=True)]
        if self._padding_values is None:
            values = [None] * count
        elif not isinstance(self._padding_values, (tuple, list, dict)):
            values = [self._padding_values] * count  # one scalar for every component
        else:
            values = _leaf_values(example, self._padding_values, "padding_values", [])
        return paths, shapes, values

    def _elements(self):
        plan = None
        with closing(self._inputs[0]._elements()) as elements:
            for first_index, chunk in _batches(elements, self._batch_size,
                                               self._drop_remainder):
                if plan is None:
                    flatten, pack = structure.flattener(chunk[0]), structure.packer(chunk[0])
                    plan = self._plan(chunk[0])
                columns = zip(*map(flatten, chunk), strict=True)
                # (`component`: the plan's three per-column entries; mypy cannot count them)
                yield pack([_pad(column, *component, first_index)  # type: ignore[call-arg]
                            for column, *component in zip(columns, *plan, strict=True)])

    def _compute_spec(self):
        spec = self._inputs[0].element_spec
        size = self._batch_size if self._drop_remainder else None
        leaves = nest.flatten(spec)
        if self._padded_shapes is None:
            shapes = [None] * len(leaves)
        else:
            shapes = _leaf_values(spec, self._padded_shapes, "padded_shapes", [])
        specs = []
        for leaf, shape in zip(leaves, shapes, strict=True):
            # A padded dimension is the longest in each batch: unknown in advance (the
            # input spec may come from a first element, so its sizes are not trusted).
            if shape is None:
                dims = None if leaf.shape is None else (None,) * len(leaf.shape)
            else:
                dims = _as_shape(shape, "")
            specs.append(TensorSpec(None if dims is None else (size, *dims), leaf.dtype))
        return nest.pack_sequence_as(spec, specs)


def _pad(column, path, padded_shape, padding_value, first_index):
    ranks = {a.ndim for a in column}
    if len(ranks) > 1:
        shapes = [a.shape for a in column]
        raise errors.InvalidArgumentError(
            f"padded_batch: elements of different ranks{_component(path)}: shapes "
            f"{shapes} (elements {first_index}..{first_index + len(column) - 1})"
        )
    longest = tuple(np.max([a.shape for a in column], axis=0)) if column[0].ndim else ()
    if padded_shape is None:
        target = longest
    else:
        if len(padded_shape) != len(longest):
            raise errors.InvalidArgumentError(
                f"padded_batch: padded_shapes {padded_shape}{_component(path)} has rank "
                f"{len(padded_shape)} but the elements have rank {len(longest)}"
            )
        target = tuple(m if d is None else d for d, m in zip(padded_shape, longest, strict=True))
        for offset, array in enumerate(column):
            if any(n > t for n, t in zip(array.shape, target, strict=True)):
                raise errors.InvalidArgumentError(
                    f"padded_batch: element {first_index + offset} has shape {array.shape}"
                    f"{_component(path)}, larger than padded_shapes {padded_shape}"
                )
    dtype = column[0].dtype
    if padding_value is not None:
        _check_padding_value(padding_value, dtype, path)
    if padding_value is None:
        fill: Any = b"" if dtype.kind == "O" else 0
    else:
        try:
            fill = dtypes.to_array(padding_value, dtypes.public(dtype))
        except (errors.OpError, ValueError, TypeError) as e:
            raise errors.InvalidArgumentError(
                f"padded_batch: padding value{_component(path)}: "
                f"{getattr(e, 'message', f'cannot convert {padding_value!r} to {dtype}: {e}')}"
            ) from None
        if fill.shape != ():
            raise errors.InvalidArgumentError(
                f"padded_batch: padding values must be scalars, but the one{_component(path)} "
                f"has shape {fill.shape}"
            )
    out = np.full((len(column), *target), fill, dtype=dtype)
    for row, array in enumerate(column):
        out[(row,) + tuple(slice(0, n) for n in array.shape)] = array
    return out


def _check_padding_value(value, dtype: np.dtype, path) -> None:
    """A padding value that has a dtype (a tensor or array) must have the component's, as
    in tf.data (TypeError); Python numbers take the component's dtype."""
    given = getattr(value, "dtype", None)
    if given is not None and dtype.kind not in "SUO" and np.dtype(given) != dtype:
        raise TypeError(
            f"padded_batch: the padding value{_component(path)} has dtype "
            f"{np.dtype(given).name}, but the component has dtype {dtype.name}; cast it "
            f"(ef.cast(value, ef.{dtype.name})) or pass a Python number"
        )
    if tuple(np.shape(value)) != ():
        raise errors.InvalidArgumentError(
            f"padded_batch: padding values must be scalars, but the one{_component(path)} "
            f"has shape {tuple(np.shape(value))}"
        )


class UnbatchDataset(dataset.Dataset):
    """`Dataset.unbatch`: splits elements along their first dimension."""

    def __init__(self, input_dataset):
        self._inputs = (input_dataset,)
        if input_dataset._has_static_spec():
            self._compute_spec()  # scalars and unequal first dimensions: refused now, as TF

    def _elements(self):
        flatten: Any = None
        pack: Any = None
        with closing(self._inputs[0]._elements()) as elements:
            for index, element in enumerate(elements):
                if flatten is None:
                    flatten, pack = structure.flattener(element), structure.packer(element)
                leaves = flatten(element)
                sizes: set[Any] = {a.shape[0] if a.ndim else None for a in leaves}
                if None in sizes or len(sizes) > 1:
                    raise errors.InvalidArgumentError(
                        "unbatch: every component needs rank >= 1 and the same first "
                        f"dimension, but element {index} is {structure.describe(element)}"
                    )
                if len(leaves) == 1 and type(element) is np.ndarray:
                    for i in range(element.shape[0]):
                        yield element[i, ...]
                else:
                    for i in range(sizes.pop()):
                        yield pack([a[i, ...] for a in leaves])

    def _compute_spec(self):
        def unbatched(spec):
            if spec.shape is not None and len(spec.shape) == 0:
                raise errors.InvalidArgumentError(
                    f"unbatch needs elements of rank >= 1. Received: {spec}"
                )
            return TensorSpec(None if spec.shape is None else spec.shape[1:], spec.dtype)

        spec = self._inputs[0].element_spec
        firsts = {leaf.shape[0] for leaf in nest.flatten(spec)
                  if leaf.shape is not None and len(leaf.shape) and leaf.shape[0] is not None}
        if len(firsts) > 1:
            raise errors.InvalidArgumentError(
                "unbatch needs components with the same first dimension, but they have "
                f"{sorted(firsts)}. Received: {spec}"
            )
        return structure.map_leaves(unbatched, spec)

    def _cardinality(self) -> int:
        # Like tf.data: known when a component's first dimension is known statically
        # (not from a user function's first result) and not zero.
        source = self._inputs[0]
        size = source._cardinality()
        if size in (dataset.INFINITE_CARDINALITY, dataset.UNKNOWN_CARDINALITY):
            return size
        if not source._has_static_spec():
            return dataset.UNKNOWN_CARDINALITY
        dims = {s.shape[0] for s in nest.flatten(source.element_spec) if s.shape} - {None}
        if len(dims) != 1 or 0 in dims:
            return dataset.UNKNOWN_CARDINALITY
        return size * dims.pop()
