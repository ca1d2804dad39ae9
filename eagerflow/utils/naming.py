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

_name_uids: dict[str, int] = {}


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


def unique_name(prefix: str) -> str:
    """``prefix`` the first time, then ``prefix_1``, ``prefix_2``, ... (automatic layer
    names, as Keras's).

    Examples:
        >>> from eagerflow.utils import naming
        >>> naming.unique_name("doc_example"), naming.unique_name("doc_example")
        ('doc_example', 'doc_example_1')
    """
    earlier = count_name_uid(prefix) - 1
    return prefix if earlier == 0 else f"{prefix}_{earlier}"


def count_name_uid(prefix: str) -> int:
    """Counts `prefix` once more, as naming a layer does, and returns its count
    (``ef.backend.get_uid``)."""
    count = _name_uids.get(prefix, 0) + 1
    _name_uids[prefix] = count
    return count


def reset_name_uids() -> None:
    """Restarts automatic names (``dense``, ``dense_1``, ...) from the beginning."""
    _name_uids.clear()
