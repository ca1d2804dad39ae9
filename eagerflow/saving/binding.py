"""Binding a file's object graph to live objects, through every path to each object.

A checkpoint names each object once, by its canonical (first) path, and records every
further path to it as an alias (``b -> a`` after ``ckpt.b = ckpt.a``; see
`object_graph.walk`). Both sides are graphs: the file's nodes are its canonical paths, its
edges the path components plus the aliases; the live objects' likewise. `bind` walks the
two together from their roots, as TensorFlow matches a checkpoint's object graph to
Python objects: following the same child name on both sides, each live object meets the
file nodes it stands for, however either side reaches it. So a file saved with ``a`` and
``b`` naming one module restores into an object that has only ``b``, and a file with two
modules restores into one live module reached as both (TensorFlow's
``testObjectsCombined``). When two live objects stand for one file node, the first reached
(breadth-first) gets its values, as in TensorFlow; the other finds none.

The alias record is stored as the sealed metadata blob `ALIASES` (JSON ``{alias:
canonical}``) and read as hostile input by `decode_aliases`. Files without it (written
before aliases were recorded) bind exactly by path.

Examples:
    >>> import eagerflow as ef
    >>> from eagerflow.saving import binding, object_graph
    >>> file = binding.FileGraph(["a/v"], {"b": "a"})
    >>> live = object_graph.walk({"b": {"v": ef.Variable(0.0)}})
    >>> binding.bind(live, file).files_of["b/v"]
    ['a/v']
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Iterable

from eagerflow.core import variable
from eagerflow.saving import object_graph

ALIASES = "object_aliases"  # the sealed metadata blob holding the alias record
MAX_ALIASES = 1_000_000  # a file claiming more is refused before any of it is used
MAX_PATH = 65_536  # characters of one alias path


class FileGraph:
    """A file's object graph: its saved keys (canonical paths) and alias record.

    Args:
        keys: the saved value paths.
        aliases: ``{alias path: canonical path}`` (already validated).

    Examples:
        >>> from eagerflow.saving import binding
        >>> graph = binding.FileGraph(["a/v"], {"b": "a"})
        >>> graph.step("", "b"), graph.locate("b/v")
        ('a', 'a/v')
    """

    def __init__(self, keys: Iterable[str], aliases: dict | None = None) -> None:
        self.keys = set(keys)
        self.aliases = dict(aliases or {})
        self.nodes = _prefixes(self.keys)

    def step(self, node: str, name: str) -> str:
        """The file node reached from `node` through the child named `name`."""
        path = object_graph.join(node, name)
        return self.aliases.get(path, path)

    def locate(self, path: str) -> str:
        """The file node a path of child names reaches (each alias followed once)."""
        node = ""
        for name in path.split("/"):
            node = self.step(node, name)
        return node


class Binding:
    """The result of `bind`.

    Attributes:
        files_of: ``{live canonical path: [file nodes]}``: every file node the live object
            at that path stands for, in the order they were met.
        objects: ``{file node: live object}``: the first live object met at each node.
    """

    def __init__(self) -> None:
        self.files_of: dict = {}
        self.objects: dict = {}

    def matches(self, live, file: FileGraph) -> dict:
        """``{saved key: live variable}`` for every saved value that has its variable,
        slots included (a slot's key is ``<optimizer node>/slots/<variable's key>/<name>``).
        """
        found = {key: obj for key, obj in self.objects.items()
                 if key in file.keys and isinstance(obj, variable.Variable)}
        for slot_path, (opt_path, var_path, slot_name) in live.slot_owners.items():
            for opt_node in self.files_of.get(opt_path, ()):
                for var_node in self.files_of.get(var_path, ()):
                    key = "/".join([opt_node, object_graph.SLOTS, var_node, slot_name])
                    if key in file.keys:
                        found.setdefault(key, live.slots[slot_path])
        return found


def bind(live, file: FileGraph) -> Binding:
    """Walks `live` (an `object_graph.ObjectGraph`) and `file` together from their roots.

    Returns:
        A `Binding`.

    Examples:
        >>> import eagerflow as ef
        >>> from eagerflow.saving import binding, object_graph
        >>> module = {"v": ef.Variable(0.0)}
        >>> live = object_graph.walk({"one": module, "two": module})
        >>> file = binding.FileGraph(["one/v", "two/w"])
        >>> binding.bind(live, file).files_of["one"]
        ['one', 'two']
    """
    children: dict = {}
    for path in live.nodes:
        parent, _, name = path.rpartition("/")
        children.setdefault(parent, []).append((name, path))
    for path, target in live.aliases.items():
        parent, _, name = path.rpartition("/")
        children.setdefault(parent, []).append((name, target))
    result = Binding()
    seen = {("", "")}
    queue = deque([("", "")])
    while queue:
        live_path, file_node = queue.popleft()
        for name, live_child in children.get(live_path, ()):
            file_child = file.step(file_node, name)
            if file_child not in file.nodes or (live_child, file_child) in seen:
                continue
            seen.add((live_child, file_child))
            result.files_of.setdefault(live_child, []).append(file_child)
            result.objects.setdefault(file_child, live.nodes[live_child])
            queue.append((live_child, file_child))
    return result


def _prefixes(keys: Iterable[str]) -> set:
    """Every path that is a key or a parent of one."""
    found = set()
    for key in keys:
        while key and key not in found:
            found.add(key)
            key = key.rpartition("/")[0]
    return found


def encode_aliases(aliases: dict, keys: Iterable[str]) -> bytes | None:
    """The alias record to store beside `keys`: the aliases whose target holds saved values
    (a path to an object with nothing saved restores nothing), or None if none.

    Examples:
        >>> from eagerflow.saving import binding
        >>> binding.encode_aliases({"b": "a", "e": "empty"}, ["a/v"])
        b'{"b":"a"}'
    """
    nodes = _prefixes(keys)
    kept = {alias: target for alias, target in aliases.items() if target in nodes}
    if not kept:
        return None
    return json.dumps(kept, sort_keys=True, separators=(",", ":")).encode("utf-8")


def decode_aliases(blob: bytes, keys: Iterable[str]) -> dict:
    """Reads and validates an alias record as hostile input.

    Every alias must be a path of escaped components (no empty, ``.`` or ``..`` component),
    not hold or lead to saved values itself, hang from a canonical parent, and name as
    target a node holding saved values that is canonical (no alias leads to another: so
    following aliases always ends) and not its own ancestor (no cycle).

    Args:
        blob: the record's bytes.
        keys: the file's saved value paths.

    Returns:
        ``{alias path: canonical path}``.

    Raises:
        ValueError: naming the first alias that breaks a rule, and the rule.

    Examples:
        >>> from eagerflow.saving import binding
        >>> binding.decode_aliases(b'{"b": "a"}', ["a/v"])
        {'b': 'a'}
        >>> binding.decode_aliases(b'{"b": "c"}', ["a/v"])  # doctest: +ELLIPSIS
        Traceback (most recent call last):
          ...
        ValueError: alias 'b' -> 'c': the target holds no saved values (an alias names a...
    """
    try:
        record = json.loads(blob.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as e:
        raise ValueError(f"the alias record is not JSON ({e})") from None
    if not isinstance(record, dict):
        raise ValueError(f"the alias record must be a JSON object; got {type(record).__name__}")
    if len(record) > MAX_ALIASES:
        raise ValueError(f"the alias record holds {len(record)} aliases (at most "
                         f"{MAX_ALIASES} are read)")
    keys = set(keys)
    nodes = _prefixes(keys)
    for alias, target in record.items():
        _check_alias(alias, target, record, keys, nodes)
    return record


def _check_alias(alias, target, record: dict, keys: set, nodes: set) -> None:
    where = f"alias {alias!r} -> {target!r}"
    for path in (alias, target):
        if not isinstance(path, str) or not path or len(path) > MAX_PATH:
            raise ValueError(f"{where}: paths must be non-empty strings of at most "
                             f"{MAX_PATH} characters")
        if any(part in ("", ".", "..") or "\x00" in part for part in path.split("/")):
            raise ValueError(f"{where}: a path component is empty, '.', '..' or holds NUL "
                             "(paths never leave the object graph)")
    if alias in nodes:
        raise ValueError(f"{where}: the alias is itself a saved path")
    if target not in nodes:  # (so it is no alias either: aliases never chain or loop)
        raise ValueError(f"{where}: the target holds no saved values (an alias names a "
                         "saved object, never another alias)")
    if alias.startswith(target + "/"):
        raise ValueError(f"{where}: the target is an ancestor of the alias (a cycle)")
    parent = alias.rpartition("/")[0]
    while parent:
        if parent in record:
            raise ValueError(f"{where}: its parent passes through alias {parent!r} (aliases "
                             "hang from saved objects' paths, so they never chain or loop)")
        parent = parent.rpartition("/")[0]
