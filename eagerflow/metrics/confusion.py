"""Confusion-matrix metrics: `Precision`, `Recall` and the cell counts (`TruePositives`,
`FalsePositives`, `TrueNegatives`, `FalseNegatives`), exact over every batch seen.

They accumulate true/false positives and negatives per threshold (a prediction is
positive when it is strictly greater than the threshold; a label is positive when it is
non-zero), so the epoch result is exact rather than a mean of batch values.
`update_confusion_matrix` is shared with `AUC` and the sensitivity/specificity metrics.

Examples:
    >>> import eagerflow as ef
    >>> m = ef.metrics.Precision()
    >>> _ = m([0, 1, 1, 1], [1, 0, 1, 1])
    >>> round(float(m.result()), 4)
    0.6667
"""

from __future__ import annotations

from typing import Any

import numpy as np

from eagerflow.core import errors
from eagerflow.metrics import metric
from eagerflow.ops import array_ops as array, creation, indexing, logic, math, reduce
from eagerflow.ops.typing import DTypeLike, TensorLike
from eagerflow.saving import registry
from eagerflow.utils import naming

NEG_INF = -1e10  # Keras's stand-in for -inf: the score given to predictions outside top_k


def parse_thresholds(thresholds, default: float, owner: str) -> list[float]:
    """Thresholds as a list of floats in [0, 1] (or `[default]` when None)."""
    if thresholds is None:
        return [default]
    values = [float(t) for t in np.ravel(thresholds)]
    invalid = [t for t in values if not 0.0 <= t <= 1.0]
    if invalid or not values:
        raise ValueError(
            f"{owner}: threshold values must be in [0, 1]. Received: thresholds={thresholds!r}"
        )
    return values


def _filter_top_k(scores, k: int):
    """Keeps the k highest scores of the last axis (first index wins ties); NEG_INF else."""
    _, order = reduce.top_k(scores, k)
    keep = reduce.reduce_max(indexing.one_hot(order, scores.shape[-1], dtype=np.float32),
                             axis=-2)
    return math.where(logic.greater(keep, 0), scores, NEG_INF)


def broadcast_weights(sample_weight, like, owner: str):
    """`sample_weight` broadcast to the shape of `like` from its leading axes (float64).

    Weights of shape ``(n,)``, ``(n, 1)`` or a scalar fit predictions of shape ``(n, ...)``.

    Raises:
        InvalidArgumentError: naming `owner` when the weights do not broadcast.
    """
    original = weights = metric.as_tensor(sample_weight, np.float64)
    if weights.ndim == like.ndim + 1 and weights.shape[-1] == 1:
        weights = array.squeeze(weights, -1)
    if weights.ndim < like.ndim:
        weights = array.reshape(weights, tuple(weights.shape) + (1,) * (like.ndim - weights.ndim))
    source, target = tuple(weights.shape), tuple(like.shape)
    if len(source) > len(target) or not all(
            s in (1, t) for s, t in zip(source[::-1], target[::-1], strict=False)):
        raise errors.InvalidArgumentError(
            f"{owner}: sample_weight of shape {tuple(original.shape)} cannot be broadcast to "
            f"the predictions of shape {target}."
        )
    return array.broadcast_to(weights, target)


def update_confusion_matrix(y_true, y_pred, thresholds, sample_weight=None, top_k=None,
                            class_id=None, owner="metric") -> dict:
    """Counts weighted TP, FP, TN, FN per threshold for one batch.

    Args:
        y_true: labels (non-zero is positive), same shape as `y_pred` (up to a trailing 1).
        y_pred: scores; positive at threshold ``t`` when ``y_pred > t``.
        thresholds: 1-D list of thresholds, in any order.
        sample_weight: optional weights broadcastable from the leading axes.
        top_k: keep only the k highest scores of the last axis as candidates.
        class_id: restrict to this index of the last axis.
        owner: the metric name used in error messages.

    Returns:
        ``{"tp", "fp", "tn", "fn"}`` float64 tensors of shape ``(len(thresholds),)``.

    Raises:
        InvalidArgumentError: for mismatched shapes, a bad `class_id`, or weights that do not
            broadcast.
    """
    y_pred = metric.as_tensor(y_pred, np.float32)
    y_true = metric.as_tensor(y_true)
    y_pred, y_true = metric.squeeze_or_expand_to_same_rank(y_pred, y_true)
    if tuple(y_true.shape) != tuple(y_pred.shape):
        raise errors.InvalidArgumentError(
            f"{owner}: y_true and y_pred must have the same shape. Received: "
            f"y_true.shape={tuple(y_true.shape)}, y_pred.shape={tuple(y_pred.shape)}"
        )
    weights = None if sample_weight is None else broadcast_weights(sample_weight, y_pred, owner)
    if top_k is not None:
        y_pred = _filter_top_k(y_pred, top_k)
    if class_id is not None:
        if y_pred.ndim < 2 or not 0 <= class_id < y_pred.shape[-1]:
            raise errors.InvalidArgumentError(
                f"{owner}: class_id={class_id} needs y_pred of shape (num_samples, "
                f"num_classes) with more than {class_id} classes. Received: "
                f"y_pred.shape={tuple(y_pred.shape)}"
            )
        y_true, y_pred = y_true[..., class_id], y_pred[..., class_id]
        weights = None if weights is None else weights[..., class_id]
    positive = math.cast(logic.not_equal(array.reshape(y_true, (1, -1)), 0), np.float64)
    scores = array.reshape(y_pred, (1, -1))
    if weights is not None:
        weights = array.reshape(weights, (1, -1))
        labelled_pos = math.multiply(positive, weights)
        labelled_neg = math.multiply(math.subtract(1.0, positive), weights)
    else:
        labelled_pos, labelled_neg = positive, math.subtract(1.0, positive)
    # (thresholds, predictions): a prediction is positive above a threshold; NaN never is.
    column = creation.constant(np.asarray(thresholds, np.float32).reshape(-1, 1))
    predicted = math.cast(logic.greater(scores, column), np.float64)
    tp = reduce.reduce_sum(math.multiply(predicted, labelled_pos), axis=1)
    fp = reduce.reduce_sum(math.multiply(predicted, labelled_neg), axis=1)
    return {"tp": tp, "fp": fp,
            "fn": math.subtract(reduce.reduce_sum(labelled_pos), tp),
            "tn": math.subtract(reduce.reduce_sum(labelled_neg), fp)}


class _ConfusionMetric(metric.Metric):
    """Shared constructor and update of `Precision` and `Recall`."""

    _cells: tuple = ()
    # Made in `__init__`, one per name in `_cells`.
    true_positives: Any
    false_positives: Any
    true_negatives: Any
    false_negatives: Any

    def __init__(self, thresholds: Any = None, top_k: Any = None, class_id: Any = None,
                 name: str | None = None, dtype: DTypeLike = None) -> None:
        super().__init__(name=name, dtype=dtype)
        owner = type(self).__name__
        if top_k is not None and (isinstance(top_k, bool) or not isinstance(
                top_k, (int, np.integer)) or top_k < 1):
            raise ValueError(f"{owner}: `top_k` must be a positive int. Received: top_k={top_k!r}")
        self.init_thresholds = thresholds
        self.thresholds = parse_thresholds(thresholds, 0.5 if top_k is None else NEG_INF, owner)
        self.top_k = top_k
        self.class_id = class_id
        for cell in self._cells:
            setattr(self, cell, self.add_variable((len(self.thresholds),), name=cell))

    def update_state(self, y_true: TensorLike, y_pred: TensorLike,
                     sample_weight: TensorLike | None = None) -> None:
        """Adds one batch's confusion counts.

        Raises:
            InvalidArgumentError: for mismatched shapes, a bad `class_id` or weights.
        """
        counts = update_confusion_matrix(y_true, y_pred, self.thresholds, sample_weight,
                                         self.top_k, self.class_id, type(self).__name__)
        for cell in self._cells:
            metric.add_to(getattr(self, cell), counts[_CELL_KEYS[cell]])

    def _finish(self, value):
        return metric.result_tensor(value[0] if len(self.thresholds) == 1 else value,
                                    self.dtype)

    def get_config(self) -> dict:
        return {**super().get_config(), "thresholds": self.init_thresholds,
                "top_k": self.top_k, "class_id": self.class_id}


_CELL_KEYS = {"true_positives": "tp", "false_positives": "fp", "true_negatives": "tn",
              "false_negatives": "fn"}


class Precision(_ConfusionMetric):
    """``TP / (TP + FP)``: how many predicted positives are positive.

    Args:
        thresholds: a float or a list of floats in [0, 1] (default 0.5; with `top_k`, any
            score in the top k counts as positive). With a list, `result()` is a vector.
        top_k: only the k highest scores of each row count as positive predictions.
        class_id: compute it for one class of multi-class predictions.
        name, dtype: see `Metric`.

    Raises:
        ValueError: for thresholds outside [0, 1] or a bad `top_k`.

    Examples:
        >>> import eagerflow as ef
        >>> m = ef.metrics.Precision(thresholds=[0.3, 0.8])
        >>> m([1, 0, 1], [0.9, 0.5, 0.4])
        ef.Tensor([0.6667 1.       ], shape=(2,), dtype=float32)
    """

    _cells = ("true_positives", "false_positives")

    def result(self) -> Any:
        return self._finish(metric.divide_no_nan(
            self.true_positives, self.true_positives + self.false_positives))


class Recall(_ConfusionMetric):
    """``TP / (TP + FN)``: how many positives are predicted positive.

    Args:
        thresholds, top_k, class_id, name, dtype: as in `Precision`.

    Raises:
        ValueError: for thresholds outside [0, 1] or a bad `top_k`.

    Examples:
        >>> import eagerflow as ef
        >>> m = ef.metrics.Recall(class_id=1)
        >>> float(m([[0, 1], [0, 1], [1, 0]], [[0.2, 0.8], [0.7, 0.3], [0.1, 0.9]]))
        0.5
    """

    _cells = ("true_positives", "false_negatives")

    def result(self) -> Any:
        return self._finish(metric.divide_no_nan(
            self.true_positives, self.true_positives + self.false_negatives))


class _ConditionCount(metric.Metric):
    """The weighted count of one confusion-matrix cell, per threshold."""

    _cell = ""

    def __init__(self, thresholds: Any = None, name: str | None = None,
                 dtype: DTypeLike = None) -> None:
        super().__init__(name=name, dtype=dtype)
        self.init_thresholds = thresholds
        self.thresholds = parse_thresholds(thresholds, 0.5, type(self).__name__)
        self.accumulator = self.add_variable((len(self.thresholds),), name="accumulator")

    def update_state(self, y_true: TensorLike, y_pred: TensorLike,
                     sample_weight: TensorLike | None = None) -> None:
        """Adds one batch's count (the sum of the weights of the matching predictions).

        Raises:
            InvalidArgumentError: for mismatched shapes or weights that do not broadcast.
        """
        counts = update_confusion_matrix(y_true, y_pred, self.thresholds, sample_weight,
                                         owner=type(self).__name__)
        metric.add_to(self.accumulator, counts[self._cell])

    def result(self) -> Any:
        value = self.accumulator.value
        return metric.result_tensor(value[0] if len(self.thresholds) == 1 else value,
                                    self.dtype)

    def get_config(self) -> dict:
        return {**super().get_config(), "thresholds": self.init_thresholds}


class TruePositives(_ConditionCount):
    """How many positive labels are predicted positive (``y_pred > threshold``).

    With `sample_weight`, the sum of their weights.

    Args:
        thresholds: a float or a list of floats in [0, 1] (default 0.5); with a list,
            `result()` is a vector with one count per threshold.
        name, dtype: see `Metric`.

    Raises:
        ValueError: for thresholds outside [0, 1].

    Examples:
        >>> import eagerflow as ef
        >>> m = ef.metrics.TruePositives()
        >>> float(m([0, 1, 1, 1], [1, 0, 1, 1]))
        2.0
        >>> float(m([1], [0.9], sample_weight=[0.5]))
        2.5
    """

    _cell = "tp"


class FalsePositives(_ConditionCount):
    """How many negative labels are predicted positive (``y_pred > threshold``).

    Args:
        thresholds, name, dtype: as in `TruePositives`.

    Raises:
        ValueError: for thresholds outside [0, 1].

    Examples:
        >>> import eagerflow as ef
        >>> m = ef.metrics.FalsePositives(thresholds=[0.3, 0.7])
        >>> m([0, 0, 1, 0], [0.5, 0.8, 0.9, 0.1]).numpy()
        array([2., 1.], dtype=float32)
    """

    _cell = "fp"


class TrueNegatives(_ConditionCount):
    """How many negative labels are predicted negative (``y_pred <= threshold``).

    Args:
        thresholds, name, dtype: as in `TruePositives`.

    Raises:
        ValueError: for thresholds outside [0, 1].

    Examples:
        >>> import eagerflow as ef
        >>> float(ef.metrics.TrueNegatives()([0, 1, 0, 0], [1, 1, 0, 0]))
        2.0
    """

    _cell = "tn"


class FalseNegatives(_ConditionCount):
    """How many positive labels are predicted negative (``y_pred <= threshold``).

    Args:
        thresholds, name, dtype: as in `TruePositives`.

    Raises:
        ValueError: for thresholds outside [0, 1].

    Examples:
        >>> import eagerflow as ef
        >>> float(ef.metrics.FalseNegatives()([0, 1, 1, 1], [0, 1, 0, 0.5]))
        2.0
    """

    _cell = "fn"


registry.register("metric", Precision, "precision")
registry.register("metric", Recall, "recall")
for _count in (TruePositives, FalsePositives, TrueNegatives, FalseNegatives):
    registry.register("metric", _count, naming.snake_case(_count.__name__))
