"""F-scores: `FBetaScore` and `F1Score`, the weighted harmonic mean of precision and recall.

Predictions and labels have shape ``(batch_size, num_classes)`` (multi-class one-hot or
multi-label). Per class (or, with ``average="micro"``, over all cells) the metric
accumulates true positives, false positives, false negatives and the support (the
weighted count of positive labels), so the score over an epoch is exact:
``(1 + beta**2) * precision * recall / (beta**2 * precision + recall)``. A ratio with a
zero denominator counts as 0 (Keras adds 1e-7 to each denominator instead; the two
agree to about 1e-7).

The state Variables are created on the first update, when the number of classes is
known; until then `result()` is 0.0.

Examples:
    >>> import eagerflow as ef
    >>> m = ef.metrics.F1Score(average="macro", threshold=0.5)
    >>> round(float(m([[1, 0], [0, 1], [1, 1]], [[0.9, 0.2], [0.6, 0.7], [0.3, 0.8]])), 4)
    0.75
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from eagerflow.core import errors, variable
from eagerflow.metrics import confusion, metric
from eagerflow.ops import logic, math, reduce, unary
from eagerflow.ops.typing import DTypeLike, TensorLike
from eagerflow.saving import registry

_AVERAGES = (None, "micro", "macro", "weighted")
_CELLS = ("true_positives", "false_positives", "false_negatives", "intermediate_weights")


class FBetaScore(metric.Metric):
    """The F-beta score: ``(1 + b2) * precision * recall / (b2 * precision + recall)``.

    Args:
        average: ``None`` (one score per class, a vector), ``"micro"`` (one score from the
            counts of all classes together), ``"macro"`` (the unweighted mean of the class
            scores) or ``"weighted"`` (their mean weighted by each class's support).
        beta: how much more recall weighs than precision (> 0).
        threshold: a prediction above it counts as positive; with ``None``, each row's
            largest prediction (all of them if tied, unless it is about 0) is positive.
        name, dtype: see `Metric`.

    Raises:
        ValueError: for an unknown `average`, ``beta <= 0`` or a threshold outside
            ``(0, 1]``.

    Examples:
        >>> import eagerflow as ef
        >>> m = ef.metrics.FBetaScore(beta=2.0, threshold=0.5)
        >>> _ = m([[1, 1, 1], [1, 0, 0], [1, 1, 0]],
        ...       [[0.2, 0.6, 0.7], [0.2, 0.6, 0.6], [0.6, 0.8, 0.0]])
        >>> [round(float(v), 4) for v in m.result()]
        [0.3846, 0.9091, 0.8333]
    """

    # The state, made by `_build` once the first batch shows the number of classes.
    true_positives: variable.Variable
    false_positives: variable.Variable
    false_negatives: variable.Variable
    intermediate_weights: variable.Variable

    def __init__(self, average: str | None = None, beta: float = 1.0,
                 threshold: float | None = None,
                 name: str | None = "fbeta_score", dtype: DTypeLike = None) -> None:
        super().__init__(name=name, dtype=dtype)
        owner = type(self).__name__
        if average not in _AVERAGES:
            raise ValueError(f"{owner}: `average` must be one of {list(_AVERAGES)}. "
                             f"Received: average={average!r}")
        if isinstance(beta, bool) or not isinstance(beta, numbers.Real) or not beta > 0:
            raise ValueError(f"{owner}: `beta` must be a number > 0. Received: beta={beta!r}")
        if threshold is not None and (isinstance(threshold, bool) or not isinstance(
                threshold, numbers.Real) or not 0.0 < threshold <= 1.0):
            raise ValueError(f"{owner}: `threshold` must be None or a number in (0, 1]. "
                             f"Received: threshold={threshold!r}")
        self.average: str | None = average
        self.beta: float = float(beta)
        self.threshold: float | None = None if threshold is None else float(threshold)
        self.num_classes: int | None = None

    def _build(self, num_classes: int) -> None:
        self.num_classes = num_classes
        shape = () if self.average == "micro" else (num_classes,)
        for cell in _CELLS:
            setattr(self, cell, self.add_variable(shape, name=cell))

    def _check_inputs(self, y_true, y_pred):
        owner = type(self).__name__
        if y_pred.ndim != 2 or tuple(y_true.shape) != tuple(y_pred.shape):
            raise errors.InvalidArgumentError(
                f"{owner} expects y_true and y_pred of the same shape (batch_size, "
                f"num_classes). Received: y_true.shape={tuple(y_true.shape)}, "
                f"y_pred.shape={tuple(y_pred.shape)}"
            )
        if self.num_classes is not None and y_pred.shape[-1] != self.num_classes:
            raise errors.InvalidArgumentError(
                f"{owner} was first updated with {self.num_classes} classes; this batch has "
                f"{y_pred.shape[-1]}. Received: y_pred.shape={tuple(y_pred.shape)}"
            )

    def update_state(self, y_true: TensorLike, y_pred: TensorLike,
                     sample_weight: TensorLike | None = None) -> None:
        """Adds one batch's per-class counts.

        Raises:
            InvalidArgumentError: for inputs that are not of the same 2-D shape, a class
                count that differs from the first batch's, or weights that do not
                broadcast.
        """
        # Compared in float32 like Keras, so a score equal to the threshold is negative.
        y_pred = metric.as_tensor(y_pred, np.float32)
        y_true = metric.as_tensor(y_true, np.float64)
        self._check_inputs(y_true, y_pred)
        if self.num_classes is None:
            self._build(int(y_pred.shape[-1]))
        if self.threshold is None:
            row_max = reduce.reduce_max(y_pred, axis=-1, keepdims=True)
            predicted = logic.logical_and(logic.greater_equal(y_pred, row_max),
                                          logic.greater(unary.abs(y_pred), 1e-9))
        else:
            predicted = logic.greater(y_pred, self.threshold)
        predicted = math.cast(predicted, np.float64)
        if sample_weight is not None:
            weights = confusion.broadcast_weights(sample_weight, y_true, type(self).__name__)
            y_true = y_true * weights
            predicted_weighted = predicted * weights
        else:
            predicted_weighted = predicted
        axis = None if self.average == "micro" else 0
        # With weights w: TP = sum(w*p*t), FP = sum(w*p) - TP, FN = sum(w*t) - TP.
        true_positives = reduce.reduce_sum(predicted * y_true, axis=axis)
        support = reduce.reduce_sum(y_true, axis=axis)
        metric.add_to(self.true_positives, true_positives)
        metric.add_to(self.false_positives,
                      reduce.reduce_sum(predicted_weighted, axis=axis) - true_positives)
        metric.add_to(self.false_negatives, support - true_positives)
        metric.add_to(self.intermediate_weights, support)

    def result(self) -> Any:
        if self.num_classes is None:  # nothing seen yet
            return metric.result_tensor(0.0, self.dtype)
        tp = self.true_positives.value
        precision = metric.divide_no_nan(tp, tp + self.false_positives)
        recall = metric.divide_no_nan(tp, tp + self.false_negatives)
        beta2 = self.beta ** 2
        score = (1.0 + beta2) * metric.divide_no_nan(precision * recall,
                                                     beta2 * precision + recall)
        if self.average == "weighted":
            support = self.intermediate_weights.value
            score = reduce.reduce_sum(
                score * metric.divide_no_nan(support, reduce.reduce_sum(support)))
        elif self.average is not None:
            score = reduce.reduce_mean(score)
        return metric.result_tensor(score, self.dtype)

    def get_config(self) -> dict:
        return {**super().get_config(), "average": self.average, "beta": self.beta,
                "threshold": self.threshold}


class F1Score(FBetaScore):
    """The F1 score, ``2 * precision * recall / (precision + recall)`` (`FBetaScore` with
    ``beta=1``).

    Args:
        average, threshold, name, dtype: as in `FBetaScore`.

    Raises:
        ValueError: for an unknown `average` or a threshold outside ``(0, 1]``.

    Examples:
        >>> import eagerflow as ef
        >>> m = ef.metrics.F1Score(threshold=0.5)
        >>> _ = m([[1, 1, 1], [1, 0, 0], [1, 1, 0]],
        ...       [[0.2, 0.6, 0.7], [0.2, 0.6, 0.6], [0.6, 0.8, 0.0]])
        >>> [round(float(v), 4) for v in m.result()]
        [0.5, 0.8, 0.6667]
    """

    def __init__(self, average: Any = None, threshold: Any = None, name: str | None = "f1_score",
                 dtype: DTypeLike = None) -> None:
        super().__init__(average=average, beta=1.0, threshold=threshold, name=name,
                         dtype=dtype)

    def get_config(self) -> dict:
        config = super().get_config()
        del config["beta"]
        return config


registry.register("metric", FBetaScore, "fbeta_score", "f_beta_score")
registry.register("metric", F1Score, "f1_score")
