"""Cross-entropy losses on probabilities or logits (Keras 3 values, TF backend).

Probabilities are clipped to ``[1e-7, 1 - 1e-7]`` (Keras's epsilon) before the logarithm,
so predictions of exactly 0 or 1 give a large but finite loss. With ``from_logits=True``
the losses are computed from the logits directly, in forms that are exact and finite for
any logit (the fused ``ef.nn.*_cross_entropy_with_logits`` ops: ``max(x, 0) - x * z +
log(1 + exp(-|x|))`` for the sigmoid, a max-shifted log-softmax for the softmax); prefer
them to probabilities whenever you have logits.

**Predictions that remember their logits.** As in Keras, a prediction made by a softmax or
sigmoid (``Dense(10, activation="softmax")``, ``Conv2D(1, 1, activation="sigmoid")``,
``Activation``, ``ef.nn.softmax``, ...) carries the logits it was made from
(`eagerflow.core.logits`), and the cross-entropies use them instead of the clipped
probabilities: a saturated wrong prediction gives its true loss and a gradient that is not
zero. Categorical and sparse categorical cross-entropies take the logits of a softmax, the
binary cross-entropy those of a sigmoid, and any of them the logits of an activation
function (`ef.activations.softmax`/`sigmoid`, so of a layer's ``activation=``), exactly as
Keras 3 on TensorFlow does inside `fit`'s traced step. A tensor made from the prediction
(a slice, reshape, cast, ...) has no logits, and neither has the prediction of a sparse
cross-entropy with `ignore_class` (Keras masks it first). With ``from_logits=True`` such a
prediction warns once that it "does not represent logits" and its logits are used, as in
Keras.

Examples:
    >>> import eagerflow as ef
    >>> ef.losses.binary_crossentropy([[1.0, 0.0]], [[1.0, 0.0]])  # exact 0 and 1: finite
    ef.Tensor([1.192093e-07], shape=(1,), dtype=float32)
    >>> ef.losses.sparse_categorical_crossentropy([0], [[1000.0, -1000.0]], from_logits=True)
    ef.Tensor([0.], shape=(1,), dtype=float32)
    >>> probabilities = ef.nn.softmax([[30.0, -30.0]])  # [[1, 0]] in float32
    >>> ef.losses.sparse_categorical_crossentropy([1], probabilities)  # not -log(1e-7)
    ef.Tensor([60.], shape=(1,), dtype=float32)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from eagerflow import backend
from eagerflow.core import errors, masks
from eagerflow.core import logits as logits_lib
from eagerflow.losses import loss as loss_module
from eagerflow.ops import array_ops
from eagerflow.ops import creation as creation_ops
from eagerflow.ops import cross_entropy as xent
from eagerflow.ops import logic as logic_ops
from eagerflow.ops import math as math_ops
from eagerflow.ops import reduce as reduce_ops
from eagerflow.ops import unary as unary_ops
from eagerflow.ops.typing import Tensor, TensorLike
from eagerflow.saving import registry


def _check_axis(axis, ndim: int, owner: str) -> int:
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)) or not (
            -ndim <= axis < ndim):
        raise errors.InvalidArgumentError(
            f"{owner}: `axis` must be an int in [-{ndim}, {ndim}) for y_pred of rank {ndim}. "
            f"Received: axis={axis!r}"
        )
    return int(axis)


def _check_smoothing(label_smoothing, owner: str) -> float:
    if not 0.0 <= label_smoothing <= 1.0:
        raise ValueError(
            f"{owner}: `label_smoothing` must be in [0, 1]. Received: "
            f"label_smoothing={label_smoothing!r}"
        )
    return float(label_smoothing)


def _clipped(probabilities):
    return math_ops.clip_by_value(probabilities, backend.epsilon(), 1.0 - backend.epsilon())


def prediction_logits(y_pred, from_logits: bool, kind: str, owner: str):
    """``(values, from_logits)`` for a cross-entropy: the logits `y_pred` remembers (see the
    module docstring) and True, or `y_pred` and `from_logits` unchanged (Keras's
    ``_get_logits``).

    Args:
        y_pred: the prediction, as given to the loss.
        from_logits: the loss's argument.
        kind: `logits.SOFTMAX` for categorical cross-entropies, `logits.SIGMOID` for the
            binary one.
        owner: the function named in the warning.
    """
    found = logits_lib.logits_of(y_pred, kind)
    if found is None:
        return y_pred, from_logits
    if from_logits:
        errors.warn_once(
            f"from_logits:{owner}",
            f"`{owner}` received `from_logits=True`, but the `output` argument was produced "
            f"by a {kind} activation and thus does not represent logits. Was this intended?")
    return found, True


# -- functions --------------------------------------------------------------------------------
def binary_crossentropy(y_true: TensorLike, y_pred: TensorLike, from_logits: bool = False,
                        label_smoothing: float = 0.0, axis: int = -1) -> Tensor:
    """Binary cross-entropy, averaged over `axis`, one value per sample.

    Elementwise ``-(z * log(p) + (1 - z) * log(1 - p))`` with ``p`` clipped to
    ``[1e-7, 1 - 1e-7]``, or the exact sigmoid cross-entropy of logits.

    Args:
        y_true: targets in [0, 1], same shape as `y_pred`.
        y_pred: probabilities, or logits with ``from_logits=True``.
        from_logits: whether `y_pred` holds logits.
        label_smoothing: in [0, 1]; targets become ``z * (1 - s) + 0.5 * s``.
        axis: the axis averaged over.

    Raises:
        InvalidArgumentError: if the shapes differ or `axis` is out of range.
        ValueError: if `label_smoothing` is outside [0, 1].

    Examples:
        >>> import eagerflow as ef
        >>> ef.losses.binary_crossentropy([[0.0, 1.0]], [[-1000.0, 1000.0]], from_logits=True)
        ef.Tensor([0.], shape=(1,), dtype=float32)
    """
    smoothing = _check_smoothing(label_smoothing, "binary_crossentropy")
    y_pred = loss_module.as_prediction(y_pred)
    y_true = loss_module.as_target(y_true, y_pred)
    y_true, y_pred = loss_module.squeeze_or_expand_to_same_rank(y_true, y_pred)
    loss_module.check_same_shape(y_true, y_pred, "binary_crossentropy")
    if smoothing:
        y_true = math_ops.add(math_ops.multiply(y_true, 1.0 - smoothing), 0.5 * smoothing)
    y_pred, from_logits = prediction_logits(y_pred, from_logits, logits_lib.SIGMOID,
                                            "binary_crossentropy")
    if from_logits:
        values = xent.sigmoid_cross_entropy_with_logits(labels=y_true, logits=y_pred)
    else:
        p = _clipped(y_pred)
        values = unary_ops.negative(math_ops.add(
            math_ops.multiply(y_true, unary_ops.log(p)),
            math_ops.multiply(math_ops.subtract(1.0, y_true),
                              unary_ops.log(math_ops.subtract(1.0, p)))))
    if values.ndim == 0:
        return values
    return reduce_ops.reduce_mean(values, axis=_check_axis(axis, values.ndim,
                                                           "binary_crossentropy"))


def categorical_crossentropy(y_true: TensorLike, y_pred: TensorLike, from_logits: bool = False,
                             label_smoothing: float = 0.0, axis: int = -1) -> Tensor:
    """Cross-entropy between one-hot (or soft) targets and class probabilities or logits.

    Probabilities are first normalised to sum to 1 along `axis`, then clipped.

    Args:
        y_true: target distributions, same shape as `y_pred`.
        y_pred: class probabilities, or logits with ``from_logits=True``.
        from_logits: whether `y_pred` holds logits.
        label_smoothing: in [0, 1]; targets become ``z * (1 - s) + s / num_classes``.
        axis: the class axis.

    Raises:
        InvalidArgumentError: if the shapes differ, the inputs are scalars, or `axis` is out
            of range.
        ValueError: if `label_smoothing` is outside [0, 1].

    Examples:
        >>> import eagerflow as ef
        >>> loss = ef.losses.categorical_crossentropy([[0.0, 1.0]], [[0.25, 0.75]])
        >>> round(float(loss[0]), 5)
        0.28768
    """
    owner = "categorical_crossentropy"
    smoothing = _check_smoothing(label_smoothing, owner)
    y_pred = loss_module.as_prediction(y_pred)
    y_true = loss_module.as_target(y_true, y_pred)
    loss_module.check_same_shape(y_true, y_pred, owner)
    if y_pred.ndim == 0:
        raise errors.InvalidArgumentError(
            f"{owner}: y_true and y_pred must have at least rank 1 (a class axis). "
            f"Received: y_pred.shape={y_pred.shape}"
        )
    axis = _check_axis(axis, y_pred.ndim, owner)
    if smoothing:
        classes = y_pred.shape[axis]
        y_true = math_ops.add(math_ops.multiply(y_true, 1.0 - smoothing), smoothing / classes)
    y_pred, from_logits = prediction_logits(y_pred, from_logits, logits_lib.SOFTMAX, owner)
    if from_logits:
        return xent.softmax_cross_entropy_with_logits(y_true, y_pred, axis=axis)
    total = reduce_ops.reduce_sum(y_pred, axis, keepdims=True)
    # sum(z * -log p) rather than -sum(z * log p): a perfect prediction gives +0, not -0.
    neg_log_p = unary_ops.negative(unary_ops.log(_clipped(math_ops.divide(y_pred, total))))
    return reduce_ops.reduce_sum(math_ops.multiply(y_true, neg_log_p), axis)


def _sparse_labels(y_true, y_pred, owner: str):
    """Validated integer class indices of shape ``y_pred.shape[:-1]``, as an int64 tensor.

    Shape and dtype are checked at once; values (integral, in ``[0, classes)``) when the
    step runs, eagerly or in the graph of a traced function, with the same error.
    """
    labels = creation_ops.convert_to_tensor(y_true)
    if labels.ndim == y_pred.ndim and labels.ndim and labels.shape[-1] == 1:
        labels = array_ops.squeeze(labels, -1)
    expected = y_pred.shape[:-1]
    if labels.ndim != len(expected) or any(
        a is not None and b is not None and a != b
        for a, b in zip(labels.shape, expected, strict=True)
    ):
        raise errors.InvalidArgumentError(
            f"{owner}: y_true must hold one class index per row of y_pred, with shape "
            f"y_pred.shape[:-1]={expected} (or with a trailing axis of size 1). "
            f"Received: y_true.shape={labels.shape}, y_pred.shape={y_pred.shape}"
        )
    if labels.dtype.kind not in "iubf":
        raise errors.InvalidArgumentError(
            f"{owner}: y_true must hold integer class indices. Received dtype "
            f"{labels.dtype.name}."
        )
    xent.check_class_indices(labels, owner, y_pred.shape[-1])  # eagerly and in graphs
    return labels if labels.dtype == np.int64 else math_ops.cast(labels, np.int64)


def sparse_categorical_crossentropy(y_true: TensorLike, y_pred: TensorLike,
                                    from_logits: bool = False, ignore_class: int | None = None,
                                    axis: int = -1) -> Tensor:
    """Cross-entropy between integer class labels and class probabilities or logits.

    Args:
        y_true: integer class indices, shape ``y_pred.shape[:-1]`` (or with a trailing 1).
        y_pred: class probabilities (clipped, then renormalised), or logits with
            ``from_logits=True``; classes on the last axis.
        from_logits: whether `y_pred` holds logits.
        ignore_class: a label value (e.g. -1 or a padding class) whose entries get loss 0
            and a mask (attached to the result) that `Loss` reductions honour: the
            default reduction divides by the number of other entries, as in Keras.
        axis: the class axis; only -1 (the last axis) is supported, as in Keras.

    Raises:
        InvalidArgumentError: for labels of the wrong shape, non-integer labels, labels
            outside ``[0, num_classes)`` (other than `ignore_class`), scalar predictions,
            or another axis.

    Examples:
        >>> import eagerflow as ef
        >>> loss = ef.losses.sparse_categorical_crossentropy([1, 0], [[0.1, 0.9], [0.5, 0.5]])
        >>> [round(float(v), 5) for v in loss]
        [0.10536, 0.69315]
    """
    owner = "sparse_categorical_crossentropy"
    y_pred = loss_module.as_prediction(y_pred)
    if y_pred.ndim == 0:
        raise errors.InvalidArgumentError(
            f"{owner}: y_pred must have at least rank 1 (a class axis). Received: "
            f"y_pred.shape={y_pred.shape}"
        )
    if axis not in (-1, y_pred.ndim - 1):
        raise errors.InvalidArgumentError(
            f"{owner}: only axis=-1 (the last axis) is supported. Received: axis={axis!r}"
        )
    valid = None
    if ignore_class is None:
        y_pred, from_logits = prediction_logits(y_pred, from_logits, logits_lib.SOFTMAX, owner)
    else:  # Keras masks the prediction first, so it has no logits
        y_true = creation_ops.convert_to_tensor(y_true)
        valid = logic_ops.not_equal(y_true, ignore_class)
        y_true = math_ops.where(valid, y_true, 0)
    labels = _sparse_labels(y_true, y_pred, owner)
    logits = y_pred if from_logits else unary_ops.log(_clipped(y_pred))
    values = xent.sparse_softmax_cross_entropy_with_logits(labels, logits)
    if valid is None:
        return values
    valid = array_ops.reshape(valid, array_ops.shape(values))
    values = math_ops.where(valid, values, math_ops.multiply(values, 0.0))
    masks.set_mask(values, valid)
    return values


def sparse_softmax_cross_entropy(labels: TensorLike, logits: TensorLike,
                                 weights: TensorLike = 1.0) -> Any:
    """The TF-1 loss: mean sparse softmax cross-entropy of logits (a scalar).

    Args:
        labels: integer class indices of shape ``logits.shape[:-1]``.
        logits: unnormalised log-probabilities, classes on the last axis.
        weights: a scalar or per-sample weights; the result is
            ``sum(weights * losses) / count_nonzero(weights)`` (TF's
            ``SUM_BY_NONZERO_WEIGHTS``), 0 when every weight is 0.

    Returns:
        A scalar Tensor.

    Raises:
        InvalidArgumentError: for invalid labels (see `sparse_categorical_crossentropy`) or
            weights that do not broadcast to the labels.

    Examples:
        >>> import eagerflow as ef
        >>> loss = ef.losses.sparse_softmax_cross_entropy([0, 1], [[2.0, 0.0], [0.0, 2.0]])
        >>> round(float(loss), 5)
        0.12693
    """
    logits = loss_module.as_prediction(logits)
    if logits.ndim == 0:
        raise errors.InvalidArgumentError(
            "sparse_softmax_cross_entropy: logits must have at least rank 1 (a class axis). "
            f"Received: logits.shape={logits.shape}"
        )
    values = xent.sparse_softmax_cross_entropy_with_logits(
        _sparse_labels(labels, logits, "sparse_softmax_cross_entropy"), logits)
    weights = loss_module.as_target(weights, values)
    try:
        np.broadcast_shapes(tuple(weights.shape), tuple(values.shape))
        if len(weights.shape) > len(values.shape):
            raise ValueError
    except ValueError:
        raise errors.InvalidArgumentError(
            f"sparse_softmax_cross_entropy: weights of shape {weights.shape} cannot be "
            f"broadcast to the losses of shape {values.shape}."
        ) from None
    total = reduce_ops.reduce_sum(math_ops.multiply(values, weights))
    nonzero = reduce_ops.reduce_sum(math_ops.cast(
        logic_ops.not_equal(array_ops.broadcast_to(weights, array_ops.shape(values)), 0),
        total.dtype))
    return loss_module._divide_no_nan(total, nonzero)


# -- classes ----------------------------------------------------------------------------------
class _SmoothedCrossentropy(loss_module.Loss):
    """The arguments, call and config shared by BinaryCrossentropy and CategoricalCrossentropy.

    Subclasses set `_function`, the loss function called with ``(y_true, y_pred,
    from_logits, label_smoothing, axis)``.
    """

    _function: Any = None

    def __init__(self, from_logits: bool, label_smoothing: Any, axis: int, reduction: str | None,
                 name: str | None, dtype: Any = None) -> None:
        super().__init__(name=name, reduction=reduction, dtype=dtype)
        self.from_logits = bool(from_logits)
        self.label_smoothing = _check_smoothing(label_smoothing, type(self).__name__)
        self.axis = axis

    def call(self, y_true: TensorLike, y_pred: TensorLike) -> Any:
        return self._function(y_true, y_pred, self.from_logits, self.label_smoothing,
                              self.axis)

    def get_config(self) -> dict:
        return {**super().get_config(), "from_logits": self.from_logits,
                "label_smoothing": self.label_smoothing, "axis": self.axis}


class BinaryCrossentropy(_SmoothedCrossentropy):
    """Binary cross-entropy; see `binary_crossentropy` and `Loss` for the reduction.

    Args:
        from_logits: whether `y_pred` holds logits (more accurate; prefer it).
        label_smoothing: in [0, 1].
        axis: the axis averaged over.
        reduction: see `Loss`.
        name: the loss's name.

    Examples:
        >>> import eagerflow as ef
        >>> bce = ef.losses.BinaryCrossentropy(from_logits=True)
        >>> round(float(bce([[1.0], [0.0]], [[0.0], [0.0]])), 5)
        0.69315
    """

    _function = staticmethod(binary_crossentropy)

    def __init__(self, from_logits: bool = False, label_smoothing: float = 0.0,
                 axis: int = -1, reduction: str | None = "sum_over_batch_size",
                 name: str | None = "binary_crossentropy", dtype: Any = None) -> None:
        super().__init__(from_logits, label_smoothing, axis, reduction, name, dtype=dtype)


class CategoricalCrossentropy(_SmoothedCrossentropy):
    """Categorical cross-entropy; see `categorical_crossentropy` and `Loss`.

    Args:
        from_logits: whether `y_pred` holds logits (more accurate; prefer it).
        label_smoothing: in [0, 1].
        axis: the class axis.
        reduction: see `Loss`.
        name: the loss's name.

    Examples:
        >>> import eagerflow as ef
        >>> cce = ef.losses.CategoricalCrossentropy()
        >>> round(float(cce([[0.0, 1.0, 0.0]], [[0.05, 0.95, 0.0]])), 5)
        0.05129
    """

    _function = staticmethod(categorical_crossentropy)

    def __init__(self, from_logits: bool = False, label_smoothing: float = 0.0,
                 axis: int = -1, reduction: str | None = "sum_over_batch_size",
                 name: str | None = "categorical_crossentropy", dtype: Any = None) -> None:
        super().__init__(from_logits, label_smoothing, axis, reduction, name, dtype=dtype)


class SparseCategoricalCrossentropy(loss_module.Loss):
    """Cross-entropy with integer labels; see `sparse_categorical_crossentropy` and `Loss`.

    Args:
        from_logits: whether `y_pred` holds logits (more accurate; prefer it).
        ignore_class: a label value left out of the loss: its entries weigh 0 and the
            default reduction divides by the number of the other entries.
        axis: the class axis; only -1 (the last axis) is supported, as in Keras with
            TensorFlow: another axis raises `InvalidArgumentError` (a `ValueError`).
        reduction: see `Loss`.
        name: the loss's name.

    Examples:
        >>> import eagerflow as ef
        >>> scce = ef.losses.SparseCategoricalCrossentropy(from_logits=True)
        >>> round(float(scce([2], [[0.0, 0.0, 0.0]])), 5)
        1.09861
        >>> scce = ef.losses.SparseCategoricalCrossentropy(from_logits=True, ignore_class=-1)
        >>> round(float(scce([2, -1], [[0.0, 0.0, 0.0], [5.0, 0.0, 0.0]])), 5)
        1.09861
    """

    def __init__(self, from_logits: bool = False, ignore_class: int | None = None,
                 reduction: str | None = "sum_over_batch_size",
                 name: str | None = "sparse_categorical_crossentropy", axis: int = -1,
                 dtype: Any = None) -> None:
        super().__init__(name=name, reduction=reduction, dtype=dtype)
        self.from_logits = bool(from_logits)
        self.ignore_class = None if ignore_class is None else int(ignore_class)
        self.axis = int(axis)

    def call(self, y_true: TensorLike, y_pred: TensorLike) -> Any:
        return sparse_categorical_crossentropy(y_true, y_pred, self.from_logits,
                                               self.ignore_class, axis=self.axis)

    def get_config(self) -> dict:
        return {**super().get_config(), "from_logits": self.from_logits,
                "ignore_class": self.ignore_class}  # Keras 3.15 leaves axis out


for _loss in (binary_crossentropy, categorical_crossentropy, sparse_categorical_crossentropy,
              sparse_softmax_cross_entropy, BinaryCrossentropy, CategoricalCrossentropy,
              SparseCategoricalCrossentropy):
    registry.register("loss", _loss)
registry.register("loss", binary_crossentropy, "bce", "BCE")
