"""The class registry that rebuilds objects from JSON configs, without importing anything.

A saved model file names classes (``{"class_name": "Dense", "config": {...}}``), never
modules: `deserialize` looks the name up in, in order, the `custom_objects` passed to it,
the active `custom_object_scope`s, the classes registered with `register_serializable`,
and the resolvers other packages add with `register_resolver` (the layers and optimizers
packages resolve their own class tables this way). A name found nowhere is an error that
says how to register it. Nothing is ever imported by a name read from a file.

Example:
    >>> from eagerflow.saving import registry
    >>> @registry.register_serializable(name="ExampleScale")
    ... class Scale:
    ...     def __init__(self, factor=1.0):
    ...         self.factor = factor
    ...     def get_config(self):
    ...         return {"factor": self.factor}
    >>> config = registry.serialize(Scale(3.0))
    >>> config
    {'class_name': 'ExampleScale', 'config': {'factor': 3.0}}
    >>> registry.deserialize(config).factor
    3.0
"""

from __future__ import annotations

import contextlib
import inspect
import threading

from eagerflow.core import errors

__all__ = ["custom_object_scope", "deserialize", "get_registered_name",
           "get_registered_object", "register_resolver", "register_serializable", "serialize"]

_registry: dict = {}  # name -> class or function
_resolvers: list = []  # functions name -> class or None, consulted after the registry
_names: dict = {}  # id(class or function) -> name
_scopes = threading.local()


def _qualified(obj) -> str:
    return f"{getattr(obj, '__module__', '?')}.{getattr(obj, '__qualname__', repr(obj))}"


def register_serializable(cls=None, *, name: str | None = None):
    """Registers a class (or function) under `name` so saved configs can rebuild it.

    Use as ``@register_serializable()``, ``@register_serializable`` or
    ``register_serializable(MyLayer, name="MyLayer")``. Registering a redefinition of the
    same class (same module and qualified name, e.g. a re-run notebook cell) replaces it.

    Args:
        cls: the class or function.
        name: the name stored in configs (default: ``cls.__name__``).

    Returns:
        `cls` (or a decorator, when called without it).

    Raises:
        InvalidArgumentError: if `name` already names a different class.

    Example:
        >>> from eagerflow.saving import registry
        >>> @registry.register_serializable
        ... def example_activation(x):
        ...     return x
        >>> registry.get_registered_name(example_activation)
        'example_activation'
    """
    def register(target):
        key = name if name is not None else getattr(target, "__name__", None)
        if not isinstance(key, str) or not key:
            raise errors.InvalidArgumentError(
                f"register_serializable needs a non-empty string name for {target!r}. "
                f"Received: name={key!r}"
            )
        previous = _registry.get(key)
        if previous is not None and previous is not target and \
                _qualified(previous) != _qualified(target):
            raise errors.InvalidArgumentError(
                f"Cannot register {_qualified(target)} as {key!r}: that name already belongs "
                f"to {_qualified(previous)}. Pass another name: "
                "register_serializable(name=...)."
            )
        if previous is not None:
            _names.pop(id(previous), None)
        _registry[key] = target
        _names[id(target)] = key
        return target

    return register if cls is None else register(cls)


def register_resolver(resolver) -> None:
    """Adds a function ``name -> class or None`` consulted after the registry.

    A package with its own table of classes (e.g. every Layer subclass by name) plugs it
    in once instead of registering each class. Adding the same resolver twice has no
    effect.

    Example:
        >>> from eagerflow.saving import registry
        >>> registry.register_resolver({"ExampleResolved": complex}.get)
        >>> registry.get_registered_object("ExampleResolved")
        <class 'complex'>
    """
    if not callable(resolver):
        raise errors.InvalidArgumentError(
            f"register_resolver expects a function name -> class or None. Received: "
            f"{type(resolver).__name__}"
        )
    if resolver not in _resolvers:
        _resolvers.append(resolver)


def get_registered_name(obj) -> str:
    """The name `obj` (a class or function) is registered under, else its ``__name__``.

    Example:
        >>> from eagerflow.saving import registry
        >>> registry.get_registered_name(registry.register_serializable(
        ...     type("DocThing", (), {}), name="DocRenamed"))
        'DocRenamed'
    """
    return _names.get(id(obj), getattr(obj, "__name__", type(obj).__name__))


def get_registered_object(name: str, custom_objects=None):
    """The class or function named `name` (custom objects first), or None.

    Example:
        >>> from eagerflow.saving import registry
        >>> registry.get_registered_object("Foo", custom_objects={"Foo": int})
        <class 'int'>
    """
    if custom_objects and name in custom_objects:
        return custom_objects[name]
    for scope in reversed(getattr(_scopes, "stack", [])):
        if name in scope:
            return scope[name]
    if name in _registry:
        return _registry[name]
    for resolver in _resolvers:
        found = resolver(name)
        if found is not None:
            return found
    return None


@contextlib.contextmanager
def custom_object_scope(custom_objects: dict):
    """Makes `custom_objects` visible to every `deserialize` call inside the block.

    Nested deserialization (a Sequential rebuilding its layers) sees the objects without
    having them passed down.

    Example:
        >>> from eagerflow.saving import registry
        >>> with registry.custom_object_scope({"Bar": dict}):
        ...     registry.get_registered_object("Bar")
        <class 'dict'>
    """
    stack = getattr(_scopes, "stack", None)
    if stack is None:
        stack = _scopes.stack = []
    stack.append(dict(custom_objects or {}))
    try:
        yield
    finally:
        stack.pop()


def serialize(obj) -> dict:
    """Returns ``{"class_name": name, "config": obj.get_config()}``.

    A registered function serializes as ``{"class_name": name, "config": None}``.

    Raises:
        InvalidArgumentError: if `obj` has no ``get_config`` method.

    Example:
        >>> from eagerflow.saving import registry
        >>> class Window:
        ...     def get_config(self):
        ...         return {"size": 3}
        >>> registry.serialize(Window())
        {'class_name': 'Window', 'config': {'size': 3}}
    """
    if callable(obj) and not isinstance(obj, type) and id(obj) in _names:
        return {"class_name": _names[id(obj)], "config": None}
    get_config = getattr(obj, "get_config", None)
    if not callable(get_config):
        raise errors.InvalidArgumentError(
            f"Cannot serialize {type(obj).__name__}: it has no get_config() method. Implement "
            "get_config() returning the constructor arguments (and from_config if they are not "
            "plain keyword arguments)."
        )
    return {"class_name": get_registered_name(type(obj)), "config": get_config()}


def deserialize(config, custom_objects=None):
    """Rebuilds an object from ``{"class_name": ..., "config": ...}``.

    Classes are rebuilt with ``cls.from_config(config)`` when they define it (with
    ``custom_objects=`` too when its signature accepts it), else ``cls(**config)``; a
    registered function is returned as is.

    Args:
        config: the serialized form (from `serialize` or a saved file).
        custom_objects: ``{name: class or function}`` checked before the registry.

    Returns:
        The rebuilt object.

    Raises:
        InvalidArgumentError: if `config` is malformed or names an unknown class.

    Example:
        >>> from eagerflow.saving import registry
        >>> registry.deserialize({"class_name": "Unknown", "config": {}})  # doctest: +ELLIPSIS
        Traceback (most recent call last):
          ...
        eagerflow.core.errors.InvalidArgumentError: Unknown class 'Unknown' in a saved config. ...
    """
    if not isinstance(config, dict) or not isinstance(config.get("class_name"), str):
        raise errors.InvalidArgumentError(
            "deserialize expects {'class_name': str, 'config': dict}. Received: "
            f"{str(config)[:200]}"
        )
    name, inner = config["class_name"], config.get("config")
    target = get_registered_object(name, custom_objects)
    if target is None:
        raise errors.InvalidArgumentError(
            f"Unknown class {name!r} in a saved config. Register it with "
            "@ef.checkpoint.register_serializable() before loading, or pass "
            f"custom_objects={{{name!r}: {name}}}."
        )
    if not isinstance(target, type):
        return target
    if inner is None:
        inner = {}
    if not isinstance(inner, dict):
        raise errors.InvalidArgumentError(
            f"The config of {name!r} must be a dict. Received: {str(inner)[:200]}"
        )
    with custom_object_scope(custom_objects or {}):
        from_config = getattr(target, "from_config", None)
        if not callable(from_config):
            return target(**inner)
        if _accepts_custom_objects(from_config):
            visible = {}
            for scope in getattr(_scopes, "stack", []):
                visible.update(scope)
            return from_config(inner, custom_objects=visible)
        return from_config(inner)


def _accepts_custom_objects(function) -> bool:
    try:
        return "custom_objects" in inspect.signature(function).parameters
    except (TypeError, ValueError):  # builtins without a signature
        return False
