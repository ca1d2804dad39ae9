"""Probabilistic and margin losses: KL divergence, Poisson, hinge losses, focal
cross-entropies (Keras 3's formulas, one value per sample).

Examples:
    >>> import eagerflow as ef
    >>> ef.losses.hinge([[1.0, 0.0]], [[0.5, -2.0]])
    ef.Tensor([0.25], shape=(1,), dtype=float32)
"""

from __future__ import annotations

from typing import Any

from eagerflow import backend
from eagerflow.core import logits as logits_lib
from eagerflow.losses import loss as loss_module
from eagerflow.losses.crossentropy import _check_smoothing
from eagerflow.ops import cross_entropy as xent
from eagerflow.ops import logic as logic_ops
from eagerflow.ops import math as math_ops
from eagerflow.ops import nn_ops
from eagerflow.ops import reduce as reduce_ops
from eagerflow.ops import unary as unary_ops
from eagerflow.ops.typing import Tensor, TensorLike
from eagerflow.saving import registry


def _aligned(y_true, y_pred, owner: str):
    y_pred = loss_module.as_prediction(y_pred)
    y_true = loss_module.as_target(y_true, y_pred)
    y_true, y_pred = loss_module.squeeze_or_expand_to_same_rank(y_true, y_pred)
    loss_module.check_same_shape(y_true, y_pred, owner)
    return y_true, y_pred


def _mean(values, axis=-1):
    return reduce_ops.reduce_mean(values, axis=axis) if values.ndim else values


def kl_divergence(y_true: TensorLike, y_pred: TensorLike) -> Tensor:
    """``sum(y_true * log(y_true / y_pred), axis=-1)``, both clipped to ``[1e-7, 1]``.

    Examples:
        >>> import eagerflow as ef
        >>> float(ef.losses.kl_divergence([0.5, 0.5], [0.5, 0.5]))
        0.0
    """
    y_true, y_pred = _aligned(y_true, y_pred, "kl_divergence")
    y_true = math_ops.clip_by_value(y_true, backend.epsilon(), 1.0)
    y_pred = math_ops.clip_by_value(y_pred, backend.epsilon(), 1.0)
    return reduce_ops.reduce_sum(
        math_ops.multiply(y_true, unary_ops.log(math_ops.divide(y_true, y_pred))), axis=-1)


def poisson(y_true: TensorLike, y_pred: TensorLike) -> Any:
    """``mean(y_pred - y_true * log(y_pred + 1e-7), axis=-1)``.

    Examples:
        >>> import eagerflow as ef
        >>> round(float(ef.losses.poisson([1.0], [1.0])), 4)
        1.0
    """
    y_true, y_pred = _aligned(y_true, y_pred, "poisson")
    return _mean(math_ops.subtract(
        y_pred,
        math_ops.multiply(y_true, unary_ops.log(math_ops.add(y_pred, backend.epsilon())))))


def _signed_labels(y_true):
    """Labels in {0, 1} become {-1, 1} (Keras's hinge convention); others stay."""
    binary = reduce_ops.reduce_all(logic_ops.logical_or(logic_ops.equal(y_true, 0.0),
                                                        logic_ops.equal(y_true, 1.0)))
    return math_ops.where(binary, math_ops.subtract(math_ops.multiply(y_true, 2.0), 1.0),
                          y_true)


def hinge(y_true: TensorLike, y_pred: TensorLike) -> Any:
    """``mean(maximum(1 - y_true * y_pred, 0), axis=-1)``; labels in {0, 1} count as
    {-1, 1}.

    Examples:
        >>> import eagerflow as ef
        >>> float(ef.losses.hinge([-1.0, 1.0], [0.5, 2.0]))
        0.75
    """
    y_true, y_pred = _aligned(y_true, y_pred, "hinge")
    margin = math_ops.subtract(1.0, math_ops.multiply(_signed_labels(y_true), y_pred))
    return _mean(math_ops.maximum(margin, 0.0))


def squared_hinge(y_true: TensorLike, y_pred: TensorLike) -> Any:
    """``mean(square(maximum(1 - y_true * y_pred, 0)), axis=-1)`` (labels as in `hinge`).

    Examples:
        >>> import eagerflow as ef
        >>> float(ef.losses.squared_hinge([-1.0, 1.0], [0.5, 2.0]))
        1.125
    """
    y_true, y_pred = _aligned(y_true, y_pred, "squared_hinge")
    margin = math_ops.subtract(1.0, math_ops.multiply(_signed_labels(y_true), y_pred))
    return _mean(unary_ops.square(math_ops.maximum(margin, 0.0)))


def categorical_hinge(y_true: TensorLike, y_pred: TensorLike) -> Tensor:
    """``maximum(neg - pos + 1, 0)`` with ``pos = sum(y_true * y_pred)`` and
    ``neg = max((1 - y_true) * y_pred)`` over the last axis (one-hot `y_true`).

    Examples:
        >>> import eagerflow as ef
        >>> float(ef.losses.categorical_hinge([0.0, 1.0], [0.3, 0.5]))
        0.8
    """
    y_true, y_pred = _aligned(y_true, y_pred, "categorical_hinge")
    positive = reduce_ops.reduce_sum(math_ops.multiply(y_true, y_pred), axis=-1)
    negative = reduce_ops.reduce_max(
        math_ops.multiply(math_ops.subtract(1.0, y_true), y_pred), axis=-1)
    return math_ops.maximum(math_ops.add(math_ops.subtract(negative, positive), 1.0), 0.0)


def binary_focal_crossentropy(y_true: TensorLike, y_pred: TensorLike,
                              apply_class_balancing: bool = False, alpha: float = 0.25,
                              gamma: float = 2.0, from_logits: bool = False,
                              label_smoothing: float = 0.0, axis: int = -1) -> Any:
    """Binary cross-entropy scaled by ``(1 - p_t) ** gamma`` (Lin et al.), mean over `axis`.

    ``p_t = y_true * p + (1 - y_true) * (1 - p)``; with `apply_class_balancing` each term is
    also weighted by ``alpha`` (positives) or ``1 - alpha`` (negatives).

    Raises:
        ValueError: if `label_smoothing` is outside [0, 1].

    Examples:
        >>> import eagerflow as ef
        >>> round(float(ef.losses.binary_focal_crossentropy([1.0], [0.9])), 5)
        0.00105
    """
    smoothing = _check_smoothing(label_smoothing, "binary_focal_crossentropy")
    y_true, y_pred = _aligned(y_true, y_pred, "binary_focal_crossentropy")
    if smoothing:
        y_true = math_ops.add(math_ops.multiply(y_true, 1.0 - smoothing), 0.5 * smoothing)
    # Keras: the cross-entropy comes from the logits `y_pred` is or remembers (a sigmoid
    # output), the focal factor from the probabilities.
    remembered = y_pred if from_logits else logits_lib.logits_of(y_pred, logits_lib.SIGMOID)
    if remembered is not None:
        bce = xent.sigmoid_cross_entropy_with_logits(labels=y_true, logits=remembered)
        if from_logits:
            y_pred = unary_ops.sigmoid(y_pred)
    else:
        p = math_ops.clip_by_value(y_pred, backend.epsilon(), 1.0 - backend.epsilon())
        bce = unary_ops.negative(math_ops.add(
            math_ops.multiply(y_true, unary_ops.log(p)),
            math_ops.multiply(math_ops.subtract(1.0, y_true),
                              unary_ops.log(math_ops.subtract(1.0, p)))))
    p_t = math_ops.add(math_ops.multiply(y_true, y_pred),
                       math_ops.multiply(math_ops.subtract(1.0, y_true),
                                         math_ops.subtract(1.0, y_pred)))
    focal = math_ops.multiply(math_ops.pow(math_ops.subtract(1.0, p_t), float(gamma)), bce)
    if apply_class_balancing:
        weight = math_ops.add(math_ops.multiply(y_true, alpha),
                              math_ops.multiply(math_ops.subtract(1.0, y_true), 1.0 - alpha))
        focal = math_ops.multiply(weight, focal)
    return _mean(focal, axis)


def categorical_focal_crossentropy(y_true: TensorLike, y_pred: TensorLike, alpha: float = 0.25,
                                   gamma: float = 2.0, from_logits: bool = False,
                                   label_smoothing: float = 0.0, axis: int = -1) -> Tensor:
    """Categorical cross-entropy scaled by ``alpha * (1 - p) ** gamma``, summed over `axis`.

    Raises:
        ValueError: if `label_smoothing` is outside [0, 1].

    Examples:
        >>> import eagerflow as ef
        >>> round(float(ef.losses.categorical_focal_crossentropy([0.0, 1.0], [0.2, 0.8])), 5)
        0.00223
    """
    smoothing = _check_smoothing(label_smoothing, "categorical_focal_crossentropy")
    y_true, y_pred = _aligned(y_true, y_pred, "categorical_focal_crossentropy")
    if smoothing:
        classes = y_pred.shape[axis]  # type: ignore[union-attr]  # (aligned: a Tensor)
        y_true = math_ops.add(math_ops.multiply(y_true, 1.0 - smoothing), smoothing / classes)
    if from_logits:
        y_pred = nn_ops.softmax(y_pred, axis=axis)
    output = math_ops.divide(y_pred, reduce_ops.reduce_sum(y_pred, axis=axis, keepdims=True))
    output = math_ops.clip_by_value(output, backend.epsilon(), 1.0 - backend.epsilon())
    cce = unary_ops.negative(math_ops.multiply(y_true, unary_ops.log(output)))
    factor = math_ops.multiply(math_ops.pow(math_ops.subtract(1.0, output), float(gamma)),
                               alpha)
    return reduce_ops.reduce_sum(math_ops.multiply(factor, cce), axis=axis)


class KLDivergence(loss_module.LossFunctionWrapper):
    """Kullback-Leibler divergence ``y_true * log(y_true / y_pred)``, summed over the last
    axis; `kl_divergence` as a `Loss` (with its reduction and sample weights).

    Args:
        reduction: how the per-sample values are reduced; see `Loss`.
        name: the loss's name.

    Examples:
        >>> import eagerflow as ef
        >>> round(float(ef.losses.KLDivergence()([[0.2, 0.8]], [[0.4, 0.6]])), 4)
        0.0915
    """

    def __init__(self, reduction: str | None = "sum_over_batch_size",
                 name: str | None = "kl_divergence", dtype: Any = None) -> None:
        super().__init__(kl_divergence, reduction=reduction, name=name, dtype=dtype)


class Poisson(loss_module.LossFunctionWrapper):
    """Poisson loss, the mean of ``y_pred - y_true * log(y_pred)`` over the last axis;
    `poisson` as a `Loss` (with its reduction and sample weights).

    Args:
        reduction: how the per-sample values are reduced; see `Loss`.
        name: the loss's name.

    Examples:
        >>> import eagerflow as ef
        >>> round(float(ef.losses.Poisson()([[1.0, 2.0]], [[1.5, 1.5]])), 4)
        0.8918
    """

    def __init__(self, reduction: str | None = "sum_over_batch_size",
                 name: str | None = "poisson", dtype: Any = None) -> None:
        super().__init__(poisson, reduction=reduction, name=name, dtype=dtype)


class Hinge(loss_module.LossFunctionWrapper):
    """Hinge loss ``max(1 - y_true * y_pred, 0)`` for labels in {-1, 1} (0/1 labels are
    converted), averaged over the last axis; `hinge` as a `Loss` (with its reduction and sample
    weights).

    Args:
        reduction: how the per-sample values are reduced; see `Loss`.
        name: the loss's name.

    Examples:
        >>> import eagerflow as ef
        >>> round(float(ef.losses.Hinge()([[1.0, 0.0]], [[0.5, -2.0]])), 4)
        0.25
    """

    def __init__(self, reduction: str | None = "sum_over_batch_size",
                 name: str | None = "hinge", dtype: Any = None) -> None:
        super().__init__(hinge, reduction=reduction, name=name, dtype=dtype)


class SquaredHinge(loss_module.LossFunctionWrapper):
    """Squared hinge loss ``max(1 - y_true * y_pred, 0) ** 2`` for labels in {-1, 1} (0/1
    labels are converted), averaged over the last axis; `squared_hinge` as a `Loss` (with its
    reduction and sample weights).

    Args:
        reduction: how the per-sample values are reduced; see `Loss`.
        name: the loss's name.

    Examples:
        >>> import eagerflow as ef
        >>> round(float(ef.losses.SquaredHinge()([[1.0, 0.0]], [[0.5, -2.0]])), 4)
        0.125
    """

    def __init__(self, reduction: str | None = "sum_over_batch_size",
                 name: str | None = "squared_hinge", dtype: Any = None) -> None:
        super().__init__(squared_hinge, reduction=reduction, name=name, dtype=dtype)


class CategoricalHinge(loss_module.LossFunctionWrapper):
    """Categorical hinge loss ``max(0, 1 + max(wrong-class score) - true-class score)`` for
    one-hot labels; `categorical_hinge` as a `Loss` (with its reduction and sample weights).

    Args:
        reduction: how the per-sample values are reduced; see `Loss`.
        name: the loss's name.

    Examples:
        >>> import eagerflow as ef
        >>> round(float(ef.losses.CategoricalHinge()([[0.0, 1.0]], [[0.3, 0.6]])), 4)
        0.7
    """

    def __init__(self, reduction: str | None = "sum_over_batch_size",
                 name: str | None = "categorical_hinge", dtype: Any = None) -> None:
        super().__init__(categorical_hinge, reduction=reduction, name=name, dtype=dtype)


class BinaryFocalCrossentropy(loss_module.LossFunctionWrapper):
    """Binary cross-entropy with the focal factor ``(1 - p_t) ** gamma`` that down-weights
    well-classified examples (Lin et al., 2017); `binary_focal_crossentropy` as a `Loss` (with
    its reduction and sample weights).

    Args:
        apply_class_balancing: weigh the positive class by `alpha` and the negative by ``1 -
            alpha``.
        alpha: the class-balancing weight, used with `apply_class_balancing`.
        gamma: the focusing parameter: ``(1 - p_t) ** gamma`` down-weights easy examples.
        from_logits: whether `y_pred` holds logits instead of probabilities.
        label_smoothing: in [0, 1]: squeeze the labels towards 0.5.
        axis: the axis the per-sample mean is taken over.
        reduction: how the per-sample values are reduced; see `Loss`.
        name: the loss's name.

    Examples:
        >>> import eagerflow as ef
        >>> round(float(ef.losses.BinaryFocalCrossentropy()([[0.0, 1.0]], [[0.2, 0.7]])), 4)
        0.0205
    """

    def __init__(self, apply_class_balancing: bool = False, alpha: float = 0.25,
                 gamma: float = 2.0, from_logits: bool = False, label_smoothing: float = 0.0,
                 axis: int = -1, reduction: str | None = "sum_over_batch_size",
                 name: str | None = "binary_focal_crossentropy", dtype: Any = None) -> None:
        super().__init__(binary_focal_crossentropy, reduction=reduction, name=name,
                         apply_class_balancing=apply_class_balancing, alpha=alpha, gamma=gamma,
                         from_logits=from_logits,                          label_smoothing=label_smoothing, axis=axis, dtype=dtype)


class CategoricalFocalCrossentropy(loss_module.LossFunctionWrapper):
    """Categorical cross-entropy for one-hot labels with the focal factor ``(1 - p) ** gamma``
    that down-weights well-classified examples; `categorical_focal_crossentropy` as a `Loss`
    (with its reduction and sample weights).

    Args:
        alpha: scales every term: the loss is ``alpha * (1 - p) ** gamma`` times the cross-
            entropy.
        gamma: the focusing parameter: ``(1 - p) ** gamma`` down-weights easy examples.
        from_logits: whether `y_pred` holds logits instead of probabilities.
        label_smoothing: in [0, 1]: mix the one-hot labels with a uniform distribution.
        axis: the class axis.
        reduction: how the per-sample values are reduced; see `Loss`.
        name: the loss's name.

    Examples:
        >>> import eagerflow as ef
        >>> round(float(ef.losses.CategoricalFocalCrossentropy()([[0.0, 1.0]], [[0.3, 0.7]])), 4)
        0.008
    """

    def __init__(self, alpha: float = 0.25, gamma: float = 2.0, from_logits: bool = False,
                 label_smoothing: float = 0.0, axis: int = -1,
                 reduction: str | None = "sum_over_batch_size",
                 name: str | None = "categorical_focal_crossentropy", dtype: Any = None) -> None:
        super().__init__(categorical_focal_crossentropy, reduction=reduction, name=name,
                         alpha=alpha, gamma=gamma, from_logits=from_logits,
                         label_smoothing=label_smoothing, axis=axis, dtype=dtype)


for _loss in (kl_divergence, poisson, hinge, squared_hinge, categorical_hinge,
              binary_focal_crossentropy, categorical_focal_crossentropy, KLDivergence, Poisson,
              Hinge, SquaredHinge, CategoricalHinge, BinaryFocalCrossentropy,
              CategoricalFocalCrossentropy):
    registry.register("loss", _loss)
registry.register("loss", kl_divergence, "kld", "KLD", "kullback_leibler_divergence")
