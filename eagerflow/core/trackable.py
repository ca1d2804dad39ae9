"""The trackable protocol: objects that own variables, found by attribute path.

Layers, models, optimizers and metrics subclass `Trackable`. Checkpoints walk the object
graph through `_trackable_children()`, so the attribute path of a variable is its
checkpoint key (``model/dense1/kernel``). The default walks ``vars(self)`` in insertion
order and keeps every attribute that holds a Variable, a Trackable, or a list, tuple or
dict containing them; classes override it to rename or hide children.

Variables created after a checkpoint was restored (layers built on first call, optimizer
slots created on first update) must announce themselves through `_track_new_variable` /
`_track_new_slot`, so a deferred restore can hand them their saved values the moment
they exist.
"""

from __future__ import annotations

__all__ = ["Trackable", "is_trackable_value"]


def is_trackable_value(value) -> bool:
    """Whether `value` is a Variable, a Trackable, or a container holding one."""
    if isinstance(value, Trackable) or _is_variable(value):
        return True
    if isinstance(value, dict):
        return any(is_trackable_value(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(is_trackable_value(v) for v in value)
    return False


def _is_variable(value) -> bool:
    from eagerflow.core.variable import Variable

    return isinstance(value, Variable)


class Trackable:
    """Base class of objects whose variables checkpoints save and restore."""

    def _trackable_children(self) -> dict:
        """Named dependencies, in a deterministic order (default: attributes in order)."""
        return {name: value for name, value in vars(self).items()
                if is_trackable_value(value)}

    def _track_new_variable(self, name: str, variable) -> None:
        """Called right after this object creates a variable it exposes as child `name`.

        A pending (deferred) restore for that path assigns the saved value here.
        """
        pending = self.__dict__.get("_deferred_restore")
        if pending is not None:
            pending.variable_created(self, name, variable)

    def _track_new_slot(self, variable, slot_name: str, slot) -> None:
        """Called by optimizers right after creating `slot` for `variable`."""
        pending = self.__dict__.get("_deferred_restore")
        if pending is not None:
            pending.slot_created(self, variable, slot_name, slot)
