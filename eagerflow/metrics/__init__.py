"""Metrics (`ef.metrics`): stateful, exact over every batch seen, checkpointable.

Examples:
    >>> import eagerflow as ef
    >>> m = ef.metrics.Mean()
    >>> _ = m(0); _ = m(5)
    >>> float(m.result())
    2.5
"""

from eagerflow import absent as _absent
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
from eagerflow.metrics.correlation import (
    ConcordanceCorrelation,
    PearsonCorrelation,
    concordance_correlation,
    pearson_correlation,
)
from eagerflow.metrics.f_score import F1Score, FBetaScore
from eagerflow.metrics.iou import BinaryIoU, IoU, MeanIoU, OneHotIoU, OneHotMeanIoU
from eagerflow.metrics.metric import Metric, deserialize, get, serialize
from eagerflow.metrics.probabilistic import (
    BinaryCrossentropy,
    CategoricalCrossentropy,
    CategoricalHinge,
    Hinge,
    KLDivergence,
    Poisson,
    SparseCategoricalCrossentropy,
    SquaredHinge,
)
from eagerflow.metrics.r2_score import R2Score
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
from eagerflow.metrics.sensitivity import (
    PrecisionAtRecall,
    RecallAtPrecision,
    SensitivityAtSpecificity,
    SpecificityAtSensitivity,
)

__all__ = [
    "BinaryCrossentropy", "CategoricalCrossentropy", "CategoricalHinge", "Hinge",
    "SparseCategoricalCrossentropy", "SquaredHinge",
    "BinaryIoU", "IoU", "OneHotIoU", "OneHotMeanIoU",
    "ConcordanceCorrelation", "PearsonCorrelation", "concordance_correlation",
    "pearson_correlation",
    "AUC", "Accuracy", "BinaryAccuracy", "CategoricalAccuracy", "CosineSimilarity",
    "F1Score", "FBetaScore", "FalseNegatives", "FalsePositives", "KLDivergence",
    "LogCoshError", "Mean", "MeanAbsoluteError", "MeanAbsolutePercentageError", "MeanIoU",
    "MeanMetricWrapper", "MeanSquaredError", "MeanSquaredLogarithmicError", "Metric",
    "Poisson", "Precision", "PrecisionAtRecall", "R2Score", "Recall", "RecallAtPrecision",
    "RootMeanSquaredError", "SensitivityAtSpecificity", "SparseCategoricalAccuracy",
    "SparseTopKCategoricalAccuracy", "SpecificityAtSensitivity", "Sum",
    "TopKCategoricalAccuracy", "TrueNegatives", "TruePositives", "accuracy",
    "binary_accuracy", "categorical_accuracy", "deserialize", "get", "serialize",
    "sparse_categorical_accuracy", "sparse_top_k_categorical_accuracy",
    "top_k_categorical_accuracy",
]


__getattr__ = _absent.namespace_getattr(__name__, "keras.metrics")
