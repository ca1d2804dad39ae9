"""Operating-point metrics: the best value of one rate where another reaches a target.

`SensitivityAtSpecificity`, `SpecificityAtSensitivity`, `PrecisionAtRecall` and
`RecallAtPrecision` accumulate the confusion matrix at `num_thresholds` evenly spaced
thresholds (0 and 1 included; a prediction is positive above a threshold), so the result
over an epoch is exact for those thresholds. `result()` is the largest value of the
dependent rate among the thresholds where the constrained rate is at least the target,
and 0.0 when no threshold reaches it.

Examples:
    >>> import eagerflow as ef
    >>> m = ef.metrics.PrecisionAtRecall(recall=0.5)
    >>> float(m([0, 0, 0, 1, 1], [0, 0.3, 0.8, 0.3, 0.8]))
    0.5
"""

from __future__ import annotations

import abc
import numbers
from typing import Any

import numpy as np

from eagerflow.core import variable
from eagerflow.metrics import confusion, metric
from eagerflow.ops import logic, math, reduce
from eagerflow.ops.typing import DTypeLike, TensorLike
from eagerflow.saving import registry
from eagerflow.utils import naming


def _rate(hits, misses):
    return metric.divide_no_nan(hits, hits + misses)


class _OperatingPoint(metric.Metric):
    """Shared state and update; subclasses name the target and pick the two rates."""

    _target = ""  # the constructor argument holding the target value
    true_positives: variable.Variable  # the state, made by `__init__`
    false_positives: variable.Variable
    true_negatives: variable.Variable
    false_negatives: variable.Variable

    def __init__(self, value: float, num_thresholds: int = 200, class_id: Any = None,
                 name: str | None = None, dtype: DTypeLike = None) -> None:
        super().__init__(name=name, dtype=dtype)
        owner = type(self).__name__
        if (isinstance(value, bool) or not isinstance(value, numbers.Real)
                or not 0.0 <= value <= 1.0):
            raise ValueError(f"{owner}: `{self._target}` must be a number in [0, 1]. "
                             f"Received: {self._target}={value!r}")
        if isinstance(num_thresholds, bool) or not isinstance(
                num_thresholds, (int, np.integer)) or num_thresholds <= 0:
            raise ValueError(f"{owner}: `num_thresholds` must be a positive int. Received: "
                             f"num_thresholds={num_thresholds!r}")
        if class_id is not None and (isinstance(class_id, bool) or not isinstance(
                class_id, (int, np.integer)) or class_id < 0):
            raise ValueError(f"{owner}: `class_id` must be None or an int >= 0. Received: "
                             f"class_id={class_id!r}")
        self.value: float = float(value)
        self.num_thresholds: int = int(num_thresholds)
        self.class_id: int | None = class_id
        if self.num_thresholds == 1:
            self.thresholds: list[float] = [0.5]
        else:
            step = self.num_thresholds - 1
            self.thresholds = [0.0, *((i + 1) / step for i in range(step - 1)), 1.0]
        shape = (len(self.thresholds),)
        self.true_positives = self.add_variable(shape, name="true_positives")
        self.false_positives = self.add_variable(shape, name="false_positives")
        self.true_negatives = self.add_variable(shape, name="true_negatives")
        self.false_negatives = self.add_variable(shape, name="false_negatives")

    def update_state(self, y_true: TensorLike, y_pred: TensorLike,
                     sample_weight: TensorLike | None = None) -> None:
        """Adds one batch's confusion counts at every threshold.

        Raises:
            InvalidArgumentError: for mismatched shapes, a `class_id` outside the class
                axis, or weights that do not broadcast.
        """
        counts = confusion.update_confusion_matrix(
            y_true, y_pred, self.thresholds, sample_weight, class_id=self.class_id,
            owner=type(self).__name__)
        metric.add_to(self.true_positives, counts["tp"])
        metric.add_to(self.false_positives, counts["fp"])
        metric.add_to(self.true_negatives, counts["tn"])
        metric.add_to(self.false_negatives, counts["fn"])

    @abc.abstractmethod
    def _rates(self):
        """``(constrained, dependent)`` rates per threshold."""

    def result(self) -> Any:
        constrained, dependent = self._rates()
        feasible = logic.greater_equal(constrained, self.value)
        # Every rate is >= 0, so 0 stands for "no threshold reaches the target".
        best = reduce.reduce_max(math.where(feasible, dependent, 0.0))
        return metric.result_tensor(best, self.dtype)

    def get_config(self) -> dict:
        return {**super().get_config(), self._target: self.value,
                "num_thresholds": self.num_thresholds, "class_id": self.class_id}


class SensitivityAtSpecificity(_OperatingPoint):
    """The best sensitivity ``TP / (TP + FN)`` where specificity ``TN / (TN + FP)`` is at
    least `specificity`.

    Args:
        specificity: the target, in [0, 1].
        num_thresholds: how many evenly spaced thresholds in [0, 1] are tried (1 means
            only 0.5).
        class_id: compute it for one class (an index of the last axis) of multi-class
            predictions.
        name, dtype: see `Metric`.

    Raises:
        ValueError: for a target outside [0, 1], ``num_thresholds < 1`` or a bad
            `class_id`.

    Examples:
        >>> import eagerflow as ef
        >>> m = ef.metrics.SensitivityAtSpecificity(specificity=0.5)
        >>> float(m([0, 0, 0, 1, 1], [0, 0.3, 0.8, 0.3, 0.8]))
        0.5
    """

    _target = "specificity"

    def __init__(self, specificity: Any, num_thresholds: int = 200, class_id: Any = None,
                 name: str | None = None, dtype: DTypeLike = None) -> None:
        super().__init__(specificity, num_thresholds, class_id, name, dtype)

    @property
    def specificity(self) -> float:
        """The specificity the metric holds fixed (the constructor's `specificity`)."""
        return self.value

    def _rates(self):
        return (_rate(self.true_negatives, self.false_positives),
                _rate(self.true_positives, self.false_negatives))


class SpecificityAtSensitivity(_OperatingPoint):
    """The best specificity ``TN / (TN + FP)`` where sensitivity ``TP / (TP + FN)`` is at
    least `sensitivity`.

    Args:
        sensitivity: the target, in [0, 1].
        num_thresholds, class_id, name, dtype: as in `SensitivityAtSpecificity`.

    Raises:
        ValueError: for a target outside [0, 1], ``num_thresholds < 1`` or a bad
            `class_id`.

    Examples:
        >>> import eagerflow as ef
        >>> m = ef.metrics.SpecificityAtSensitivity(sensitivity=0.5)
        >>> round(float(m([0, 0, 0, 1, 1], [0, 0.3, 0.8, 0.3, 0.8])), 4)
        0.6667
    """

    _target = "sensitivity"

    def __init__(self, sensitivity: Any, num_thresholds: int = 200, class_id: Any = None,
                 name: str | None = None, dtype: DTypeLike = None) -> None:
        super().__init__(sensitivity, num_thresholds, class_id, name, dtype)

    @property
    def sensitivity(self) -> float:
        """The sensitivity the metric holds fixed (the constructor's `sensitivity`)."""
        return self.value

    def _rates(self):
        return (_rate(self.true_positives, self.false_negatives),
                _rate(self.true_negatives, self.false_positives))


class PrecisionAtRecall(_OperatingPoint):
    """The best precision ``TP / (TP + FP)`` where recall ``TP / (TP + FN)`` is at least
    `recall`.

    Args:
        recall: the target, in [0, 1].
        num_thresholds, class_id, name, dtype: as in `SensitivityAtSpecificity`.

    Raises:
        ValueError: for a target outside [0, 1], ``num_thresholds < 1`` or a bad
            `class_id`.

    Examples:
        >>> import eagerflow as ef
        >>> m = ef.metrics.PrecisionAtRecall(recall=1.0)
        >>> round(float(m([0, 1, 0, 1], [0.1, 0.9, 0.7, 0.6])), 4)
        0.6667
    """

    _target = "recall"

    def __init__(self, recall: Any, num_thresholds: int = 200, class_id: Any = None,
                 name: str | None = None, dtype: DTypeLike = None) -> None:
        super().__init__(recall, num_thresholds, class_id, name, dtype)

    @property
    def recall(self) -> float:
        """The recall the metric holds fixed (the constructor's `recall`)."""
        return self.value

    def _rates(self):
        return (_rate(self.true_positives, self.false_negatives),
                _rate(self.true_positives, self.false_positives))


class RecallAtPrecision(_OperatingPoint):
    """The best recall ``TP / (TP + FN)`` where precision ``TP / (TP + FP)`` is at least
    `precision` (0.0 when no threshold is that precise).

    Args:
        precision: the target, in [0, 1].
        num_thresholds, class_id, name, dtype: as in `SensitivityAtSpecificity`.

    Raises:
        ValueError: for a target outside [0, 1], ``num_thresholds < 1`` or a bad
            `class_id`.

    Examples:
        >>> import eagerflow as ef
        >>> m = ef.metrics.RecallAtPrecision(precision=1.0)
        >>> float(m([0, 1, 0, 1], [0.1, 0.9, 0.7, 0.6]))
        0.5
    """

    _target = "precision"

    def __init__(self, precision: Any, num_thresholds: int = 200, class_id: Any = None,
                 name: str | None = None, dtype: DTypeLike = None) -> None:
        super().__init__(precision, num_thresholds, class_id, name, dtype)

    @property
    def precision(self) -> float:
        """The precision the metric holds fixed (the constructor's `precision`)."""
        return self.value

    def _rates(self):
        return (_rate(self.true_positives, self.false_positives),
                _rate(self.true_positives, self.false_negatives))


for _metric in (SensitivityAtSpecificity, SpecificityAtSensitivity, PrecisionAtRecall,
                RecallAtPrecision):
    registry.register("metric", _metric, naming.snake_case(_metric.__name__))
