"""Metrics by name: `ef.metrics.get("accuracy")` for `compile(metrics=[...])`.

Names are the class names and their snake-case forms (``"accuracy"``,
``"sparse_categorical_accuracy"``, ``"auc"``...) plus the aliases ``"acc"``, ``"mse"``
and ``"mae"``; `get` returns a fresh instance with default arguments.

Example:
    >>> import eagerflow as ef
    >>> ef.metrics.get("accuracy")
    <ef.metrics.Accuracy name='accuracy'>
"""

from __future__ import annotations

from eagerflow.metrics import accuracy_metrics, auc, confusion, metric, reduction, regression
from eagerflow.utils import naming

__all__ = ["deserialize", "get", "serialize"]

_CLASSES = {cls.__name__: cls for cls in (
    reduction.Mean, reduction.Sum, regression.MeanSquaredError, regression.MeanAbsoluteError,
    accuracy_metrics.Accuracy, accuracy_metrics.BinaryAccuracy,
    accuracy_metrics.CategoricalAccuracy,
    accuracy_metrics.SparseCategoricalAccuracy, accuracy_metrics.TopKCategoricalAccuracy,
    confusion.Precision, confusion.Recall, auc.AUC)}
_BY_NAME = dict(_CLASSES)
_BY_NAME.update({naming.snake_case(name): cls for name, cls in _CLASSES.items()})
_BY_NAME.update({"acc": accuracy_metrics.Accuracy, "auc": auc.AUC,
                 "mse": regression.MeanSquaredError, "MSE": regression.MeanSquaredError,
                 "mae": regression.MeanAbsoluteError, "MAE": regression.MeanAbsoluteError})


def serialize(m: metric.Metric) -> dict:
    """``{"class_name": ..., "config": ...}`` for a metric.

    Example:
        >>> import eagerflow as ef
        >>> ef.metrics.serialize(ef.metrics.BinaryAccuracy(threshold=0.7))["config"]["threshold"]
        0.7
    """
    return {"class_name": type(m).__name__, "config": m.get_config()}


def deserialize(config: dict, custom_objects=None) -> metric.Metric:
    """The inverse of `serialize`.

    Raises:
        ValueError: for an unknown class name.

    Example:
        >>> import eagerflow as ef
        >>> ef.metrics.deserialize({"class_name": "AUC", "config": {"curve": "PR"}}).curve
        'PR'
    """
    name = config.get("class_name") if isinstance(config, dict) else None
    cls = (custom_objects or {}).get(name) or _CLASSES.get(name)
    if cls is None:
        raise ValueError(f"Unknown metric class {name!r}; known: {sorted(_CLASSES)}. "
                         f"Received: config={config!r}")
    return cls.from_config(config.get("config", {}))


def get(identifier, custom_objects=None):
    """A metric for a name (a new instance), a config dict, or a metric or function as is.

    Raises:
        ValueError: for an unknown name or an identifier of another type.

    Example:
        >>> import eagerflow as ef
        >>> ef.metrics.get("sparse_categorical_accuracy").name
        'sparse_categorical_accuracy'
    """
    if identifier is None or isinstance(identifier, metric.Metric):
        return identifier
    if isinstance(identifier, str):
        custom = custom_objects or {}
        cls = custom.get(identifier) or _BY_NAME.get(identifier)
        if cls is None:
            raise ValueError(f"Unknown metric {identifier!r}; known names: {sorted(_BY_NAME)}.")
        return cls() if isinstance(cls, type) else cls
    if isinstance(identifier, dict):
        return deserialize(identifier, custom_objects)
    if callable(identifier) and not isinstance(identifier, type):
        return identifier
    raise ValueError("Could not interpret metric identifier: expected a name, a config dict, "
                     f"a Metric or a function. Received: identifier={identifier!r}")
