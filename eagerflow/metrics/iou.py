"""Intersection over union: `MeanIoU`, from a confusion matrix accumulated over all batches.

The IoU of a class is ``TP / (TP + FP + FN)``, read off the ``(num_classes,
num_classes)`` confusion matrix (rows: true class, columns: predicted class) as
``diag / (row_sum + column_sum - diag)``. Classes that never occur, neither as labels nor
as predictions, are left out of the mean.

Examples:
    >>> import eagerflow as ef
    >>> m = ef.metrics.MeanIoU(num_classes=2)
    >>> round(float(m([0, 0, 1, 1], [0, 1, 0, 1])), 4)
    0.3333
"""

from __future__ import annotations

import numpy as np

from eagerflow.core import errors
from eagerflow.metrics import confusion, metric
from eagerflow.ops import array, indexing, linalg, logic, math, reduce
from eagerflow.saving import registry


def _is_int(value) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


class MeanIoU(metric.Metric):
    """The mean over classes of the intersection over union, ``TP / (TP + FP + FN)``.

    Labels and predictions are class indices of any (equal) shape, flattened: semantic
    segmentation maps work as they are. Indices outside ``[0, num_classes)``, and labels
    equal to `ignore_class`, are not counted.

    Args:
        num_classes: how many classes there are (the confusion matrix is
            ``num_classes x num_classes``).
        name, dtype: see `Metric`.
        ignore_class: a label (such as a "void" class, often -1 or 255) whose pixels are
            not counted.
        sparse_y_true: False when `y_true` holds scores or one-hot rows: their argmax
            along `axis` is used.
        sparse_y_pred: the same for `y_pred` (False for softmax outputs).
        axis: the class axis of dense inputs.

    Raises:
        ValueError: if `num_classes` is not a positive int or `ignore_class` not an int.

    Examples:
        >>> import eagerflow as ef
        >>> m = ef.metrics.MeanIoU(num_classes=2, sparse_y_pred=False)
        >>> round(float(m([0, 0, 1, 1], [[0.9, 0.1], [0.2, 0.8], [0.6, 0.4], [0.3, 0.7]],
        ...               sample_weight=[0.3, 0.3, 0.3, 0.1])), 4)
        0.2381
    """

    def __init__(self, num_classes, name=None, dtype=None, ignore_class=None,
                 sparse_y_true=True, sparse_y_pred=True, axis=-1):
        super().__init__(name=name, dtype=dtype)
        if not _is_int(num_classes) or num_classes < 1:
            raise ValueError("MeanIoU: `num_classes` must be a positive int. Received: "
                             f"num_classes={num_classes!r}")
        if ignore_class is not None and not _is_int(ignore_class):
            raise ValueError("MeanIoU: `ignore_class` must be None or an int. Received: "
                             f"ignore_class={ignore_class!r}")
        self.num_classes = int(num_classes)
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
                    f"MeanIoU: with sparse_{what}=False, {what} needs a class axis. Received: "
                    f"{what}.shape={tuple(values.shape)}"
                )
            values = reduce.argmax(values, axis=self.axis)
        return math.cast(values, np.int64)

    def update_state(self, y_true, y_pred, sample_weight=None) -> None:
        """Adds one batch to the confusion matrix.

        Raises:
            InvalidArgumentError: if labels and predictions hold different numbers of
                class indices, or the weights do not broadcast to the labels.
        """
        labels = self._classes(y_true, self.sparse_y_true, "y_true")
        predicted = self._classes(y_pred, self.sparse_y_pred, "y_pred")
        count, predicted_count = int(np.prod(labels.shape)), int(np.prod(predicted.shape))
        if count != predicted_count:
            raise errors.InvalidArgumentError(
                "MeanIoU: y_true and y_pred must hold the same number of class indices. "
                f"Received: {count} labels of shape {tuple(labels.shape)} and "
                f"{predicted_count} predictions of shape {tuple(predicted.shape)}"
            )
        weights = 1.0
        if sample_weight is not None:
            weights = array.reshape(
                confusion.broadcast_weights(sample_weight, labels, "MeanIoU"), (-1,))
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

    def result(self):
        cm = self.total_cm.value
        intersection = reduce.reduce_sum(cm * np.eye(self.num_classes), axis=0)
        union = reduce.reduce_sum(cm, axis=0) + reduce.reduce_sum(cm, axis=1) - intersection
        present = math.cast(logic.greater(union, 0.0), np.float64)
        iou = metric.divide_no_nan(intersection, union)
        mean = metric.divide_no_nan(reduce.reduce_sum(iou), reduce.reduce_sum(present))
        return metric.result_tensor(mean, self.dtype)

    def get_config(self) -> dict:
        return {**super().get_config(), "num_classes": self.num_classes,
                "ignore_class": self.ignore_class, "sparse_y_true": self.sparse_y_true,
                "sparse_y_pred": self.sparse_y_pred, "axis": self.axis}


registry.register("metric", MeanIoU, "mean_io_u", "mean_iou")
