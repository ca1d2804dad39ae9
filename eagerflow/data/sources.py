"""Dataset sources: tensor slices, a single element, a Python generator, a range, zip.

Examples:
    >>> import eagerflow as ef
    >>> ds = ef.data.Dataset.from_tensor_slices({"a": [1, 2], "b": [3.0, 4.0]})
    >>> [(int(e["a"]), float(e["b"])) for e in ds]
    [(1, 3.0), (2, 4.0)]
"""

from __future__ import annotations

import contextlib

import numpy as np

from eagerflow.core import buffers, dtypes, errors, nest
from eagerflow.core import tensor as tensor_lib
from eagerflow.core.spec import TensorSpec
from eagerflow.data import dataset, structure


class TensorSliceDataset(dataset.Dataset):
    """One element per row of a structure of arrays (`Dataset.from_tensor_slices`).

    Also the source the fused fast paths recognise: rows can be gathered by index
    arrays (`gather`) or contiguous ranges (`rows`) in one NumPy call per component.
    """

    def __init__(self, tensors):
        template = structure.from_user(tensors, "from_tensor_slices")
        leaves = nest.flatten(template)
        if not leaves:
            raise errors.InvalidArgumentError(
                "from_tensor_slices needs at least one tensor. Received: an empty structure"
            )
        paths = structure.leaf_paths(template)
        for path, leaf in zip(paths, leaves, strict=True):
            if leaf.ndim == 0:
                raise errors.InvalidArgumentError(
                    "from_tensor_slices slices along the first dimension, so every "
                    f"component needs rank >= 1, but component {path} is a scalar"
                )
        sizes = [leaf.shape[0] for leaf in leaves]
        if len(set(sizes)) > 1:
            detail = ", ".join(f"{p} has {s}" for p, s in zip(paths, sizes, strict=True))
            raise errors.InvalidArgumentError(
                "from_tensor_slices: all components must have the same size in their first "
                f"dimension, but {detail}"
            )
        self._template = template
        self._leaves = leaves
        self.count = sizes[0]
        self._pack = structure.packer(template)

    def _elements(self):
        leaves, pack = self._leaves, self._pack
        if len(leaves) == 1 and type(self._template) is np.ndarray:
            array = leaves[0]
            for i in range(self.count):
                yield array[i, ...]  # `, ...` keeps 0-d rows arrays (views), not scalars
            return
        for i in range(self.count):
            yield pack([leaf[i, ...] for leaf in leaves])

    def components(self) -> list:
        """``(name, array)`` for each component, e.g. ``("[1]", labels)``."""
        return list(zip(structure.leaf_paths(self._template), self._leaves, strict=True))

    def element(self, index: int):
        """The element at `index`."""
        return self._pack([leaf[index, ...] for leaf in self._leaves])

    def gather(self, indices: np.ndarray):
        """The elements at `indices`, stacked (one fancy-indexing call per component)."""
        return self._pack([leaf[indices] for leaf in self._leaves])

    def rows(self, start: int, stop: int):
        """Elements `start` to `stop`, stacked (views of the private copy of the data)."""
        return self._pack([leaf[start:stop] for leaf in self._leaves])

    def _compute_spec(self):
        return structure.map_leaves(
            lambda a: TensorSpec(a.shape[1:], structure.spec_dtype(a.dtype)), self._template
        )

    def _cardinality(self) -> int:
        return self.count


class TensorDataset(dataset.Dataset):
    """A dataset of exactly one element (`Dataset.from_tensors`)."""

    def __init__(self, tensors):
        self._element = structure.from_user(tensors, "from_tensors")

    def _elements(self):
        yield self._element

    def _compute_spec(self):
        return structure.spec_of(self._element)

    def _cardinality(self) -> int:
        return 1


def signature_from_types(output_types, output_shapes):
    """`from_generator`'s older `output_types`/`output_shapes` pair as an `output_signature`.

    A shape is a list/tuple of ints and None, so in a structure of shapes only a tuple or
    list whose items are not all dims (or a dict) is a structure.
    """

    def is_shape(value):
        return value is None or (
            isinstance(value, (list, tuple))
            and all(d is None or isinstance(d, (int, np.integer)) for d in value)
        )

    def build(types, shapes, path):
        if isinstance(types, dict):
            if shapes is not None and (not isinstance(shapes, dict) or set(shapes) != set(types)):
                raise TypeError(
                    f"from_generator: `output_shapes` must have the structure of "
                    f"`output_types`; {path} has keys {sorted(types)}, shapes are {shapes!r}"
                )
            return {k: build(t, None if shapes is None else shapes[k], f"{path}[{k!r}]")
                    for k, t in types.items()}
        if isinstance(types, (tuple, list)):
            if shapes is not None and (not isinstance(shapes, (tuple, list))
                                       or len(shapes) != len(types)):
                raise TypeError(
                    f"from_generator: `output_shapes` must have the structure of "
                    f"`output_types`; {path} has {len(types)} components, shapes are "
                    f"{shapes!r}"
                )
            return tuple(build(t, None if shapes is None else shapes[i], f"{path}[{i}]")
                         for i, t in enumerate(types))
        if not is_shape(shapes):
            raise TypeError(
                f"from_generator: {path} of `output_shapes` must be a shape (a list of ints "
                f"and None). Received: {shapes!r}"
            )
        return TensorSpec(None if shapes is None else list(shapes), types)

    return build(output_types, output_shapes, "output_types")


def _normalize_signature(signature, path="output_signature"):
    if isinstance(signature, TensorSpec):
        return signature
    if type(signature) in (tuple, list):
        return tuple(_normalize_signature(s, f"{path}[{i}]") for i, s in enumerate(signature))
    if isinstance(signature, tuple):  # namedtuple
        return type(signature)(*[_normalize_signature(s, path) for s in signature])
    if isinstance(signature, dict):
        return {k: _normalize_signature(s, f"{path}[{k!r}]") for k, s in signature.items()}
    raise TypeError(
        f"from_generator: `output_signature` must be a structure (tuple, dict) of "
        f"ef.TensorSpec. Received: {path}={signature!r}"
    )


class GeneratorDataset(dataset.Dataset):
    """Elements from a Python generator, checked against a signature."""

    def __init__(self, generator, output_signature, args):
        if not callable(generator):
            raise TypeError(
                "from_generator: `generator` must be a callable that returns an iterable "
                f"(e.g. a generator function). Received: {generator!r}"
            )
        if output_signature is None:
            raise TypeError(
                "from_generator needs `output_signature` (or the older `output_types`), e.g. "
                "output_signature=(ef.TensorSpec([None], ef.float32), ef.TensorSpec([], ef.int64))"
            )
        self._generator = generator
        self._signature = _normalize_signature(output_signature)
        self._args = () if args is None else tuple(args)

    def _elements(self):
        signature = self._signature
        iterable = self._generator(*self._args)
        try:
            for index, value in enumerate(iterable):
                yield _conform(value, signature, index, "")
        finally:
            close = getattr(iterable, "close", None)
            if close is not None:
                close()

    def _compute_spec(self):
        return structure.map_leaves(
            lambda s: TensorSpec(s.shape, s.dtype, s.name), self._signature
        )

    def _cardinality(self) -> int:
        return dataset.UNKNOWN_CARDINALITY


def _mismatch(index, path, message):
    where = f"component {path} of element {index}" if path else f"element {index}"
    return errors.InvalidArgumentError(
        f"from_generator: {where} does not match output_signature: {message}"
    )


def _conform(value, spec, index, path):
    """Converts one generated value to the signature's structure and dtypes, or raises."""
    if isinstance(spec, TensorSpec):
        return _conform_leaf(value, spec, index, path)
    if isinstance(spec, tuple):
        if not isinstance(value, (tuple, list)) or len(value) != len(spec):
            got = f"a {type(value).__name__} of length {len(value)}" if isinstance(
                value, (tuple, list)) else repr(value)
            raise _mismatch(index, path, f"expected a tuple of {len(spec)}, got {got}")
        items = [_conform(v, s, index, f"{path}[{i}]") for i, (v, s) in
                 enumerate(zip(value, spec, strict=True))]
        return tuple(items) if type(spec) is tuple else type(spec)(*items)
    if not isinstance(value, dict) or set(value) != set(spec):
        got = f"a dict with keys {sorted(value)}" if isinstance(value, dict) else repr(value)
        raise _mismatch(index, path, f"expected a dict with keys {sorted(spec)}, got {got}")
    return {k: _conform(value[k], s, index, f"{path}[{k!r}]") for k, s in spec.items()}


def _conform_leaf(value, spec, index, path):
    if isinstance(value, tensor_lib.Tensor):
        array = buffers.read(value)
    elif isinstance(value, np.ndarray):
        array = value.copy() if value.flags.writeable else value
    elif structure.is_string(spec.dtype):
        array = dtypes.to_array(value) if np.asarray(value).dtype.kind in "SUO" else \
            np.asarray(value)
    else:
        try:
            array = dtypes.to_array(value, spec.dtype)
        except (errors.OpError, ValueError, TypeError) as e:
            raise _mismatch(index, path, getattr(e, "message", str(e))) from None
    if array.dtype != spec.dtype:
        if structure.is_string(spec.dtype) and array.dtype.kind in "SUO":
            array = dtypes.to_array(array)  # any text fits a string spec, stored as bytes
        elif array.dtype.kind not in "OSU" and np.can_cast(array.dtype, spec.dtype, "safe"):
            array = array.astype(spec.dtype)
        else:
            raise _mismatch(
                index, path,
                f"got dtype {array.dtype.name}, expected {spec.dtype.name} (cast it in the "
                "generator, or change the signature)",
            )
    if spec.shape is not None and (
        array.ndim != len(spec.shape)
        or any(d is not None and d != n for d, n in zip(spec.shape, array.shape, strict=True))
    ):
        raise _mismatch(index, path, f"got shape {array.shape}, expected {spec.shape}")
    return array


class RangeDataset(dataset.Dataset):
    """Integers like Python's range (`Dataset.range`)."""

    _CHUNK = 1024

    def __init__(self, args, dtype):
        if not 1 <= len(args) <= 3:
            raise errors.InvalidArgumentError(
                f"Dataset.range takes 1 to 3 arguments (start, stop, step). Received: {args}"
            )
        values = [dataset.int_argument(a, "range argument", -(2**63)) for a in args]
        if len(values) == 3 and values[2] == 0:
            raise errors.InvalidArgumentError("Dataset.range: `step` must not be zero")
        self._range = range(*values)
        self._dtype = dtypes.as_dtype(dtype)

    def _elements(self):
        # Build the values a block at a time: one arange per block instead of one array
        # per element; `block[i, ...]` is a 0-d view.
        whole, dtype, size = self._range, self._dtype, self._CHUNK
        for offset in range(0, len(whole), size):
            part = whole[offset:offset + size]
            block = np.arange(part.start, part.stop, part.step, dtype=dtype)
            for i in range(len(block)):
                yield block[i, ...]

    def _compute_spec(self):
        return TensorSpec((), self._dtype)

    def _cardinality(self) -> int:
        return len(self._range)


class ZipDataset(dataset.Dataset):
    """Elements of several datasets side by side, in their structure (`Dataset.zip`)."""

    def __init__(self, datasets):
        datasets = _tuples_for_lists(datasets)
        members = nest.flatten(datasets)
        for member in members:
            if not isinstance(member, dataset.Dataset):
                raise TypeError(
                    "Dataset.zip expects datasets, or a tuple/dict of datasets. Received: "
                    f"{type(member).__name__}"
                )
        self._structure = datasets
        self._inputs = tuple(members)

    def _elements(self):
        with contextlib.ExitStack() as stack:
            iterators = [stack.enter_context(contextlib.closing(d._elements()))
                         for d in self._inputs]
            for parts in zip(*iterators, strict=False):  # the shortest ends it
                yield nest.pack_sequence_as(self._structure, parts)

    def _compute_spec(self):
        return nest.pack_sequence_as(self._structure, [d.element_spec for d in self._inputs])

    def _cardinality(self) -> int:
        # The shortest wins; an unknown length makes the result unknown.
        result = dataset.INFINITE_CARDINALITY
        for member in self._inputs:
            size = member._cardinality()
            if size == dataset.UNKNOWN_CARDINALITY:
                return size
            if size != dataset.INFINITE_CARDINALITY:
                result = size if result == dataset.INFINITE_CARDINALITY else min(result, size)
        return result


def _tuples_for_lists(value):
    if isinstance(value, list):
        return tuple(_tuples_for_lists(v) for v in value)
    if type(value) is tuple:
        return tuple(_tuples_for_lists(v) for v in value)
    if isinstance(value, dict):
        return {k: _tuples_for_lists(v) for k, v in value.items()}
    return value

