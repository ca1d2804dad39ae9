"""Metrics (`ef.metrics`): stateful, exact over every batch seen, checkpointable.

Examples:
    >>> import eagerflow as ef
    >>> m = ef.metrics.Mean()
    >>> _ = m(0); _ = m(5)
    >>> float(m.result())
    2.5
"""

from eagerflow.metrics.accuracy_metrics import (
    Accuracy,
    BinaryAccuracy,
    CategoricalAccuracy,
    SparseCategoricalAccuracy,
    SparseTopKCategoricalAccuracy,
    TopKCategoricalAccuracy,
    accuracy,
    binary_accuracy,
    categorical_accuracy,
    sparse_categorical_accuracy,
    sparse_top_k_categorical_accuracy,
    top_k_categorical_accuracy,
)
from eagerflow.metrics.auc import AUC
from eagerflow.metrics.confusion import (
    FalseNegatives,
    FalsePositives,
    Precision,
    Recall,
    TrueNegatives,
    TruePositives,
)
from eagerflow.metrics.metric import Metric, deserialize, get, serialize
from eagerflow.metrics.probabilistic import KLDivergence, Poisson
from eagerflow.metrics.reduction import Mean, MeanMetricWrapper, Sum
from eagerflow.metrics.regression import (
    CosineSimilarity,
    LogCoshError,
    MeanAbsoluteError,
    MeanAbsolutePercentageError,
    MeanSquaredError,
    MeanSquaredLogarithmicError,
    RootMeanSquaredError,
)

__all__ = [
    "AUC", "Accuracy", "BinaryAccuracy", "CategoricalAccuracy", "Mean", "MeanAbsoluteError",
    "MeanAbsolutePercentageError", "MeanMetricWrapper", "MeanSquaredError",
    "MeanSquaredLogarithmicError", "Metric", "Precision", "Recall",
    "SparseCategoricalAccuracy", "Sum", "TopKCategoricalAccuracy", "accuracy",
    "binary_accuracy", "categorical_accuracy", "deserialize", "get", "serialize",
    "sparse_categorical_accuracy", "top_k_categorical_accuracy", "CosineSimilarity",
    "FalseNegatives", "FalsePositives", "KLDivergence", "LogCoshError", "Poisson",
    "RootMeanSquaredError", "SparseTopKCategoricalAccuracy", "TrueNegatives", "TruePositives",
    "sparse_top_k_categorical_accuracy",
]
