"""Configs: turning layers, initializers, regularizers, constraints into dicts and back.

Every configurable object serializes to ``{"class_name": ..., "config": {...}}`` and is
rebuilt by looking its class up by name: built-in classes in their module's table, layer
classes (built-in or user-defined) in the registry every `Layer` subclass joins when it is
defined, and anything else in an explicit ``custom_objects`` mapping. Configs hold only
plain data for built-in objects, so they survive ``json.dumps``; a Python callable that is
not a registered name (a Lambda's function, a custom activation) is kept as the object
itself and such a config cannot be written as JSON.

Example:
    >>> import eagerflow as ef
    >>> layer = ef.layers.Dense(3, activation="relu", name="head")
    >>> config = ef.layers.serialize(layer)
    >>> config["class_name"], config["config"]["units"], config["config"]["activation"]
    ('Dense', 3, 'relu')
    >>> ef.layers.deserialize(config).name
    'head'
"""

from __future__ import annotations

from eagerflow.utils.naming import snake_case

__all__ = ["LAYER_CLASSES", "Configurable", "deserialize", "get_object", "serialize",
           "snake_case"]

# Every Layer subclass, by class name (user classes too: Layer.__init_subclass__ adds them).
LAYER_CLASSES: dict[str, type] = {}


class Configurable:
    """`get_config`, `from_config` and a ``Name(arg=value)`` repr from constructor arguments.

    The shared base of initializers, regularizers and constraints: a subclass whose
    constructor takes arguments overrides `get_config` to return them as plain values, and
    `from_config` and `repr` follow from it.

    Example:
        >>> from eagerflow.layers import serialization
        >>> class Scale(serialization.Configurable):
        ...     def __init__(self, factor=1.0):
        ...         self.factor = factor
        ...     def get_config(self):
        ...         return {"factor": self.factor}
        >>> Scale.from_config({"factor": 2.0})
        Scale(factor=2.0)
    """

    def get_config(self) -> dict:
        """The constructor arguments, as a dict of plain values."""
        return {}

    @classmethod
    def from_config(cls, config: dict):
        """Creates the object from `get_config`'s output."""
        return cls(**config)

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_config().items())
        return f"{type(self).__name__}({args})"


def serialize_object(obj):
    """``{"class_name", "config"}`` for objects with `get_config`; other values unchanged."""
    if obj is None or isinstance(obj, (str, int, float, bool)):
        return obj
    if hasattr(obj, "get_config"):
        return {"class_name": type(obj).__name__, "config": obj.get_config()}
    return obj


def get_object(identifier, table: dict, kind: str, custom_objects=None):
    """Resolves a name, a config dict or an object against `table` (lower-case names).

    Raises:
        ValueError: for an unknown name or config, listing the known names.
        TypeError: for a value that is neither a name, a config, nor a callable.
    """
    if identifier is None:
        return None
    custom = dict(custom_objects or {})
    if isinstance(identifier, str):
        found = custom.get(identifier) or table.get(identifier) or table.get(
            snake_case(identifier))
        if found is None:
            raise ValueError(
                f"Unknown {kind}: '{identifier}'. Known {kind}s: {', '.join(sorted(table))}. "
                f"Pass a callable, or register a custom one with `custom_objects`."
            )
        return found() if isinstance(found, type) else found
    if isinstance(identifier, dict):
        if "class_name" not in identifier:
            raise ValueError(
                f"Could not interpret {kind} config {identifier!r}: expected a dict with "
                "'class_name' and 'config' keys."
            )
        name = identifier["class_name"]
        cls = custom.get(name) or table.get(name) or table.get(snake_case(name))
        if not isinstance(cls, type):
            raise ValueError(
                f"Unknown {kind} class '{name}' in config {identifier!r}. Known {kind}s: "
                f"{', '.join(sorted(table))}."
            )
        config = identifier.get("config") or {}
        return cls.from_config(config) if hasattr(cls, "from_config") else cls(**config)
    if callable(identifier):
        return identifier
    raise TypeError(
        f"Could not interpret {kind} identifier: {identifier!r} (of type "
        f"{type(identifier).__name__}). Pass a name such as '{next(iter(sorted(table)))}', a "
        "config dict, or a callable."
    )


def serialize(layer) -> dict:
    """A layer's ``{"class_name": ..., "config": ...}``.

    Example:
        >>> import eagerflow as ef
        >>> ef.layers.serialize(ef.layers.Flatten(name="flat"))["config"]["name"]
        'flat'
    """
    return {"class_name": type(layer).__name__, "config": layer.get_config()}


def deserialize(config: dict, custom_objects=None):
    """Rebuilds a layer (or model) from `serialize`'s output.

    Args:
        config: ``{"class_name": ..., "config": {...}}``.
        custom_objects: optional ``{name: class}`` for classes not registered by name.

    Raises:
        ValueError: if the class name is unknown.

    Example:
        >>> import eagerflow as ef
        >>> config = {"class_name": "Reshape", "config": {"target_shape": [2]}}
        >>> ef.layers.deserialize(config).target_shape
        (2,)
    """
    if not isinstance(config, dict) or "class_name" not in config:
        raise ValueError(
            f"A layer config must be a dict with 'class_name' and 'config' keys, got {config!r}"
        )
    name = config["class_name"]
    custom = {**(_custom_scope[-1] if _custom_scope else {}), **dict(custom_objects or {})}
    cls = custom.get(name) or LAYER_CLASSES.get(name)
    if cls is None:
        raise ValueError(
            f"Unknown layer class '{name}'. Define (import) the class before deserializing, "
            "or pass it in custom_objects={'" + name + "': cls}."
        )
    # Nested configs (Sequential, Bidirectional, functional models) deserialize their
    # parts through this function too; the scope hands them the same custom objects.
    _custom_scope.append(custom)
    try:
        return cls.from_config(dict(config.get("config") or {}))
    finally:
        _custom_scope.pop()


_custom_scope: list = []
