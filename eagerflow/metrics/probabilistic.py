"""Probabilistic metrics: running means of `KLDivergence`, `Poisson` deviance, the three
crossentropies and the three hinge losses.

Each is the weighted mean over samples of the `ef.losses` function of the same name
(Keras 3's metric classes of these names), with the shapes checked first so that errors
name the metric.

Examples:
    >>> import eagerflow as ef
    >>> m = ef.metrics.KLDivergence()
    >>> round(float(m([[0, 1], [0, 0]], [[0.6, 0.4], [0.4, 0.6]])), 4)
    0.4581
"""

from __future__ import annotations

from eagerflow import losses
from eagerflow.metrics import reduction, regression
from eagerflow.ops.typing import DTypeLike
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

    def __init__(self, name: str | None = "kl_divergence", dtype: DTypeLike = None) -> None:
        super().__init__(_kl_divergence, name=name, dtype=dtype)


class Poisson(reduction.MeanMetricWrapper):
    """The mean over samples of ``mean(y_pred - y_true * log(y_pred + 1e-7), axis=-1)``.

    Examples:
        >>> import eagerflow as ef
        >>> m = ef.metrics.Poisson()
        >>> round(float(m([[0, 1], [0, 0]], [[1, 1], [0, 0]])), 4)
        0.5
    """

    def __init__(self, name: str | None = "poisson", dtype: DTypeLike = None) -> None:
        super().__init__(_poisson, name=name, dtype=dtype)


class BinaryCrossentropy(reduction.MeanMetricWrapper):
    """The mean over samples of `ef.losses.binary_crossentropy` (the metric form of the
    loss, so it can be watched during `fit`).

    Args:
        name, dtype: see `Metric`.
        from_logits, label_smoothing: as in the loss.

    Examples:
        >>> import eagerflow as ef
        >>> round(float(ef.metrics.BinaryCrossentropy()([[1.0], [0.0]], [[0.9], [0.2]])), 4)
        0.1643
    """

    def __init__(self, name: str | None = "binary_crossentropy", dtype: DTypeLike = None,
                 from_logits: bool = False, label_smoothing: float = 0.0) -> None:
        super().__init__(losses.binary_crossentropy, name=name, dtype=dtype,
                         from_logits=from_logits, label_smoothing=label_smoothing)


class CategoricalCrossentropy(reduction.MeanMetricWrapper):
    """The mean over samples of `ef.losses.categorical_crossentropy` (one-hot labels).

    Examples:
        >>> import eagerflow as ef
        >>> m = ef.metrics.CategoricalCrossentropy()
        >>> round(float(m([[0.0, 1.0]], [[0.5, 0.5]])), 4)
        0.6931
    """

    def __init__(self, name: str | None = "categorical_crossentropy", dtype: DTypeLike = None,
                 from_logits: bool = False, label_smoothing: float = 0.0,
                 axis: int = -1) -> None:
        super().__init__(losses.categorical_crossentropy, name=name, dtype=dtype,
                         from_logits=from_logits, label_smoothing=label_smoothing, axis=axis)


class SparseCategoricalCrossentropy(reduction.MeanMetricWrapper):
    """The mean over samples of `ef.losses.sparse_categorical_crossentropy` (integer
    labels); entries labelled `ignore_class` are left out of the mean, as in Keras.

    Examples:
        >>> import eagerflow as ef
        >>> m = ef.metrics.SparseCategoricalCrossentropy()
        >>> round(float(m([1], [[0.5, 0.5]])), 4)
        0.6931
    """

    def __init__(self, name: str | None = "sparse_categorical_crossentropy",
                 dtype: DTypeLike = None, from_logits: bool = False,
                 ignore_class: int | None = None, axis: int = -1) -> None:
        super().__init__(losses.sparse_categorical_crossentropy, name=name, dtype=dtype,
                         from_logits=from_logits, ignore_class=ignore_class, axis=axis)


class Hinge(reduction.MeanMetricWrapper):
    """The mean over samples of `ef.losses.hinge` (labels in {-1, 1} or {0, 1}).

    Examples:
        >>> import eagerflow as ef
        >>> float(ef.metrics.Hinge()([[1.0]], [[0.25]]))
        0.75
    """

    def __init__(self, name: str | None = "hinge", dtype: DTypeLike = None) -> None:
        super().__init__(losses.hinge, name=name, dtype=dtype)


class SquaredHinge(reduction.MeanMetricWrapper):
    """The mean over samples of `ef.losses.squared_hinge`.

    Examples:
        >>> import eagerflow as ef
        >>> float(ef.metrics.SquaredHinge()([[1.0]], [[0.5]]))
        0.25
    """

    def __init__(self, name: str | None = "squared_hinge", dtype: DTypeLike = None) -> None:
        super().__init__(losses.squared_hinge, name=name, dtype=dtype)


class CategoricalHinge(reduction.MeanMetricWrapper):
    """The mean over samples of `ef.losses.categorical_hinge` (one-hot labels).

    Examples:
        >>> import eagerflow as ef
        >>> float(ef.metrics.CategoricalHinge()([[0.0, 1.0]], [[0.5, 0.5]]))
        1.0
    """

    def __init__(self, name: str | None = "categorical_hinge", dtype: DTypeLike = None) -> None:
        super().__init__(losses.categorical_hinge, name=name, dtype=dtype)


for _metric in (BinaryCrossentropy, CategoricalCrossentropy, SparseCategoricalCrossentropy,
                Hinge, SquaredHinge, CategoricalHinge):
    registry.register("metric", _metric)
registry.register("metric", KLDivergence, "kl_divergence")
registry.register("metric", Poisson, "poisson")
