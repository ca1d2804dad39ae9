"""Default object names: a class name in snake case (``MeanSquaredError`` ->
``mean_squared_error``).

Layers, losses and metrics without an explicit `name` are named after their class this
way (as in Keras), and name-based lookups (``ef.metrics.get("binary_accuracy")``) accept
the same form.

Examples:
    >>> from eagerflow.utils import naming
    >>> naming.snake_case("SparseCategoricalAccuracy")
    'sparse_categorical_accuracy'
"""

from __future__ import annotations

import re


def snake_case(name: str) -> str:
    """``"MaxPooling2D"`` -> ``"max_pooling2d"``, ``"LSTM"`` -> ``"lstm"``.

    Examples:
        >>> from eagerflow.utils import naming
        >>> naming.snake_case("MNISTModel"), naming.snake_case("GRU")
        ('mnist_model', 'gru')
    """
    name = re.sub(r"\W+", "", name)
    # A capital followed by lower case starts a word; a lower-case letter followed by a
    # capital ends one. Runs of capitals ("LSTM", "RNN") stay one word.
    name = re.sub("(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub("([a-z])([A-Z])", r"\1_\2", name).lower()
