"""The one registry of serializable objects: `get`, `serialize` and `deserialize` for
layers, losses, metrics, optimizers, activations, initializers, regularizers and
constraints, and for the classes users register.

Objects are known by *kind* (``"layer"``, ``"loss"``, ...). Each package registers its
own classes and functions with `register(kind, obj, *aliases)` when it is imported
(`Layer` subclasses, user-defined ones too, register themselves when they are defined);
users register theirs with `register_serializable`, for every kind at once. A saved
config names classes (``{"class_name": "Dense", "config": {...}}``), never modules: a name
is looked up in the `custom_objects` passed in, then the active `custom_object_scope`s,
then the kind's table (the exact name, its lower-case and snake-case forms, then the name
without case or underscores), then the user registry. A name found nowhere is an error
that lists the known names and says how to register one. Nothing is ever imported by a
name read from a file: a kind's package is imported (by its fixed module name) only so
that its table is filled.

Examples:
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
    >>> registry.get("optimizer", "adam")
    <ef.optim.Adam name='adam'>
"""

from __future__ import annotations

import contextlib
import importlib
import inspect
import threading
from collections.abc import Iterator
from typing import Any

from eagerflow.core import errors
from eagerflow.utils.naming import snake_case

# kind -> the package whose import registers that kind's built-in objects.
_PACKAGES = {
    "layer": "eagerflow.layers", "activation": "eagerflow.layers.activations",
    "initializer": "eagerflow.layers.initializers",
    "regularizer": "eagerflow.layers.regularizers",
    "constraint": "eagerflow.layers.constraints", "loss": "eagerflow.losses",
    "metric": "eagerflow.metrics", "optimizer": "eagerflow.optim",
}
# Kinds whose callables without a config (a custom activation, a Lambda's function) are
# kept as the object itself in a config, which then cannot be written as JSON.
_KEEP_CALLABLES = {"activation", "initializer", "regularizer", "constraint"}

_tables: dict[str, dict] = {kind: {} for kind in _PACKAGES}  # kind -> {name: object}
_loose: dict[str, dict] = {kind: {} for kind in _PACKAGES}  # kind -> {loose name: object}
_kind_names: dict[tuple, tuple] = {}  # (kind, id(object)) -> (object, the name it saves as)
_registry: dict = {}  # register_serializable: name -> class or function
_names: dict = {}  # id(class or function) -> name it was registered under
_scopes = threading.local()
_safe = threading.local()  # .mode: (safe_mode, the load it belongs to) while deserializing


def _plural(kind: str) -> str:
    return kind + ("es" if kind.endswith("s") else "s")  # "losses", "layers"


def _loose_key(name: str) -> str:
    return name.replace("_", "").lower()


def _qualified(obj) -> str:
    return f"{getattr(obj, '__module__', '?')}.{getattr(obj, '__qualname__', repr(obj))}"


def _check_kind(kind: str) -> None:
    if kind not in _tables:
        raise errors.InvalidArgumentError(
            f"Unknown kind of serializable object {kind!r}; kinds are {sorted(_tables)}.")


def register(kind: str, obj, *aliases: str):
    """Registers a built-in class or function of `kind` under its name and `aliases`.

    The first name (``obj.__name__`` unless aliases are given for an object without one) is
    the one `serialize` writes. A later registration of the same name replaces the earlier
    one (a class redefined in a notebook).

    Returns:
        `obj`, so that it can be used as a decorator.

    Examples:
        >>> import eagerflow as ef
        >>> from eagerflow.saving import registry
        >>> registry.get("activation", "ReLU") is ef.activations.relu
        True
    """
    _check_kind(kind)
    names = [n for n in (getattr(obj, "__name__", None), *aliases) if n and n != "<lambda>"]
    if not names:
        raise errors.InvalidArgumentError(f"register({kind!r}, {obj!r}) needs a name")
    for name in names:
        _tables[kind][name] = obj
        _loose[kind][_loose_key(name)] = obj
    # The entry holds the object, so its id cannot be reused while it is registered.
    if _kind_names.get((kind, id(obj)), (None,))[0] is not obj:
        _kind_names[(kind, id(obj))] = (obj, names[0])
    return obj


def _ensure_package(kind: str) -> None:
    importlib.import_module(_PACKAGES[kind])  # fills the kind's table; cached after once


def known_names(kind: str) -> list:
    """The names `get(kind, name)` accepts, sorted.

    Examples:
        >>> from eagerflow.saving import registry
        >>> registry.known_names("optimizer")[:3]
        ['Adadelta', 'Adafactor', 'Adagrad']
    """
    _check_kind(kind)
    _ensure_package(kind)
    return sorted(name for name in _tables[kind] if not name.startswith("_"))


def register_serializable(cls=None, *, name: str | None = None) -> Any:
    """Registers a user class (or function) under `name` so saved configs can rebuild it.

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

    Examples:
        >>> from eagerflow.saving import registry
        >>> @registry.register_serializable
        ... def example_activation(x):
        ...     return x
        >>> registry.get_registered_name(example_activation)
        'example_activation'
    """
    def register_one(target):
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

    return register_one if cls is None else register_one(cls)


def register_keras_serializable(package: str = "Custom",
                                name: str | None = None) -> Any:
    """Keras's spelling of `register_serializable`: the name stored is ``"package>name"``.

    ``@ef.saving.register_keras_serializable()`` on ``class MyLayer`` registers it as
    ``"Custom>MyLayer"``, as Keras 3 does; `get_registered_name` returns that name and
    `get_registered_object` finds the class by it.

    Args:
        package: the prefix before ``>`` (default ``"Custom"``).
        name: the name after ``>`` (default: the class's or function's ``__name__``).

    Returns:
        A decorator that registers its argument and returns it unchanged.

    Raises:
        InvalidArgumentError: if `package` is not a non-empty string, or (when decorating)
            the full name already belongs to a different class.

    Examples:
        >>> import eagerflow as ef
        >>> @ef.saving.register_keras_serializable(package="docs")
        ... class DocScale(ef.layers.Layer):
        ...     def call(self, x):
        ...         return 2 * x
        >>> ef.saving.get_registered_name(DocScale)
        'docs>DocScale'
        >>> ef.saving.get_registered_object("docs>DocScale") is DocScale
        True
    """
    if not isinstance(package, str) or not package:
        raise errors.InvalidArgumentError(
            "register_keras_serializable needs a non-empty string package. "
            f"Received: package={package!r}"
        )

    def decorate(target: Any) -> Any:
        if inspect.isclass(target) and not hasattr(target, "get_config"):
            raise errors.InvalidArgumentError(
                f"register_keras_serializable: cannot register {target!r}: a class needs "
                "a get_config() method to be rebuilt from its config."
            )
        short = name if name is not None else getattr(target, "__name__", None)
        if not isinstance(short, str) or not short:
            raise errors.InvalidArgumentError(
                "register_keras_serializable needs a non-empty string name for "
                f"{target!r}. Received: name={short!r}"
            )
        return register_serializable(target, name=f"{package}>{short}")

    return decorate


def get_registered_name(obj: Any) -> str:
    """The name `obj` (a class or function) is registered under, else its ``__name__``.

    Examples:
        >>> from eagerflow.saving import registry
        >>> registry.get_registered_name(registry.register_serializable(
        ...     type("DocThing", (), {}), name="DocRenamed"))
        'DocRenamed'
    """
    return _names.get(id(obj), getattr(obj, "__name__", type(obj).__name__))


def _lookup(kind, name: str, custom_objects):
    # A "package>name" saved by register_keras_serializable is also found by its bare name
    # in custom_objects and scopes, as Keras finds {"CustomLayer": CustomLayer} there.
    keys = (name, name.rpartition(">")[2]) if ">" in name else (name,)
    for key in keys:
        if custom_objects and key in custom_objects:
            return custom_objects[key]
        for scope in reversed(getattr(_scopes, "stack", [])):
            if key in scope:
                return scope[key]
    kinds = list(_tables) if kind is None else [kind]
    for each in kinds:
        table = _tables[each]
        for key in (name, name.lower(), snake_case(name)):
            if key in table:
                return table[key]
        found = _loose[each].get(_loose_key(name))
        if found is not None:
            return found
    return _registry.get(name)


def get_registered_object(name: str, custom_objects: dict[str, Any] | None = None,
                          kind: str | None = None) -> Any:
    """The class or function named `name` (custom objects first), or None.

    Without `kind`, every kind's table is searched (after the custom objects, the scopes
    and before the user registry).

    Examples:
        >>> from eagerflow.saving import registry
        >>> registry.get_registered_object("Foo", custom_objects={"Foo": int})
        <class 'int'>
        >>> registry.get_registered_object("Dense").__name__
        'Dense'
    """
    if kind is None:
        for each in _PACKAGES:
            _ensure_package(each)
    else:
        _check_kind(kind)
        _ensure_package(kind)
    return _lookup(kind, name, custom_objects)


@contextlib.contextmanager
def custom_object_scope(custom_objects: dict) -> Iterator[Any]:
    """Makes `custom_objects` visible to every `deserialize` call inside the block.

    Nested deserialization (a Sequential rebuilding its layers) sees the objects without
    having them passed down.

    Examples:
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


@contextlib.contextmanager
def safe_mode_scope(safe_mode: bool = True, source: str = "deserialize") -> Iterator[None]:
    """Deserialization inside the block is in safe mode (or, with ``safe_mode=False``,
    explicitly not), as Keras's ``SafeModeScope``: an outer scope wins over inner ones, so
    ``load_model(path, safe_mode=False)`` holds for every nested `deserialize`.

    In safe mode, loading never reads a path named in what it loads (a lookup layer's
    vocabulary file): `check_safe_mode` refuses it. Outside any scope (layers built in
    user code, a direct ``from_config``) nothing is refused.

    Args:
        safe_mode: refuse (True) or allow (False) what `check_safe_mode` guards.
        source: the loading call, for error messages (``"load_model('m.h5')"``).

    Examples:
        >>> from eagerflow.saving import registry
        >>> try:
        ...     with registry.safe_mode_scope(True, "load_model('m.h5')"):
        ...         registry.check_safe_mode("reading the vocabulary file 'v.txt'")
        ... except ValueError as e:
        ...     print(str(e)[:60])
        load_model('m.h5'): reading the vocabulary file 'v.txt', a p
    """
    outer = getattr(_safe, "mode", None)
    if outer is None:
        _safe.mode = (bool(safe_mode), source)
    try:
        yield
    finally:
        if outer is None:
            _safe.mode = None


def check_safe_mode(action: str) -> None:
    """Refuses `action` (reading a path named in a config) inside a safe-mode load.

    Raises:
        InvalidArgumentError: naming the load and `action`, and how to allow it.

    Examples:
        >>> from eagerflow.saving import registry
        >>> registry.check_safe_mode("reading the vocabulary file 'v.txt'")  # not loading
    """
    mode = getattr(_safe, "mode", None)
    if mode is not None and mode[0]:
        function = mode[1].split("(", 1)[0]
        raise errors.InvalidArgumentError(
            f"{mode[1]}: {action}, a path named in the config, is refused: loading never "
            "reads files named inside what it loads (safe mode), which could be any file "
            "on this machine. If you trust the source, pass safe_mode=False to "
            f"{function}; or give the vocabulary as a list.")


def serialize(obj: Any, kind: str | None = None) -> Any:
    """Returns ``{"class_name": name, "config": obj.get_config()}``.

    With a `kind`, None and plain values come back unchanged and a registered function
    serializes as its name (``"relu"``, ``"mean_squared_error"``); an activation,
    initializer, regularizer or constraint that is a plain callable is kept as is. Without
    one, a registered function serializes as ``{"class_name": name, "config": None}``.

    Raises:
        InvalidArgumentError: if `obj` has no ``get_config`` method (and is not a
            registered function).

    Examples:
        >>> from eagerflow.saving import registry
        >>> class Window:
        ...     def get_config(self):
        ...         return {"size": 3}
        >>> registry.serialize(Window())
        {'class_name': 'Window', 'config': {'size': 3}}
        >>> import eagerflow as ef
        >>> registry.serialize(ef.losses.mean_absolute_error, "loss")
        'mean_absolute_error'
    """
    if kind is not None:
        _check_kind(kind)
        if obj is None or isinstance(obj, (str, int, float, bool)):
            return obj
        entry = _kind_names.get((kind, id(obj)))
        if entry is not None and not isinstance(obj, type) and not hasattr(obj, "get_config"):
            return entry[1]
    if callable(obj) and not isinstance(obj, type) and id(obj) in _names:
        return _names[id(obj)] if kind is not None else {"class_name": _names[id(obj)],
                                                          "config": None}
    get_config = getattr(obj, "get_config", None)
    if not callable(get_config) or isinstance(obj, type):
        if kind in _KEEP_CALLABLES and callable(obj):
            return obj
        what = f"{kind} {obj!r}" if kind is not None else type(obj).__name__
        raise errors.InvalidArgumentError(
            f"Cannot serialize {what}: it has no get_config() method. Implement "
            "get_config() returning the constructor arguments (and from_config if they are not "
            "plain keyword arguments), or register a function with "
            "@ef.saving.register_serializable()."
        )
    return {"class_name": get_registered_name(type(obj)), "config": get_config()}


def deserialize(config: dict[str, Any], custom_objects: dict[str, Any] | None = None,
                kind: str | None = None, safe_mode: bool = True) -> Any:
    """Rebuilds an object from ``{"class_name": ..., "config": ...}`` (or, with a `kind`,
    from a name).

    Classes are rebuilt with ``cls.from_config(config)`` when they define it (with
    ``custom_objects=`` too when its signature accepts it), else ``cls(**config)``; a
    registered function is returned as is.

    Args:
        config: the serialized form (from `serialize` or a saved file).
        custom_objects: ``{name: class or function}`` checked before the registry.
        kind: where to look the class up (default: every kind, then the user registry).
        safe_mode: refuse to read paths named in the config (a lookup layer's vocabulary
            file), as Keras does; an enclosing `safe_mode_scope` (``load_model``) wins.

    Returns:
        The rebuilt object.

    Raises:
        InvalidArgumentError: if `config` is malformed or names an unknown class.

    Examples:
        >>> from eagerflow.saving import registry
        >>> registry.deserialize({"class_name": "Unknown", "config": {}})  # doctest: +ELLIPSIS
        Traceback (most recent call last):
          ...
        eagerflow.core.errors.InvalidArgumentError: Unknown class 'Unknown' in a saved config. ...
    """
    with safe_mode_scope(safe_mode):
        return _deserialize(config, custom_objects, kind)


def _deserialize(config, custom_objects, kind):
    if kind is not None and isinstance(config, str):
        return get(kind, config, custom_objects)
    if not isinstance(config, dict) or not isinstance(config.get("class_name"), str):
        raise errors.InvalidArgumentError(
            "deserialize expects {'class_name': str, 'config': dict}. Received: "
            f"{str(config)[:200]}"
        )
    name, inner = config["class_name"], config.get("config")
    registered = config.get("registered_name")  # Keras 3's form: the name it was registered as
    target = None
    if isinstance(registered, str) and registered != name:
        target = get_registered_object(registered, custom_objects, kind)
    if target is None:
        target = get_registered_object(name, custom_objects, kind)
    if target is None:
        what = f"{kind} class" if kind is not None else "class"
        known = (f" Known {_plural(kind)}: {', '.join(known_names(kind))}."
                 if kind is not None else "")
        raise errors.InvalidArgumentError(
            f"Unknown {what} {name!r} in a saved config.{known} Register it with "
            "@ef.saving.register_serializable() before loading, or pass "
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
            obj = target(**inner)
        elif _accepts_custom_objects(from_config):
            visible = {}
            for scope in getattr(_scopes, "stack", []):
                visible.update(scope)
            obj = from_config(inner, custom_objects=visible)
        else:
            obj = from_config(inner)
        build_config = config.get("build_config")
        if build_config is not None and not getattr(obj, "built", True) and \
                callable(getattr(obj, "build_from_config", None)):
            obj.build_from_config(build_config)  # as Keras 3 does, with the layer's own hook
    return obj


def get_custom_objects() -> dict[str, Any]:
    """The live ``{name: class or function}`` table `register_keras_serializable` fills.

    It is the table itself, as in Keras: ``get_custom_objects().clear()`` forgets every
    registration and ``get_custom_objects()["Name"] = cls`` adds one.

    Examples:
        >>> import eagerflow as ef
        >>> @ef.saving.register_keras_serializable(package="docs")
        ... def doc_square(x):
        ...     return x**2
        >>> ef.saving.get_custom_objects()["docs>doc_square"] is doc_square
        True
    """
    return _registry


def serialize_keras_object(obj: Any) -> Any:
    """Keras 3's serialized form of `obj`: ``module``, ``class_name``, ``config`` and
    ``registered_name``.

    ``class_name`` is the class's own name and ``registered_name`` the name it was
    registered under (``"package>name"``) or None for a built-in class, whose ``module``
    is where it is defined (None for a registered class). Objects in the config that have
    a config themselves (a sublayer, a regularizer) are serialized the same way, and a
    registered function as ``{"class_name": "function", "config": its name, ...}``. None,
    strings and numbers come back unchanged; lists and dicts item by item.

    Raises:
        InvalidArgumentError: if `obj` has no ``get_config`` method.

    Examples:
        >>> import eagerflow as ef
        >>> config = ef.saving.serialize_keras_object(ef.regularizers.L1(0.5))
        >>> config["class_name"], config["config"], config["registered_name"]
        ('L1', {'l1': 0.5}, None)
        >>> ef.saving.deserialize_keras_object(config)
        L1(l1=0.5)
    """
    if obj is None or isinstance(obj, (str, int, float, bool)):
        return obj
    if isinstance(obj, (list, dict)):
        return serialize_config_values(obj)
    function_name = _function_name(obj)
    if function_name is not None:  # Keras's form of a function
        return {"module": "builtins", "class_name": "function", "config": function_name,
                "registered_name": "function"}
    base = serialize(obj)
    registered = _names.get(id(type(obj)))
    result = {"module": None if registered is not None else type(obj).__module__,
              "class_name": type(obj).__name__,
              "config": serialize_config_values(base["config"]), "registered_name": registered}
    get_build_config = getattr(obj, "get_build_config", None)
    build_config = get_build_config() if callable(get_build_config) else None
    if build_config is not None:  # a built layer: rebuilt before its weights are loaded
        result["build_config"] = serialize_config_values(build_config)
    return result


def serialize_config_values(value: Any) -> Any:
    """`value` (a config) with every object in it that has a config itself (a sublayer, a
    regularizer) turned into its `serialize_keras_object` form, as Keras does, so that the
    config can be written as JSON and each object is rebuilt from its own config.

    Examples:
        >>> import eagerflow as ef
        >>> from eagerflow.saving import registry
        >>> registry.serialize_config_values({"reg": ef.regularizers.L2(0.5)})["reg"]["config"]
        {'l2': 0.5}
    """
    if isinstance(value, dict):
        return {key: serialize_config_values(item) for key, item in value.items()}
    if isinstance(value, list):
        return [serialize_config_values(item) for item in value]
    if isinstance(value, type):
        return value
    if callable(getattr(value, "get_config", None)) or _function_name(value) is not None:
        return serialize_keras_object(value)
    return value


def _function_name(obj) -> str | None:
    """The name a registered function is saved as, else None."""
    if isinstance(obj, type) or not callable(obj) or hasattr(obj, "get_config"):
        return None
    if id(obj) in _names:
        return _names[id(obj)]
    for (_, key), (known, name) in _kind_names.items():
        if key == id(obj) and known is obj:
            return name
    return None


def deserialize_keras_object(config: Any, custom_objects: dict[str, Any] | None = None) -> Any:
    """Rebuilds an object from `serialize_keras_object`'s form (or `serialize`'s).

    The ``registered_name`` is looked up first, then the ``class_name``; a function's form
    gives the registered function back, a list is rebuilt item by item, and None, strings
    and numbers come back unchanged.

    Raises:
        InvalidArgumentError: if `config` is malformed or names an unknown class.

    Examples:
        >>> import eagerflow as ef
        >>> ef.saving.deserialize_keras_object(
        ...     {"module": None, "class_name": "L2", "config": {"l2": 0.25}})
        L2(l2=0.25)
    """
    if config is None or isinstance(config, (str, int, float, bool)):
        return config
    if isinstance(config, list):
        return [deserialize_keras_object(item, custom_objects) for item in config]
    if isinstance(config, dict) and config.get("class_name") == "function" and \
            isinstance(config.get("config"), str):
        found = get_registered_object(config["config"], custom_objects)
        if not callable(found):
            raise errors.InvalidArgumentError(
                f"Unknown function {config['config']!r} in a saved config. Register it with "
                "@ef.saving.register_keras_serializable() before loading, or pass "
                f"custom_objects={{{config['config']!r}: ...}}.")
        return found
    return deserialize(config, custom_objects)


def get(kind: str, identifier: Any, custom_objects: dict[str, Any] | None = None) -> Any:
    """Returns an object of `kind` for a name, a config dict, a class or an object.

    A name gives a new instance of a registered class (with default arguments) or the
    registered function; a config dict is deserialized; a class is instantiated; None and
    objects (instances, functions) come back as they are.

    Raises:
        InvalidArgumentError: for an unknown name (listing the known ones) or an identifier
            that is none of these.

    Examples:
        >>> from eagerflow.saving import registry
        >>> registry.get("metric", "acc")
        <ef.metrics.Accuracy name='accuracy'>
        >>> registry.get("loss", "mse").__name__
        'mean_squared_error'
    """
    _check_kind(kind)
    if identifier is None:
        return None
    if isinstance(identifier, str):
        _ensure_package(kind)
        found = _lookup(kind, identifier, custom_objects)
        if found is None:
            raise errors.InvalidArgumentError(
                f"Unknown {kind} {identifier!r}. Known {_plural(kind)}: "
                f"{', '.join(known_names(kind))}. Pass an object or a callable, or register "
                f"a custom one with custom_objects={{{identifier!r}: ...}} or "
                "@ef.saving.register_serializable()."
            )
        return found() if isinstance(found, type) else found
    if isinstance(identifier, dict):
        return deserialize(identifier, custom_objects, kind)
    if isinstance(identifier, type):
        return identifier()
    if callable(identifier) or hasattr(identifier, "get_config"):
        return identifier
    raise errors.InvalidArgumentError(
        f"Could not interpret {kind} identifier: {identifier!r} (of type "
        f"{type(identifier).__name__}). Pass a name such as {known_names(kind)[0]!r}, a "
        "config dict, or an object."
    )


def _accepts_custom_objects(function) -> bool:
    try:
        return "custom_objects" in inspect.signature(function).parameters
    except (TypeError, ValueError):  # builtins without a signature
        return False


class Configurable:
    """`get_config`, `from_config` and a ``Name(arg=value)`` repr from constructor arguments.

    The shared base of initializers, regularizers and constraints: a subclass whose
    constructor takes arguments overrides `get_config` to return them as plain values, and
    `from_config` and `repr` follow from it.

    Examples:
        >>> from eagerflow.saving import registry
        >>> class Scale(registry.Configurable):
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
    def from_config(cls, config: dict) -> Any:
        """Creates the object from `get_config`'s output."""
        return cls(**config)

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_config().items())
        return f"{type(self).__name__}({args})"
