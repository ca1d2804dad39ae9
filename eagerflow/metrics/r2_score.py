"""`R2Score`: the coefficient of determination, exact over every batch seen.

Per output column it accumulates the weighted sums of ``y``, ``y**2`` and the squared
residuals, and the total weight, so that
``R2 = 1 - sum((y_true - y_pred)**2) / sum((y_true - mean(y_true))**2)`` over all
samples, the denominator being ``sum(w * y**2) - sum(w * y)**2 / sum(w)``. A column whose
labels do not vary scores 0. With `num_regressors` it is the adjusted R2,
``1 - (1 - R2) * (n - 1) / (n - p - 1)``, where `n` counts samples (rows with a non-zero
weight), not cells, as Keras's main branch does (Keras 3.15 counts every cell).

The per-column Variables are created on the first update, when the number of outputs is
known.

Examples:
    >>> import eagerflow as ef
    >>> m = ef.metrics.R2Score()
    >>> round(float(m([[1.0], [4.0], [3.0]], [[2.0], [4.0], [4.0]])), 4)
    0.5714
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from eagerflow.core import context, errors, variable
from eagerflow.metrics import confusion, metric
from eagerflow.ops import logic, math, reduce, unary
from eagerflow.ops.typing import DTypeLike, TensorLike
from eagerflow.saving import registry

_AGGREGATIONS = (None, "uniform_average", "variance_weighted_average")
_COLUMNS = ("squared_sum", "sum", "residual", "count")


class R2Score(metric.Metric):
    """The coefficient of determination R2 (optionally adjusted) of regression outputs.

    Args:
        class_aggregation: how the scores of the output columns are combined: ``None``
            (a vector, one score per column), ``"uniform_average"`` (their mean) or
            ``"variance_weighted_average"`` (their mean weighted by each column's label
            variance). Scikit-learn calls it ``multioutput``.
        num_regressors: the number of independent variables, for the adjusted R2 (0:
            plain R2); its ``n`` is `num_samples`, the number of target values seen (batch
            times outputs, zero weights included), as in Keras. When it is not below ``num_samples - 1``, the plain R2 is
            returned, with a warning when computed eagerly after some samples.
        name, dtype: see `Metric`.

    Raises:
        ValueError: for an unknown `class_aggregation` or a negative `num_regressors`.

    Examples:
        >>> import eagerflow as ef
        >>> m = ef.metrics.R2Score(class_aggregation=None)
        >>> _ = m([[1.0, 0.0], [2.0, 1.0], [3.0, 5.0]], [[1.5, 0.0], [2.0, 2.0], [2.5, 4.0]])
        >>> [round(float(v), 4) for v in m.result()]
        [0.75, 0.8571]
    """

    # The per-output sums, made by `_build` once the first batch shows the number of outputs.
    squared_sum: variable.Variable
    sum: variable.Variable
    residual: variable.Variable
    count: variable.Variable

    def __init__(self, class_aggregation: str = "uniform_average", num_regressors: int = 0,
                 name: str | None = "r2_score", dtype: DTypeLike = None) -> None:
        super().__init__(name=name, dtype=dtype)
        if class_aggregation not in _AGGREGATIONS:
            raise ValueError(f"R2Score: `class_aggregation` must be one of {list(_AGGREGATIONS)}"
                             f". Received: class_aggregation={class_aggregation!r}")
        if isinstance(num_regressors, bool) or not isinstance(
                num_regressors, (int, np.integer)) or num_regressors < 0:
            raise ValueError("R2Score: `num_regressors` must be an int >= 0. Received: "
                             f"num_regressors={num_regressors!r}")
        self.class_aggregation = class_aggregation
        self.num_regressors = int(num_regressors)
        self.num_samples = self.add_variable(name="num_samples")
        self.num_outputs: int | None = None

    def _build(self, num_outputs: int) -> None:
        self.num_outputs = num_outputs
        for column in _COLUMNS:
            setattr(self, column, self.add_variable((num_outputs,), name=column))

    def update_state(self, y_true: TensorLike, y_pred: TensorLike,
                     sample_weight: TensorLike | None = None) -> None:
        """Adds one batch of ``(batch_size, num_outputs)`` labels and predictions.

        Raises:
            InvalidArgumentError: for inputs that are not 2-D of one shape, a number of
                outputs that differs from the first batch's, or weights that do not
                broadcast.
        """
        y_pred = metric.as_tensor(y_pred, np.float64)
        y_true = metric.as_tensor(y_true, np.float64)
        y_true, y_pred = metric.squeeze_or_expand_to_same_rank(y_true, y_pred)
        if y_pred.ndim != 2 or tuple(y_true.shape) != tuple(y_pred.shape):
            raise errors.InvalidArgumentError(
                "R2Score expects y_true and y_pred of the same shape (batch_size, "
                f"num_outputs). Received: y_true.shape={tuple(y_true.shape)}, "
                f"y_pred.shape={tuple(y_pred.shape)}"
            )
        if self.num_outputs is None:
            self._build(int(y_pred.shape[-1]))
        elif y_pred.shape[-1] != self.num_outputs:
            raise errors.InvalidArgumentError(
                f"R2Score was first updated with {self.num_outputs} outputs; this batch has "
                f"{y_pred.shape[-1]}. Received: y_pred.shape={tuple(y_pred.shape)}"
            )
        weights = confusion.broadcast_weights(1.0 if sample_weight is None else sample_weight,
                                              y_true, "R2Score")
        weighted = y_true * weights
        metric.add_to(self.sum, reduce.reduce_sum(weighted, axis=0))
        metric.add_to(self.squared_sum, reduce.reduce_sum(y_true * weighted, axis=0))
        metric.add_to(self.residual,
                      reduce.reduce_sum(unary.square(y_true - y_pred) * weights, axis=0))
        metric.add_to(self.count, reduce.reduce_sum(weights, axis=0))
        # n of the adjusted R2 counts every value of y_true, whatever its weight, as Keras 3
        # does (`ops.size(y_true)`): (batch, outputs) targets add batch * outputs.
        metric.add_to(self.num_samples, float(np.prod(y_true.shape)))

    def result(self) -> Any:
        if self.num_outputs is None:  # nothing seen yet
            return metric.result_tensor(0.0, self.dtype)
        total_sum = self.sum.value
        variation = self.squared_sum - total_sum * metric.divide_no_nan(total_sum, self.count)
        varies = logic.greater(variation, 0.0)
        scores = math.where(varies, 1.0 - metric.divide_no_nan(self.residual, variation), 0.0)
        if self.class_aggregation == "uniform_average":
            score = reduce.reduce_mean(scores)
        elif self.class_aggregation == "variance_weighted_average":
            score = metric.divide_no_nan(reduce.reduce_sum(variation * scores),
                                         reduce.reduce_sum(variation))
        else:
            score = scores
        if self.num_regressors:
            score = self._adjusted(score)
        return metric.result_tensor(score, self.dtype)

    def _adjusted(self, score):
        n = self.num_samples.value
        room = n - float(self.num_regressors) - 1.0  # n - p - 1: the residual's freedom
        if context.executing_eagerly() and float(n) > 0 and float(room) <= 0:
            warnings.warn(
                f"R2Score: num_regressors={self.num_regressors} needs more than "
                f"{self.num_regressors + 1} samples for the adjusted R2 (seen: {float(n):g}); "
                "returning the plain R2.", errors.EagerflowWarning, stacklevel=3)
        adjusted = 1.0 - (1.0 - score) * metric.divide_no_nan(n - 1.0, room)
        return math.where(logic.greater(room, 0.0), adjusted, score)

    def get_config(self) -> dict:
        return {**super().get_config(), "class_aggregation": self.class_aggregation,
                "num_regressors": self.num_regressors}


registry.register("metric", R2Score, "r2_score")
