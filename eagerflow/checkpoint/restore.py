"""Restoring: match saved values to variables by path, now or when they are created.

`restore` opens a file, walks the object graph, checks shapes and dtypes of every match
before assigning anything, assigns the matches in place, and keeps in memory the saved
values whose variables do not exist yet but could still appear (their parent object
exists: an unbuilt layer, an optimizer without slots yet). Those wait in the returned
`CheckpointLoadStatus`, which listens to `Trackable._track_new_variable` /
`_track_new_slot` and assigns each value the moment its variable is created, before its
first use. The status is also the report of what happened.

Example:
    >>> import os, tempfile
    >>> import eagerflow as ef
    >>> path = os.path.join(tempfile.mkdtemp(), "v.h5")
    >>> _ = ef.Checkpoint(v=ef.Variable(3.0)).write(path)
    >>> v = ef.Variable(0.0)
    >>> status = ef.Checkpoint(v=v).read(path)
    >>> print(status)
    CheckpointLoadStatus('v.h5'): 1 matched, 0 pending, 0 unused, 0 missing, 0 mismatched
    >>> float(v)
    3.0
"""

from __future__ import annotations

import os
import threading
import warnings
import weakref
from typing import NamedTuple

import numpy as np

from eagerflow.checkpoint import graph, h5format
from eagerflow.core import errors, trackable, variable

__all__ = ["CheckpointLoadStatus", "Mismatch", "restore", "warn_pending_restores"]

_ATTACHED = "_deferred_restores"
_live: weakref.WeakSet = weakref.WeakSet()  # statuses with values still pending


class Mismatch(NamedTuple):
    """A saved value whose shape or dtype differs from its variable's."""

    path: str
    file_shape: tuple
    file_dtype: np.dtype
    variable_shape: tuple
    variable_dtype: np.dtype

    def describe(self) -> str:
        return (f"{self.path!r}: file has shape {self.file_shape} {self.file_dtype.name}, "
                f"variable has shape {self.variable_shape} {self.variable_dtype.name}")


class _Attachments(list):
    """Keeps pending restores alive as long as the objects they restore into.

    Copies and pickles of a model must not drag the restore along, so both give an
    empty list.
    """

    def __deepcopy__(self, memo):
        return _Attachments()

    def __reduce__(self):
        return _Attachments, ()


def _listing(paths, limit: int = 5) -> str:
    paths = list(paths)
    shown = ", ".join(repr(p) for p in paths[:limit])
    return shown + (f", ... ({len(paths) - limit} more)" if len(paths) > limit else "")


class CheckpointLoadStatus:
    """What a restore did, and the values still waiting for their variables.

    Returned by `Checkpoint.restore` / `read` and `load_weights`. Every list is live:
    `pending` shrinks and `matched` grows as deferred variables are created.

    Attributes:
        save_path: the file restored from (None when nothing was restored).
        matched: paths whose values were assigned.
        pending: paths waiting for a variable to be created (deferred restore).
        unused: paths in the file that nothing in the restored objects can consume.
        missing: paths of existing variables that found no value in the file.
        mismatched: `Mismatch` records skipped because of ``skip_mismatch=True``.

    Example:
        >>> import os, tempfile
        >>> import eagerflow as ef
        >>> path = os.path.join(tempfile.mkdtemp(), "ab.h5")
        >>> _ = ef.Checkpoint(a=ef.Variable(1.0), b=ef.Variable(2.0)).write(path)
        >>> status = ef.Checkpoint(a=ef.Variable(0.0)).read(path)
        >>> status.unused
        ['b']
        >>> status.assert_consumed()  # doctest: +ELLIPSIS
        Traceback (most recent call last):
          ...
        AssertionError: Checkpoint 'ab.h5' was not fully consumed: 1 saved value nothing can...
        >>> status.assert_existing_objects_matched() is status
        True
    """

    def __init__(self, save_path, roots: dict, exclude=(), entries=None, optional=(),
                 skip_mismatch: bool = False):
        self.save_path = None if save_path is None else os.fspath(save_path)
        self._roots = dict(roots)
        self._exclude = tuple(exclude)
        self._entries = dict(entries or {})
        self._optional = frozenset(optional)
        self._skip_mismatch = skip_mismatch
        self._matched: list = []
        self._pending: dict = {}
        self._unused: list = []
        self._mismatched: list = []
        self._graph = None
        self._partial_expected = False
        self._warned = False
        self._lock = threading.RLock()

    # -- the report -------------------------------------------------------------------
    @property
    def matched(self) -> list:
        return list(self._matched)

    @property
    def pending(self) -> list:
        return sorted(self._pending)

    @property
    def unused(self) -> list:
        return list(self._unused)

    @property
    def mismatched(self) -> list:
        return list(self._mismatched)

    @property
    def missing(self) -> list:
        if self.save_path is None:
            return []
        skipped = {m.path for m in self._mismatched}
        current = graph.walk(self._roots, self._exclude).all_variables()
        return [p for p in current
                if p not in self._entries and p not in self._optional and p not in skipped]

    def _name(self) -> str:
        return os.path.basename(self.save_path) if self.save_path else "None"

    def __str__(self) -> str:
        if self.save_path is None:
            return "CheckpointLoadStatus(None): nothing restored, objects keep their values"
        return (f"CheckpointLoadStatus({self._name()!r}): {len(self._matched)} matched, "
                f"{len(self._pending)} pending, {len(self._unused)} unused, "
                f"{len(self.missing)} missing, {len(self._mismatched)} mismatched")

    __repr__ = __str__

    def report(self) -> str:
        """A multi-line report listing every path in every category.

        Returns:
            The report text (first line as `str(status)`).

        Example:
            >>> import os, tempfile
            >>> import eagerflow as ef
            >>> path = os.path.join(tempfile.mkdtemp(), "w.h5")
            >>> _ = ef.Checkpoint(w=ef.Variable(1.0)).write(path)
            >>> print(ef.Checkpoint(w=ef.Variable(0.0)).read(path).report())
            CheckpointLoadStatus('w.h5'): 1 matched, 0 pending, 0 unused, 0 missing, 0 mismatched
              matched (1): w
        """
        lines = [str(self)]
        for title, items in (("matched", self._matched), ("pending", self.pending),
                             ("unused", self._unused), ("missing", self.missing),
                             ("mismatched", [m.describe() for m in self._mismatched])):
            if items:
                lines.append(f"  {title} ({len(items)}): " + ", ".join(items))
        return "\n".join(lines)

    def _problems(self, existing_only: bool) -> list:
        problems = []
        if self._mismatched:
            problems.append(f"{len(self._mismatched)} shape/dtype mismatch(es) skipped: "
                            + "; ".join(m.describe() for m in self._mismatched[:5]))
        missing = self.missing
        if missing:
            problems.append(f"{len(missing)} existing variable(s) found no value in the "
                            f"file: {_listing(missing)}")
        if not existing_only:
            if self._unused:
                noun = "value" if len(self._unused) == 1 else "values"
                problems.append(f"{len(self._unused)} saved {noun} nothing can use: "
                                f"{_listing(self._unused)}")
            if self._pending:
                problems.append(f"{len(self._pending)} saved value(s) still pending (their "
                                f"variables were never created): {_listing(self.pending)}")
        return problems

    def assert_consumed(self):
        """Checks that every saved value was used and every variable got one.

        Returns:
            self.

        Raises:
            AssertionError: listing unused, pending, missing and mismatched paths.
        """
        if self.save_path is None:
            raise AssertionError("No checkpoint was restored (save_path was None).")
        problems = self._problems(existing_only=False)
        if problems:
            raise AssertionError(
                f"Checkpoint {self._name()!r} was not fully consumed: " + "; ".join(problems)
                + ". If loading a subset is intended, use assert_existing_objects_matched() "
                "or expect_partial()."
            )
        return self

    def assert_existing_objects_matched(self):
        """Checks that every variable that exists now got a value of the right shape.

        Saved values nothing uses yet (unused, pending) are allowed.

        Returns:
            self.

        Raises:
            AssertionError: listing missing and mismatched paths.
        """
        if self.save_path is None:
            raise AssertionError("No checkpoint was restored (save_path was None).")
        problems = self._problems(existing_only=True)
        if problems:
            raise AssertionError(
                f"Checkpoint {self._name()!r} did not match the existing objects: "
                + "; ".join(problems) + "."
            )
        return self

    def expect_partial(self):
        """Declares that leaving part of the checkpoint unused is intended.

        Deferred values are still assigned when their variables appear; this only
        silences the warnings about values left pending (`warn_pending_restores`) and about
        variables created later that the file has no value for.

        Returns:
            self.
        """
        self._partial_expected = True
        return self

    # -- deferred restoration -----------------------------------------------------------
    def _start_listening(self) -> None:
        trackable.add_restore_listener(self)
        _live.add(self)
        for obj in _root_trackables(self._roots.values()):
            try:
                attached = obj.__dict__.setdefault(_ATTACHED, _Attachments())
            except AttributeError:  # no __dict__: the status itself keeps the values alive
                continue
            attached.append(self)

    def _stop_listening(self) -> None:
        trackable.remove_restore_listener(self)
        _live.discard(self)
        for obj in _root_trackables(self._roots.values()):
            attached = getattr(obj, "__dict__", {}).get(_ATTACHED)
            if attached is not None and self in attached:
                attached.remove(self)
                if not attached:
                    del obj.__dict__[_ATTACHED]
        self._graph = None

    def _path_of(self, obj):
        path = self._graph.path_of(obj) if self._graph is not None else None
        if path is None:  # created or attached since the last walk: walk again
            self._graph = graph.walk(self._roots, self._exclude)
            path = self._graph.path_of(obj)
        return path

    def variable_created(self, owner, name, new_variable) -> None:
        with self._lock:
            if not self._pending:
                return
            owner_path = self._path_of(owner)
            if owner_path is not None:
                self._resolve(graph.join(owner_path, graph.escape(name)), new_variable)

    def slot_created(self, optimizer, var, slot_name, slot) -> None:
        with self._lock:
            if not self._pending:
                return
            optimizer_path, var_path = self._path_of(optimizer), self._path_of(var)
            if optimizer_path is not None and var_path is not None:
                slots = graph.join(optimizer_path, graph.SLOTS)
                self._resolve(graph.join(graph.join(slots, var_path), graph.escape(slot_name)),
                              slot)

    def _resolve(self, path: str, new_variable) -> None:
        if path not in self._pending:
            # The owner may expose the variable under another name than it announced.
            found = self._path_of(new_variable)
            if found is None or found not in self._pending:
                if path not in self._entries and not self._partial_expected \
                        and not self._warned:
                    self._warned = True
                    warnings.warn(
                        f"Variable {path!r} was created after restoring {self._name()!r}, "
                        f"which has no value for it, while {len(self._pending)} saved "
                        f"value(s) are still waiting ({_listing(self.pending, 3)}): the "
                        "object structure may differ from the checkpoint's. Call "
                        "expect_partial() on the restore status if this is intended.",
                        errors.EagerflowWarning, stacklevel=4,
                    )
                return
            path = found
        value = self._pending[path]
        if value.shape != new_variable.shape or value.dtype != new_variable.dtype:
            mismatch = Mismatch(path, value.shape, value.dtype, new_variable.shape,
                                new_variable.dtype)
            if not self._skip_mismatch:
                raise errors.InvalidArgumentError(
                    f"Cannot restore {mismatch.describe()} from checkpoint "
                    f"{self.save_path!r} (deferred restore of a variable created after "
                    "restore)."
                )
            self._mismatched.append(mismatch)
        else:
            np.copyto(new_variable._writable_buffer(), value)
            self._matched.append(path)
        del self._pending[path]
        self._graph.nodes[path] = new_variable  # keep ids stable while the cache lives
        self._graph._paths.setdefault(id(new_variable), path)
        if not self._pending:
            self._stop_listening()


def _root_trackables(values):
    for value in values:
        if isinstance(value, trackable.Trackable):
            yield value
        elif isinstance(value, dict):
            yield from _root_trackables(value.values())
        elif isinstance(value, (list, tuple)):
            yield from _root_trackables(value)


def _could_appear(key: str, nodes: dict) -> bool:
    """Whether a variable at `key` may still be created: its nearest existing ancestor is
    an object (not a variable), so e.g. building a layer or a first optimizer step can
    create it."""
    if key in nodes:
        return False  # something that is not a restorable variable already lives there
    parts = key.split("/")
    for end in range(len(parts) - 1, 0, -1):
        node = nodes.get("/".join(parts[:end]))
        if node is not None:
            return not isinstance(node, variable.Variable)
    return False


def _read_into(reader, key: str, target) -> None:
    buffer = target._writable_buffer()
    if buffer.flags.c_contiguous:
        reader.read_into(key, buffer)
    else:
        np.copyto(buffer, reader.read(key))


def restore(save_path, roots: dict, exclude=(), optional=(), skip_mismatch=False,
            strict=False):
    """Restores `roots` from the file `save_path`; see the module docstring.

    Args:
        save_path: an existing checkpoint file.
        roots: ``{name: object}`` as for `graph.walk`.
        exclude: objects not to restore into.
        optional: file paths that are neither required nor reported unused.
        skip_mismatch: skip (and list) values whose shape or dtype differs instead of
            raising.
        strict: also raise (before assigning anything) if an existing variable has no
            value in the file, unless `skip_mismatch`.

    Returns:
        A `CheckpointLoadStatus`.

    Raises:
        NotFoundError, InvalidCheckpointError: see `h5format.Reader`.
        InvalidArgumentError: on a shape/dtype mismatch (nothing is assigned then), a
            missing value with `strict`, or if nothing in the file matches anything.
    """
    with h5format.Reader(save_path) as reader:
        status = CheckpointLoadStatus(reader.path, roots, exclude, reader.entries, optional,
                                      skip_mismatch)
        current = graph.walk(roots, exclude)
        targets = current.all_variables()
        ready, mismatches = [], []
        for path, target in targets.items():
            entry = reader.entries.get(path)
            if entry is None:
                continue
            if entry.shape != target.shape or entry.dtype != target.dtype:
                mismatches.append(Mismatch(path, entry.shape, entry.dtype, target.shape,
                                           target.dtype))
            else:
                ready.append((path, target))
        status._mismatched = mismatches
        pending_keys = []
        for key in reader.entries:
            if key in targets or key in status._optional:
                continue
            if _could_appear(key, current.nodes):
                pending_keys.append(key)
            else:
                status._unused.append(key)
        if not ready and not pending_keys and not mismatches:
            raise errors.InvalidArgumentError(
                f"Checkpoint {reader.path!r} matches nothing in the objects being restored. "
                f"Top-level names in the file: {_top_level(reader.entries)}; in the objects: "
                f"{sorted(graph.escape(name) for name in roots)}."
            )
        missing = [p for p in targets if p not in reader.entries and p not in optional]
        if (mismatches or (strict and missing)) and not skip_mismatch:
            problems = [m.describe() for m in mismatches[:10]]
            if strict and missing:
                problems.append(f"{len(missing)} variable(s) have no value in the file: "
                                f"{_listing(missing)}")
            raise errors.InvalidArgumentError(
                f"Cannot restore checkpoint {reader.path!r} (nothing was restored): "
                + "; ".join(problems) + ". Variables and file side by side:\n"
                + _side_by_side(targets, reader.entries)
                + "\nPass skip_mismatch=True to skip what does not fit."
            )
        for path, target in ready:
            _read_into(reader, path, target)
            status._matched.append(path)
        for key in pending_keys:
            status._pending[key] = reader.read(key)
    if status._pending:
        status._graph = current
        status._start_listening()
    return status


def _side_by_side(targets: dict, entries: dict, limit: int = 40) -> str:
    """A table of variable paths and shapes next to file paths and shapes, differences
    marked, so the first divergence is visible at a glance."""
    rows = []
    for path in sorted(set(targets) | set(entries)):
        target, entry = targets.get(path), entries.get(path)
        ours = f"{target.shape} {target.dtype.name}" if target is not None else "-"
        theirs = f"{entry.shape} {entry.dtype.name}" if entry is not None else "-"
        rows.append(("  " if ours == theirs else "! ", path, ours, theirs))
    hidden = 0
    if len(rows) > limit:  # too long: keep the rows that differ
        shown = [r for r in rows if r[0] != "  "]
        hidden, rows = len(rows) - len(shown[:limit]), shown[:limit]
    width = max([len(r[1]) for r in rows] + [4])
    lines = [f"  {'path':<{width}}  {'variable':<24}  file"]
    lines += [f"{m}{p:<{width}}  {o:<24}  {t}" for m, p, o, t in rows]
    if hidden:
        lines.append(f"  ... ({hidden} more rows, mostly matching, not shown)")
    return "\n".join(lines)


def _top_level(entries) -> list:
    return sorted({key.split("/", 1)[0] for key in entries})


def warn_pending_restores() -> None:
    """Warns once per restore about saved values still waiting for their variables.

    Training loops call this after the first step: a value still pending then usually
    means the model's structure differs from the checkpoint's. Restores marked with
    `expect_partial()` are skipped.

    Example:
        >>> from eagerflow.checkpoint import restore
        >>> restore.warn_pending_restores()  # nothing pending: no warning
    """
    for status in list(_live):
        if status._pending and not status._partial_expected and not status._warned:
            status._warned = True
            warnings.warn(
                f"{len(status._pending)} value(s) restored from {status.save_path!r} are still "
                f"waiting for their variables to be created: {_listing(status.pending)}. "
                "Check that the objects match the checkpoint, or call expect_partial() on the "
                "restore status if this is intended.",
                errors.EagerflowWarning, stacklevel=2,
            )
