"""Correlation metrics: the weighted mean over samples of a correlation along `axis`.

`PearsonCorrelation` averages ``pearson_correlation(y_true, y_pred, axis)``, the Pearson
coefficient of each sample's values along `axis`; `ConcordanceCorrelation` averages
Lin's concordance coefficient, which also penalises a shift or a scale between the two.
Both follow Keras 3's definitions (population variances, per sample); a sample whose
values are constant along `axis` has no Pearson coefficient and gives NaN, as in Keras.

Keras 3.15's concordance code centres `y_true` on the mean of `y_pred`, unlike its
documented formula; here both are centred on their own means (Lin's coefficient), so
the two agree only when the means agree.

Examples:
    >>> import eagerflow as ef
    >>> m = ef.metrics.PearsonCorrelation()
    >>> round(float(m([1.0, 2.0, 3.0], [2.0, 4.0, 7.0])), 4)
    0.9934
"""

from __future__ import annotations

from eagerflow import backend
from eagerflow.metrics import reduction
from eagerflow.metrics.regression import aligned
from eagerflow.ops import math, reduce, unary
from eagerflow.ops.typing import DTypeLike, Tensor, TensorLike
from eagerflow.saving import registry


def pearson_correlation(y_true: TensorLike, y_pred: TensorLike, axis: int = -1) -> Tensor:
    """The Pearson correlation of `y_true` and `y_pred` along `axis`, per sample.

    ``mean(z(y_true) * z(y_pred), axis)`` where ``z`` centres on the mean and divides by
    the (population) standard deviation along `axis`.

    Args:
        y_true, y_pred: tensors of one shape (a trailing 1 is aligned).
        axis: the axis or axes the values of one sample lie along.

    Returns:
        A float64 tensor with `axis` reduced.

    Raises:
        InvalidArgumentError: when the shapes differ.

    Examples:
        >>> import eagerflow as ef
        >>> ef.metrics.pearson_correlation([[0, 1, 0.5], [1, 1, 0.2]],
        ...                                [[0.1, 0.9, 0.5], [1, 0.9, 0.2]]).numpy().round(4)
        array([1.    , 0.9934])
    """
    y_true, y_pred = aligned(y_true, y_pred, "pearson_correlation")
    true_centred = y_true - reduce.reduce_mean(y_true, axis=axis, keepdims=True)
    pred_centred = y_pred - reduce.reduce_mean(y_pred, axis=axis, keepdims=True)
    true_z = true_centred / reduce.reduce_std(true_centred, axis=axis, keepdims=True)
    pred_z = pred_centred / reduce.reduce_std(pred_centred, axis=axis, keepdims=True)
    return reduce.reduce_mean(true_z * pred_z, axis=axis)


def concordance_correlation(y_true: TensorLike, y_pred: TensorLike, axis: int = -1) -> Tensor:
    """Lin's concordance correlation of `y_true` and `y_pred` along `axis`, per sample.

    ``2 cov(t, p) / (var(t) + var(p) + (mean(t) - mean(p))**2)``, population moments
    along `axis` (plus 1e-7 in the denominator, as Keras).

    Args:
        y_true, y_pred: tensors of one shape (a trailing 1 is aligned).
        axis: the axis or axes the values of one sample lie along.

    Returns:
        A float64 tensor with `axis` reduced.

    Raises:
        InvalidArgumentError: when the shapes differ.

    Examples:
        >>> import eagerflow as ef
        >>> ef.metrics.concordance_correlation([[0, 1, 0.5], [1, 1, 0.2]],
        ...                                    [[0.1, 0.9, 0.5], [1, 0.9, 0.2]]).numpy().round(4)
        array([0.9756, 0.9877])
    """
    y_true, y_pred = aligned(y_true, y_pred, "concordance_correlation")
    true_mean = reduce.reduce_mean(y_true, axis=axis, keepdims=True)
    pred_mean = reduce.reduce_mean(y_pred, axis=axis, keepdims=True)
    covariance = reduce.reduce_mean((y_true - true_mean) * (y_pred - pred_mean), axis=axis,
                                    keepdims=True)
    norm = (reduce.reduce_variance(y_true, axis=axis, keepdims=True)
            + reduce.reduce_variance(y_pred, axis=axis, keepdims=True)
            + unary.square(true_mean - pred_mean))
    ratio = math.divide(2.0 * covariance, norm + backend.epsilon())
    return reduce.reduce_mean(ratio, axis=axis)


class PearsonCorrelation(reduction.MeanMetricWrapper):
    """The weighted mean over samples of `pearson_correlation` along `axis`.

    Args:
        name, dtype: see `Metric`.
        axis: the axis or axes the values of one sample lie along.

    Examples:
        >>> import eagerflow as ef
        >>> m = ef.metrics.PearsonCorrelation()
        >>> round(float(m([[0, 1, 0.5], [1, 1, 0.2]], [[0.1, 0.9, 0.5], [1, 0.9, 0.2]],
        ...               sample_weight=[0.3, 0.7])), 4)
        0.9954
    """

    def __init__(self, name: str | None = "pearson_correlation", dtype: DTypeLike = None,
                 axis: int = -1) -> None:
        super().__init__(pearson_correlation, name=name, dtype=dtype, axis=axis)
        self.axis = axis


class ConcordanceCorrelation(reduction.MeanMetricWrapper):
    """The weighted mean over samples of `concordance_correlation` along `axis`.

    Args:
        name, dtype: see `Metric`.
        axis: the axis or axes the values of one sample lie along.

    Examples:
        >>> import eagerflow as ef
        >>> m = ef.metrics.ConcordanceCorrelation()
        >>> round(float(m([[0, 1, 0.5], [1, 1, 0.2]], [[0.1, 0.9, 0.5], [1, 0.9, 0.2]],
        ...               sample_weight=[0.3, 0.7])), 4)
        0.984
    """

    def __init__(self, name: str | None = "concordance_correlation", dtype: DTypeLike = None,
                 axis: int = -1) -> None:
        super().__init__(concordance_correlation, name=name, dtype=dtype, axis=axis)
        self.axis = axis


registry.register("metric", PearsonCorrelation, "pearson_correlation")
registry.register("metric", ConcordanceCorrelation, "concordance_correlation")
