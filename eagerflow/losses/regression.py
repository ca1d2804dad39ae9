"""Regression losses: mean squared error, mean absolute error, Huber, log-cosh, mean
absolute percentage error, mean squared logarithmic error, cosine similarity.

Each function returns one value per sample: the mean over the last axis of the
elementwise loss. ``y_true`` and ``y_pred`` must have the same shape, except that ranks
differing by a trailing axis of size 1 are aligned (``(batch,)`` against ``(batch, 1)``);
any other mismatch is an error rather than a silent broadcast.

Examples:
    >>> import eagerflow as ef
    >>> ef.losses.mean_squared_error([[0.0, 1.0], [2.0, 2.0]], [[1.0, 1.0], [2.0, 4.0]])
    ef.Tensor([0.5 2. ], shape=(2,), dtype=float32)
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from eagerflow import backend
from eagerflow.losses import loss as loss_module
from eagerflow.ops import logic as logic_ops
from eagerflow.ops import math as math_ops
from eagerflow.ops import reduce as reduce_ops
from eagerflow.ops import special as special_ops
from eagerflow.ops import unary as unary_ops
from eagerflow.ops.typing import AxisLike, Tensor, TensorLike
from eagerflow.saving import registry

# Keras computes log(2) in float32 and casts it to the loss's dtype: float64 losses
# carry that rounding too, so the same value is used here (exact to float32).
_LOG2 = float(np.float32(math.log(2.0)))


def _aligned(y_true: TensorLike, y_pred: TensorLike, owner: str) -> tuple[Tensor, Tensor]:
    y_pred = loss_module.as_prediction(y_pred)
    y_true = loss_module.as_target(y_true, y_pred)
    y_true, y_pred = loss_module.squeeze_or_expand_to_same_rank(y_true, y_pred)
    loss_module.check_same_shape(y_true, y_pred, owner)
    return y_true, y_pred


def _mean_last_axis(values):
    return reduce_ops.reduce_mean(values, axis=-1) if values.ndim else values


def mean_squared_error(y_true: TensorLike, y_pred: TensorLike) -> Any:
    """``mean(square(y_true - y_pred), axis=-1)``.

    Raises:
        InvalidArgumentError: if the shapes differ (beyond a trailing axis of size 1).

    Examples:
        >>> import eagerflow as ef
        >>> ef.losses.mean_squared_error([1.0, 2.0], [1.0, 4.0])
        ef.Tensor(2.0, shape=(), dtype=float32)
    """
    y_true, y_pred = _aligned(y_true, y_pred, "mean_squared_error")
    return _mean_last_axis(unary_ops.square(math_ops.subtract(y_true, y_pred)))


def mean_absolute_error(y_true: TensorLike, y_pred: TensorLike) -> Any:
    """``mean(abs(y_true - y_pred), axis=-1)``.

    Raises:
        InvalidArgumentError: if the shapes differ (beyond a trailing axis of size 1).

    Examples:
        >>> import eagerflow as ef
        >>> ef.losses.mean_absolute_error([[1.0, 2.0]], [[0.0, 4.0]])
        ef.Tensor([1.5], shape=(1,), dtype=float32)
    """
    y_true, y_pred = _aligned(y_true, y_pred, "mean_absolute_error")
    return _mean_last_axis(unary_ops.abs(math_ops.subtract(y_true, y_pred)))


def huber(y_true: TensorLike, y_pred: TensorLike, delta: float = 1.0) -> Any:
    """Quadratic for small errors, linear for large ones, averaged over the last axis.

    With ``e = y_pred - y_true``: ``0.5 * e**2`` where ``|e| <= delta``, else
    ``delta * |e| - 0.5 * delta**2``.

    Raises:
        InvalidArgumentError: if the shapes differ (beyond a trailing axis of size 1).
        ValueError: if `delta` is not positive.

    Examples:
        >>> import eagerflow as ef
        >>> ef.losses.huber([0.0, 0.0], [0.5, 3.0])
        ef.Tensor(1.3125, shape=(), dtype=float32)
    """
    if not delta > 0:
        raise ValueError(f"huber: `delta` must be > 0. Received: delta={delta!r}")
    y_true, y_pred = _aligned(y_true, y_pred, "huber")
    error = math_ops.subtract(y_pred, y_true)
    abs_error = unary_ops.abs(error)
    quadratic = math_ops.multiply(unary_ops.square(error), 0.5)
    linear = math_ops.subtract(math_ops.multiply(abs_error, delta), 0.5 * delta * delta)
    return _mean_last_axis(math_ops.where(logic_ops.less_equal(abs_error, delta), quadratic,
                                          linear))


class MeanSquaredError(loss_module.Loss):
    """Mean of squares of errors; see `mean_squared_error` and `Loss` for the reduction.

    Examples:
        >>> import eagerflow as ef
        >>> float(ef.losses.MeanSquaredError()([[0.0, 1.0], [0.0, 0.0]], [[1.0, 1.0], [1.0, 0.0]]))
        0.5
    """  # noqa: E501

    def __init__(self, reduction: str | None = "sum_over_batch_size",
                 name: str | None = "mean_squared_error", dtype: Any = None) -> None:
        super().__init__(name=name, reduction=reduction, dtype=dtype)

    def call(self, y_true: TensorLike, y_pred: TensorLike) -> Any:
        return mean_squared_error(y_true, y_pred)


class MeanAbsoluteError(loss_module.Loss):
    """Mean of absolute errors; see `mean_absolute_error` and `Loss` for the reduction.

    Examples:
        >>> import eagerflow as ef
        >>> float(ef.losses.MeanAbsoluteError(reduction="sum")([[0.0], [1.0]], [[1.0], [3.0]]))
        3.0
    """

    def __init__(self, reduction: str | None = "sum_over_batch_size",
                 name: str | None = "mean_absolute_error", dtype: Any = None) -> None:
        super().__init__(name=name, reduction=reduction, dtype=dtype)

    def call(self, y_true: TensorLike, y_pred: TensorLike) -> Any:
        return mean_absolute_error(y_true, y_pred)


class Huber(loss_module.Loss):
    """The Huber loss; see `huber` and `Loss` for the reduction.

    Args:
        delta: where the loss changes from quadratic to linear (> 0).
        reduction: see `Loss`.
        name: the loss's name.

    Raises:
        ValueError: if `delta` is not positive.

    Examples:
        >>> import eagerflow as ef
        >>> float(ef.losses.Huber(delta=1.0)([[0.0], [0.0]], [[0.5], [3.0]]))
        1.3125
    """

    def __init__(self, delta: float = 1.0, reduction: str | None = "sum_over_batch_size",
                 name: str | None = "huber_loss", dtype: Any = None) -> None:
        if not delta > 0:
            raise ValueError(f"Huber: `delta` must be > 0. Received: delta={delta!r}")
        super().__init__(name=name, reduction=reduction, dtype=dtype)
        self.delta = float(delta)

    def call(self, y_true: TensorLike, y_pred: TensorLike) -> Any:
        return huber(y_true, y_pred, self.delta)

    def get_config(self) -> dict:
        return {**super().get_config(), "delta": self.delta}


def log_cosh(y_true: TensorLike, y_pred: TensorLike) -> Any:
    """``mean(log(cosh(y_pred - y_true)), axis=-1)``, computed without overflow as
    ``x + softplus(-2x) - log(2)``.

    Examples:
        >>> import eagerflow as ef
        >>> round(float(ef.losses.log_cosh([0.0], [1.0])), 4)
        0.4338
    """
    y_true, y_pred = _aligned(y_true, y_pred, "log_cosh")
    error = math_ops.subtract(y_pred, y_true)
    return _mean_last_axis(math_ops.subtract(
        math_ops.add(error, special_ops.softplus(math_ops.multiply(error, -2.0))), _LOG2))


def mean_absolute_percentage_error(y_true: TensorLike, y_pred: TensorLike) -> Tensor:
    """``100 * mean(abs((y_true - y_pred) / maximum(abs(y_true), 1e-7)), axis=-1)``.

    Examples:
        >>> import eagerflow as ef
        >>> float(ef.losses.mean_absolute_percentage_error([2.0, 4.0], [1.0, 5.0]))
        37.5
    """
    y_true, y_pred = _aligned(y_true, y_pred, "mean_absolute_percentage_error")
    scale = math_ops.maximum(unary_ops.abs(y_true), backend.epsilon())
    return math_ops.multiply(_mean_last_axis(
        unary_ops.abs(math_ops.divide(math_ops.subtract(y_true, y_pred), scale))), 100.0)


def mean_squared_logarithmic_error(y_true: TensorLike, y_pred: TensorLike) -> Any:
    """``mean(square(log(maximum(y_pred, 1e-7) + 1) - log(maximum(y_true, 1e-7) + 1)))``
    over the last axis.

    Examples:
        >>> import eagerflow as ef
        >>> round(float(ef.losses.mean_squared_logarithmic_error([0.0], [1.718281828])), 4)
        1.0
    """
    y_true, y_pred = _aligned(y_true, y_pred, "mean_squared_logarithmic_error")
    first = unary_ops.log1p(math_ops.maximum(y_pred, backend.epsilon()))
    second = unary_ops.log1p(math_ops.maximum(y_true, backend.epsilon()))
    return _mean_last_axis(unary_ops.square(math_ops.subtract(first, second)))


def _l2_normalize(x, axis):
    norm = reduce_ops.reduce_sum(unary_ops.square(x), axis=axis, keepdims=True)
    return math_ops.multiply(x, unary_ops.rsqrt(math_ops.maximum(norm, 1e-12)))


def cosine_similarity(y_true: TensorLike, y_pred: TensorLike, axis: AxisLike = -1) -> Tensor:
    """The negative cosine similarity along `axis`: -1 for the same direction, 1 for
    opposite ones (Keras's loss form).

    Examples:
        >>> import eagerflow as ef
        >>> float(ef.losses.cosine_similarity([[1.0, 0.0]], [[2.0, 0.0]])[0])
        -1.0
    """
    y_true, y_pred = _aligned(y_true, y_pred, "cosine_similarity")
    return unary_ops.negative(reduce_ops.reduce_sum(
        math_ops.multiply(_l2_normalize(y_true, axis), _l2_normalize(y_pred, axis)), axis=axis))


class LogCosh(loss_module.LossFunctionWrapper):
    """Logarithm of the hyperbolic cosine of the error, averaged over the last axis: about ``x
    ** 2 / 2`` for small errors and ``abs(x) - log(2)`` for large ones; `log_cosh` as a `Loss`
    (with its reduction and sample weights).

    Args:
        reduction: how the per-sample values are reduced; see `Loss`.
        name: the loss's name.

    Examples:
        >>> import eagerflow as ef
        >>> round(float(ef.losses.LogCosh()([[0.0, 1.0]], [[1.0, 1.0]])), 4)
        0.2169
    """

    def __init__(self, reduction: str | None = "sum_over_batch_size",
                 name: str | None = "log_cosh", dtype: Any = None) -> None:
        super().__init__(log_cosh, reduction=reduction, name=name, dtype=dtype)


class MeanAbsolutePercentageError(loss_module.LossFunctionWrapper):
    """Mean absolute percentage error ``100 * mean(abs((y_true - y_pred) / y_true))`` over the
    last axis; `mean_absolute_percentage_error` as a `Loss` (with its reduction and sample
    weights).

    Args:
        reduction: how the per-sample values are reduced; see `Loss`.
        name: the loss's name.

    Examples:
        >>> import eagerflow as ef
        >>> round(float(ef.losses.MeanAbsolutePercentageError()([[2.0, 4.0]], [[1.0, 5.0]])), 4)
        37.5
    """

    def __init__(self, reduction: str | None = "sum_over_batch_size",
                 name: str | None = "mean_absolute_percentage_error", dtype: Any = None) -> None:
        super().__init__(mean_absolute_percentage_error, reduction=reduction, name=name, dtype=dtype)


class MeanSquaredLogarithmicError(loss_module.LossFunctionWrapper):
    """Mean squared logarithmic error ``mean((log(1 + y_true) - log(1 + y_pred)) ** 2)`` over
    the last axis; `mean_squared_logarithmic_error` as a `Loss` (with its reduction and sample
    weights).

    Args:
        reduction: how the per-sample values are reduced; see `Loss`.
        name: the loss's name.

    Examples:
        >>> import eagerflow as ef
        >>> round(float(ef.losses.MeanSquaredLogarithmicError()([[0.0, 1.0]], [[1.0, 1.0]])), 4)
        0.2402
    """

    def __init__(self, reduction: str | None = "sum_over_batch_size",
                 name: str | None = "mean_squared_logarithmic_error", dtype: Any = None) -> None:
        super().__init__(mean_squared_logarithmic_error, reduction=reduction, name=name, dtype=dtype)


class CosineSimilarity(loss_module.LossFunctionWrapper):
    """Negative cosine similarity between labels and predictions: -1 when they point the same
    way, 0 when orthogonal, so minimising it aligns them; `cosine_similarity` as a `Loss` (with
    its reduction and sample weights).

    Args:
        axis: the axis along which the similarity is computed.
        reduction: how the per-sample values are reduced; see `Loss`.
        name: the loss's name.

    Examples:
        >>> import eagerflow as ef
        >>> round(float(ef.losses.CosineSimilarity()([[0.0, 1.0]], [[1.0, 1.0]])), 4)
        -0.7071
    """

    def __init__(self, axis: int = -1, reduction: str | None = "sum_over_batch_size",
                 name: str | None = "cosine_similarity", dtype: Any = None) -> None:
        super().__init__(cosine_similarity, reduction=reduction, name=name, axis=axis, dtype=dtype)


for _loss in (mean_squared_error, mean_absolute_error, huber, MeanSquaredError, MeanAbsoluteError,
              Huber, log_cosh, mean_absolute_percentage_error, mean_squared_logarithmic_error,
              cosine_similarity, LogCosh, MeanAbsolutePercentageError,
              MeanSquaredLogarithmicError, CosineSimilarity):
    registry.register("loss", _loss)
registry.register("loss", mean_squared_error, "mse", "MSE")
registry.register("loss", mean_absolute_error, "mae", "MAE")
registry.register("loss", huber, "huber_loss")
registry.register("loss", log_cosh, "logcosh")
registry.register("loss", mean_absolute_percentage_error, "mape", "MAPE")
registry.register("loss", mean_squared_logarithmic_error, "msle", "MSLE")
