"""Optimizers by name or config: `get`, `serialize` and `deserialize` (``ef.optim.get``),
through the one registry behind every get/serialize/deserialize.

Examples:
    >>> import eagerflow as ef
    >>> ef.optim.get("adam").name
    'adam'
"""

from __future__ import annotations

from typing import Any

from eagerflow.core import errors
from eagerflow.optim.optimizer import Optimizer
from eagerflow.saving import registry


def get(identifier: Any, custom_objects: dict[str, Any] | None = None) -> Any:
    """Returns an optimizer for a name (default arguments), a config dict, or an instance.

    Args:
        identifier: a Keras name (``"sgd"``, ``"adam"``, ``"adamw"``, ``"nadam"``,
            ``"adamax"``, ``"rmsprop"``, ``"adagrad"``, ``"adadelta"``, ``"lion"``,
            ``"adafactor"``, ``"ftrl"``; any case, with or without underscores), a
            `serialize` dict, or an `Optimizer` (returned as is).
        custom_objects: extra optimizer classes by name.

    Raises:
        InvalidArgumentError (a ValueError): for an unknown name or an unsupported
            identifier.

    Examples:
        >>> import eagerflow as ef
        >>> ef.optim.get("RMSprop").get_slot_names()
        ['velocity']
    """
    if identifier is not None and not isinstance(identifier, (str, dict, Optimizer)):
        raise errors.InvalidArgumentError(
            "Could not interpret optimizer identifier: expected a name, a config dict or an "
            f"ef.optim.Optimizer. Received: identifier={identifier!r}")
    return registry.get("optimizer", identifier, custom_objects)


def serialize(optimizer: Any) -> dict:
    """Returns ``{"class_name": ..., "config": ...}`` for an optimizer.

    Examples:
        >>> import eagerflow as ef
        >>> ef.optim.serialize(ef.optim.SGD(0.5))["config"]["learning_rate"]
        0.5
    """
    return registry.serialize(optimizer, "optimizer")


def deserialize(config: dict[str, Any], custom_objects: dict[str, Any] | None = None) -> Any:
    """Creates an optimizer from `serialize` output.

    Examples:
        >>> import eagerflow as ef
        >>> ef.optim.deserialize({"class_name": "Adam", "config": {"beta_1": 0.8}}).name
        'adam'
    """
    return registry.deserialize(config, custom_objects, "optimizer")
