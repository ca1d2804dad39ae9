"""Tracked lists and dicts: containers held by a Trackable whose additions are attachments.

A list or dict assigned to an attribute of a Trackable (an `ef.Module`, a Layer, a model, an
`ef.train.Checkpoint`) is replaced by a `ListWrapper` / `DictWrapper` holding the same
items, as TensorFlow wraps them (``ListWrapper``, ``_DictWrapper``) and Keras 3 tracks them
(``TrackedList``, ``TrackedDict``). Putting an object in one (``append``, ``extend``,
``insert``, item or slice assignment and ``+=`` on lists; item assignment, ``update``,
``setdefault`` and ``|=`` on dicts) attaches it to the graph as assigning an attribute
does (`core.trackable.notify_attached`): a restore still waiting for values gives them at
once, as TensorFlow does::

    loaded.listed = []
    loaded.restore(path)
    loaded.listed.append(ef.Variable(0.0))   # holds the saved value now

What the wrappers are, and are not:

- Subclasses of `list` and `dict`: ``isinstance``, ``==`` with plain containers, ``len``,
  iteration, JSON and NumPy behave as for the plain container; ``type(x) is list`` is
  False (as in TensorFlow). Only exact lists and dicts are wrapped: tuples, other
  containers and user subclasses are kept as they are.
- They hold the items, not the container that was assigned: changing the original list
  after assigning it changes nothing in the attribute (Keras 3's rule; TensorFlow's
  ListWrapper shares the original's storage). Lists and dicts nested inside are wrapped
  when they enter.
- Anything may be stored; what holds no variable is kept and ignored by checkpoints.
- Removals (``pop``, ``del``, ``clear``, ``remove``) attach nothing. Slices, ``+``,
  ``copy()`` and ``dict(x)`` give plain containers; ``copy.copy``, ``copy.deepcopy`` and
  pickling keep the wrapper type (TensorFlow pickles a dict wrapper as a plain dict).

The classes live here, not in `core`: `core.trackable` declares the seam (the
``container_wrappers`` table it consults on attribute assignment) and this module, loaded
by ``import eagerflow``, fills it.

Examples:
    >>> import eagerflow as ef
    >>> module = ef.Module()
    >>> module.layers = []
    >>> module.layers.append(ef.Variable(1.0))
    >>> type(module.layers).__name__, isinstance(module.layers, list), module.layers == [
    ...     module.layers[0]]
    ('ListWrapper', True, True)
"""

from __future__ import annotations

from typing import Any

from eagerflow.core import trackable


def wrap(value: Any) -> Any:
    """`value` as an attribute of a Trackable holds it: an exact list or dict becomes a
    `ListWrapper` / `DictWrapper` with the same items; anything else is returned as is.

    Examples:
        >>> from eagerflow import data_structures
        >>> type(data_structures.wrap({"a": [1]})["a"]).__name__, data_structures.wrap(3)
        ('ListWrapper', 3)
    """
    wrapper = trackable.container_wrappers.get(type(value))
    return value if wrapper is None else wrapper(value)


class ListWrapper(list):
    """A list whose additions are attachments (see the module docstring).

    Args:
        items: the initial items (nested lists and dicts are wrapped).

    Examples:
        >>> from eagerflow.data_structures import ListWrapper
        >>> items = ListWrapper([1, [2]])
        >>> items += [3]
        >>> items, type(items[1]).__name__, type(items[:1]).__name__
        ([1, [2], 3], 'ListWrapper', 'list')
    """

    def __init__(self, items=()) -> None:
        super().__init__(wrap(item) for item in items)

    def append(self, item: Any) -> None:
        """Appends `item`, restoring it if a restore waits for its values."""
        item = wrap(item)
        super().append(item)
        trackable.notify_attached(self, item)

    def extend(self, items) -> None:
        """Appends each of `items`, restoring them as `append` does."""
        items = [wrap(item) for item in items]
        super().extend(items)
        trackable.notify_attached(self, items)

    def insert(self, index, item: Any) -> None:
        """Inserts `item` before `index`, restoring it as `append` does."""
        item = wrap(item)
        super().insert(index, item)
        trackable.notify_attached(self, item)

    def __setitem__(self, index, value) -> None:
        value = [wrap(item) for item in value] if isinstance(index, slice) else wrap(value)
        super().__setitem__(index, value)
        trackable.notify_attached(self, value)

    def __iadd__(self, items):  # type: ignore[misc]  # (``+`` stays list's: a plain list)
        self.extend(items)
        return self


class DictWrapper(dict):
    """A dict whose additions are attachments (see the module docstring).

    Args:
        *args, **kwargs: as for `dict` (nested lists and dicts are wrapped).

    Examples:
        >>> from eagerflow.data_structures import DictWrapper
        >>> table = DictWrapper(a=1)
        >>> table |= {"b": [2]}
        >>> table == {"a": 1, "b": [2]}, type(table["b"]).__name__, table.setdefault("c", 3)
        (True, 'ListWrapper', 3)
    """

    def __init__(self, *args, **kwargs) -> None:
        super().__init__((key, wrap(value)) for key, value in dict(*args, **kwargs).items())

    def __setitem__(self, key, value) -> None:
        value = wrap(value)
        super().__setitem__(key, value)
        trackable.notify_attached(self, value)

    def update(self, *args, **kwargs) -> None:
        """Sets each given item, restoring the values as item assignment does."""
        for key, value in dict(*args, **kwargs).items():
            self[key] = value

    def setdefault(self, key, default=None) -> Any:
        """Returns ``self[key]``, first setting it to `default` (restored as item assignment
        does) if it is absent."""
        if key not in self:
            self[key] = default
        return self[key]

    def __ior__(self, other):  # type: ignore[misc]  # (``|`` stays dict's: a plain dict)
        self.update(other)
        return self


trackable.container_wrappers.update({list: ListWrapper, dict: DictWrapper})
