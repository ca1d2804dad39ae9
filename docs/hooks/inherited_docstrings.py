"""A griffe extension for the API reference: a method or property that overrides one of a
base class without a docstring of its own (``Dense.call``, ``Adam.update_step``) shows the
docstring of the nearest base that has one, as Python's ``inspect.getdoc`` does.

mkdocstrings loads it (``extensions:`` in ``mkdocs.yml``), and so does the docs test that
checks every entry of the reference has text (``tests/test_docs.py``).
"""

from __future__ import annotations

from typing import Any

import griffe


def _inherit(obj: griffe.Object, seen: set[str]) -> None:
    if obj.path in seen:
        return
    seen.add(obj.path)
    for member in list(obj.members.values()):
        if member.is_alias:
            continue
        if member.is_module or member.is_class:
            _inherit(member, seen)  # type: ignore[arg-type]
    if not obj.is_class:
        return
    try:
        bases = obj.mro()  # type: ignore[attr-defined]
    except ValueError:  # an unresolvable base: leave the class as it is
        return
    for name, member in obj.members.items():
        if member.is_alias or member.docstring is not None or name.startswith("_"):
            continue
        for base in bases:
            found = base.members.get(name)
            if found is not None and not found.is_alias and found.docstring is not None:
                member.docstring = griffe.Docstring(found.docstring.value, parent=member)
                break


class InheritedDocstrings(griffe.Extension):
    """Fills in the docstrings of undocumented overrides from their base classes."""

    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
        _inherit(pkg, set())


def _public_classes() -> set[str]:
    """``module.Qualname`` of every class exported by a public eagerflow namespace."""
    import types

    import eagerflow

    found: set[str] = set()
    for name in eagerflow.__all__:
        value = getattr(eagerflow, name)
        values = ([getattr(value, member) for member in getattr(value, "__all__", [])]
                  if isinstance(value, types.ModuleType) else [value])
        found |= {f"{v.__module__}.{v.__qualname__}" for v in values if isinstance(v, type)}
    return found


def _show_members_of_private_bases(obj: griffe.Object, public: set[str], seen: set[str]) -> None:
    """A public class lists the public methods it inherits from bases the reference does
    not show (``_Merge.build``, ``IndexLookup.get_vocabulary``), as if they were its own:
    otherwise they would appear nowhere."""
    if obj.path in seen:
        return
    seen.add(obj.path)
    for member in list(obj.members.values()):
        if not member.is_alias and (member.is_module or member.is_class):
            _show_members_of_private_bases(member, public, seen)  # type: ignore[arg-type]
    if not obj.is_class or obj.path not in public:
        return
    try:
        bases = obj.mro()  # type: ignore[attr-defined]
    except ValueError:
        return
    for base in bases:
        if base.path in public:
            break  # its members, and those of its own bases, are shown on its entry
        for name, member in base.members.items():
            if name.startswith("_") or name in obj.members:
                continue
            if member.is_alias or not (member.is_function or member.is_attribute):
                continue
            obj.set_member(name, griffe.Alias(name, member, parent=obj))  # type: ignore[arg-type]


class PrivateBaseMembers(griffe.Extension):
    """Shows on each public class the methods it inherits from non-public bases."""

    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
        _show_members_of_private_bases(pkg, _public_classes(), set())
