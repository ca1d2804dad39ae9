"""Reduction metrics: `Sum`, `Mean`, and `MeanMetricWrapper` (the mean of a function).

Sample weights follow Keras 3: values are first reduced (by the metric's reduction) to
the rank of the weights, multiplied by them, and the weights are what `Mean` counts, so
``Mean()(values, sample_weight=w)`` is ``sum(w * values) / sum(w)``.

Examples:
    >>> import eagerflow as ef
    >>> m = ef.metrics.Mean()
    >>> float(m([1.0, 2.0, 3.0], sample_weight=[1.0, 0.0, 1.0]))
    2.0
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from eagerflow.core import errors, masks, tensor
from eagerflow.losses import loss as loss_lib
from eagerflow.metrics import metric
from eagerflow.ops import array_ops as array, logic, math, reduce
from eagerflow.ops.typing import DTypeLike, TensorLike
from eagerflow.saving import registry
from eagerflow.utils.naming import snake_case


def _check_weights(values, weights, owner: str):
    if not _broadcastable(tuple(weights.shape), tuple(values.shape)):
        raise errors.InvalidArgumentError(
            f"{owner}: sample_weight of shape {tuple(weights.shape)} cannot be broadcast to the "
            f"values of shape {tuple(values.shape)}."
        )
    return array.broadcast_to(weights, array.shape(values))


def _broadcastable(source: tuple, target: tuple) -> bool:
    if len(source) > len(target):
        return False
    return all(s in (1, t) for s, t in zip(source[::-1], target[::-1], strict=False))


def reduce_to_samplewise_values(values, sample_weight, reduce_fn, owner="Metric"):
    """Keras's reduction of a batch to per-sample values and weights (float64 tensors).

    Returns:
        ``(values, weights)``: values reduced over every axis but the first (and weighted),
        and the weights reduced the same way (None without weights).
    """
    values = metric.as_tensor(values, np.float64)
    weights = None
    if sample_weight is not None:
        weights = metric.as_tensor(sample_weight, np.float64)
        values, weights = metric.squeeze_or_expand_to_same_rank(values, weights)
        if values.ndim > weights.ndim:
            values = reduce_fn(values, axis=list(range(weights.ndim, values.ndim)))
        weights = _check_weights(values, weights, owner)
        values = math.multiply(values, weights)
        if weights.ndim > 1:
            weights = reduce_fn(weights, axis=list(range(1, weights.ndim)))
    if values.ndim > 1:
        values = reduce_fn(values, axis=list(range(1, values.ndim)))
    return values, weights


_SCALAR_WEIGHTS = (type(None), int, float)


class Sum(metric.Metric):
    """The (weighted) sum of all values seen.

    Examples:
        >>> import eagerflow as ef
        >>> m = ef.metrics.Sum()
        >>> _ = m([1.0, 3.0]); float(m([[2.0, 2.0]], sample_weight=[0.5]))
        6.0
    """

    def __init__(self, name: str | None = "sum", dtype: DTypeLike = None) -> None:
        super().__init__(name=name, dtype=dtype)
        self.total = self.add_variable(name="total")

    def update_state(self, values: TensorLike, sample_weight: TensorLike | None = None) -> None:
        """Adds ``sum(sample_weight * values)``.

        Raises:
            InvalidArgumentError: if `sample_weight` cannot be broadcast to the values.
        """
        values, _ = reduce_to_samplewise_values(values, sample_weight, reduce.reduce_sum,
                                                "Sum")
        metric.add_to(self.total, reduce.reduce_sum(values))

    def result(self) -> Any:
        return metric.result_tensor(self.total, self.dtype)


class Mean(metric.Metric):
    """The (weighted) mean of all values seen: ``total / count``.

    A scalar counts as one value; an array of shape ``(n, ...)`` counts as ``n`` values,
    each the mean of its row.

    Examples:
        >>> import eagerflow as ef
        >>> m = ef.metrics.Mean()
        >>> _ = m(0.0); _ = m(5.0); float(m.result())
        2.5
        >>> float(m([8.0, 9.0]))
        5.5
    """

    def __init__(self, name: str | None = "mean", dtype: DTypeLike = None) -> None:
        super().__init__(name=name, dtype=dtype)
        self.total = self.add_variable(name="total")
        self.count = self.add_variable(name="count")

    def update_state(self, values: TensorLike, sample_weight: TensorLike | None = None) -> None:
        """Adds a batch of values (and their weights).

        Raises:
            InvalidArgumentError: if `sample_weight` cannot be broadcast to the values.
        """
        if type(sample_weight) in _SCALAR_WEIGHTS:  # a scalar value with a scalar weight
            value = metric.as_tensor(values, np.float64)
            if value.ndim == 0:  # e.g. the batch loss with the batch size: no broadcasting
                # (a Python scalar here: `type(sample_weight) in _SCALAR_WEIGHTS` above)
                weight = 1.0 if sample_weight is None else float(sample_weight)  # type: ignore[arg-type]
                metric.add_to(self.total, value * weight if weight != 1.0 else value)
                metric.add_to(self.count, weight)
                return
        values, weights = reduce_to_samplewise_values(values, sample_weight, reduce.reduce_mean,
                                                      type(self).__name__)
        metric.add_to(self.total, reduce.reduce_sum(values))
        if weights is not None:
            count = reduce.reduce_sum(weights)
        else:
            count = metric.sample_count(values)
        metric.add_to(self.count, count)

    def result(self) -> Any:
        return metric.result_tensor(metric.divide_no_nan(self.total, self.count), self.dtype)


class MeanMetricWrapper(Mean):
    """The mean of ``fn(y_true, y_pred, **kwargs)`` over all samples seen.

    Args:
        fn: returns one value per sample (a Tensor or an array).
        name: the metric's name (default: the function's name).
        dtype: the result dtype.
        **kwargs: extra keyword arguments for `fn`.

    Examples:
        >>> import eagerflow as ef
        >>> m = ef.metrics.MeanMetricWrapper(ef.losses.mean_absolute_error)
        >>> float(m([[0.0, 1.0]], [[1.0, 2.0]]))
        1.0
    """

    def __init__(self, fn: Callable[..., Any], name: str | None = None, dtype: DTypeLike = None,
                 **kwargs: Any) -> None:
        super().__init__(name=name or getattr(fn, "__name__", None), dtype=dtype)
        self._fn = fn
        self._fn_kwargs = kwargs

    # Keras's signature: a wrapped fn(y_true, y_pred) takes both, unlike Mean's values.
    def update_state(self, y_true: TensorLike, y_pred: TensorLike,  # type: ignore[override]
                     sample_weight: TensorLike | None = None) -> None:
        """Adds ``fn(y_true, y_pred)`` for one batch, weighted by `sample_weight`.

        Raises:
            InvalidArgumentError: for inputs `fn` rejects, or weights that do not broadcast.
        """
        mask = masks.get_mask(y_pred) if isinstance(y_pred, tensor.Tensor) else None
        values = self._fn(y_true, y_pred, **self._fn_kwargs)
        out_mask = masks.get_mask(values) if isinstance(values, tensor.Tensor) else None
        if out_mask is not None and sample_weight is not None:
            # The mask the values carry (ignore_class of a sparse cross-entropy) zeroes their
            # weights only when weights are given, as Keras 3's `reduce_to_samplewise_values`
            # does: unweighted, the ignored entries count as zeros in the mean.
            mask = out_mask if mask is None else logic.logical_and(
                metric.as_tensor(mask, np.bool_), out_mask)
        if mask is not None:  # masked steps weigh 0 (Keras 3)
            values = metric.as_tensor(values, np.float64)
            sample_weight = loss_lib.mask_weights(mask, sample_weight, values.dtype, "sum")
        super().update_state(values, sample_weight)

    def get_config(self) -> dict:
        return {**super().get_config(), **self._fn_kwargs}


for _metric in (Mean, Sum):
    registry.register("metric", _metric, snake_case(_metric.__name__))
