"""The trackable protocol: objects that own variables, found by attribute path.

Layers, models, optimizers and metrics subclass `Trackable`. Checkpoints walk the object
graph through `_trackable_children()`, so the attribute path of a variable is its
checkpoint key (``model/dense1/kernel``). The default walks ``vars(self)`` in insertion
order and keeps every attribute that holds a Variable, a Trackable, or a list, tuple or
dict containing them; classes override it to rename or hide children.

Variables created after a checkpoint was restored (layers built on first call, optimizer
slots created on first update) must announce themselves through `_track_new_variable` /
`_track_new_slot`, so a deferred restore can hand them their saved values the moment
they exist. The hooks forward to the restores still waiting for values (registered by
`eagerflow.saving` through `add_restore_listener`), and to a listener set on the object
itself as its ``_deferred_restore`` attribute (handy in tests); with none waiting they cost
a dict lookup and a truth test, so objects may call them unconditionally.

Examples:
    >>> import eagerflow as ef
    >>> from eagerflow.core.trackable import Trackable
    >>> class Scale(Trackable):
    ...     def __init__(self):
    ...         self.factor = ef.Variable(2.0)
    ...         self.note = "not tracked: holds no variable"
    >>> list(Scale()._trackable_children())
    ['factor']
"""

from __future__ import annotations

import functools
import re
import weakref
from collections.abc import Sequence
from typing import Any

from eagerflow.core import context, nest, variable

# Restores still waiting for variables to be created. Weak, so a restore nobody can reach
# any more (its objects and its status are gone) stops listening by itself.
_restore_listeners: weakref.WeakSet = weakref.WeakSet()
# {type: wrapper}: attribute values of these exact types are stored wrapped. Lists and dicts
# become containers whose additions are attachments (TensorFlow's ListWrapper), so a
# restore waiting for values fills what is appended later at once. The classes live in
# `eagerflow.data_structures`, which ``import eagerflow`` loads and which fills this table:
# the engine declares the seam, as `context.creation_observer`.
container_wrappers: dict = {}


def add_restore_listener(listener) -> None:
    """Registers `listener` to receive ``variable_created`` / ``slot_created`` calls.

    The listener is held weakly: keep a strong reference for as long as it should listen.

    Examples:
        >>> import eagerflow as ef
        >>> from eagerflow.core import trackable
        >>> class Printer:
        ...     def variable_created(self, owner, name, variable):
        ...         print("created", name)
        ...     def slot_created(self, optimizer, variable, slot_name, slot):
        ...         print("slot", slot_name)
        >>> printer = Printer()
        >>> trackable.add_restore_listener(printer)
        >>> trackable.Trackable()._track_new_variable("kernel", ef.Variable(1.0))
        created kernel
        >>> trackable.remove_restore_listener(printer)
    """
    _restore_listeners.add(listener)


def remove_restore_listener(listener) -> None:
    """Stops forwarding creation events to `listener` (no error if it was not registered).

    See `add_restore_listener` for an example.
    """
    _restore_listeners.discard(listener)


def snake_case(name: str) -> str:
    """The one naming rule for default names: a class name in snake case, as Keras's
    ``to_snake_case`` (``"MaxPooling2D"`` -> ``"max_pooling2d"``). A capital followed by
    lower case starts a word and a lower-case letter followed by a capital ends one, so
    runs of capitals stay one word (``"MNISTModel"`` -> ``"mnist_model"``, ``"LSTM"`` ->
    ``"lstm"``, ``"RMSprop"`` -> ``"rm_sprop"``); characters that cannot be in a Python
    identifier are dropped. `ef.utils.naming` re-exports it for the packages above.

    Examples:
        >>> from eagerflow.core.trackable import snake_case
        >>> snake_case("MNISTModel"), snake_case("RMSprop"), snake_case("Conv2DTranspose")
        ('mnist_model', 'rm_sprop', 'conv2d_transpose')
    """
    name = re.sub(r"\W+", "", name)
    name = re.sub("(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub("([a-z])([A-Z])", r"\1_\2", name).lower()


def is_trackable_value(value) -> bool:
    """Whether `value` is a Variable, a Trackable, or a container holding one.

    Examples:
        >>> import eagerflow as ef
        >>> from eagerflow.core.trackable import is_trackable_value
        >>> is_trackable_value({"a": [ef.Variable(1.0)]}), is_trackable_value([1, "x"])
        (True, False)
    """
    if isinstance(value, (Trackable, variable.Variable)):
        return True
    if isinstance(value, dict):
        return any(is_trackable_value(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(is_trackable_value(v) for v in value)
    return False


def _holds_variable(value, seen: set) -> bool:
    if id(value) in seen:
        return False
    seen.add(id(value))
    if isinstance(value, variable.Variable):
        return True
    if isinstance(value, (list, tuple)):
        return any(_holds_variable(item, seen) for item in value)
    if isinstance(value, dict):
        return any(_holds_variable(item, seen) for item in value.values())
    if isinstance(value, Trackable):
        return any(_holds_variable(item, seen) for item in value._trackable_children().values())
    return False


def notify_attached(owner, value) -> None:
    """Tells the restores still waiting for values that `value` (holding variables) was
    just attached to `owner`: TensorFlow restores an object when it is attached to the
    restored graph (``ckpt.restore(p); ckpt.v = ef.Variable(0.)`` gets the saved value)."""
    if _restore_listeners and _holds_variable(value, set()):
        with context.init_scope():
            for listener in list(_restore_listeners):
                attached = getattr(listener, "object_attached", None)
                if attached is not None:
                    attached(owner, value)


class Trackable:
    """Base class of objects whose variables checkpoints save and restore.

    Examples:
        >>> import eagerflow as ef
        >>> from eagerflow.core.trackable import Trackable
        >>> class Counter(Trackable):
        ...     def __init__(self):
        ...         self.count = ef.Variable(0)
        >>> list(Counter()._trackable_children())
        ['count']
    """

    def __new__(cls, *args, **kwargs):
        obj = super().__new__(cls)
        if context.creation_observer is not None:  # ef.distribute is in use
            context.creation_observer.object_created(obj)
        return obj

    def __setattr__(self, name: str, value: Any) -> None:
        if type(value) in container_wrappers:  # (list, dict: see the table above; `in`
            value = container_wrappers[type(value)](value)  # is 3x cheaper than `.get()`)
        object.__setattr__(self, name, value)
        if _restore_listeners:  # (a restore is waiting for values: maybe for these)
            notify_attached(self, value)

    def _trackable_children(self) -> dict:
        """Named dependencies, in a deterministic order (default: attributes in order)."""
        return {name: value for name, value in vars(self).items()
                if is_trackable_value(value)}

    def _track_new_variable(self, name: str, variable) -> None:
        """Called right after this object creates a variable it exposes as child `name`.

        `name` must be the key under which `_trackable_children()` returns (or will return)
        the variable. A pending (deferred) restore for that path assigns the saved value
        here, before the variable is first used.
        """
        self._tell_restores("variable_created", name, variable)
        if context.creation_observer is not None:  # after the restore: shares its value
            context.creation_observer.announce(self, variable)

    def _tell_restores(self, event: str, *args) -> None:
        """Calls ``listener.<event>(self, *args)`` on this object's own restore listener
        (its ``_deferred_restore``) and on every restore still waiting for values."""
        own = self.__dict__.get("_deferred_restore")
        if own is None and not _restore_listeners:
            return  # (the common case: nothing is being restored)
        listeners = ([] if own is None else [own]) + list(_restore_listeners)
        # A restore is a real, one-time write even when the variable is created while a
        # function is traced (it must not become an assignment the graph repeats).
        with context.init_scope():
            for listener in listeners:
                getattr(listener, event)(self, *args)

    def _track_new_slot(self, variable, slot_name: str, slot) -> None:
        """Called by optimizers right after creating `slot` (named `slot_name`) for `variable`.

        The optimizer must also list it in ``slot_variables()`` as
        ``(variable, slot_name, slot)`` (the `eagerflow.saving.object_graph.SlotHolder`
        interface).
        """
        self._tell_restores("slot_created", variable, slot_name, slot)
        if context.creation_observer is not None:
            context.creation_observer.announce(self, slot, parent=variable)


class Module(Trackable):
    """A named container of Variables and other Modules (TensorFlow's ``tf.Module``).

    Assign Variables and Modules (or lists/dicts of them) to attributes: `variables`,
    `trainable_variables` and `submodules` find them, checkpoints save them, and
    ``with self.name_scope:`` names the variables created inside ``"<name>/..."``.
    `ef.layers.Layer` (and so every model) is a Module.

    Args:
        name: the module's name (default: the class name in snake case); a Python
            identifier.

    Raises:
        ValueError: if `name` is not a valid Python identifier.

    Examples:
        >>> import eagerflow as ef
        >>> class Dense(ef.Module):
        ...     def __init__(self, units, name=None):
        ...         super().__init__(name=name)
        ...         with self.name_scope:
        ...             self.w = ef.Variable(ef.ones([2, units]), name="w")
        ...             self.b = ef.Variable(ef.zeros([units]), name="b", trainable=False)
        ...     def __call__(self, x):
        ...         return ef.matmul(x, self.w) + self.b
        >>> class Net(ef.Module):
        ...     def __init__(self):
        ...         super().__init__()
        ...         self.layers = [Dense(3, name="first"), Dense(3, name="second")]
        >>> net = Net()
        >>> [v.name for v in net.trainable_variables], len(net.submodules)
        (['first/w', 'second/w'], 2)
    """

    def __init__(self, name: str | None = None) -> None:
        if name is None:
            name = snake_case(type(self).__name__)
        if not isinstance(name, str) or not name.isidentifier():
            raise ValueError(
                f"{type(self).__name__}: name must be a valid Python identifier. Received: "
                f"name={name!r}")
        self._module_name = name

    @property
    def name(self) -> str:
        """The module's name."""
        return self._module_name

    @property
    def name_scope(self) -> Any:
        """A context manager: Variables created inside are named ``"<name>/..."``."""
        return context.name_scope(self.name)

    def _walk(self):
        """Every Variable and Module reachable from this module, each once, excluding self,
        in the order TensorFlow's ``tf.Module`` documents: a module's own leaves first (as
        its `_walk_leaves` lists them), then each submodule's, recursively (``a.b.d``'s
        variables come before ``a.c``'s). The one walk of an object's state: `variables`,
        `submodules` and a layer's `weights` are all read from it."""
        found, seen = [], {id(self)}

        def flatten(module):
            submodules = []
            for leaf in module._walk_leaves():
                if id(leaf) not in seen:
                    seen.add(id(leaf))
                    found.append(leaf)
                    if isinstance(leaf, Module):
                        submodules.append(leaf)
            for submodule in submodules:
                flatten(submodule)

        flatten(self)
        return found

    def _walk_leaves(self):
        """The Variables and Modules this module holds itself, in walk order: attributes
        sorted by name, dict keys sorted, lists in order (``tf.Module``'s). Layers list
        theirs in insertion order instead, as Keras tracks them."""
        for key in sorted(vars(self)):
            for leaf in nest.flatten(vars(self)[key]):
                if isinstance(leaf, (variable.Variable, Module)):
                    yield leaf

    @property
    def variables(self) -> Sequence[Any]:
        """The Variables of this module and its submodules (each once)."""
        return tuple(v for v in self._walk() if isinstance(v, variable.Variable))

    @property
    def trainable_variables(self) -> Sequence[Any]:
        """The trainable ones of `variables`."""
        return tuple(v for v in self.variables if v.trainable)

    @property
    def non_trainable_variables(self) -> Sequence[Any]:
        """The non-trainable ones of `variables`."""
        return tuple(v for v in self.variables if not v.trainable)

    @property
    def submodules(self) -> tuple:
        """Every Module reachable from this one (not itself)."""
        return tuple(m for m in self._walk() if isinstance(m, Module))

    @classmethod
    def with_name_scope(cls, method: Any) -> Any:
        """Decorates a method to run inside the module's `name_scope`.

        Examples:
            >>> import eagerflow as ef
            >>> class Lazy(ef.Module):
            ...     @ef.Module.with_name_scope
            ...     def __call__(self, x):
            ...         if not hasattr(self, "w"):
            ...             self.w = ef.Variable(ef.ones([x.shape[-1]]), name="w")
            ...         return x * self.w
            >>> module = Lazy(name="lazy")
            >>> _ = module(ef.ones([2])); module.w.name
            'lazy/w'
        """
        @functools.wraps(method)
        def scoped(self, *args, **kwargs):
            with self.name_scope:
                return method(self, *args, **kwargs)

        return scoped

    def __repr__(self) -> str:  # (name=None when a subclass skips super().__init__())
        return f"<{type(self).__name__} name={vars(self).get('_module_name')!r}>"
