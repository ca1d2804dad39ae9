"""Losses (`ef.losses`): loss classes with reductions and sample weights, and functions.

Examples:
    >>> import eagerflow as ef
    >>> loss = ef.losses.SparseCategoricalCrossentropy(from_logits=True)
    >>> round(float(loss([0, 1], [[2.0, 0.0], [0.0, 2.0]])), 5)
    0.12693
"""

from eagerflow import absent as _absent
from eagerflow.losses.crossentropy import (
    BinaryCrossentropy,
    CategoricalCrossentropy,
    SparseCategoricalCrossentropy,
    binary_crossentropy,
    categorical_crossentropy,
    sparse_categorical_crossentropy,
    sparse_softmax_cross_entropy,
)
from eagerflow.losses.loss import (
    Loss,
    LossFunctionWrapper,
    deserialize,
    get,
    reduce_weighted_values,
    serialize,
)
from eagerflow.losses.overlap import (
    CategoricalGeneralizedCrossEntropy,
    Dice,
    Tversky,
    categorical_generalized_cross_entropy,
    dice,
    tversky,
)
from eagerflow.losses.probabilistic import (
    BinaryFocalCrossentropy,
    CategoricalFocalCrossentropy,
    CategoricalHinge,
    Hinge,
    KLDivergence,
    Poisson,
    SquaredHinge,
    binary_focal_crossentropy,
    categorical_focal_crossentropy,
    categorical_hinge,
    hinge,
    kl_divergence,
    poisson,
    squared_hinge,
)
from eagerflow.losses.regression import (
    CosineSimilarity,
    Huber,
    LogCosh,
    MeanAbsoluteError,
    MeanAbsolutePercentageError,
    MeanSquaredError,
    MeanSquaredLogarithmicError,
    cosine_similarity,
    huber,
    log_cosh,
    mean_absolute_error,
    mean_absolute_percentage_error,
    mean_squared_error,
    mean_squared_logarithmic_error,
)

__all__ = [
    "BinaryCrossentropy", "CategoricalCrossentropy", "Huber", "Loss", "LossFunctionWrapper",
    "MeanAbsoluteError", "MeanSquaredError", "SparseCategoricalCrossentropy",
    "binary_crossentropy", "categorical_crossentropy", "deserialize", "get", "huber",
    "mean_absolute_error", "mean_squared_error", "reduce_weighted_values", "serialize",
    "sparse_categorical_crossentropy", "sparse_softmax_cross_entropy",
    "BinaryFocalCrossentropy", "CategoricalFocalCrossentropy", "CategoricalHinge", "Hinge",
    "KLDivergence", "Poisson", "SquaredHinge", "binary_focal_crossentropy",
    "categorical_focal_crossentropy", "categorical_hinge", "hinge", "kl_divergence", "poisson",
    "squared_hinge", "CosineSimilarity", "LogCosh", "MeanAbsolutePercentageError",
    "MeanSquaredLogarithmicError", "cosine_similarity", "log_cosh",
    "mean_absolute_percentage_error", "mean_squared_logarithmic_error",
    "CategoricalGeneralizedCrossEntropy", "Dice", "Tversky",
    "categorical_generalized_cross_entropy", "dice", "tversky",
]


__getattr__ = _absent.namespace_getattr(__name__, "keras.losses")
