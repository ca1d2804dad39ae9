"""Regression metrics: running mean squared (and its root), absolute, absolute percentage,
squared logarithmic and log-cosh errors, and the cosine similarity.

Examples:
    >>> import eagerflow as ef
    >>> m = ef.metrics.MeanSquaredError()
    >>> float(m([[0.0, 1.0], [0.0, 0.0]], [[1.0, 1.0], [0.0, 0.0]]))
    0.25
"""

from __future__ import annotations

import numpy as np

from eagerflow.metrics import metric, reduction
from eagerflow.ops import math, reduce, unary
from eagerflow.saving import registry

_pair = metric.aligned_pair
_last_axis_mean = metric.last_axis_mean


def _errors(y_true, y_pred, owner: str):
    y_true, y_pred = _pair(y_true, y_pred, owner)
    return math.subtract(y_pred, y_true)


def _squared_error(y_true, y_pred):
    error = unary.square(_errors(y_true, y_pred, "MeanSquaredError"))
    return reduce.reduce_mean(error, axis=-1) if error.ndim else error


def _absolute_error(y_true, y_pred):
    error = unary.abs(_errors(y_true, y_pred, "MeanAbsoluteError"))
    return reduce.reduce_mean(error, axis=-1) if error.ndim else error


def _absolute_percentage_error(y_true, y_pred):
    y_true, y_pred = _pair(y_true, y_pred, "MeanAbsolutePercentageError")
    difference = math.subtract(y_pred, y_true)
    scale = math.maximum(unary.abs(y_true), _EPSILON)
    error = math.multiply(unary.abs(math.divide(difference, scale)), 100.0)
    return reduce.reduce_mean(error, axis=-1) if error.ndim else error


def _squared_logarithmic_error(y_true, y_pred):
    y_true, y_pred = _pair(y_true, y_pred, "MeanSquaredLogarithmicError")
    error = unary.square(math.subtract(unary.log1p(math.maximum(y_pred, _EPSILON)),
                                       unary.log1p(math.maximum(y_true, _EPSILON))))
    return reduce.reduce_mean(error, axis=-1) if error.ndim else error


# Keras's epsilon: the floor of |y_true| in the percentage error and of the log arguments.
_EPSILON = 1e-7


def _cosine(y_true, y_pred, axis=-1):
    y_true, y_pred = _pair(y_true, y_pred, "CosineSimilarity")

    def normalized(x):
        norm = reduce.reduce_sum(unary.square(x), axis=axis, keepdims=True)
        return math.multiply(x, unary.rsqrt(math.maximum(norm, 1e-12)))

    return reduce.reduce_sum(math.multiply(normalized(y_true), normalized(y_pred)), axis=axis)


def _log_cosh(y_true, y_pred):
    y_true, y_pred = _pair(y_true, y_pred, "LogCoshError")
    error = math.subtract(y_pred, y_true)
    # log(cosh(x)) = x + softplus(-2x) - log 2, stable for large |x|.
    softplus = unary.log1p(unary.exp(-unary.abs(math.multiply(error, 2.0))))
    stable = math.add(math.maximum(math.multiply(error, -2.0), 0.0), softplus)
    return _last_axis_mean(math.subtract(math.add(error, stable), float(np.log(2.0))))


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


class CosineSimilarity(reduction.MeanMetricWrapper):
    """The mean over samples of the cosine similarity of `y_true` and `y_pred` along
    `axis` (each vector L2-normalized first).

    Examples:
        >>> import eagerflow as ef
        >>> round(float(ef.metrics.CosineSimilarity()([[1.0, 0.0]], [[1.0, 1.0]])), 4)
        0.7071
    """

    def __init__(self, name="cosine_similarity", dtype=None, axis=-1):
        super().__init__(_cosine, name=name, dtype=dtype, axis=int(axis))


class LogCoshError(reduction.MeanMetricWrapper):
    """The mean over samples of ``mean(log(cosh(y_pred - y_true)), axis=-1)``.

    Examples:
        >>> import eagerflow as ef
        >>> round(float(ef.metrics.LogCoshError()([[0.0, 0.0]], [[1.0, -1.0]])), 4)
        0.4338
    """

    def __init__(self, name="logcosh", dtype=None):
        super().__init__(_log_cosh, name=name, dtype=dtype)


class RootMeanSquaredError(reduction.Mean):
    """``sqrt(mean(square(y_true - y_pred)))`` over every value seen (the root of the mean,
    not a mean of per-batch roots).

    Examples:
        >>> import eagerflow as ef
        >>> m = ef.metrics.RootMeanSquaredError()
        >>> m.update_state([[0.0, 1.0]], [[1.0, 1.0]])
        >>> m.update_state([[0.0, 0.0]], [[1.0, 1.0]])
        >>> round(float(m.result()), 4)
        0.866
    """

    def __init__(self, name="root_mean_squared_error", dtype=None):
        super().__init__(name=name, dtype=dtype)

    def update_state(self, y_true, y_pred, sample_weight=None) -> None:
        """Adds a batch's squared errors (weighted by `sample_weight`)."""
        y_true, y_pred = _pair(y_true, y_pred, "RootMeanSquaredError")
        super().update_state(unary.square(math.subtract(y_pred, y_true)), sample_weight)

    def result(self):
        return unary.sqrt(super().result())


registry.register("metric", CosineSimilarity, "cosine_similarity")
registry.register("metric", LogCoshError, "logcosh", "log_cosh_error")
registry.register("metric", RootMeanSquaredError, "root_mean_squared_error")
registry.register("metric", MeanAbsolutePercentageError, "mean_absolute_percentage_error",
                  "mape", "MAPE")
registry.register("metric", MeanSquaredLogarithmicError, "mean_squared_logarithmic_error",
                  "msle", "MSLE")
registry.register("metric", MeanSquaredError, "mean_squared_error", "mse", "MSE")
registry.register("metric", MeanAbsoluteError, "mean_absolute_error", "mae", "MAE")
