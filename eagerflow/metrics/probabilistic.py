"""Probabilistic metrics: running means of `KLDivergence` and `Poisson` deviance.

Each is the weighted mean over samples of the `ef.losses` function of the same name,
with the shapes checked first so that errors name the metric.

Examples:
    >>> import eagerflow as ef
    >>> m = ef.metrics.KLDivergence()
    >>> round(float(m([[0, 1], [0, 0]], [[0.6, 0.4], [0.4, 0.6]])), 4)
    0.4581
"""

from __future__ import annotations

from eagerflow import losses
from eagerflow.metrics import reduction, regression
from eagerflow.saving import registry


def _kl_divergence(y_true, y_pred):
    return losses.kl_divergence(*regression.aligned(y_true, y_pred, "KLDivergence"))


def _poisson(y_true, y_pred):
    return losses.poisson(*regression.aligned(y_true, y_pred, "Poisson"))


class KLDivergence(reduction.MeanMetricWrapper):
    """The mean over samples of ``sum(y_true * log(y_true / y_pred), axis=-1)``.

    Both inputs are probabilities, clipped to ``[1e-7, 1]`` first.

    Examples:
        >>> import eagerflow as ef
        >>> m = ef.metrics.KLDivergence()
        >>> round(float(m([[0, 1], [0, 0]], [[0.6, 0.4], [0.4, 0.6]],
        ...               sample_weight=[1, 0])), 4)
        0.9163
    """

    def __init__(self, name="kl_divergence", dtype=None):
        super().__init__(_kl_divergence, name=name, dtype=dtype)


class Poisson(reduction.MeanMetricWrapper):
    """The mean over samples of ``mean(y_pred - y_true * log(y_pred + 1e-7), axis=-1)``.

    Examples:
        >>> import eagerflow as ef
        >>> m = ef.metrics.Poisson()
        >>> round(float(m([[0, 1], [0, 0]], [[1, 1], [0, 0]])), 4)
        0.5
    """

    def __init__(self, name="poisson", dtype=None):
        super().__init__(_poisson, name=name, dtype=dtype)


registry.register("metric", KLDivergence, "kl_divergence")
registry.register("metric", Poisson, "poisson")
