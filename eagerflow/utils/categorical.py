"""`to_categorical`: integer class labels to one-hot rows (Keras's utility).

Examples:
    >>> import eagerflow as ef
    >>> ef.utils.to_categorical([0, 2], num_classes=3)
    array([[1., 0., 0.],
           [0., 0., 1.]], dtype=float32)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from eagerflow.core import errors


def to_categorical(x: Any, num_classes: Any = None) -> Any:
    """One-hot encodes integer class labels, as NumPy (Keras's `to_categorical`).

    Args:
        x: integer labels of any shape (a trailing axis of size 1 is dropped, as in Keras);
            tensors and lists are accepted.
        num_classes: the number of classes (default: the largest label + 1).

    Returns:
        A float32 array of shape ``x.shape + (num_classes,)``.

    Raises:
        InvalidArgumentError: for non-integer or negative labels, or a label
            >= `num_classes`.

    Examples:
        >>> import eagerflow as ef
        >>> ef.utils.to_categorical([[1], [0]]).shape
        (2, 2)
    """
    labels = np.asarray(x)
    if labels.dtype.kind == "f" and labels.size and np.all(np.floor(labels) == labels):
        labels = labels.astype(np.int64)
    if labels.size and labels.dtype.kind not in "iu":
        raise errors.InvalidArgumentError(
            f"to_categorical: labels must be integers, got dtype {labels.dtype.name}")
    if labels.ndim > 1 and labels.shape[-1] == 1:
        labels = labels[..., 0]
    labels = labels.astype(np.int64)
    if labels.size and labels.min() < 0:
        raise errors.InvalidArgumentError(
            f"to_categorical: labels must be >= 0, got {int(labels.min())}")
    if num_classes is None:
        num_classes = int(labels.max()) + 1 if labels.size else 0
    if labels.size and labels.max() >= num_classes:
        raise errors.InvalidArgumentError(
            f"to_categorical: label {int(labels.max())} is out of range for "
            f"num_classes={num_classes}")
    return np.eye(num_classes, dtype=np.float32)[labels]
