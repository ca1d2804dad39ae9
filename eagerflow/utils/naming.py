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

from eagerflow.core import trackable

_name_uids: dict[str, int] = {}

snake_case = trackable.snake_case
"""The one naming rule (defined with `ef.Module`, which the engine holds): Keras's
``to_snake_case``, so ``MNISTModel`` -> ``mnist_model`` and ``RMSprop`` -> ``rm_sprop``."""


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
