"""Accuracy metrics: exact match, thresholded binary, categorical, sparse, top-k and
sparse top-k.

Each function returns 1.0 or 0.0 per sample (as a float32 Tensor); each class is the
running mean of its function over every sample seen, with optional sample weights.

Examples:
    >>> import eagerflow as ef
    >>> m = ef.metrics.SparseCategoricalAccuracy()
    >>> float(m([0, 1], [[0.9, 0.1], [0.8, 0.2]]))
    0.5
    >>> round(float(m([1], [[0.3, 0.7]])), 4)
    0.6667
"""

from __future__ import annotations

import numpy as np

from eagerflow.core import errors
from eagerflow.metrics import metric, reduction
from eagerflow.ops import array_ops as array, indexing, logic, math, reduce
from eagerflow.ops.typing import DTypeLike, Tensor, TensorLike
from eagerflow.saving import registry
from eagerflow.utils.naming import snake_case


def _tensor(matches):
    return math.cast(matches, np.float32)


def _same_shape(y_true, y_pred, owner):
    if tuple(y_true.shape) != tuple(y_pred.shape):
        raise errors.InvalidArgumentError(
            f"{owner}: y_true and y_pred must have the same shape. Received: "
            f"y_true.shape={tuple(y_true.shape)}, y_pred.shape={tuple(y_pred.shape)}"
        )


def _class_scores(y_pred: Tensor, owner: str) -> Tensor:
    if y_pred.ndim == 0:
        raise errors.InvalidArgumentError(
            f"{owner}: y_pred must have a class axis (rank >= 1). Received: "
            f"y_pred.shape={tuple(y_pred.shape)}"
        )
    return y_pred


def accuracy(y_true: TensorLike, y_pred: TensorLike) -> Tensor:
    """1.0 where ``y_true == y_pred`` exactly (after aligning a trailing axis of size 1).

    Raises:
        InvalidArgumentError: if the shapes differ.

    Examples:
        >>> import eagerflow as ef
        >>> ef.metrics.accuracy([1, 2, 3], [1, 2, 4])
        ef.Tensor([1. 1. 0.], shape=(3,), dtype=float32)
    """
    y_pred = metric.as_tensor(y_pred)
    y_true = metric.as_tensor(y_true, y_pred.dtype)
    y_true, y_pred = metric.squeeze_or_expand_to_same_rank(y_true, y_pred)
    _same_shape(y_true, y_pred, "accuracy")
    return _tensor(logic.equal(y_true, y_pred))


def binary_accuracy(y_true: TensorLike, y_pred: TensorLike, threshold: float = 0.5) -> Tensor:
    """1.0 where ``(y_pred > threshold) == y_true``, per element.

    Raises:
        InvalidArgumentError: if the shapes differ.

    Examples:
        >>> import eagerflow as ef
        >>> ef.metrics.binary_accuracy([1.0, 0.0, 1.0], [0.7, 0.5, 0.2])
        ef.Tensor([1. 1. 0.], shape=(3,), dtype=float32)
    """
    y_pred = metric.as_tensor(y_pred)
    y_true = metric.as_tensor(y_true)
    y_true, y_pred = metric.squeeze_or_expand_to_same_rank(y_true, y_pred)
    _same_shape(y_true, y_pred, "binary_accuracy")
    predicted = math.cast(logic.greater(y_pred, threshold), y_true.dtype)
    return _tensor(logic.equal(predicted, y_true))


def categorical_accuracy(y_true: TensorLike, y_pred: TensorLike) -> Tensor:
    """1.0 where the argmax of one-hot `y_true` equals the argmax of `y_pred`.

    Raises:
        InvalidArgumentError: if the shapes differ or there is no class axis.

    Examples:
        >>> import eagerflow as ef
        >>> ef.metrics.categorical_accuracy([[0, 1], [1, 0]], [[0.2, 0.8], [0.3, 0.7]])
        ef.Tensor([1. 0.], shape=(2,), dtype=float32)
    """
    y_pred = _class_scores(metric.as_tensor(y_pred), "categorical_accuracy")
    y_true = metric.as_tensor(y_true)
    _same_shape(y_true, y_pred, "categorical_accuracy")
    return _tensor(logic.equal(reduce.argmax(y_true, axis=-1), reduce.argmax(y_pred, axis=-1)))


def _sparse_labels(y_true, y_pred, owner: str):
    original = labels = metric.as_tensor(y_true)
    if labels.ndim == y_pred.ndim and labels.ndim and labels.shape[-1] == 1:
        labels = array.squeeze(labels, -1)
    if tuple(labels.shape) != tuple(y_pred.shape[:-1]):
        raise errors.InvalidArgumentError(
            f"{owner}: y_true must hold one class index per row of y_pred (shape "
            f"{tuple(y_pred.shape[:-1])}, or with a trailing axis of size 1). Received: "
            f"y_true.shape={tuple(original.shape)}, y_pred.shape={tuple(y_pred.shape)}"
        )
    return labels


def sparse_categorical_accuracy(y_true: TensorLike, y_pred: TensorLike) -> Tensor:
    """1.0 where the integer label `y_true` equals the argmax of `y_pred`.

    Raises:
        InvalidArgumentError: if `y_true` does not have shape ``y_pred.shape[:-1]``.

    Examples:
        >>> import eagerflow as ef
        >>> ef.metrics.sparse_categorical_accuracy([[1], [0]], [[0.2, 0.8], [0.3, 0.7]])
        ef.Tensor([1. 0.], shape=(2,), dtype=float32)
    """
    y_pred = _class_scores(metric.as_tensor(y_pred), "sparse_categorical_accuracy")
    labels = _sparse_labels(y_true, y_pred, "sparse_categorical_accuracy")
    predicted = reduce.argmax(y_pred, axis=-1)
    if labels.dtype.kind in "iu":
        labels = math.cast(labels, predicted.dtype)
    else:
        predicted = math.cast(predicted, labels.dtype)
    return _tensor(logic.equal(labels, predicted))


def _in_top_k(labels, scores, k: int):
    """TensorFlow's `in_top_k`: ties with the k-th score count as inside the top k."""
    classes = scores.shape[-1]
    labels = math.cast(labels, np.int64)
    valid = logic.logical_and(logic.greater_equal(labels, 0), logic.less(labels, classes))
    safe = math.where(valid, labels, 0)
    target = reduce.reduce_sum(math.where(indexing.one_hot(safe, classes, dtype=np.bool_),
                                          scores, 0), axis=-1, keepdims=True)
    higher = reduce.reduce_sum(math.cast(logic.greater(scores, target), np.int64), axis=-1)
    # x - x is 0 exactly for finite x (NaN for NaN and the infinities).
    finite = reduce.reduce_all(logic.equal(math.subtract(scores, scores), 0), axis=-1)
    return logic.logical_and(logic.logical_and(valid, finite), logic.less(higher, k))


def top_k_categorical_accuracy(y_true: TensorLike, y_pred: TensorLike, k: int = 5) -> Tensor:
    """1.0 where the true class (argmax of one-hot `y_true`) is among the top `k` scores.

    Raises:
        InvalidArgumentError: if the shapes differ.
        ValueError: if `k` is not a positive int.

    Examples:
        >>> import eagerflow as ef
        >>> ef.metrics.top_k_categorical_accuracy([[0, 0, 1], [0, 1, 0]],
        ...                                       [[0.5, 0.4, 0.1], [0.3, 0.6, 0.1]], k=2)
        ef.Tensor([0. 1.], shape=(2,), dtype=float32)
    """
    _check_k(k, "top_k_categorical_accuracy")
    y_pred = _class_scores(metric.as_tensor(y_pred), "top_k_categorical_accuracy")
    y_true = metric.as_tensor(y_true)
    _same_shape(y_true, y_pred, "top_k_categorical_accuracy")
    return _tensor(_in_top_k(reduce.argmax(y_true, axis=-1), y_pred, k))


def sparse_top_k_categorical_accuracy(y_true: TensorLike, y_pred: TensorLike, k: int = 5,
                                      from_sorted_ids: bool = False) -> Tensor:
    """1.0 where the integer label `y_true` is among the top `k` entries of `y_pred`.

    Args:
        y_true: class indices of shape ``y_pred.shape[:-1]`` (or with a trailing 1).
        y_pred: scores for every class (ties with the k-th score count as inside, as in
            TensorFlow); with ``from_sorted_ids=True``, class ids sorted from the highest
            score down (only the first `k` columns are looked at).
        k: how many top entries count.
        from_sorted_ids: whether `y_pred` holds sorted class ids instead of scores.

    Raises:
        InvalidArgumentError: if `y_true` does not have shape ``y_pred.shape[:-1]``.
        ValueError: if `k` is not a positive int.

    Examples:
        >>> import eagerflow as ef
        >>> ef.metrics.sparse_top_k_categorical_accuracy(
        ...     [2, 1], [[0.5, 0.4, 0.1], [0.3, 0.6, 0.1]], k=2)
        ef.Tensor([0. 1.], shape=(2,), dtype=float32)
        >>> ef.metrics.sparse_top_k_categorical_accuracy([2, 1], [[0, 2], [2, 0]], k=1,
        ...                                              from_sorted_ids=True)
        ef.Tensor([0. 0.], shape=(2,), dtype=float32)
    """
    owner = "sparse_top_k_categorical_accuracy"
    _check_k(k, owner)
    y_pred = _class_scores(metric.as_tensor(y_pred), owner)
    labels = _sparse_labels(y_true, y_pred, owner)
    if not from_sorted_ids:
        return _tensor(_in_top_k(labels, y_pred, k))
    top_ids = y_pred[..., :k]
    if labels.dtype != top_ids.dtype:
        labels = math.cast(labels, np.float64)
        top_ids = math.cast(top_ids, np.float64)
    # any() over the k ids: an id listed twice still counts once.
    return _tensor(reduce.reduce_any(logic.equal(array.expand_dims(labels, -1), top_ids),
                                     axis=-1))


def _check_k(k, owner: str) -> int:
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"{owner}: `k` must be a positive int. Received: k={k!r}")
    return int(k)


class Accuracy(reduction.MeanMetricWrapper):
    """How often predictions equal labels exactly; see `accuracy`.

    Examples:
        >>> import eagerflow as ef
        >>> float(ef.metrics.Accuracy()([[1], [2], [3], [4]], [[0], [2], [3], [4]]))
        0.75
    """

    def __init__(self, name: str | None = "accuracy", dtype: DTypeLike = None) -> None:
        super().__init__(accuracy, name=name, dtype=dtype)


class BinaryAccuracy(reduction.MeanMetricWrapper):
    """How often thresholded predictions match binary labels; see `binary_accuracy`.

    Args:
        threshold: a prediction above it counts as 1.
        name, dtype: see `Metric`.

    Examples:
        >>> import eagerflow as ef
        >>> float(ef.metrics.BinaryAccuracy()([[1], [1], [0], [0]], [[0.98], [1], [0], [0.6]]))
        0.75
    """

    def __init__(self, name: str | None = "binary_accuracy", dtype: DTypeLike = None,
                 threshold: float = 0.5) -> None:
        super().__init__(binary_accuracy, name=name, dtype=dtype, threshold=threshold)
        self.threshold = threshold


class CategoricalAccuracy(reduction.MeanMetricWrapper):
    """How often the predicted class matches the one-hot label; see `categorical_accuracy`.

    Examples:
        >>> import eagerflow as ef
        >>> float(ef.metrics.CategoricalAccuracy()([[0, 0, 1], [0, 1, 0]],
        ...                                        [[0.1, 0.9, 0.8], [0.05, 0.95, 0]]))
        0.5
    """

    def __init__(self, name: str | None = "categorical_accuracy", dtype: DTypeLike = None) -> None:
        super().__init__(categorical_accuracy, name=name, dtype=dtype)


class SparseCategoricalAccuracy(reduction.MeanMetricWrapper):
    """How often the predicted class matches the integer label.

    See `sparse_categorical_accuracy`.

    Examples:
        >>> import eagerflow as ef
        >>> float(ef.metrics.SparseCategoricalAccuracy()([[2], [1]],
        ...                                              [[0.1, 0.6, 0.3], [0.05, 0.95, 0]]))
        0.5
    """

    def __init__(self, name: str | None = "sparse_categorical_accuracy",
                 dtype: DTypeLike = None) -> None:
        super().__init__(sparse_categorical_accuracy, name=name, dtype=dtype)


class TopKCategoricalAccuracy(reduction.MeanMetricWrapper):
    """How often the true class is among the `k` highest scores.

    See `top_k_categorical_accuracy`; ties at the k-th score count as inside, as in
    TensorFlow.

    Args:
        k: how many top scores count.
        name, dtype: see `Metric`.

    Raises:
        ValueError: if `k` is not a positive int.

    Examples:
        >>> import eagerflow as ef
        >>> m = ef.metrics.TopKCategoricalAccuracy(k=1)
        >>> float(m([[0, 0, 1], [0, 1, 0]], [[0.1, 0.9, 0.8], [0.05, 0.95, 0]]))
        0.5
    """

    def __init__(self, k: int = 5, name: str | None = "top_k_categorical_accuracy",
                 dtype: DTypeLike = None) -> None:
        super().__init__(top_k_categorical_accuracy, name=name, dtype=dtype,
                         k=_check_k(k, "TopKCategoricalAccuracy"))
        self.k = k


class SparseTopKCategoricalAccuracy(reduction.MeanMetricWrapper):
    """How often the integer label is among the `k` highest scores.

    See `sparse_top_k_categorical_accuracy`.

    Args:
        k: how many top scores count.
        name, dtype: see `Metric`.
        from_sorted_ids: `y_pred` holds class ids sorted by decreasing score, not scores.

    Raises:
        ValueError: if `k` is not a positive int.

    Examples:
        >>> import eagerflow as ef
        >>> m = ef.metrics.SparseTopKCategoricalAccuracy(k=1)
        >>> float(m([2, 1], [[0.1, 0.9, 0.8], [0.05, 0.95, 0]]))
        0.5
        >>> m.reset_state()
        >>> float(m([2, 1], [[0.1, 0.9, 0.8], [0.05, 0.95, 0]], sample_weight=[0.7, 0.3]))
        0.3
    """

    def __init__(self, k: int = 5, name: str | None = "sparse_top_k_categorical_accuracy",
                 dtype: DTypeLike = None, from_sorted_ids: bool = False) -> None:
        super().__init__(sparse_top_k_categorical_accuracy, name=name, dtype=dtype,
                         k=_check_k(k, "SparseTopKCategoricalAccuracy"),
                         from_sorted_ids=bool(from_sorted_ids))
        self.k = k
        self.from_sorted_ids = bool(from_sorted_ids)


for _metric in (Accuracy, BinaryAccuracy, CategoricalAccuracy, SparseCategoricalAccuracy,
                TopKCategoricalAccuracy, SparseTopKCategoricalAccuracy):
    registry.register("metric", _metric, snake_case(_metric.__name__))
registry.register("metric", Accuracy, "acc")
