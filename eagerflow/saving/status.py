"""The restore status: the report of a restore, and the deferred values it still holds.

A `CheckpointLoadStatus` lists what a restore matched, what it could not use and what
is still pending, and listens (through `Trackable._track_new_variable` /
`_track_new_slot`) for the variables its pending values belong to, assigning each one
the moment it is created. It stays alive as long as the objects it restores into (it is
attached to them), and stops listening once nothing is pending.

Examples:
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
from collections.abc import Mapping
from typing import Any, NamedTuple

import numpy as np

from eagerflow.core import errors, trackable, variable
from eagerflow.saving import binding, object_graph

ATTACHED = "_deferred_restores"  # where a status waits, on the objects it restores into
_live: weakref.WeakSet = weakref.WeakSet()  # statuses with values still pending


class Mismatch(NamedTuple):
    """A saved value whose shape or dtype differs from its variable's.

    Examples:
        >>> import numpy as np
        >>> from eagerflow.saving.status import Mismatch
        >>> f32 = np.dtype("float32")
        >>> Mismatch("model/w", (3, 4), f32, (3, 5), f32).describe()
        "'model/w': file has shape (3, 4) float32, variable has shape (3, 5) float32"
    """

    path: str
    file_shape: tuple
    file_dtype: np.dtype
    variable_shape: tuple
    variable_dtype: np.dtype

    def describe(self) -> str:
        """One line naming the path and both shapes and dtypes."""
        return (f"{self.path!r}: file has shape {self.file_shape} {self.file_dtype.name}, "
                f"variable has shape {self.variable_shape} {self.variable_dtype.name}")


class Attachments(list):
    """Keeps pending restores alive as long as the objects they restore into.

    Copies and pickles of a model must not drag the restore along, so both give an
    empty list.
    """

    def __deepcopy__(self, memo):
        return Attachments()

    def __reduce__(self):
        return Attachments, ()


def short_list(paths, limit: int = 5) -> str:
    """A short list of paths for messages.

    Examples:
        >>> from eagerflow.saving.status import short_list
        >>> short_list(["a", "b", "c"], limit=2)
        "'a', 'b', ... (1 more)"
    """
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

    Examples:
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

    def __init__(self, save_path: str | os.PathLike[str], roots: Mapping, exclude: Any = (),
                 entries: Any = None, optional: Any = (), skip_mismatch: bool = False,
                 aliases: dict | None = None) -> None:
        self.save_path = None if save_path is None else os.fspath(save_path)
        # A live mapping (a Checkpoint's roots) stays live: objects attached later are found.
        self._roots = roots if isinstance(roots, Mapping) and not isinstance(roots, dict) \
            else dict(roots)
        self._exclude = tuple(exclude)
        self._entries = dict(entries or {})
        self._file = binding.FileGraph(self._entries, aliases)
        self._optional = frozenset(optional)
        self._skip_mismatch = skip_mismatch
        self._matched: list = []
        self._pending: dict = {}
        self._unused: list = []
        self._mismatched: list = []
        self._graph: Any = None  # the live walk the pending values were last bound in
        self._bound: Any = None  # its `binding.Binding` to the file
        self._partial_expected = False
        self._warned = False
        self._lock = threading.RLock()

    # -- the report -------------------------------------------------------------------
    @property
    def matched(self) -> list:
        """Paths whose saved values were assigned, in order."""
        return list(self._matched)

    @property
    def pending(self) -> list:
        """Paths waiting for their variable to be created (sorted)."""
        return sorted(self._pending)

    @property
    def unused(self) -> list:
        """Paths in the file nothing in the restored objects can consume."""
        return list(self._unused)

    @property
    def mismatched(self) -> list:
        """`Mismatch` records of values skipped with ``skip_mismatch=True``."""
        return list(self._mismatched)

    @property
    def missing(self) -> list:
        """Paths of variables that exist now and found no value in the file (live)."""
        if self.save_path is None:
            return []
        current = object_graph.walk(self._roots, self._exclude)
        found = {id(v) for v in binding.bind(current, self._file).matches(current,
                                                                           self._file).values()}
        return [p for p, v in current.all_variables().items()
                if id(v) not in found and p not in self._optional]

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

        Examples:
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
                            f"file: {short_list(missing)}")
        if not existing_only:
            if self._unused:
                noun = "value" if len(self._unused) == 1 else "values"
                problems.append(f"{len(self._unused)} saved {noun} nothing can use: "
                                f"{short_list(self._unused)}")
            if self._pending:
                problems.append(f"{len(self._pending)} saved value(s) still pending (their "
                                f"variables were never created): {short_list(self.pending)}")
        return problems

    def assert_consumed(self) -> CheckpointLoadStatus:
        """Checks that every saved value was used and every variable got one.

        Returns:
            self.

        Raises:
            AssertionError: listing unused, pending, missing and mismatched paths.

        Examples:
            >>> import os, tempfile
            >>> import eagerflow as ef
            >>> path = ef.Checkpoint(v=ef.Variable(1.0)).write(
            ...     os.path.join(tempfile.mkdtemp(), "v.h5"))
            >>> ef.Checkpoint(v=ef.Variable(0.0)).read(path).assert_consumed().matched
            ['v']
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

    def assert_existing_objects_matched(self) -> CheckpointLoadStatus:
        """Checks that every variable that exists now got a value of the right shape.

        Saved values nothing uses yet (unused, pending) are allowed.

        Returns:
            self.

        Raises:
            AssertionError: listing missing and mismatched paths.

        Examples:
            >>> import os, tempfile
            >>> import eagerflow as ef
            >>> path = ef.Checkpoint(v=ef.Variable(1.0)).write(
            ...     os.path.join(tempfile.mkdtemp(), "v.h5"))
            >>> status = ef.Checkpoint(v=ef.Variable(0.0), w=ef.Variable(0.0)).read(path)
            >>> status.assert_existing_objects_matched()  # doctest: +ELLIPSIS
            Traceback (most recent call last):
              ...
            AssertionError: Checkpoint 'v.h5' did not match the existing objects: 1 existing...
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

    def expect_partial(self) -> CheckpointLoadStatus:
        """Declares that leaving part of the checkpoint unused is intended.

        Deferred values are still assigned when their variables appear; this only
        silences the warnings about values left pending (`warn_pending_restores`) and about
        variables created later that the file has no value for.

        Returns:
            self.

        Examples:
            >>> import os, tempfile
            >>> import eagerflow as ef
            >>> path = ef.Checkpoint(a=ef.Variable(1.0), b=ef.Variable(2.0)).write(
            ...     os.path.join(tempfile.mkdtemp(), "ab.h5"))
            >>> status = ef.Checkpoint(a=ef.Variable(0.0)).read(path).expect_partial()
            >>> status.unused
            ['b']
        """
        self._partial_expected = True
        return self

    # -- deferred restoration -----------------------------------------------------------
    def _record(self, matched, pending, unused, mismatched, walked, bound) -> None:
        """Stores what `restore.restore` did; listens for creations if values are pending."""
        self._matched, self._pending = list(matched), dict(pending)
        self._unused, self._mismatched = list(unused), list(mismatched)
        if self._pending:
            self._graph, self._bound = walked, bound
            self._start_listening()

    def _start_listening(self) -> None:
        trackable.add_restore_listener(self)
        _live.add(self)
        for obj in _root_trackables(self._roots.values()):
            try:
                attached = obj.__dict__.setdefault(ATTACHED, Attachments())
            except AttributeError:  # no __dict__: the status itself keeps the values alive
                continue
            attached.append(self)

    def _stop_listening(self) -> None:
        trackable.remove_restore_listener(self)
        _live.discard(self)
        for obj in _root_trackables(self._roots.values()):
            attached = getattr(obj, "__dict__", {}).get(ATTACHED)
            if attached is not None and self in attached:
                attached.remove(self)
                if not attached:
                    del obj.__dict__[ATTACHED]
        self._graph = self._bound = None

    def _restores_into(self, objects: list) -> bool:
        """Whether this restore's objects include any of `objects` (or hold them)."""
        with self._lock:
            graph = self._graph
            return graph is not None and any(graph.path_of(obj) is not None
                                             for obj in objects)

    def _translate(self, key: str, walked):
        """Where pending `key` goes in another walk `walked` (another checkpoint's naming of
        the same objects), or None if its parent object is not part of that walk."""
        parts = key.split("/")
        for end in range(len(parts) - 1, 0, -1):
            owner = self._bound.objects.get("/".join(parts[:end]))
            if owner is None:
                continue
            new_prefix = None if isinstance(owner, variable.Variable) else walked.path_of(owner)
            if new_prefix is None:
                return None
            rest = parts[end:]
            if rest[0] == object_graph.SLOTS and len(rest) >= 3 and (
                    object_graph.is_slot_holder(owner)):
                var_key = "/".join(rest[1:-1])  # the slot's variable, in our naming
                var = self._bound.objects.get(var_key)
                new_var = (walked.path_of(var) if isinstance(var, variable.Variable)
                           else self._translate(var_key, walked))
                if new_var is None:
                    return None
                rest = [object_graph.SLOTS, new_var, rest[-1]]
            return "/".join([new_prefix, *rest])
        return None

    def _rebind(self) -> None:
        self._graph = object_graph.walk(self._roots, self._exclude)
        self._bound = binding.bind(self._graph, self._file)

    def _nodes_of(self, obj) -> list:
        """The file nodes `obj` stands for (walking the objects again if it is new); an
        object the file knows nothing of stands for its own path (so the warning about a
        variable the file has no value for names it)."""
        path = self._graph.path_of(obj) if self._graph is not None else None
        if path is None:  # created or attached since the last walk: walk again
            self._rebind()
            path = self._graph.path_of(obj)
        return [] if path is None else self._bound.files_of.get(path, [path])

    def variable_created(self, owner: Any, name: str, new_variable: Any) -> None:
        """Hook (via `Trackable._track_new_variable`): assign a pending value if any."""
        with self._lock:
            if not self._pending:
                return
            keys = [self._file.step(node, object_graph.escape(name))
                    for node in self._nodes_of(owner)]
            if keys:
                self._resolve(keys, new_variable)

    def object_attached(self, owner: Any, value: Any) -> None:
        """Hook (via `trackable.notify_attached`): an object holding variables was attached
        to the restored graph; assign the pending values it now makes reachable, as
        TensorFlow restores on attachment."""
        with self._lock:
            if not self._pending:
                return
            self._rebind()
            for path in list(self._pending):
                found = self._bound.objects.get(path)
                if isinstance(found, variable.Variable) and path in self._pending:
                    self._resolve([path], found)
                if not self._pending:
                    return

    def slot_created(self, optimizer: Any, var: Any, slot_name: Any, slot: Any) -> None:
        """Hook (via `Trackable._track_new_slot`): assign a pending slot value if any."""
        with self._lock:
            if not self._pending:
                return
            keys = ["/".join([opt_node, object_graph.SLOTS, var_node,
                              object_graph.escape(slot_name)])
                    for opt_node in self._nodes_of(optimizer) for var_node in self._nodes_of(var)]
            if keys:
                self._resolve(keys, slot)

    def _resolve(self, keys: list, new_variable) -> None:
        """Assigns `new_variable` the pending value of the first of `keys` (the saved paths
        it was announced at) that is pending, or of a file node it stands for."""
        path = next((key for key in keys if key in self._pending), keys[0])
        if path not in self._pending:
            # The owner may expose the variable under another name than it announced.
            found = next((node for node in self._nodes_of(new_variable)
                          if node in self._pending), None)
            if found is None:
                if path not in self._entries and not self._partial_expected \
                        and not self._warned:
                    self._warned = True
                    warnings.warn(
                        f"Variable {path!r} was created after restoring {self._name()!r}, "
                        f"which has no value for it, while {len(self._pending)} saved "
                        f"value(s) are still waiting ({short_list(self.pending, 3)}): the "
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
            new_variable.assign(value)
            self._matched.append(path)
        del self._pending[path]
        self._bound.objects[path] = new_variable  # keep ids stable while the cache lives
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


def warn_pending_restores(objects: Any = None) -> None:
    """Warns once per restore about saved values still waiting for their variables.

    Training loops call this after their first step (`fit` does), once the optimizer has
    built its slots: a value still pending then (an optimizer slot of another optimizer,
    a layer the model no longer has) will never find its variable, and usually means the
    objects differ from the checkpoint's, as TensorFlow's "Unresolved object in
    checkpoint" warnings say. Restores marked with `expect_partial()` are skipped.

    Args:
        objects: the objects the loop trains (e.g. ``[model, optimizer]``): only restores
            into them, or into objects holding them, are checked. None checks every
            restore still pending (also those of models not trained yet).

    Examples:
        >>> import eagerflow as ef
        >>> ef.saving.warn_pending_restores()  # nothing pending: no warning
    """
    wanted = None if objects is None else [o for o in _root_trackables([objects])]
    for pending in list(_live):
        if pending._pending and not pending._partial_expected and not pending._warned:
            if wanted is not None and not pending._restores_into(wanted):
                continue
            pending._warned = True
            warnings.warn(
                f"{len(pending._pending)} value(s) restored from {pending.save_path!r} are still "
                f"waiting for their variables to be created: {short_list(pending.pending)}. "
                "Check that the objects match the checkpoint, or call expect_partial() on the "
                "restore status if this is intended.",
                errors.EagerflowWarning, stacklevel=2,
            )


def pending_values(walked) -> dict:
    """Saved values still waiting in live restores, keyed by their paths in `walked`.

    A checkpoint saved while a restore still waits for variables (a model saved before its
    first call) must not lose those values: `collect_arrays` writes them at the paths the
    variables will have, so the new file is as complete as the one restored from.

    Args:
        walked: the `object_graph.ObjectGraph` of the objects being saved.

    Returns:
        ``{path in walked: ndarray}``.

    Examples:
        >>> import eagerflow as ef
        >>> from eagerflow.saving import binding, object_graph, status
        >>> status.pending_values(object_graph.walk({"v": ef.Variable(1.0)}))  # nothing pending
        {}
    """
    carried: dict[Any, Any] = {}
    for restoring in list(_live):
        with restoring._lock:
            if not restoring._pending or restoring._graph is None:
                continue
            for key, value in restoring._pending.items():
                new_key = restoring._translate(key, walked)
                if new_key is not None:
                    carried.setdefault(new_key, value)
    return carried
