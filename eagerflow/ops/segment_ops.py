"""Segment reductions and counting (`ef.math.segment_sum`, `unsorted_segment_max`,
`bincount`, `confusion_matrix`, ...), TensorFlow's semantics.

Rows of `data` that share a segment id are reduced together. The sorted forms
(`segment_*`) take non-decreasing ids and return ``ids[-1] + 1`` segments; the unsorted
forms take any ids and an explicit `num_segments`, and drop the rows whose id is negative.
An empty segment gives 0 (sum, mean, sqrt_n, and max and min of the sorted forms), 1
(prod), and for the unsorted max and min the dtype's lowest or largest value, as
TensorFlow. Sums are a scatter (gradient: a gather); max, min
and prod reduce a masked copy, so their gradients are those of `reduce_max` and friends.

An output whose size depends on the values (``segment_sum``'s segment count, `bincount`
without `minlength == maxlength`, `confusion_matrix` without `num_classes`) is computed
eagerly; inside `ef.function` such an op raises an error that says which argument fixes
the size.

Examples:
    >>> import eagerflow as ef
    >>> ef.math.segment_sum([1.0, 2.0, 3.0], [0, 0, 1])
    ef.Tensor([3. 3.], shape=(2,), dtype=float32)
    >>> ef.math.unsorted_segment_max([1.0, 5.0, 3.0], [1, 1, 0], num_segments=2)
    ef.Tensor([3. 5.], shape=(2,), dtype=float32)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from eagerflow.core import context, errors
from eagerflow.ops import array_ops as _array
from eagerflow.ops import creation as _creation
from eagerflow.ops import indexing as _indexing
from eagerflow.ops import linalg_ops as _linalg
from eagerflow.ops import logic as _logic
from eagerflow.ops import math as _math
from eagerflow.ops import reduce as _reduce
from eagerflow.ops import unary as _unary
from eagerflow.ops.typing import DTypeLike, Tensor, TensorLike


def data_dependent(op_name: str, fix: str) -> None:
    """Raises inside `ef.function` for an op whose output size depends on input values.

    Args:
        op_name: the public name of the op.
        fix: the argument(s) that make the size static, or "" when nothing does.

    Raises:
        InvalidArgumentError: while a function is being traced.
    """
    if context.thread.tracer is not None:
        hint = f"; pass {fix} to fix it" if fix else "; call it outside ef.function"
        raise errors.InvalidArgumentError(
            f"{op_name}: the size of its output depends on the data, which is not known "
            f"while ef.function traces{hint}", op=op_name)


def _flat_ids(data: Tensor, segment_ids: TensorLike, op_name: str) -> tuple[Tensor, Tensor]:
    """`data` with its leading ``ids.ndim`` axes merged, and the ids as one vector."""
    ids = _creation.convert_to_tensor(segment_ids)
    if ids.dtype.kind not in "iu":
        raise errors.InvalidArgumentError(
            f"segment_ids must be integers, got {ids.dtype.name}", op=op_name)
    if data.shape[:ids.ndim] != ids.shape:
        raise errors.InvalidArgumentError(
            f"segment_ids.shape = {ids.shape} must be a prefix of data.shape = {data.shape}",
            op=op_name)
    count = int(np.prod(ids.shape, dtype=np.int64))
    return (_array.reshape(data, (count,) + data.shape[ids.ndim:]),
            _array.reshape(_math.cast(ids, "int64"), (count,)))


def _sorted_count(ids: Tensor, op_name: str) -> int:
    data_dependent(f"tf.math.{op_name}", "")
    values = ids.numpy()
    if values.size and (np.any(np.diff(values) < 0) or values[0] < 0):
        raise errors.InvalidArgumentError(
            f"segment ids must be non-negative and sorted, got {values.tolist()}", op=op_name)
    return int(values[-1]) + 1 if values.size else 0


def _scatter_sum(data: Tensor, ids: Tensor, num_segments: int) -> Tensor:
    # Negative ids go to an extra segment that is cut off afterwards.
    safe = _math.where(_logic.less(ids, 0), _creation.constant(num_segments, "int64"), ids)
    summed = _indexing.scatter_nd(_array.expand_dims(safe, 1), data,
                                  (num_segments + 1,) + data.shape[1:])
    return summed[:num_segments]


def _counts(data: Tensor, ids: Tensor, num_segments: int) -> Tensor:
    ones = _creation.ones((ids.shape[0],) + (1,) * (data.ndim - 1), data.dtype)
    return _scatter_sum(ones, ids, num_segments)


def _masked(data: Tensor, ids: Tensor, num_segments: int, fill: Any) -> Tensor:
    member = _indexing.one_hot(ids, num_segments, dtype="bool", axis=0)  # (segments, rows)
    mask = _array.reshape(member, member.shape + (1,) * (data.ndim - 1))
    return _math.where(mask, data, _creation.constant(fill, data.dtype))


def _extreme(data: Tensor, largest: bool) -> Any:
    info = np.finfo(data.dtype) if data.dtype.kind == "f" else np.iinfo(data.dtype)
    return info.min if largest else info.max


def _reduce_segments(kind: str, data: TensorLike, segment_ids: TensorLike,
                     num_segments: int | None, op_name: str) -> Tensor:
    data = _creation.convert_to_tensor(data)
    data, ids = _flat_ids(data, segment_ids, op_name)
    unsorted = num_segments is not None
    if num_segments is None:
        num_segments = _sorted_count(ids, op_name)
    num_segments = int(num_segments)
    if num_segments < 0:
        raise errors.InvalidArgumentError(
            f"num_segments must be non-negative, got {num_segments}", op=op_name)
    if kind == "sum":
        return _scatter_sum(data, ids, num_segments)
    if kind in ("mean", "sqrt_n"):
        counts = _math.maximum(_counts(data, ids, num_segments), 1.0)
        divisor = counts if kind == "mean" else _unary.sqrt(counts)
        return _math.divide(_scatter_sum(data, ids, num_segments), divisor)
    if kind == "prod":
        return _reduce.reduce_prod(_masked(data, ids, num_segments, 1), axis=1)
    fill = _extreme(data, kind == "max")
    reduce_fn = _reduce.reduce_max if kind == "max" else _reduce.reduce_min
    result = reduce_fn(_masked(data, ids, num_segments, fill), axis=1)
    if not unsorted:  # the sorted forms give 0 for an empty segment, the unsorted `fill`
        present = _logic.greater(_counts(data, ids, num_segments), 0)
        result = _math.where(present, result, _creation.zeros_like(result))
    return result


def segment_sum(data: TensorLike, segment_ids: TensorLike, name: str | None = None) -> Tensor:
    """Sums of the rows of `data` that share a segment id (sorted ids; see the module
    docstring for empty segments).

    Raises:
        InvalidArgumentError: for unsorted or negative ids, or inside `ef.function`
            (the row count depends on the ids).
    """
    return _reduce_segments("sum", data, segment_ids, None, "SegmentSum")


def segment_mean(data: TensorLike, segment_ids: TensorLike, name: str | None = None) -> Tensor:
    """Means of the rows of `data` that share a segment id (sorted ids).

    Raises:
        InvalidArgumentError: for unsorted or negative ids, or inside `ef.function`
            (the row count depends on the ids).
    """
    return _reduce_segments("mean", data, segment_ids, None, "SegmentMean")


def segment_max(data: TensorLike, segment_ids: TensorLike, name: str | None = None) -> Tensor:
    """Maxima of the rows of `data` that share a segment id (sorted ids).

    Raises:
        InvalidArgumentError: for unsorted or negative ids, or inside `ef.function`
            (the row count depends on the ids).
    """
    return _reduce_segments("max", data, segment_ids, None, "SegmentMax")


def segment_min(data: TensorLike, segment_ids: TensorLike, name: str | None = None) -> Tensor:
    """Minima of the rows of `data` that share a segment id (sorted ids).

    Raises:
        InvalidArgumentError: for unsorted or negative ids, or inside `ef.function`
            (the row count depends on the ids).
    """
    return _reduce_segments("min", data, segment_ids, None, "SegmentMin")


def segment_prod(data: TensorLike, segment_ids: TensorLike, name: str | None = None) -> Tensor:
    """Products of the rows of `data` that share a segment id (sorted ids).

    Raises:
        InvalidArgumentError: for unsorted or negative ids, or inside `ef.function`
            (the row count depends on the ids).
    """
    return _reduce_segments("prod", data, segment_ids, None, "SegmentProd")


def unsorted_segment_sum(data: TensorLike, segment_ids: TensorLike, num_segments: int,
                         name: str | None = None) -> Tensor:
    """Sums of the entries of `data` that share a segment id, ids in any order;
    negative ids are dropped.

    Raises:
        InvalidArgumentError: when `segment_ids`'s shape is not a prefix of `data`'s.
    """
    return _reduce_segments("sum", data, segment_ids, num_segments, "UnsortedSegmentSum")


def unsorted_segment_mean(data: TensorLike, segment_ids: TensorLike, num_segments: int,
                          name: str | None = None) -> Tensor:
    """Means of the entries of `data` that share a segment id, ids in any order.

    Raises:
        InvalidArgumentError: when `segment_ids`'s shape is not a prefix of `data`'s.
    """
    return _reduce_segments("mean", data, segment_ids, num_segments, "UnsortedSegmentMean")


def unsorted_segment_sqrt_n(data: TensorLike, segment_ids: TensorLike, num_segments: int,
                            name: str | None = None) -> Tensor:
    """Sums of the entries of `data` that share a segment id, divided by the square
    root of their count (TensorFlow's `unsorted_segment_sqrt_n`).

    Raises:
        InvalidArgumentError: when `segment_ids`'s shape is not a prefix of `data`'s.
    """
    return _reduce_segments("sqrt_n", data, segment_ids, num_segments,
                            "UnsortedSegmentSqrtN")


def unsorted_segment_max(data: TensorLike, segment_ids: TensorLike, num_segments: int,
                         name: str | None = None) -> Tensor:
    """Maxima of the entries of `data` that share a segment id, ids in any order.

    Raises:
        InvalidArgumentError: when `segment_ids`'s shape is not a prefix of `data`'s.
    """
    return _reduce_segments("max", data, segment_ids, num_segments, "UnsortedSegmentMax")


def unsorted_segment_min(data: TensorLike, segment_ids: TensorLike, num_segments: int,
                         name: str | None = None) -> Tensor:
    """Minima of the entries of `data` that share a segment id, ids in any order.

    Raises:
        InvalidArgumentError: when `segment_ids`'s shape is not a prefix of `data`'s.
    """
    return _reduce_segments("min", data, segment_ids, num_segments, "UnsortedSegmentMin")


def unsorted_segment_prod(data: TensorLike, segment_ids: TensorLike, num_segments: int,
                          name: str | None = None) -> Tensor:
    """Products of the entries of `data` that share a segment id, ids in any order.

    Raises:
        InvalidArgumentError: when `segment_ids`'s shape is not a prefix of `data`'s.
    """
    return _reduce_segments("prod", data, segment_ids, num_segments, "UnsortedSegmentProd")


def bincount(arr: TensorLike, weights: TensorLike | None = None, minlength: int | None = None,
             maxlength: int | None = None, dtype: DTypeLike = "int32", name: str | None = None,
             axis: int | None = None, binary_output: bool = False) -> Tensor:
    """Counts the occurrences of each non-negative integer in `arr` (`tf.math.bincount`).

    Args:
        arr: non-negative integers.
        weights: summed instead of counting 1 per occurrence (same shape as `arr`).
        minlength, maxlength: bounds on the output length, which is otherwise
            ``max(arr) + 1``; values at or above `maxlength` are not counted.
        dtype: the output dtype when `weights` is None.
        axis: None (count over everything) or -1 (count each row of a 2-D `arr`).
        binary_output: whether to output 1 for present values instead of counts.

    Returns:
        A vector (or one row per input row with ``axis=-1``).

    Raises:
        InvalidArgumentError: for negative values, a bad `axis`, or inside `ef.function`
            unless ``minlength == maxlength`` fixes the length.

    Examples:
        >>> import eagerflow as ef
        >>> ef.math.bincount([1, 1, 3])
        ef.Tensor([0 2 0 1], shape=(4,), dtype=int32)
    """
    values = _creation.convert_to_tensor(arr)
    if axis not in (None, 0, -1):
        raise errors.InvalidArgumentError(f"axis must be None, 0 or -1, got {axis}",
                                          op="Bincount")
    if minlength is not None and minlength == maxlength:
        length = int(minlength)
    else:
        data_dependent("tf.math.bincount", "minlength equal to maxlength")
        array = values.numpy()
        if array.size and array.min() < 0:
            raise errors.InvalidArgumentError(
                f"arr must be non-negative, got minimum {array.min()}", op="Bincount")
        length = int(array.max()) + 1 if array.size else 0
        length = max(length, int(minlength or 0))
        length = length if maxlength is None else min(length, int(maxlength))
    return count_into(values, weights, length, dtype, axis == -1 and values.ndim == 2,
                      binary_output)


def count_into(values: Tensor, weights: TensorLike | None, length: int, dtype: DTypeLike,
               per_row: bool, binary_output: bool) -> Tensor:
    """Counts (or sums `weights`) into `length` bins; values outside ``[0, length)`` are
    dropped. Per row of a matrix when `per_row`."""
    hot = _indexing.one_hot(values, length, dtype="bool")  # (..., length)
    if weights is None or binary_output:
        counts = _reduce.reduce_sum(_math.cast(hot, "int64"),
                                    axis=-2 if per_row else list(range(values.ndim)))
        if binary_output:
            counts = _math.cast(_logic.greater(counts, 0), counts.dtype)
        return _math.cast(counts, dtype if weights is None else
                          _creation.convert_to_tensor(weights).dtype)
    weights = _creation.convert_to_tensor(weights)
    spread = _math.multiply(_math.cast(hot, weights.dtype), _array.expand_dims(weights, -1))
    return _reduce.reduce_sum(spread, axis=-2 if per_row else list(range(values.ndim)))


def confusion_matrix(labels: TensorLike, predictions: TensorLike,
                     num_classes: int | None = None, weights: TensorLike | None = None,
                     dtype: DTypeLike = "int32", name: str | None = None) -> Tensor:
    """The confusion matrix: entry ``[i, j]`` counts (or sums the `weights` of) the
    examples with label `i` predicted as `j` (`tf.math.confusion_matrix`).

    Args:
        labels, predictions: integer class vectors of one length.
        num_classes: the matrix size; by default ``max(labels, predictions) + 1``.
        weights: one weight per example (optional).
        dtype: the result's dtype.

    Returns:
        A ``(num_classes, num_classes)`` matrix.

    Raises:
        InvalidArgumentError: for mismatched lengths, negative classes, classes at or above
            `num_classes`, or inside `ef.function` without `num_classes`.

    Examples:
        >>> import eagerflow as ef
        >>> ef.math.confusion_matrix([1, 2, 4], [2, 2, 4])
        ef.Tensor(
        [[0 0 0 0 0]
         [0 0 1 0 0]
         [0 0 1 0 0]
         [0 0 0 0 0]
         [0 0 0 0 1]], shape=(5, 5), dtype=int32)
    """
    labels = _creation.convert_to_tensor(labels)
    predictions = _creation.convert_to_tensor(predictions)
    if labels.shape != predictions.shape or labels.ndim != 1:
        raise errors.InvalidArgumentError(
            f"labels and predictions must be vectors of one length, got shapes {labels.shape}"
            f" and {predictions.shape}", op="ConfusionMatrix")
    if context.thread.tracer is None:
        both = np.concatenate([labels.numpy(), predictions.numpy()]).astype(np.int64)
        if both.size and both.min() < 0:
            raise errors.InvalidArgumentError(
                f"labels and predictions must be non-negative, got {both.min()}",
                op="ConfusionMatrix")
        if num_classes is not None and both.size and both.max() >= num_classes:
            raise errors.InvalidArgumentError(
                f"labels and predictions must be < num_classes = {num_classes}, got "
                f"{both.max()}", op="ConfusionMatrix")
        if num_classes is None:
            num_classes = int(both.max()) + 1 if both.size else 0
    elif num_classes is None:
        data_dependent("tf.math.confusion_matrix", "num_classes")
    classes = int(num_classes or 0)  # None only inside a trace, where data_dependent raised
    weight_dtype = dtype if weights is None else _creation.convert_to_tensor(weights).dtype
    rows = _math.cast(_indexing.one_hot(labels, classes), weight_dtype)
    if weights is not None:
        rows = _math.multiply(rows, _array.expand_dims(_math.cast(weights, weight_dtype), -1))
    columns = _math.cast(_indexing.one_hot(predictions, classes), weight_dtype)
    return _math.cast(_linalg.matmul(rows, columns, transpose_a=True), dtype)
