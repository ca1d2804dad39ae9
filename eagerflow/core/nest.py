"""Nested structures of lists, tuples, namedtuples and dicts (like `tf.nest`).

Dicts are traversed in sorted key order (insertion order when keys do not sort), so a
structure and its flattened form always line up the same way.

Examples:
    >>> from eagerflow.core import nest
    >>> nest.flatten({"b": [1, 2], "a": (3,)})
    [3, 1, 2]
    >>> nest.pack_sequence_as({"b": [0, 0], "a": (0,)}, [30, 10, 20])
    {'b': [10, 20], 'a': (30,)}
"""

from __future__ import annotations


def is_nested(value) -> bool:
    """Whether `value` is a list, tuple or dict (and so not a leaf)."""
    return isinstance(value, (list, tuple, dict))


def sorted_keys(mapping: dict) -> list:
    """The keys of `mapping` in the order `flatten` visits them: sorted, or insertion order
    when they do not sort. Code that walks a dict alongside its flattened form uses it.

    Examples:
        >>> from eagerflow.core import nest
        >>> nest.sorted_keys({"b": 1, "a": 2}), nest.sorted_keys({1: 0, "a": 0})
        (['a', 'b'], [1, 'a'])
    """
    try:
        return sorted(mapping)
    except TypeError:
        return list(mapping)


def flatten(structure) -> list:
    """Returns the leaves of `structure` in a deterministic order."""
    if not is_nested(structure):
        return [structure]
    leaves: list = []
    _flatten_into(structure, leaves)
    return leaves


def _flatten_into(structure, leaves: list) -> None:
    if isinstance(structure, dict):
        for key in sorted_keys(structure):
            _flatten_into(structure[key], leaves)
    elif isinstance(structure, (list, tuple)):
        for item in structure:
            _flatten_into(item, leaves)
    else:
        leaves.append(structure)


def pack_sequence_as(structure, flat):
    """Builds a structure shaped like `structure` from the leaves in `flat`."""
    flat = list(flat)
    result, used = _pack(structure, flat, 0)
    if used != len(flat):
        raise ValueError(
            f"Structure has {used} leaves but {len(flat)} values were given to pack into it"
        )
    return result


def _pack(structure, flat, index):
    if isinstance(structure, dict):
        packed = {}
        for key in sorted_keys(structure):
            packed[key], index = _pack(structure[key], flat, index)
        return {key: packed[key] for key in structure}, index
    if isinstance(structure, (list, tuple)):
        items = []
        for item in structure:
            value, index = _pack(item, flat, index)
            items.append(value)
        if isinstance(structure, list):
            return items, index
        if hasattr(structure, "_fields"):  # namedtuple
            return type(structure)(*items), index
        return type(structure)(items) if type(structure) is not tuple else tuple(items), index
    if index >= len(flat):
        raise ValueError(f"Not enough values to pack: structure needs more than {len(flat)}")
    return flat[index], index + 1


def map_structure(fn, *structures):
    """Applies `fn` to corresponding leaves of `structures`, keeping the first's shape."""
    flats = [flatten(s) for s in structures]
    lengths = {len(f) for f in flats}
    if len(lengths) > 1:
        raise ValueError(f"Structures have different numbers of leaves: {sorted(lengths)}")
    return pack_sequence_as(structures[0], [fn(*leaves) for leaves in zip(*flats, strict=True)])
