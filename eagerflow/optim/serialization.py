"""Optimizers by name: `ef.optim.get("adam")` for `compile(optimizer="adam")`.

Example:
    >>> import eagerflow as ef
    >>> ef.optim.get("adam")
    <ef.optim.Adam name='adam'>
"""

from __future__ import annotations

from eagerflow.optim import adagrad, adam, adamw, optimizer, rmsprop, sgd

__all__ = ["deserialize", "get", "serialize"]

_BY_NAME = {
    "sgd": sgd.SGD, "gradientdescent": sgd.SGD, "adam": adam.Adam, "adamw": adamw.AdamW,
    "rmsprop": rmsprop.RMSprop, "adagrad": adagrad.Adagrad,
}


def _lookup(name: str, custom_objects=None):
    if custom_objects and name in custom_objects:
        return custom_objects[name]
    key = name.replace("_", "").lower()
    if key not in _BY_NAME:
        raise ValueError(
            f"Unknown optimizer {name!r}; known names: {sorted(_BY_NAME)}. Received: "
            f"identifier={name!r}"
        )
    return _BY_NAME[key]


def serialize(opt: optimizer.Optimizer) -> dict:
    """Returns ``{"class_name": ..., "config": ...}`` for an optimizer.

    Example:
        >>> import eagerflow as ef
        >>> ef.optim.serialize(ef.optim.SGD(0.5))["config"]["learning_rate"]
        0.5
    """
    return {"class_name": type(opt).__name__, "config": opt.get_config()}


def deserialize(config: dict, custom_objects=None) -> optimizer.Optimizer:
    """Creates an optimizer from `serialize` output.

    Raises:
        ValueError: if the class name is unknown.

    Example:
        >>> import eagerflow as ef
        >>> ef.optim.deserialize({"class_name": "Adam", "config": {"beta_1": 0.8}}).name
        'adam'
    """
    cls = _lookup(config.get("class_name", ""), custom_objects)
    return cls.from_config(config.get("config", {}), custom_objects)


def get(identifier, custom_objects=None) -> optimizer.Optimizer:
    """Returns an optimizer for a name (default arguments), a config dict, or an instance.

    Args:
        identifier: ``"sgd"``, ``"adam"``, ``"adamw"``, ``"rmsprop"``, ``"adagrad"`` (any
            case), a `serialize` dict, or an `Optimizer` (returned as is).
        custom_objects: extra optimizer classes by name.

    Raises:
        ValueError: for an unknown name or an unsupported identifier.

    Example:
        >>> import eagerflow as ef
        >>> ef.optim.get("RMSprop").get_slot_names()
        ['velocity']
    """
    if isinstance(identifier, optimizer.Optimizer):
        return identifier
    if isinstance(identifier, str):
        return _lookup(identifier, custom_objects)()
    if isinstance(identifier, dict):
        return deserialize(identifier, custom_objects)
    raise ValueError(
        "Could not interpret optimizer identifier: expected a name, a config dict or an "
        f"ef.optim.Optimizer. Received: identifier={identifier!r}"
    )
