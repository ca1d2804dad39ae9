"""Regression metrics: running mean squared, absolute, absolute percentage and squared
logarithmic errors.

Examples:
    >>> import eagerflow as ef
    >>> m = ef.metrics.MeanSquaredError()
    >>> float(m([[0.0, 1.0], [0.0, 0.0]], [[1.0, 1.0], [0.0, 0.0]]))
    0.25
"""

from __future__ import annotations

import numpy as np

from eagerflow.core import errors
from eagerflow.metrics import metric, reduction
from eagerflow.ops import math, reduce, unary
from eagerflow.saving import registry


def _errors(y_true, y_pred, owner: str):
    y_pred = metric.as_tensor(y_pred, np.float64)
    y_true = metric.as_tensor(y_true, np.float64)
    y_true, y_pred = metric.squeeze_or_expand_to_same_rank(y_true, y_pred)
    if y_true.shape != y_pred.shape:
        raise errors.InvalidArgumentError(
            f"{owner}: y_true and y_pred must have the same shape. Received: "
            f"y_true.shape={y_true.shape}, y_pred.shape={y_pred.shape}"
        )
    return math.subtract(y_pred, y_true)


def _squared_error(y_true, y_pred):
    error = unary.square(_errors(y_true, y_pred, "MeanSquaredError"))
    return reduce.reduce_mean(error, axis=-1) if error.ndim else error


def _absolute_error(y_true, y_pred):
    error = unary.abs(_errors(y_true, y_pred, "MeanAbsoluteError"))
    return reduce.reduce_mean(error, axis=-1) if error.ndim else error


def _absolute_percentage_error(y_true, y_pred):
    y_pred = metric.as_tensor(y_pred, np.float64)
    y_true = metric.as_tensor(y_true, np.float64)
    y_true, y_pred = metric.squeeze_or_expand_to_same_rank(y_true, y_pred)
    difference = _errors(y_true, y_pred, "MeanAbsolutePercentageError")
    scale = math.maximum(unary.abs(y_true), _EPSILON)
    error = math.multiply(unary.abs(math.divide(difference, scale)), 100.0)
    return reduce.reduce_mean(error, axis=-1) if error.ndim else error


def _squared_logarithmic_error(y_true, y_pred):
    y_pred = metric.as_tensor(y_pred, np.float64)
    y_true = metric.as_tensor(y_true, np.float64)
    y_true, y_pred = metric.squeeze_or_expand_to_same_rank(y_true, y_pred)
    _errors(y_true, y_pred, "MeanSquaredLogarithmicError")  # the shape check
    error = unary.square(math.subtract(unary.log1p(math.maximum(y_pred, _EPSILON)),
                                       unary.log1p(math.maximum(y_true, _EPSILON))))
    return reduce.reduce_mean(error, axis=-1) if error.ndim else error


# Keras's epsilon: the floor of |y_true| in the percentage error and of the log arguments.
_EPSILON = 1e-7


class MeanSquaredError(reduction.MeanMetricWrapper):
    """The mean over samples of ``mean(square(y_true - y_pred), axis=-1)``.

    Examples:
        >>> import eagerflow as ef
        >>> m = ef.metrics.MeanSquaredError()
        >>> float(m([[0.0], [1.0]], [[1.0], [1.0]], sample_weight=[1.0, 3.0]))
        0.25
    """

    def __init__(self, name="mean_squared_error", dtype=None):
        super().__init__(_squared_error, name=name, dtype=dtype)


class MeanAbsoluteError(reduction.MeanMetricWrapper):
    """The mean over samples of ``mean(abs(y_true - y_pred), axis=-1)``.

    Examples:
        >>> import eagerflow as ef
        >>> float(ef.metrics.MeanAbsoluteError()([[0.0, 1.0]], [[1.0, 3.0]]))
        1.5
    """

    def __init__(self, name="mean_absolute_error", dtype=None):
        super().__init__(_absolute_error, name=name, dtype=dtype)


class MeanAbsolutePercentageError(reduction.MeanMetricWrapper):
    """The mean over samples of
    ``100 * mean(abs((y_true - y_pred) / maximum(abs(y_true), 1e-7)), axis=-1)``.

    Examples:
        >>> import eagerflow as ef
        >>> float(ef.metrics.MeanAbsolutePercentageError()([[2.0, 4.0]], [[1.0, 5.0]]))
        37.5
    """

    def __init__(self, name="mean_absolute_percentage_error", dtype=None):
        super().__init__(_absolute_percentage_error, name=name, dtype=dtype)


class MeanSquaredLogarithmicError(reduction.MeanMetricWrapper):
    """The mean over samples of
    ``mean(square(log1p(maximum(y_pred, 1e-7)) - log1p(maximum(y_true, 1e-7))), axis=-1)``.

    Examples:
        >>> import eagerflow as ef, math
        >>> m = ef.metrics.MeanSquaredLogarithmicError()
        >>> round(float(m([[0.0]], [[math.e - 1]])), 6)
        1.0
    """

    def __init__(self, name="mean_squared_logarithmic_error", dtype=None):
        super().__init__(_squared_logarithmic_error, name=name, dtype=dtype)


registry.register("metric", MeanAbsolutePercentageError, "mean_absolute_percentage_error",
                  "mape", "MAPE")
registry.register("metric", MeanSquaredLogarithmicError, "mean_squared_logarithmic_error",
                  "msle", "MSLE")
registry.register("metric", MeanSquaredError, "mean_squared_error", "mse", "MSE")
registry.register("metric", MeanAbsoluteError, "mean_absolute_error", "mae", "MAE")
