"""Probabilistic metrics: the mean per-sample `KLDivergence` and `Poisson` deviance
(Keras 3's formulas).

Examples:
    >>> import eagerflow as ef
    >>> float(ef.metrics.Poisson()([[0.0]], [[1.0]]))
    1.0
"""

from __future__ import annotations

from eagerflow.metrics import metric, reduction
from eagerflow.ops import math, reduce, unary
from eagerflow.saving import registry

_EPSILON = 1e-7


_pair = metric.aligned_pair
_last_axis_mean = metric.last_axis_mean


def _kl_divergence(y_true, y_pred):
    y_true, y_pred = _pair(y_true, y_pred, "KLDivergence")
    y_true = math.minimum(math.maximum(y_true, _EPSILON), 1.0)
    y_pred = math.minimum(math.maximum(y_pred, _EPSILON), 1.0)
    terms = math.multiply(y_true, unary.log(math.divide(y_true, y_pred)))
    return reduce.reduce_sum(terms, axis=-1) if terms.ndim else terms


def _poisson(y_true, y_pred):
    y_true, y_pred = _pair(y_true, y_pred, "Poisson")
    return _last_axis_mean(math.subtract(
        y_pred, math.multiply(y_true, unary.log(math.add(y_pred, _EPSILON)))))


class KLDivergence(reduction.MeanMetricWrapper):
    """The mean over samples of ``sum(y_true * log(y_true / y_pred), axis=-1)``, both
    clipped to ``[1e-7, 1]``.

    Examples:
        >>> import eagerflow as ef
        >>> round(float(ef.metrics.KLDivergence()([[0.5, 0.5]], [[0.9, 0.1]])), 4)
        0.5108
    """

    def __init__(self, name="kl_divergence", dtype=None):
        super().__init__(_kl_divergence, name=name, dtype=dtype)


class Poisson(reduction.MeanMetricWrapper):
    """The mean over samples of ``mean(y_pred - y_true * log(y_pred + 1e-7), axis=-1)``.

    Examples:
        >>> import eagerflow as ef
        >>> round(float(ef.metrics.Poisson()([[1.0]], [[2.0]])), 4)
        1.3069
    """

    def __init__(self, name="poisson", dtype=None):
        super().__init__(_poisson, name=name, dtype=dtype)


registry.register("metric", KLDivergence, "kl_divergence", "kld")
registry.register("metric", Poisson, "poisson")
