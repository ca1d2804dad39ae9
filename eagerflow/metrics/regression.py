"""Regression metrics: running means of per-sample errors, and their root.

`MeanSquaredError`, `MeanAbsoluteError`, `MeanAbsolutePercentageError`,
`MeanSquaredLogarithmicError`, `LogCoshError` and `CosineSimilarity` are the weighted mean
over samples of a per-sample value (the mean over the last axis of an elementwise error;
for `CosineSimilarity`, the similarity along `axis`); `RootMeanSquaredError` is the square
root of the running mean squared error. The per-sample formulas are those of `ef.losses`
(with the loss sign for cosine similarity flipped); the metrics check the shapes first so
that errors name the metric.

Examples:
    >>> import eagerflow as ef
    >>> m = ef.metrics.MeanSquaredError()
    >>> float(m([[0.0, 1.0], [0.0, 0.0]], [[1.0, 1.0], [0.0, 0.0]]))
    0.25
"""

from __future__ import annotations

from typing import Any

import numpy as np

from eagerflow import losses
from eagerflow.core import errors
from eagerflow.metrics import metric, reduction
from eagerflow.ops import math, reduce, unary
from eagerflow.ops.typing import AxisLike, DTypeLike, TensorLike
from eagerflow.saving import registry


def aligned(y_true, y_pred, owner: str):
    """`y_true` and `y_pred` as float64 tensors of one shape (a trailing 1 aligned).

    Raises:
        InvalidArgumentError: naming `owner` when the shapes differ.
    """
    y_pred = metric.as_tensor(y_pred, np.float64)
    y_true = metric.as_tensor(y_true, np.float64)
    y_true, y_pred = metric.squeeze_or_expand_to_same_rank(y_true, y_pred)
    if y_true.shape != y_pred.shape:
        raise errors.InvalidArgumentError(
            f"{owner}: y_true and y_pred must have the same shape. Received: "
            f"y_true.shape={y_true.shape}, y_pred.shape={y_pred.shape}"
        )
    return y_true, y_pred


def _errors(y_true, y_pred, owner: str):
    y_true, y_pred = aligned(y_true, y_pred, owner)
    return math.subtract(y_pred, y_true)


def _squared_error(y_true, y_pred):
    error = unary.square(_errors(y_true, y_pred, "MeanSquaredError"))
    return reduce.reduce_mean(error, axis=-1) if error.ndim else error


def _absolute_error(y_true, y_pred):
    error = unary.abs(_errors(y_true, y_pred, "MeanAbsoluteError"))
    return reduce.reduce_mean(error, axis=-1) if error.ndim else error


class MeanSquaredError(reduction.MeanMetricWrapper):
    """The mean over samples of ``mean(square(y_true - y_pred), axis=-1)``.

    Examples:
        >>> import eagerflow as ef
        >>> m = ef.metrics.MeanSquaredError()
        >>> float(m([[0.0], [1.0]], [[1.0], [1.0]], sample_weight=[1.0, 3.0]))
        0.25
    """

    def __init__(self, name: str | None = "mean_squared_error", dtype: DTypeLike = None) -> None:
        super().__init__(_squared_error, name=name, dtype=dtype)


class MeanAbsoluteError(reduction.MeanMetricWrapper):
    """The mean over samples of ``mean(abs(y_true - y_pred), axis=-1)``.

    Examples:
        >>> import eagerflow as ef
        >>> float(ef.metrics.MeanAbsoluteError()([[0.0, 1.0]], [[1.0, 3.0]]))
        1.5
    """

    def __init__(self, name: str | None = "mean_absolute_error", dtype: DTypeLike = None) -> None:
        super().__init__(_absolute_error, name=name, dtype=dtype)


class RootMeanSquaredError(reduction.Mean):
    """``sqrt(mean(square(y_true - y_pred)))`` over every element seen.

    Each sample contributes the mean of its squared errors, weighted by `sample_weight`;
    the root is taken of the running mean, so the result is exact over all batches.

    Examples:
        >>> import eagerflow as ef
        >>> m = ef.metrics.RootMeanSquaredError()
        >>> float(m([[0, 1], [0, 0]], [[1, 1], [0, 0]]))
        0.5
        >>> m.reset_state()
        >>> round(float(m([[0, 1], [0, 0]], [[1, 1], [0, 0]], sample_weight=[1, 0])), 4)
        0.7071
    """

    def __init__(self, name: str | None = "root_mean_squared_error",
                 dtype: DTypeLike = None) -> None:
        super().__init__(name=name, dtype=dtype)

    # Keras's signature (y_true, y_pred), unlike Mean's values (see MeanMetricWrapper).
    def update_state(self, y_true: TensorLike, y_pred: TensorLike,  # type: ignore[override]
                     sample_weight: TensorLike | None = None) -> None:
        """Adds one batch's squared errors.

        Raises:
            InvalidArgumentError: if the shapes differ or the weights do not broadcast.
        """
        error = unary.square(_errors(y_true, y_pred, "RootMeanSquaredError"))
        super().update_state(error, sample_weight=sample_weight)

    def result(self) -> Any:
        mean = metric.divide_no_nan(self.total, self.count)
        return metric.result_tensor(unary.sqrt(mean), self.dtype)


def _percentage_error(y_true, y_pred):
    return losses.mean_absolute_percentage_error(
        *aligned(y_true, y_pred, "MeanAbsolutePercentageError"))


def _squared_log_error(y_true, y_pred):
    return losses.mean_squared_logarithmic_error(
        *aligned(y_true, y_pred, "MeanSquaredLogarithmicError"))


def _log_cosh(y_true, y_pred):
    return losses.log_cosh(*aligned(y_true, y_pred, "LogCoshError"))


def _cosine_similarity(y_true, y_pred, axis=-1):
    y_true, y_pred = aligned(y_true, y_pred, "CosineSimilarity")
    return unary.negative(losses.cosine_similarity(y_true, y_pred, axis=axis))


class MeanAbsolutePercentageError(reduction.MeanMetricWrapper):
    """The mean over samples of ``100 * mean(abs((y_true - y_pred) / y_true), axis=-1)``.

    Labels of magnitude below 1e-7 are divided by 1e-7 instead.

    Examples:
        >>> import eagerflow as ef
        >>> float(ef.metrics.MeanAbsolutePercentageError()([[2.0, 4.0]], [[1.0, 5.0]]))
        37.5
    """

    def __init__(self, name: str | None = "mean_absolute_percentage_error",
                 dtype: DTypeLike = None) -> None:
        super().__init__(_percentage_error, name=name, dtype=dtype)


class MeanSquaredLogarithmicError(reduction.MeanMetricWrapper):
    """The mean over samples of ``mean(square(log(y_true + 1) - log(y_pred + 1)), axis=-1)``.

    Values below 1e-7 are raised to 1e-7 first.

    Examples:
        >>> import eagerflow as ef
        >>> m = ef.metrics.MeanSquaredLogarithmicError()
        >>> round(float(m([[0, 1], [0, 0]], [[1, 1], [0, 0]])), 4)
        0.1201
    """

    def __init__(self, name: str | None = "mean_squared_logarithmic_error",
                 dtype: DTypeLike = None) -> None:
        super().__init__(_squared_log_error, name=name, dtype=dtype)


class LogCoshError(reduction.MeanMetricWrapper):
    """The mean over samples of ``mean(log(cosh(y_pred - y_true)), axis=-1)``.

    Examples:
        >>> import eagerflow as ef
        >>> m = ef.metrics.LogCoshError()
        >>> round(float(m([[0, 1], [0, 0]], [[1, 1], [0, 0]])), 4)
        0.1084
    """

    def __init__(self, name: str | None = "logcosh", dtype: DTypeLike = None) -> None:
        super().__init__(_log_cosh, name=name, dtype=dtype)


class CosineSimilarity(reduction.MeanMetricWrapper):
    """The mean over samples of the cosine similarity of `y_true` and `y_pred` along `axis`.

    Both are L2-normalised (a zero vector stays zero, so its similarity is 0) and the
    similarity is ``sum(l2_norm(y_true) * l2_norm(y_pred), axis)``.

    Args:
        name, dtype: see `Metric`.
        axis: the axis the vectors lie along.

    Examples:
        >>> import eagerflow as ef
        >>> m = ef.metrics.CosineSimilarity(axis=1)
        >>> round(float(m([[0., 1.], [1., 1.]], [[1., 0.], [1., 1.]])), 4)
        0.5
        >>> m.reset_state()
        >>> round(float(m([[0., 1.], [1., 1.]], [[1., 0.], [1., 1.]],
        ...               sample_weight=[0.3, 0.7])), 4)
        0.7
    """

    def __init__(self, name: str | None = "cosine_similarity", dtype: DTypeLike = None,
                 axis: AxisLike = -1) -> None:
        super().__init__(_cosine_similarity, name=name, dtype=dtype, axis=axis)
        self.axis = axis


registry.register("metric", MeanSquaredError, "mean_squared_error", "mse", "MSE")
registry.register("metric", MeanAbsoluteError, "mean_absolute_error", "mae", "MAE")
registry.register("metric", RootMeanSquaredError, "root_mean_squared_error")
registry.register("metric", MeanAbsolutePercentageError, "mean_absolute_percentage_error",
                  "mape", "MAPE")
registry.register("metric", MeanSquaredLogarithmicError, "mean_squared_logarithmic_error",
                  "msle", "MSLE")
registry.register("metric", LogCoshError, "log_cosh_error", "logcosh")
registry.register("metric", CosineSimilarity, "cosine_similarity")
