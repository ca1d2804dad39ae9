"""Default names from class names."""

import pytest

from eagerflow.utils import naming


@pytest.mark.parametrize("name, expected", [
    ("GlobalAveragePooling2D", "global_average_pooling2d"),
    ("MNISTModel", "mnist_model"),
    ("GRU", "gru"),
    ("SparseCategoricalCrossentropy", "sparse_categorical_crossentropy"),
    ("TopKCategoricalAccuracy", "top_k_categorical_accuracy"),
    ("AUC", "auc"),
    ("Conv2DTranspose", "conv2d_transpose"),
])
def test_snake_case(name, expected):
    assert naming.snake_case(name) == expected
