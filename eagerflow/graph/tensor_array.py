"""`ef.TensorArray` and `ef.map_fn`: lists of tensors that graph loops can grow.

A `TensorArray` is a value, as in TensorFlow 2: `write` returns a new array, so inside
a loop write ``ta = ta.write(i, x)``. It holds one tensor whose first axis indexes the
elements (`stack` returns it); a loop over a tensor (`for i in ef.range(n)`, a tensor
``while``) carries that tensor as a loop variable, so an array with ``dynamic_size=True``
grows by one element per `write` at its end, and the element shape is learned from the
first `write` when `element_shape` is not given.

Examples:
    >>> import eagerflow as ef
    >>> @ef.function
    ... def squares(n):
    ...     ta = ef.TensorArray(ef.float32, size=0, dynamic_size=True)
    ...     for i in ef.range(n):
    ...         ta = ta.write(i, ef.cast(i * i, ef.float32))
    ...     return ta.stack()
    >>> squares(ef.constant(4))
    ef.Tensor([0. 1. 4. 9.], shape=(4,), dtype=float32)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from eagerflow.core import dispatch, dtypes, errors, nest, tensor
from eagerflow.graph import control_flow, python_ops


class TensorArray:
    """A list of tensors of one dtype and shape, usable in graph loops (TF's
    ``tf.TensorArray``, with its value semantics: methods return new arrays).

    Args:
        dtype: the elements' dtype.
        size: the number of elements (a Python int, or a scalar int tensor).
        dynamic_size: whether a `write` at index `size` appends an element.
        clear_after_read: accepted for TensorFlow compatibility (reads never clear).
        tensor_array_name, handle, flow, colocate_with_first_write_call, name: accepted
            for TensorFlow compatibility.
        infer_shape: check that every element has the shape of the first (always on).
        element_shape: the elements' shape; None learns it from the first `write`.

    Raises:
        InvalidArgumentError: when an element of another shape is written, or an index
            is out of range for an array that cannot grow (TensorFlow's class).

    Examples:
        >>> import eagerflow as ef
        >>> ta = ef.TensorArray(ef.int32, size=2).write(0, 5).write(1, 7)
        >>> ta.stack()
        ef.Tensor([5 7], shape=(2,), dtype=int32)
        >>> int(ta.read(1)), int(ta.size())
        (7, 2)
    """

    def __init__(self, dtype: Any, size: Any = None, dynamic_size: bool | None = None,
                 clear_after_read: bool | None = None, tensor_array_name: str | None = None,
                 handle: Any = None, flow: Any = None, infer_shape: bool = True,
                 element_shape: Any = None, colocate_with_first_write_call: bool = True,
                 name: str | None = None) -> None:  # noqa: D107
        del clear_after_read, tensor_array_name, handle, flow, colocate_with_first_write_call
        del name, infer_shape
        self._dtype: Any = dtypes.as_dtype(dtype)
        self._dynamic_size = bool(dynamic_size)
        if size is None:
            if not self._dynamic_size:
                raise ValueError("TensorArray: size must be given unless dynamic_size=True")
            size = 0
        if isinstance(size, tensor.Tensor):
            size = int(size)  # a size known only when the graph runs: not supported
        if not isinstance(size, (int, np.integer)) or size < 0:
            raise ValueError(f"TensorArray: size must be a non-negative int. Received: "
                             f"size={size!r}")
        self._size = int(size)
        self._element_shape = (None if element_shape is None
                               else tuple(None if d is None else int(d) for d in element_shape))
        # The elements, stacked: None until the element shape is known.
        self._buffer: tensor.Tensor | None = None
        if self._element_shape is not None and None not in self._element_shape:
            self._buffer = _zeros((self._size, *self._element_shape), self._dtype)

    # -- properties ------------------------------------------------------------------------
    @property
    def dtype(self) -> dtypes.DType:
        """The elements' dtype."""
        return self._dtype

    @property
    def dynamic_size(self) -> bool:
        """Whether writes at the end grow the array."""
        return self._dynamic_size

    @property
    def element_shape(self) -> tuple | None:
        """The elements' shape (a tuple, None for a dimension or shape not known yet)."""
        if self._buffer is not None:
            return tuple(self._buffer.shape[1:])
        return self._element_shape

    def _with(self, buffer: tensor.Tensor) -> TensorArray:
        new = object.__new__(TensorArray)
        new.__dict__.update(self.__dict__)
        new._buffer = buffer
        return new

    # -- loop state (see autograph._tensor_loop) ----------------------------------------------
    def _loop_components(self) -> tuple:
        """The tensors a loop carries for this array; the stand-in (shape ``(size,)``)
        of one whose element shape is not known yet is replaced once the body shows it."""
        if self._buffer is None:
            return (_zeros((self._size,), self._dtype),)
        return (self._buffer,)

    def _loop_start(self) -> tuple:
        """The tensors a loop starts from once a write in its body gave the element shape
        (this array is what the body made)."""
        shape = self.element_shape
        if shape is None or None in shape:
            raise errors.InvalidArgumentError(
                f"TensorArray: the element shape {shape} written in the loop is not fully "
                "known; give element_shape=.", "TensorArrayWrite")
        return (_zeros((self._size, *shape), self._dtype),)

    def _from_loop_components(self, components: tuple) -> TensorArray:
        return self._with(components[0])

    def _needs_element_shape(self) -> bool:
        return self._buffer is None

    # -- elements ----------------------------------------------------------------------------
    def size(self, name: str | None = None) -> tensor.Tensor:
        """The number of elements, as an int32 scalar tensor."""
        from eagerflow.ops import array_ops as array
        from eagerflow.ops import creation

        if self._buffer is None:
            return creation.constant(self._size, dtypes.int32)
        return array.shape(self._buffer)[0]

    def read(self, index: Any, name: str | None = None) -> tensor.Tensor:
        """The element at `index`."""
        from eagerflow.ops import indexing

        buffer = self._require("read")
        return indexing.gather(buffer, _index(index))

    def gather(self, indices: Any, element_shape: Any = None,
               name: str | None = None) -> tensor.Tensor:
        """The elements at `indices`, stacked."""
        from eagerflow.ops import indexing

        return indexing.gather(self._require("gather"), indices)

    def stack(self, name: str | None = None) -> tensor.Tensor:
        """All elements stacked into one tensor of shape ``(size, *element_shape)``."""
        if self._buffer is None:
            if self._size == 0:
                shape = tuple(d or 0 for d in (self._element_shape or ()))
                return _zeros((0, *shape), self._dtype)
            self._require("stack")
        return self._buffer  # type: ignore[return-value]

    def concat(self, name: str | None = None) -> tensor.Tensor:
        """All elements concatenated along their first axis."""
        from eagerflow.ops import array_ops as array

        stacked = self.stack()
        if stacked.ndim < 2:
            raise errors.InvalidArgumentError(
                "TensorArray.concat: the elements are scalars; use stack()", "TensorArrayConcat")
        return array.reshape(stacked, [-1, *(-1 if d is None else d
                                             for d in stacked.shape[2:])])

    def write(self, index: Any, value: Any, name: str | None = None) -> TensorArray:
        """A new array with element `index` set to `value` (at index `size`, a dynamic
        array grows by one)."""
        from eagerflow.ops import array_ops as array
        from eagerflow.ops import logic, math

        value = dispatch.convert_input(value, dtype=self._dtype)
        if value.dtype != self._dtype:
            raise errors.InvalidArgumentError(
                f"TensorArray dtype is {self._dtype.name} but op has dtype "
                f"{value.dtype.name}.", "TensorArrayWrite")
        index = _index(index)
        buffer = self._buffer
        if buffer is None or (self._element_shape is None and buffer.ndim != value.ndim + 1):
            # the first write gives the element shape (in a loop, the stand-in carried so
            # far had the wrong rank: the loop restarts with this shape, see autograph)
            expected = self._element_shape
            if expected is not None and not _fits(value.shape, expected):
                self._shape_error(value.shape, expected)
            if None in value.shape:
                raise errors.InvalidArgumentError(
                    f"TensorArray: the first element written has an unknown dimension "
                    f"{tuple(value.shape)}; give element_shape=.", "TensorArrayWrite")
            buffer = _zeros((self._size, *value.shape), self._dtype)
        if buffer.ndim != value.ndim + 1 or not _fits(value.shape, buffer.shape[1:]):
            self._shape_error(value.shape, tuple(buffer.shape[1:]))
        size = array.shape(buffer)[0]
        dynamic = self._dynamic_size

        def check(i: np.ndarray, n: np.ndarray) -> None:
            if i < 0 or i > n or (i == n and not dynamic):
                kind = errors.InvalidArgumentError if dynamic else errors.OutOfRangeError
                raise kind(  # TensorFlow's classes
                    f"Tried to write to index {int(i)} but array is not resizeable and size "
                    f"is: {int(n)}" if not dynamic else
                    f"TensorArray: write at index {int(i)} of an array of size {int(n)}: a "
                    "dynamic array grows one element at a time, at its end.",
                    "TensorArrayWrite")

        python_ops.check(check, [index, size])
        row = array.expand_dims(value, 0)
        ids = _row_ids(buffer)
        mask = array.reshape(logic.equal(ids, index), [-1, *([1] * value.ndim)])

        def update() -> Any:
            return math.where(mask, row, buffer)

        if not dynamic:
            return self._with(update())
        grown = control_flow.cond(logic.less(index, size), update,
                                  lambda: array.concat([buffer, row], 0))
        return self._with(grown)

    def unstack(self, value: Any, name: str | None = None) -> TensorArray:
        """A new array whose elements are the rows of `value`."""
        value = dispatch.convert_input(value, dtype=self._dtype)
        if value.ndim == 0:
            raise errors.InvalidArgumentError(
                "TensorArray.unstack: the value must have at least one dimension",
                "TensorArrayUnstack")
        if self._element_shape is not None and not _fits(value.shape[1:], self._element_shape):
            self._shape_error(value.shape[1:], self._element_shape)
        return self._with(value)

    def scatter(self, indices: Any, value: Any, name: str | None = None) -> TensorArray:
        """A new array with element ``indices[k]`` set to ``value[k]``."""
        from eagerflow.ops import array_ops as array

        rows = array.unstack(dispatch.convert_input(value, dtype=self._dtype))
        positions = dispatch.convert_input(indices)
        result = self
        for k, row in enumerate(rows):
            result = result.write(positions[k], row)
        return result

    def close(self, name: str | None = None) -> None:
        """Does nothing (TensorFlow compatibility)."""

    def identity(self) -> TensorArray:
        """This array (TensorFlow compatibility)."""
        return self

    def __repr__(self) -> str:
        return (f"<ef.TensorArray dtype={self._dtype.name} element_shape="
                f"{self.element_shape} dynamic_size={self._dynamic_size}>")

    # -- helpers -------------------------------------------------------------------------------
    def _require(self, what: str) -> tensor.Tensor:
        if self._buffer is None:
            raise errors.InvalidArgumentError(
                f"TensorArray.{what}: nothing was written and the element shape is not "
                "known; write first or give element_shape=.", f"TensorArray{what.title()}")
        return self._buffer

    def _shape_error(self, got: tuple, expected: tuple) -> None:
        raise errors.InvalidArgumentError(
            f"Could not write to TensorArray because the value shape is {tuple(got)} which "
            f"is incompatible with the TensorArray's element shape {tuple(expected)}",
            "TensorArrayWrite")


def _zeros(shape: tuple, dtype: Any) -> tensor.Tensor:
    return tensor.new_tensor(np.zeros(shape, dtype))


def _fits(shape: tuple, expected: tuple) -> bool:
    return len(shape) == len(expected) and all(
        a is None or b is None or a == b for a, b in zip(shape, expected, strict=True))


def _index(index: Any) -> tensor.Tensor:
    from eagerflow.ops import math

    index = dispatch.convert_input(index)
    if index.dtype.kind not in "iu" or index.ndim != 0:
        raise errors.InvalidArgumentError(
            f"TensorArray: an index must be an int scalar, got {index.dtype.name}"
            f"{list(index.shape)}", "TensorArrayWrite")
    return math.cast(index, dtypes.int32)


def _row_ids(buffer: tensor.Tensor) -> tensor.Tensor:
    """``[0, 1, ..., n - 1]`` for the first axis of `buffer` (n may be unknown)."""
    from eagerflow.ops import creation, reduce

    ones = creation.ones_like(buffer, dtype=dtypes.int32)
    column = reduce.reduce_max(ones, axis=tuple(range(1, buffer.ndim))) if buffer.ndim > 1 \
        else ones
    return reduce.cumsum(column, axis=0) - 1


def map_fn(fn: Callable[..., Any], elems: Any, dtype: Any = None,
           parallel_iterations: Any = None, back_prop: bool = True, swap_memory: bool = False,
           infer_shape: bool = True, name: str | None = None,
           fn_output_signature: Any = None) -> Any:
    """Applies `fn` to each row of `elems` (TensorFlow's ``tf.map_fn``) and stacks the
    results.

    `elems` may be a tensor or a (nested) structure of tensors with the same first
    dimension; `fn` receives one row of each in that structure. Eagerly and when the
    number of rows is known while tracing, the rows are mapped one after another (a
    traced function holds one copy of `fn`'s ops per row); with an unknown number of
    rows it is a graph loop.

    Args:
        fn: a function of one row (or structure of rows).
        elems: a tensor or structure of tensors.
        dtype, fn_output_signature: the output dtype(s) or `ef.TensorSpec`s when they
            differ from the input's; needed for a graph loop over an unknown number of
            rows, whose output shape must be known before the loop.
        parallel_iterations, back_prop, swap_memory, infer_shape, name: accepted for
            TensorFlow compatibility.

    Returns:
        The stacked results, in the structure `fn` returns.

    Raises:
        ValueError: if `elems` is empty or its tensors have different first dimensions.

    Examples:
        >>> import eagerflow as ef
        >>> ef.map_fn(lambda row: ef.reduce_sum(row), ef.constant([[1, 2], [3, 4]]))
        ef.Tensor([3 7], shape=(2,), dtype=int32)
    """
    del parallel_iterations, back_prop, swap_memory, infer_shape, name
    from eagerflow.ops import array_ops as array

    flat = [dispatch.convert_input(e) for e in nest.flatten(elems)]
    if not flat or any(e.ndim == 0 for e in flat):
        raise ValueError("map_fn: elems must be one or more tensors of rank >= 1")
    rows = {e.shape[0] for e in flat}
    if len(rows) > 1:
        raise ValueError(f"map_fn: the tensors of elems have different first dimensions "
                         f"{sorted(rows, key=str)}")
    count = rows.pop()
    signature = fn_output_signature if fn_output_signature is not None else dtype
    if count is not None:
        results = [fn(nest.pack_sequence_as(elems, [e[k] for e in flat]))
                   for k in range(count)]
        if count == 0:
            specs: list[Any] = nest.flatten(signature) if signature is not None else [flat[0]]
            return nest.pack_sequence_as(
                signature if signature is not None else elems,
                [_zeros((0, *tuple(getattr(s, "shape", ())[1 if s is flat[0] else 0:])),
                        dtypes.as_dtype(getattr(s, "dtype", s))) for s in specs])
        return nest.map_structure(lambda *values: array.stack(list(values)), *results)
    return _map_loop(fn, elems, flat, signature)


def _map_loop(fn: Callable[..., Any], elems: Any, flat: list, signature: Any) -> Any:
    """`map_fn` over an unknown number of rows: a while loop growing one array per output."""
    from eagerflow.core import spec as spec_lib
    from eagerflow.ops import array_ops as array
    from eagerflow.ops import indexing, logic

    if signature is None:
        raise errors.InvalidArgumentError(
            "map_fn over a tensor whose number of rows is unknown while tracing needs "
            "fn_output_signature= (ef.TensorSpec(shape, dtype) of one result) to build its "
            "loop.", "MapFn")
    specs = nest.flatten(signature)
    for s in specs:
        if not isinstance(s, spec_lib.TensorSpec) or s.shape is None or None in s.shape:
            raise errors.InvalidArgumentError(
                f"map_fn: fn_output_signature must give each result's full shape as an "
                f"ef.TensorSpec, got {s!r}", "MapFn")
    count = array.shape(flat[0])[0]
    starts = [_zeros((0, *s.shape), dtypes.as_dtype(s.dtype)) for s in specs]

    def body(i: Any, *buffers: Any) -> Any:
        out = nest.flatten(fn(nest.pack_sequence_as(elems, [indexing.gather(e, i) for e in flat])))
        grown = [array.concat([b, array.expand_dims(dispatch.convert_input(o, dtype=b.dtype), 0)],
                              0) for b, o in zip(buffers, out, strict=True)]
        return (i + 1, *grown)

    result = control_flow.while_loop(lambda i, *_: logic.less(i, count), body,
                                     (dispatch.convert_input(0), *starts))
    return nest.pack_sequence_as(signature, list(result[1:]))
