"""Intersection over union: `IoU`, `MeanIoU`, `BinaryIoU`, `OneHotIoU` and `OneHotMeanIoU`,
from a confusion matrix accumulated over all batches.

The IoU of a class is ``TP / (TP + FP + FN)``, read off the ``(num_classes,
num_classes)`` confusion matrix (rows: true class, columns: predicted class) as
``diag / (row_sum + column_sum - diag)``. The result is the mean over the target classes
(all of them for the "mean" metrics); classes that never occur, neither as labels nor as
predictions, are left out of the mean.

Keras 3.15 keeps the confusion matrix in the metric's dtype, int64 by default, so
fractional sample weights truncate to 0 there (its own docstring examples print other
values than it computes); here the matrix is float64 and weights count as given, which
is the documented formula.

Examples:
    >>> import eagerflow as ef
    >>> m = ef.metrics.MeanIoU(num_classes=2)
    >>> round(float(m([0, 0, 1, 1], [0, 1, 0, 1])), 4)
    0.3333
"""

from __future__ import annotations

from typing import Any

import numpy as np

from eagerflow.core import errors
from eagerflow.metrics import confusion, metric
from eagerflow.ops import array_ops as array, indexing, linalg_ops as linalg, logic, math, reduce
from eagerflow.ops.typing import DTypeLike, TensorLike
from eagerflow.saving import registry


def _is_int(value) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def _check_classes(num_classes, name):
    if not _is_int(num_classes) or num_classes < 1:
        raise ValueError(f"{name}: `num_classes` must be a positive int. Received: "
                         f"num_classes={num_classes!r}")
    return int(num_classes)


class IoU(metric.Metric):
    """The intersection over union, ``TP / (TP + FP + FN)``, averaged over the classes in
    `target_class_ids` (one id: that class's IoU).

    Labels and predictions are class indices of any (equal) shape, flattened: semantic
    segmentation maps work as they are. Indices outside ``[0, num_classes)``, and labels
    equal to `ignore_class`, are not counted. A target class that never occurs is left
    out of the mean (no target class occurring gives 0).

    Args:
        num_classes: how many classes there are (the confusion matrix is
            ``num_classes x num_classes``).
        target_class_ids: the classes to average over, ids in ``[0, num_classes)``.
        name, dtype: see `Metric`.
        ignore_class: a label (such as a "void" class, often -1 or 255) whose pixels are
            not counted.
        sparse_y_true: False when `y_true` holds scores or one-hot rows: their argmax
            along `axis` is used.
        sparse_y_pred: the same for `y_pred` (False for softmax outputs).
        axis: the class axis of dense inputs.

    Raises:
        ValueError: if `num_classes` is not a positive int, `target_class_ids` is empty
            or holds an id outside ``[0, num_classes)``, or `ignore_class` is not an int.

    Examples:
        >>> import eagerflow as ef
        >>> m = ef.metrics.IoU(num_classes=3, target_class_ids=[0, 2])
        >>> round(float(m([0, 1, 2, 2], [0, 2, 2, 1])), 4)
        0.6667
    """

    def __init__(self, num_classes: Any, target_class_ids: Any, name: str | None = None,
                 dtype: DTypeLike = None, ignore_class: Any = None, sparse_y_true: bool = True,
                 sparse_y_pred: bool = True, axis: int = -1) -> None:
        super().__init__(name=name, dtype=dtype)
        kind = type(self).__name__
        self.num_classes = _check_classes(num_classes, kind)
        ids = list(target_class_ids) if isinstance(target_class_ids, (list, tuple, range,
                                                                     np.ndarray)) else None
        if not ids or not all(_is_int(i) for i in ids):
            raise ValueError(f"{kind}: `target_class_ids` must be a non-empty list of int "
                             f"class ids. Received: target_class_ids={target_class_ids!r}")
        if min(ids) < 0 or max(ids) >= self.num_classes:
            raise ValueError(f"{kind}: target class ids must be in [0, num_classes="
                             f"{self.num_classes}). Received: target_class_ids={ids}")
        if ignore_class is not None and not _is_int(ignore_class):
            raise ValueError(f"{kind}: `ignore_class` must be None or an int. Received: "
                             f"ignore_class={ignore_class!r}")
        self.target_class_ids = [int(i) for i in ids]
        self.ignore_class = ignore_class
        self.sparse_y_true = bool(sparse_y_true)
        self.sparse_y_pred = bool(sparse_y_pred)
        self.axis = axis
        self.total_cm = self.add_variable((self.num_classes, self.num_classes),
                                          name="total_confusion_matrix")

    def _classes(self, values, sparse: bool, what: str):
        values = metric.as_tensor(values)
        if not sparse:
            if values.ndim == 0:
                raise errors.InvalidArgumentError(
                    f"{type(self).__name__}: with sparse_{what}=False, {what} needs a class "
                    f"axis. Received: {what}.shape={tuple(values.shape)}"
                )
            values = reduce.argmax(values, axis=self.axis)
        return math.cast(values, np.int64)

    def update_state(self, y_true: TensorLike, y_pred: TensorLike,
                     sample_weight: TensorLike | None = None) -> None:
        """Adds one batch to the confusion matrix.

        Raises:
            InvalidArgumentError: if labels and predictions hold different numbers of
                class indices, or the weights do not broadcast to the labels.
        """
        kind = type(self).__name__
        labels = self._classes(y_true, self.sparse_y_true, "y_true")
        predicted = self._classes(y_pred, self.sparse_y_pred, "y_pred")
        count, predicted_count = int(np.prod(labels.shape)), int(np.prod(predicted.shape))
        if count != predicted_count:
            raise errors.InvalidArgumentError(
                f"{kind}: y_true and y_pred must hold the same number of class indices. "
                f"Received: {count} labels of shape {tuple(labels.shape)} and "
                f"{predicted_count} predictions of shape {tuple(predicted.shape)}"
            )
        weights: Any = 1.0
        if sample_weight is not None:
            weights = array.reshape(
                confusion.broadcast_weights(sample_weight, labels, kind), (-1,))
        labels, predicted = array.reshape(labels, (-1,)), array.reshape(predicted, (-1,))
        keep = logic.logical_and(
            logic.logical_and(logic.greater_equal(labels, 0),
                              logic.less(labels, self.num_classes)),
            logic.logical_and(logic.greater_equal(predicted, 0),
                              logic.less(predicted, self.num_classes)))
        if self.ignore_class is not None:
            keep = logic.logical_and(keep, logic.not_equal(labels, self.ignore_class))
        weights = math.where(keep, weights, 0.0)
        # one_hot gives a zero row for an index outside [0, num_classes).
        rows = indexing.one_hot(labels, self.num_classes, dtype=np.float64)
        columns = indexing.one_hot(predicted, self.num_classes, dtype=np.float64)
        batch_cm = linalg.matmul(array.transpose(rows * array.expand_dims(weights, -1)),
                                 columns)
        metric.add_to(self.total_cm, batch_cm)

    def result(self) -> Any:
        cm = self.total_cm.value
        intersection = reduce.reduce_sum(cm * np.eye(self.num_classes), axis=0)
        union = reduce.reduce_sum(cm, axis=0) + reduce.reduce_sum(cm, axis=1) - intersection
        target = np.zeros(self.num_classes)
        target[self.target_class_ids] = 1.0
        present = math.cast(logic.greater(union, 0.0), np.float64) * target
        iou = metric.divide_no_nan(intersection, union) * target
        mean = metric.divide_no_nan(reduce.reduce_sum(iou), reduce.reduce_sum(present))
        return metric.result_tensor(mean, self.dtype)

    def get_config(self) -> dict:
        return {**super().get_config(), "num_classes": self.num_classes,
                "target_class_ids": list(self.target_class_ids),
                "ignore_class": self.ignore_class, "sparse_y_true": self.sparse_y_true,
                "sparse_y_pred": self.sparse_y_pred, "axis": self.axis}


class MeanIoU(IoU):
    """The mean over all classes of the intersection over union, ``TP / (TP + FP + FN)``
    (`IoU` with every class as a target).

    Args:
        num_classes: how many classes there are (the confusion matrix is
            ``num_classes x num_classes``).
        name, dtype: see `Metric`.
        ignore_class, sparse_y_true, sparse_y_pred, axis: see `IoU`.

    Raises:
        ValueError: if `num_classes` is not a positive int or `ignore_class` not an int.

    Examples:
        >>> import eagerflow as ef
        >>> m = ef.metrics.MeanIoU(num_classes=2, sparse_y_pred=False)
        >>> round(float(m([0, 0, 1, 1], [[0.9, 0.1], [0.2, 0.8], [0.6, 0.4], [0.3, 0.7]],
        ...               sample_weight=[0.3, 0.3, 0.3, 0.1])), 4)
        0.2381
    """

    def __init__(self, num_classes: Any, name: str | None = None, dtype: DTypeLike = None,
                 ignore_class: Any = None, sparse_y_true: bool = True, sparse_y_pred: bool = True,
                 axis: int = -1) -> None:
        num_classes = _check_classes(num_classes, type(self).__name__)
        super().__init__(num_classes, list(range(num_classes)), name=name, dtype=dtype,
                         ignore_class=ignore_class, sparse_y_true=sparse_y_true,
                         sparse_y_pred=sparse_y_pred, axis=axis)

    def get_config(self) -> dict:
        config = super().get_config()
        del config["target_class_ids"]
        return config


class BinaryIoU(IoU):
    """`IoU` of a binary task: predictions at or above `threshold` are class 1, the others
    class 0; labels are 0 or 1 (cast to int, as Keras does).

    Args:
        target_class_ids: ``(0, 1)`` (the mean of both), ``[0]`` or ``[1]``.
        threshold: the score from which a prediction counts as class 1.
        name, dtype: see `Metric`.

    Raises:
        ValueError: if a target id is not 0 or 1.

    Examples:
        >>> import eagerflow as ef
        >>> m = ef.metrics.BinaryIoU(target_class_ids=[1], threshold=0.5)
        >>> round(float(m([0, 1, 0, 1], [0.1, 0.6, 0.4, 0.7])), 4)
        1.0
    """

    def __init__(self, target_class_ids: Any = (0, 1), threshold: float = 0.5,
                 name: str | None = None, dtype: DTypeLike = None) -> None:
        super().__init__(2, target_class_ids, name=name, dtype=dtype)
        self.threshold = float(threshold)

    def update_state(self, y_true: TensorLike, y_pred: TensorLike,
                     sample_weight: TensorLike | None = None) -> None:
        """Thresholds `y_pred` and adds the batch to the confusion matrix."""
        predicted = math.cast(logic.greater_equal(metric.as_tensor(y_pred, np.float32),
                                                  self.threshold), np.int64)
        super().update_state(math.cast(metric.as_tensor(y_true), np.int64), predicted,
                             sample_weight)

    def get_config(self) -> dict:
        return {"name": self.name, "dtype": self.dtype,
                "target_class_ids": list(self.target_class_ids), "threshold": self.threshold}


class OneHotIoU(IoU):
    """`IoU` for one-hot labels (their argmax along `axis` is the class); predictions are
    scores too unless `sparse_y_pred` is True.

    Args:
        num_classes, target_class_ids, name, dtype, ignore_class, axis: see `IoU`.
        sparse_y_pred: True when `y_pred` holds class indices.

    Examples:
        >>> import eagerflow as ef
        >>> m = ef.metrics.OneHotIoU(num_classes=3, target_class_ids=[0, 2])
        >>> round(float(m([[0, 0, 1], [1, 0, 0]], [[0.1, 0.2, 0.7], [0.6, 0.3, 0.1]])), 4)
        1.0
    """

    def __init__(self, num_classes: Any, target_class_ids: Any, name: str | None = None,
                 dtype: DTypeLike = None, ignore_class: Any = None, sparse_y_pred: bool = False,
                 axis: int = -1) -> None:
        super().__init__(num_classes, target_class_ids, name=name, dtype=dtype,
                         ignore_class=ignore_class, sparse_y_true=False,
                         sparse_y_pred=sparse_y_pred, axis=axis)

    def get_config(self) -> dict:
        config = super().get_config()
        del config["sparse_y_true"]
        return config


class OneHotMeanIoU(MeanIoU):
    """`MeanIoU` for one-hot labels; predictions are scores too unless `sparse_y_pred`.

    Args:
        num_classes, name, dtype, ignore_class, axis: see `IoU`.
        sparse_y_pred: True when `y_pred` holds class indices.

    Examples:
        >>> import eagerflow as ef
        >>> m = ef.metrics.OneHotMeanIoU(num_classes=2)
        >>> round(float(m([[1, 0], [0, 1], [0, 1]], [[0.8, 0.2], [0.7, 0.3], [0.1, 0.9]])), 4)
        0.5
    """

    def __init__(self, num_classes: Any, name: str | None = None, dtype: DTypeLike = None,
                 ignore_class: Any = None, sparse_y_pred: bool = False, axis: int = -1) -> None:
        super().__init__(num_classes, name=name, dtype=dtype, ignore_class=ignore_class,
                         sparse_y_true=False, sparse_y_pred=sparse_y_pred, axis=axis)

    def get_config(self) -> dict:
        config = super().get_config()
        del config["sparse_y_true"]
        return config


registry.register("metric", IoU, "io_u")
registry.register("metric", MeanIoU, "mean_io_u", "mean_iou")
registry.register("metric", BinaryIoU, "binary_io_u")
registry.register("metric", OneHotIoU, "one_hot_io_u")
registry.register("metric", OneHotMeanIoU, "one_hot_mean_io_u")
