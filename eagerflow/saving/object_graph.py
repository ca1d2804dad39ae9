"""The object graph: every variable reachable from named roots, keyed by attribute path.

Both saving and restoring use `walk`, so the two cannot disagree about a key. The walk is
breadth-first from the roots in order, following `Trackable._trackable_children()`, list
and tuple indices and dict keys; an object reached twice keeps its first (shortest) path,
its canonical path, and every further path to it is recorded as an alias (``b -> a`` after
``ckpt.b = ckpt.a``): checkpoints store the aliases beside the values, so a restore finds
an object through any path it was saved under (see `eagerflow.saving.binding`).
Optimizer slot variables are not keyed by where the optimizer stores them but by the
variable they belong to: ``<optimizer path>/slots/<variable path>/<slot name>``, so they
survive any change in creation order. An object has slots when it is a `SlotHolder`:
it offers ``slot_variables()`` (`ef.optim.Optimizer` does), the one interface between
checkpoints and optimizers.

Path components are percent-escaped (``%`` -> ``%25``, ``/`` -> ``%2F``, and the names
``""``, ``"."`` and ``".."`` -> ``%00``, ``%2E``, ``%2E%2E``), so any dict key makes a
valid, reversible HDF5 name.

Examples:
    >>> import eagerflow as ef
    >>> from eagerflow.saving import object_graph
    >>> g = object_graph.walk({"step": ef.Variable(0), "layers": [{"w/b": ef.Variable(1.0)}]})
    >>> list(g.variables)
    ['step', 'layers/0/w%2Fb']
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping
from typing import Any, Protocol

from eagerflow.core import errors, trackable, variable

SLOTS = "slots"


class SlotHolder(Protocol):
    """What checkpoints need of an object with slot variables (an optimizer): the list
    of its slots, each with the variable it belongs to and its name. It announces each new
    slot with `Trackable._track_new_slot` so a deferred restore can fill it.

    Examples:
        >>> import eagerflow as ef
        >>> from eagerflow.saving import object_graph
        >>> object_graph.is_slot_holder(ef.optim.Adam()), object_graph.is_slot_holder([])
        (True, False)
    """

    def slot_variables(self) -> list[tuple[Any, str, Any]]:
        """``(variable, slot_name, slot_variable)`` for every slot."""


def is_slot_holder(obj) -> bool:
    """Whether `obj` offers the `SlotHolder` interface."""
    return callable(getattr(obj, "slot_variables", None))


def escape(name) -> str:
    """Makes one path component from a child name (see the module docstring).

    Examples:
        >>> from eagerflow.saving import object_graph
        >>> object_graph.escape("a/b"), object_graph.escape(3), object_graph.escape(".")
        ('a%2Fb', '3', '%2E')
    """
    text = str(name)
    if text in ("", ".", ".."):
        return {"": "%00", ".": "%2E", "..": "%2E%2E"}[text]
    return text.replace("%", "%25").replace("/", "%2F")


def join(parent: str, child: str) -> str:
    """Joins an (already escaped) parent path and child component.

    Examples:
        >>> from eagerflow.saving import object_graph
        >>> object_graph.join("model", "kernel"), object_graph.join("", "step")
        ('model/kernel', 'step')
    """
    return f"{parent}/{child}" if parent else child


class ObjectGraph:
    """The result of `walk`.

    Attributes:
        variables: ``{path: Variable}`` for every non-slot variable, in walk order.
        slots: ``{path: Variable}`` for every optimizer slot whose variable is in the graph.
        orphan_slots: ``[(optimizer_path, variable, slot_name)]`` for slots whose variable
            is not reachable from the roots (such slots cannot be keyed, so are not saved).
        nodes: ``{path: object}`` for every object reached (trackables, containers,
            variables), used to tell pending values from unusable ones.
        aliases: ``{second path: canonical path}``: each further edge to an object already
            reached (its parent is a canonical path), except edges back to an ancestor
            (cycles add no path worth restoring through).
        slot_owners: ``{slot path: (optimizer path, variable path, escaped slot name)}``.

    Examples:
        >>> import eagerflow as ef
        >>> from eagerflow.saving import object_graph
        >>> g = object_graph.walk({"w": ef.Variable(1.0)})
        >>> list(g.all_variables()), list(g.nodes)
        (['w'], ['w'])
    """

    def __init__(self):
        self.variables: dict = {}
        self.slots: dict = {}
        self.orphan_slots: list = []
        self.nodes: dict = {}
        self.aliases: dict = {}
        self.slot_owners: dict = {}
        self._paths: dict = {}  # id(object) -> path, for objects the walk reached

    def path_of(self, obj) -> str | None:
        """The path at which the walk first reached `obj`, or None.

        Examples:
            >>> import eagerflow as ef
            >>> from eagerflow.saving import object_graph
            >>> v = ef.Variable(1.0)
            >>> object_graph.walk({"d": {"v": v}}).path_of(v)
            'd/v'
        """
        return self._paths.get(id(obj))

    def all_variables(self) -> dict:
        """Variables and slots together: ``{path: Variable}``.

        Examples:
            >>> import eagerflow as ef
            >>> from eagerflow.saving import object_graph
            >>> list(object_graph.walk({"a": ef.Variable(1.0)}).all_variables())
            ['a']
        """
        return {**self.variables, **self.slots}


def _children(obj, path: str):
    """Yields ``(escaped_name, child)`` for one node, checking names are unique."""
    if isinstance(obj, trackable.Trackable):
        children = obj._trackable_children()
        if not isinstance(children, dict):
            raise errors.InvalidArgumentError(
                f"{type(obj).__name__}._trackable_children() must return a dict of "
                f"{{name: child}}; got {type(children).__name__} (object at "
                f"{path or 'the root'!r})."
            )
        items: Iterable[tuple[Any, Any]] = children.items()
    elif isinstance(obj, dict):
        items = obj.items()
    elif isinstance(obj, (list, tuple)):
        items = enumerate(obj)
    else:
        return
    seen = set()
    for name, child in items:
        key = escape(name)
        if key in seen:
            raise errors.InvalidArgumentError(
                f"Two children of the object at {path or 'the root'!r} map to the same "
                f"checkpoint name {key!r} (e.g. dict keys 1 and '1'); rename one of them."
            )
        seen.add(key)
        yield key, child


def _is_node(value) -> bool:
    return isinstance(value, (trackable.Trackable, variable.Variable, list, tuple, dict))


def walk(roots: Mapping, exclude=()) -> ObjectGraph:
    """Walks the object graph from the named `roots` (breadth-first, in order).

    Args:
        roots: ``{name: object}``; objects are Trackables, Variables, or lists, tuples and
            dicts of them.
        exclude: objects not to enter (e.g. a model's optimizer when saving weights only).

    Returns:
        An `ObjectGraph`.

    Raises:
        InvalidArgumentError: if two children of one object get the same name, or an
            optimizer has a child named ``"slots"`` (reserved for its slot variables).

    Examples:
        >>> import eagerflow as ef
        >>> from eagerflow.saving import object_graph
        >>> shared = ef.Variable(1.0)
        >>> g = object_graph.walk({"a": [shared], "b": {"again": shared}})
        >>> list(g.variables), g.path_of(shared), g.aliases
        (['a/0'], 'a/0', {'b/again': 'a/0'})
    """
    graph = ObjectGraph()
    excluded = {id(obj) for obj in exclude}
    queue: deque[Any] = deque()
    for key, root in _children(dict(roots), ""):
        queue.append((key, root))
    optimizers = []
    while queue:
        path, obj = queue.popleft()
        if id(obj) in excluded or not _is_node(obj):
            continue
        first = graph._paths.get(id(obj))
        if first is not None:
            if not path.startswith(first + "/"):  # (not a cycle back to an ancestor)
                graph.aliases[path] = first
            continue
        graph._paths[id(obj)] = path
        graph.nodes[path] = obj
        if isinstance(obj, variable.Variable):
            continue
        if is_slot_holder(obj):
            optimizers.append((path, obj))
        for key, child in _children(obj, path):
            queue.append((join(path, key), child))
    slot_ids = set()
    for opt_path, optimizer in optimizers:
        if join(opt_path, SLOTS) in graph.nodes:
            raise errors.InvalidArgumentError(
                f"The optimizer at {opt_path!r} ({type(optimizer).__name__}) has a child named "
                f"{SLOTS!r}, which is reserved for its slot variables; rename the attribute."
            )
        for var, slot_name, slot in optimizer.slot_variables():
            slot_ids.add(id(slot))
            var_path = graph._paths.get(id(var))
            if var_path is None or not isinstance(var, variable.Variable):
                graph.orphan_slots.append((opt_path, var, slot_name))
                continue
            slot_path = join(join(join(opt_path, SLOTS), var_path), escape(slot_name))
            graph.slots[slot_path] = slot
            graph.slot_owners[slot_path] = (opt_path, var_path, escape(slot_name))
            graph._paths.setdefault(id(slot), slot_path)
    for path, obj in graph.nodes.items():
        if isinstance(obj, variable.Variable) and id(obj) not in slot_ids:
            graph.variables[path] = obj
    return graph
