"""AUC: area under the ROC or precision-recall curve, from thresholded confusion counts.

Like Keras, the curve is sampled at `num_thresholds` evenly spaced thresholds in [0, 1]
(the first just below 0, the last just above 1), the counts are accumulated over every
batch, and the area is a Riemann sum (``"interpolation"`` by default; for PR, the
Davis & Goadrich interpolation). With the default 200 thresholds the ROC AUC is typically
within 1e-3 of the exact (rank-based) value; raise `num_thresholds` for more precision.
Multi-class predictions are treated as independent binary predictions (flattened), unless
``multi_label=True``: then each label (column) gets its own curve and the result is the
mean of their areas (weighted by `label_weights` when given), as in Keras.

Examples:
    >>> import eagerflow as ef
    >>> m = ef.metrics.AUC()
    >>> float(m([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8]))
    0.75
"""

from __future__ import annotations

from typing import Any

import numpy as np

from eagerflow import backend
from eagerflow.core import errors, variable
from eagerflow.graph import python_ops
from eagerflow.metrics import confusion, metric
from eagerflow.ops import array_ops as array
from eagerflow.ops import logic, math, reduce, unary
from eagerflow.ops.typing import DTypeLike, TensorLike
from eagerflow.saving import registry

_CURVES = ("ROC", "PR", "PRGAIN")
_COUNTS = ("true_positives", "false_positives", "true_negatives", "false_negatives")
_SUMMATIONS = ("interpolation", "minoring", "majoring")


def _check_probabilities(scores: np.ndarray) -> None:
    if scores.size and not (np.nanmin(scores) >= 0.0 and np.nanmax(scores) <= 1.0):
        raise errors.InvalidArgumentError(
            f"AUC expects probabilities in [0, 1]; received predictions in "
            f"[{np.nanmin(scores):.4g}, {np.nanmax(scores):.4g}]. Pass from_logits=True "
            "if they are logits."
        )


class AUC(metric.Metric):
    """Approximates the area under the ROC or PR curve of binary predictions.

    Args:
        num_thresholds: how many thresholds sample the curve (> 1).
        curve: ``"ROC"``, ``"PR"`` or ``"PRGAIN"`` (precision gain against recall gain,
            Flach & Kull 2015), in any case.
        summation_method: ``"interpolation"`` (trapezoids; Davis-Goadrich for PR),
            ``"minoring"`` or ``"majoring"`` (lower / upper Riemann sums).
        name, dtype: see `Metric`.
        thresholds: explicit thresholds in [0, 1] instead of `num_thresholds` evenly spaced
            ones (``-1e-7`` and ``1 + 1e-7`` are added at the ends).
        multi_label: one curve per label (column of 2-D predictions), their areas
            averaged; otherwise every prediction is one binary prediction.
        num_labels: the number of labels with ``multi_label=True`` (else read from the
            first batch).
        label_weights: one non-negative weight per label: the weights of the average with
            ``multi_label=True``; otherwise each prediction's weight is multiplied by its
            label's.
        from_logits: apply a sigmoid to the predictions first.

    Raises:
        ValueError: for an unknown curve or summation method, ``num_thresholds <= 1``,
            thresholds outside [0, 1], or `num_labels` without ``multi_label=True``.

    Examples:
        >>> import eagerflow as ef
        >>> m = ef.metrics.AUC(curve="PR", from_logits=True)
        >>> round(float(m([1, 0, 1, 0], [3.0, -2.0, 0.5, 1.0])), 3)
        0.797
    """

    # One count per threshold, (thresholds, labels) with multi_label; made by `_build`.
    true_positives: variable.Variable
    false_positives: variable.Variable
    true_negatives: variable.Variable
    false_negatives: variable.Variable

    def __init__(self, num_thresholds: int = 200, curve: str = "ROC",
                 summation_method: str = "interpolation", name: str | None = None,
                 dtype: DTypeLike = None, thresholds: Any = None, multi_label: bool = False,
                 num_labels: int | None = None, label_weights: Any = None,
                 from_logits: bool = False) -> None:
        super().__init__(name=name or "auc", dtype=dtype)
        curve_name = str(curve).upper()
        if curve_name not in _CURVES:
            raise ValueError(f"AUC: `curve` must be one of {list(_CURVES)}. Received: "
                             f"curve={curve!r}")
        method = str(summation_method).lower()
        if method not in _SUMMATIONS:
            raise ValueError(f"AUC: `summation_method` must be one of {list(_SUMMATIONS)}. "
                             f"Received: summation_method={summation_method!r}")
        self._init_thresholds = thresholds
        if thresholds is not None:
            inner = sorted(confusion.parse_thresholds(thresholds, 0.5, "AUC"))
            self.num_thresholds = len(inner) + 2
        else:
            if isinstance(num_thresholds, bool) or not isinstance(
                    num_thresholds, (int, np.integer)) or num_thresholds <= 1:
                raise ValueError("AUC: `num_thresholds` must be an integer > 1. Received: "
                                 f"num_thresholds={num_thresholds!r}")
            self.num_thresholds = int(num_thresholds)
            inner = [(i + 1) / (self.num_thresholds - 1) for i in range(self.num_thresholds - 2)]
        margin = backend.epsilon()  # read when the metric is made, as Keras's
        self._thresholds = np.array([-margin, *inner, 1.0 + margin], dtype=np.float32)
        self.curve = curve_name
        self.summation_method = method
        self.from_logits = bool(from_logits)
        self.multi_label = bool(multi_label)
        if num_labels and not self.multi_label:
            raise ValueError("AUC: `num_labels` is needed only when `multi_label` is True. "
                             f"Received: num_labels={num_labels!r}")
        self.num_labels = num_labels
        self.label_weights = (None if label_weights is None
                              else np.asarray(label_weights, np.float64).reshape(-1))
        self._num_labels: int | None = None
        if not self.multi_label:
            self._build(())
        elif num_labels:
            self._build((int(num_labels),))

    def _build(self, labels: tuple) -> None:
        """Creates the four count variables: one per threshold (and per label)."""
        self._num_labels = labels[0] if labels else None
        for name in _COUNTS:
            setattr(self, name, self.add_variable((self.num_thresholds, *labels), name=name))

    @property
    def thresholds(self) -> list[float]:
        """The thresholds the curve is sampled at, in increasing order."""
        return [float(t) for t in self._thresholds]

    def update_state(self, y_true: TensorLike, y_pred: TensorLike,
                     sample_weight: TensorLike | None = None) -> None:
        """Adds one batch's confusion counts at every threshold.

        Raises:
            InvalidArgumentError: for mismatched shapes or weights, or probabilities outside
                [0, 1] when ``from_logits=False``.
        """
        scores = metric.as_tensor(y_pred, np.float32)
        if self.from_logits:
            scores = unary.sigmoid(scores)
        else:  # eagerly, and each time a traced graph runs
            scores = python_ops.checked(scores, _check_probabilities)
        if self.multi_label:
            if scores.ndim != 2:
                raise errors.InvalidArgumentError(
                    "AUC: `y_pred` must have rank 2 when `multi_label=True`. Received: "
                    f"y_pred.shape={tuple(scores.shape)}")
            if self._num_labels is None:
                self._build((int(scores.shape[1]),))
            per_label = [confusion.update_confusion_matrix(
                y_true, scores, self._thresholds, sample_weight, class_id=label, owner="AUC")
                for label in range(int(scores.shape[1]))]
            counts = {key: array.stack([c[key] for c in per_label], axis=1)
                      for key in ("tp", "fp", "tn", "fn")}
        else:
            if self.label_weights is not None:  # each prediction weighs its label's weight
                weights = 1.0 if sample_weight is None else sample_weight
                sample_weight = math.multiply(
                    confusion.broadcast_weights(weights, scores, "AUC"),
                    metric.as_tensor(self.label_weights, np.float64))
            counts = confusion.update_confusion_matrix(y_true, scores, self._thresholds,
                                                       sample_weight, owner="AUC")
        metric.add_to(self.true_positives, counts["tp"])
        metric.add_to(self.false_positives, counts["fp"])
        metric.add_to(self.true_negatives, counts["tn"])
        metric.add_to(self.false_negatives, counts["fn"])

    def _aggregate(self, terms):
        """The area: the sum of `terms` over thresholds, averaged over labels if any."""
        if not self.multi_label:
            return reduce.reduce_sum(terms)
        by_label = reduce.reduce_sum(terms, axis=0)
        if self.label_weights is None:
            return reduce.reduce_mean(by_label)
        weights = metric.as_tensor(self.label_weights, np.float64)
        return metric.divide_no_nan(reduce.reduce_sum(by_label * weights),
                                    reduce.reduce_sum(weights))

    def _interpolate_pr_auc(self, tp, fp, fn):
        # Davis & Goadrich (2006): precision varies non-linearly between thresholds;
        # integrate it along recall assuming TP grows linearly with predicted positives.
        dtp = tp[:-1] - tp[1:]
        p = tp + fp
        dp = p[:-1] - p[1:]
        slope = metric.divide_no_nan(dtp, math.maximum(dp, 0.0))
        intercept = tp[1:] - slope * p[1:]
        both = logic.logical_and(logic.greater(p[:-1], 0.0), logic.greater(p[1:], 0.0))
        safe_ratio = math.where(both, metric.divide_no_nan(p[:-1], math.maximum(p[1:], 0.0)),
                                1.0)
        increments = metric.divide_no_nan(slope * (dtp + intercept * unary.log(safe_ratio)),
                                          math.maximum(tp[1:] + fn[1:], 0.0))
        return self._aggregate(increments)

    def result(self) -> Any:
        if self.multi_label and self._num_labels is None:  # nothing seen yet
            return metric.result_tensor(0.0, self.dtype)
        tp, fp = self.true_positives.value, self.false_positives.value
        tn, fn = self.true_negatives.value, self.false_negatives.value
        if self.curve == "PR" and self.summation_method == "interpolation":
            return metric.result_tensor(self._interpolate_pr_auc(tp, fp, fn), self.dtype)
        recall = metric.divide_no_nan(tp, tp + fn)
        if self.curve == "ROC":
            x, y = metric.divide_no_nan(fp, fp + tn), recall
        elif self.curve == "PR":
            x, y = recall, metric.divide_no_nan(tp, tp + fp)
        else:  # PRGAIN: gains relative to the always-positive classifier, as Keras
            scale = metric.divide_no_nan(tp + fn, tn + fp)
            no_tp = logic.equal(tp, 0.0)
            recall_gain = math.where(no_tp, 0.0, 1.0 - scale * metric.divide_no_nan(fn, tp))
            x = math.maximum(recall_gain, 0.0)
            y = math.where(no_tp, 1.0, 1.0 - scale * metric.divide_no_nan(fp, tp))
        if self.summation_method == "interpolation":
            heights = (y[:-1] + y[1:]) / 2.0
        elif self.summation_method == "minoring":
            heights = math.minimum(y[:-1], y[1:])
        else:
            heights = math.maximum(y[:-1], y[1:])
        return metric.result_tensor(self._aggregate((x[:-1] - x[1:]) * heights), self.dtype)

    def get_config(self) -> dict:
        config = {**super().get_config(), "num_thresholds": self.num_thresholds,
                  "curve": self.curve, "summation_method": self.summation_method,
                  "multi_label": self.multi_label, "num_labels": self.num_labels,
                  "label_weights": (None if self.label_weights is None
                                    else self.label_weights.tolist()),
                  "from_logits": self.from_logits}
        if self._init_thresholds is not None:
            config["thresholds"] = self.thresholds[1:-1]
        return config


registry.register("metric", AUC, "auc")
