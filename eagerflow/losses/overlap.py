"""Overlap losses for segmentation (`dice`, `tversky`) and the noise-robust
`categorical_generalized_cross_entropy`, with Keras 3's formulas and defaults.

`dice` and `tversky` sum over `axis`: with the default ``axis=None`` over everything, so
the loss is one number for the whole batch (Keras's behaviour); pass the non-batch axes,
e.g. ``axis=(1, 2, 3)`` for masks of shape ``(batch, height, width, 1)``, for a loss per
sample that sample weights can weigh.

Examples:
    >>> import eagerflow as ef
    >>> round(float(ef.losses.dice([[1.0, 1.0, 0.0]], [[1.0, 0.0, 0.0]])), 4)
    0.3333
"""

from __future__ import annotations

from typing import Any

from eagerflow import backend
from eagerflow.losses import loss as loss_module
from eagerflow.losses.crossentropy import _sparse_labels
from eagerflow.losses.regression import _aligned
from eagerflow.ops import indexing as indexing_ops
from eagerflow.ops import math as math_ops
from eagerflow.ops import reduce as reduce_ops
from eagerflow.ops.typing import AxisLike, Tensor, TensorLike
from eagerflow.saving import registry


def dice(y_true: TensorLike, y_pred: TensorLike, axis: AxisLike = None) -> Tensor:
    """``1 - 2 sum(y_true * y_pred) / (sum(y_true) + sum(y_pred) + 1e-7)``, sums over `axis`.

    Args:
        y_true: the target masks (0 and 1, or soft).
        y_pred: the predicted probabilities, of the same shape.
        axis: the axes to sum over (None: all of them, one loss for the batch).

    Raises:
        InvalidArgumentError: if the shapes differ.

    Examples:
        >>> import eagerflow as ef
        >>> ef.losses.dice([[1.0, 1.0], [0.0, 1.0]], [[1.0, 0.0], [0.0, 1.0]],
        ...                axis=1).numpy().round(4)
        array([0.3333, 0.    ], dtype=float32)
    """
    y_true, y_pred = _aligned(y_true, y_pred, "dice")
    intersection = reduce_ops.reduce_sum(math_ops.multiply(y_true, y_pred), axis=axis)
    total = math_ops.add(reduce_ops.reduce_sum(y_true, axis=axis),
                         reduce_ops.reduce_sum(y_pred, axis=axis))
    return math_ops.subtract(1.0, math_ops.divide(math_ops.multiply(intersection, 2.0),
                                                  math_ops.add(total, backend.epsilon())))


def tversky(y_true: TensorLike, y_pred: TensorLike, alpha: float = 0.5, beta: float = 0.5,
            axis: AxisLike = None) -> Tensor:
    """``1 - TP / (TP + alpha FP + beta FN + 1e-7)`` with soft counts summed over `axis`:
    ``TP = sum(y_true * y_pred)``, ``FP = sum((1 - y_pred) * y_true)`` and
    ``FN = sum(y_pred * (1 - y_true))`` (Keras's naming, in which `alpha` weighs the
    missed target mass).

    Args:
        y_true: the target masks (0 and 1, or soft).
        y_pred: the predicted probabilities, of the same shape.
        alpha, beta: the weights of the two kinds of error (0.5 and 0.5 is `dice`).
        axis: the axes to sum over (None: all of them, one loss for the batch).

    Raises:
        InvalidArgumentError: if the shapes differ.

    Examples:
        >>> import eagerflow as ef
        >>> round(float(ef.losses.tversky([[1.0, 1.0, 0.0]], [[1.0, 0.0, 1.0]],
        ...                               alpha=0.3, beta=0.7)), 4)
        0.5
    """
    y_true, y_pred = _aligned(y_true, y_pred, "tversky")
    true_positive = reduce_ops.reduce_sum(math_ops.multiply(y_true, y_pred), axis=axis)
    missed = reduce_ops.reduce_sum(math_ops.multiply(math_ops.subtract(1.0, y_pred), y_true),
                                   axis=axis)
    spurious = reduce_ops.reduce_sum(math_ops.multiply(y_pred, math_ops.subtract(1.0, y_true)),
                                     axis=axis)
    denominator = math_ops.add(
        math_ops.add(true_positive, math_ops.multiply(missed, alpha)),
        math_ops.add(math_ops.multiply(spurious, beta), backend.epsilon()))
    return math_ops.subtract(1.0, math_ops.divide(true_positive, denominator))


def categorical_generalized_cross_entropy(y_true: TensorLike, y_pred: TensorLike,
                                          q: float = 0.5) -> Tensor:
    """``(1 - p ** q) / q`` per sample, where ``p`` is the predicted probability of the
    true class (Zhang and Sabuncu's loss for noisy labels: cross-entropy as ``q -> 0``,
    mean absolute error at ``q = 1``).

    Args:
        y_true: integer class indices, shape ``y_pred.shape[:-1]`` (or with a trailing 1).
        y_pred: class probabilities, classes on the last axis.
        q: in ``(0, 1)``.

    Raises:
        ValueError: if `q` is not in ``(0, 1)``.
        InvalidArgumentError: for labels of the wrong shape, not integers, or outside
            ``[0, num_classes)``.

    Examples:
        >>> import eagerflow as ef
        >>> ef.losses.categorical_generalized_cross_entropy(
        ...     [0, 1], [[0.7, 0.3], [0.2, 0.8]]).numpy().round(4)
        array([0.3267, 0.2111], dtype=float32)
    """
    q = _check_q(q, "categorical_generalized_cross_entropy")
    y_pred = _aligned(y_pred, y_pred, "categorical_generalized_cross_entropy")[1]
    labels = _sparse_labels(y_true, y_pred, "categorical_generalized_cross_entropy")
    one_hot = indexing_ops.one_hot(labels, y_pred.shape[-1], dtype=y_pred.dtype)
    p = reduce_ops.reduce_sum(math_ops.multiply(y_pred, one_hot), axis=-1)
    return math_ops.divide(math_ops.subtract(1.0, math_ops.pow(p, q)), q)


def _check_q(q, owner):
    if isinstance(q, bool) or not isinstance(q, (int, float)) or not 0 < q < 1:
        raise ValueError(f"{owner}: q must be a number in the interval (0, 1). Received: "
                         f"q={q!r}")
    return float(q)


class Dice(loss_module.LossFunctionWrapper):
    """Dice loss ``1 - 2 * sum(y_true * y_pred) / (sum(y_true) + sum(y_pred))``, for
    segmentation masks; `dice` as a `Loss` (with its reduction and sample weights).

    Args:
        axis: the axes to sum over (None: all of them, one loss for the batch).
        reduction: how the per-sample values are reduced; see `Loss`.
        name: the loss's name.

    Examples:
        >>> import eagerflow as ef
        >>> round(float(ef.losses.Dice()([[1.0, 0.0, 1.0]], [[0.8, 0.2, 0.6]])), 4)
        0.2222
    """

    def __init__(self, axis: AxisLike = None, reduction: str | None = "sum_over_batch_size",
                 name: str | None = "dice", dtype: Any = None) -> None:
        super().__init__(dice, reduction=reduction, name=name, axis=axis, dtype=dtype)


class Tversky(loss_module.LossFunctionWrapper):
    """Tversky loss ``1 - TP / (TP + alpha FP + beta FN)``, a Dice loss with the two kinds of
    error weighted apart (0.5 and 0.5 give Dice); `tversky` as a `Loss` (with its reduction and
    sample weights).

    Args:
        alpha: the weight of ``FP = sum((1 - y_pred) * y_true)`` (Keras's naming: the missed
            target mass).
        beta: the weight of ``FN = sum(y_pred * (1 - y_true))``.
        axis: the axes to sum over (None: all of them, one loss for the batch).
        reduction: how the per-sample values are reduced; see `Loss`.
        name: the loss's name.

    Examples:
        >>> import eagerflow as ef
        >>> round(float(ef.losses.Tversky()([[1.0, 0.0, 1.0]], [[0.8, 0.2, 0.6]])), 4)
        0.2222
    """

    def __init__(self, alpha: float = 0.5, beta: float = 0.5, axis: AxisLike = None,
                 reduction: str | None = "sum_over_batch_size",
                 name: str | None = "tversky", dtype: Any = None) -> None:
        super().__init__(tversky, reduction=reduction, name=name,
                         alpha=alpha, beta=beta, axis=axis, dtype=dtype)


class CategoricalGeneralizedCrossEntropy(loss_module.LossFunctionWrapper):
    """The `categorical_generalized_cross_entropy` loss as a `Loss` (reduction and sample
    weights); `q` is checked when the loss is made.

    Args:
        q: in (0, 1): small values behave like cross-entropy, values near 1 like the mean
            absolute error, which is robust to noisy labels.
        reduction: how the per-sample values are reduced; see `Loss`.
        name: the loss's name.

    Raises:
        ValueError: if `q` is not in (0, 1).

    Examples:
        >>> import eagerflow as ef
        >>> loss = ef.losses.CategoricalGeneralizedCrossEntropy(q=0.5)
        >>> round(float(loss([0, 1, 0, 1], [[0.7, 0.3], [0.2, 0.8], [0.6, 0.4], [0.4, 0.6]])), 4)
        0.3599
    """

    def __init__(self, q: float = 0.5, reduction: str | None = "sum_over_batch_size",
                 name: str | None = "categorical_generalized_cross_entropy", dtype: Any = None) -> None:
        super().__init__(categorical_generalized_cross_entropy, reduction=reduction, name=name,
                         q=_check_q(q, "CategoricalGeneralizedCrossEntropy"), dtype=dtype)


for _loss in (dice, tversky, categorical_generalized_cross_entropy, Dice, Tversky,
              CategoricalGeneralizedCrossEntropy):
    registry.register("loss", _loss)
