"""`Checkpoint`: save and restore named objects (models, optimizers, step counters).

Examples:
    >>> import os, tempfile
    >>> import eagerflow as ef
    >>> directory = tempfile.mkdtemp()
    >>> step = ef.Variable(0, trainable=False)
    >>> ckpt = ef.Checkpoint(step=step)
    >>> step.assign_add(10)
    <ef.Variable 'Variable' shape=() dtype=int32, numpy=10>
    >>> path = ckpt.save(os.path.join(directory, "ckpt"))
    >>> os.path.basename(path)
    'ckpt-1.h5'
    >>> _ = step.assign(0)
    >>> ckpt.restore(ef.saving.latest_checkpoint(directory)).assert_consumed()
    CheckpointLoadStatus('ckpt-1.h5'): 2 matched, 0 pending, 0 unused, 0 missing, 0 mismatched
    >>> int(step)
    10
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np

from eagerflow import data_structures
from eagerflow.core import dtypes, errors, trackable, variable
from eagerflow.saving import binding, h5format, index, load_budget, object_graph, restore, status

SAVE_COUNTER = "save_counter"
_NUMERIC_KINDS = frozenset("biufc")
_RESERVED = frozenset({SAVE_COUNTER, "_objects", "_save_counter", "_root"})


def collect(roots: dict, exclude=()) -> tuple[dict, dict]:
    """``(arrays, metadata)`` to write a checkpoint of `roots`: `collect_arrays`'s values
    and, when an object is reachable by more than one path, the alias record
    (`binding.ALIASES`) naming every further path to it.

    Examples:
        >>> import eagerflow as ef
        >>> from eagerflow.saving import checkpoint
        >>> module = ef.Module()
        >>> module.v = ef.Variable(1.0)
        >>> arrays, metadata = checkpoint.collect({"a": module, "b": module})
        >>> list(arrays), metadata
        (['a/v'], {'object_aliases': b'{"b":"a"}'})
    """
    walked = object_graph.walk(roots, exclude)
    arrays = _arrays_of(walked)
    record = binding.encode_aliases(walked.aliases, arrays)
    return arrays, ({} if record is None else {binding.ALIASES: record})


def collect_arrays(roots: dict, exclude=()) -> dict:
    """Returns ``{path: ndarray}`` of every variable under `roots` (no copies).

    The values are one consistent snapshot even while other threads train: they are taken
    at an instant when no other thread is inside an update group (an optimizer step, a
    traced function's writes, an `ef.train.atomic_update()` block) or a single write, and
    never change afterwards (see `variable.snapshot`).

    Values a restore still holds for variables under `roots` that do not exist yet are
    included at their future paths (see `status.pending_values`), so saving an unbuilt,
    restored model loses nothing.

    Raises:
        InvalidArgumentError: if a variable holds data that is neither numbers nor text.

    Examples:
        >>> import eagerflow as ef
        >>> from eagerflow.saving import checkpoint
        >>> checkpoint.collect_arrays({"w": [ef.Variable([1.0])]})
        {'w/0': array([1.], dtype=float32)}
    """
    return _arrays_of(object_graph.walk(roots, exclude))


def _arrays_of(walked) -> dict:
    if walked.orphan_slots:
        names = sorted(f"{opt}/{getattr(v, 'name', v)}:{slot}"
                       for opt, v, slot in walked.orphan_slots)
        errors.warn_once(
            f"ckpt-orphan-slots-{names}",
            f"{len(names)} optimizer slot(s) belong to variables that are not part of this "
            f"checkpoint and are not saved: {names[:5]}. Add the model to the checkpoint to "
            "save them.",
        )
    variables = walked.all_variables()
    arrays = dict(zip(variables, variable.snapshot(list(variables.values())), strict=True))
    for path, array in arrays.items():
        var = variables[path]
        if array.dtype.kind not in _NUMERIC_KINDS and var.dtype != dtypes.string:
            raise errors.InvalidArgumentError(
                f"Variable {var.name!r} at checkpoint path {path!r} has dtype "
                f"{dtypes.public(array.dtype).name}; checkpoints store numbers and text (ef.string) only."
            )
    for path, array in status.pending_values(walked).items():
        arrays.setdefault(path, array)
    return arrays


def resolve_path(save_path) -> str:
    """Turns what a user passes to restore into an existing checkpoint file.

    A directory means its latest checkpoint; a path without ``.h5`` also finds
    ``path.h5``.

    Raises:
        NotFoundError: naming the path and what the directory holds.

    Examples:
        >>> import os, tempfile
        >>> import eagerflow as ef
        >>> from eagerflow.saving import checkpoint
        >>> path = ef.Checkpoint(v=ef.Variable(1.0)).write(
        ...     os.path.join(tempfile.mkdtemp(), "v.h5"))
        >>> checkpoint.resolve_path(path[:-3]) == path
        True
    """
    path = os.fspath(save_path)
    if os.path.isdir(path):
        latest = index.latest_checkpoint(path)
        if latest is None:
            raise errors.NotFoundError(
                f"No checkpoint found in directory {path!r} (no {index.INDEX_NAME} naming an "
                "existing checkpoint file)."
            )
        return latest
    if os.path.exists(path) and not os.path.isdir(path):  # (FIFOs too: the reader refuses them)
        return path
    if os.path.isfile(path + ".h5"):
        return path + ".h5"
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        hint = f"the directory {directory!r} does not exist"
    else:
        found = sorted(n for n in os.listdir(directory) if n.endswith(".h5"))
        hint = (f"checkpoint files in {directory!r}: {found[:8]}" if found
                else f"{directory!r} holds no .h5 files")
    raise errors.NotFoundError(f"Checkpoint file {path!r} does not exist ({hint}).")


class _LiveRoots(Mapping):
    """A Checkpoint's roots as they are now, not as they were when it was restored: a
    deferred restore finds objects attached to the Checkpoint after `restore`."""

    def __init__(self, checkpoint: Checkpoint) -> None:
        self._checkpoint = checkpoint

    def __getitem__(self, key: str) -> Any:
        return self._checkpoint._roots()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._checkpoint._roots())

    def __len__(self) -> int:
        return len(self._checkpoint._roots())


class Checkpoint(trackable.Trackable):
    """Groups objects to save and restore together; each keeps its variables by path.

    ``Checkpoint(model=model, optimizer=opt, step=step)`` saves every variable reachable
    from those objects at ``model/...``, ``optimizer/...`` and ``step``. Restoring matches
    by the same paths, including variables created after the restore (deferred: an
    unbuilt model gets its weights when it builds, an optimizer its slots on its first
    step).

    Args:
        root: an object whose children are saved as the Checkpoint's own, at the top level
            (TensorFlow's ``Checkpoint(root=module)``: ``module.v`` is saved as ``v``);
            ``ckpt.root`` returns it.
        **named_objects: Trackables (layers, models, optimizers, metrics, other
            Checkpoints), Variables, or lists/dicts/tuples of them. The objects are also
            available as attributes (``ckpt.model``). Objects assigned as attributes
            later (``ckpt.extra = v``, also ``ckpt._private = v``) are saved too, under
            the attribute name, as in TensorFlow.

    Raises:
        InvalidArgumentError: if an object holds no trackable state, or a name is one of
            the Checkpoint's own attributes.

    Examples:
        >>> import os, tempfile
        >>> import eagerflow as ef
        >>> weights = {"w": ef.Variable([1.0, 2.0]), "b": ef.Variable(0.5)}
        >>> path = ef.Checkpoint(params=weights).write(os.path.join(tempfile.mkdtemp(), "p.h5"))
        >>> fresh = {"w": ef.Variable([0.0, 0.0]), "b": ef.Variable(0.0)}
        >>> _ = ef.Checkpoint(params=fresh).read(path).assert_consumed()
        >>> fresh["w"].numpy()
        array([1., 2.], dtype=float32)
    """

    def __init__(self, root: Any = None, **named_objects: Any) -> None:
        if root is not None and not isinstance(root, trackable.Trackable):
            raise errors.InvalidArgumentError(
                f"Checkpoint(root=...) expects a Trackable (a module, layer, model, ...) whose "
                f"children become the checkpoint's; got {type(root).__name__}")
        object.__setattr__(self, "_root", root)
        for name, obj in named_objects.items():
            if name in _RESERVED or hasattr(type(self), name):
                raise errors.InvalidArgumentError(
                    f"Checkpoint({name}=...): {name!r} is an attribute of Checkpoint itself; "
                    "choose another name."
                )
            if not trackable.is_trackable_value(obj):
                raise errors.InvalidArgumentError(
                    f"Checkpoint({name}=...) expects a Trackable (layer, model, optimizer, "
                    f"metric), a Variable, or a list/dict of them; got {type(obj).__name__}, "
                    "which holds no variables."
                )
        object.__setattr__(self, "_objects", {})
        object.__setattr__(self, "_save_counter", variable.Variable(
            np.int64(0), trainable=False, name=SAVE_COUNTER))
        for name, obj in named_objects.items():
            setattr(self, name, obj)

    _objects: dict[str, Any]
    _save_counter: variable.Variable
    _root: Any

    def __setattr__(self, name, value):
        # Objects assigned later (``ckpt.listed = [layer, ...]``) are saved and restored
        # like those given to the constructor, underscored names included (``ckpt._step =
        # v`` is saved as ``_step``): TensorFlow's Checkpoint tracks every attribute the
        # same way, and so do our Layers and Modules.
        if name in _RESERVED or hasattr(type(self), name):
            raise errors.InvalidArgumentError(
                f"Checkpoint.{name}: {name!r} is an attribute of Checkpoint itself; "
                "choose another name.")
        value = data_structures.wrap(value)  # (before `_objects` keeps it: one container)
        # A tracked container is kept even while empty: what is added to it later is saved,
        # and restored at once (TensorFlow's ``ckpt.listed = []``, then ``append``).
        if trackable.is_trackable_value(value) or isinstance(
                value, (data_structures.ListWrapper, data_structures.DictWrapper)):
            self._objects[name] = value
        else:
            self._objects.pop(name, None)
        trackable.Trackable.__setattr__(self, name, value)  # (restores on attachment)

    def __delattr__(self, name):
        self._objects.pop(name, None)
        object.__delattr__(self, name)

    @property
    def root(self) -> Any:
        """The `root` object given to the constructor, else the Checkpoint itself."""
        return self if self._root is None else self._root

    def _trackable_children(self) -> dict:
        # Only the root Checkpoint's counter is saved: a nested one contributes its objects.
        children = {} if self._root is None else dict(self._root._trackable_children())
        return {**children, **self._objects}

    def _roots(self) -> dict:
        """What `save`/`restore` of this Checkpoint walk: its objects (the root's children
        first) and its counter."""
        return {**self._trackable_children(), SAVE_COUNTER: self._save_counter}

    @property
    def save_counter(self) -> Any:
        """An int64 Variable counting `save` calls; saved and restored with the objects.

        Examples:
            >>> import os, tempfile
            >>> import eagerflow as ef
            >>> ckpt = ef.Checkpoint(v=ef.Variable(1.0))
            >>> _ = ckpt.save(os.path.join(tempfile.mkdtemp(), "ckpt"))
            >>> int(ckpt.save_counter)
            1
        """
        return self._save_counter

    # -- saving ---------------------------------------------------------------------------
    def write(self, file_path: Any) -> str:
        """Writes the objects to exactly `file_path`, without the save counter or index.

        Args:
            file_path: the file to write (missing directories are created).

        Returns:
            The path written.

        Examples:
            >>> import os, tempfile
            >>> import eagerflow as ef
            >>> path = os.path.join(tempfile.mkdtemp(), "exact.h5")
            >>> ef.Checkpoint(v=ef.Variable(1.0)).write(path) == path
            True
        """
        arrays, metadata = collect(self._objects)
        return h5format.write(file_path, arrays, kind="checkpoint", metadata=metadata)

    def _save_numbered(self, file_prefix, checkpoint_number=None) -> str:
        self._save_counter.assign_add(1)
        try:
            number = int(self._save_counter if checkpoint_number is None
                         else checkpoint_number)
            path = f"{os.fspath(file_prefix)}-{number}.h5"
            arrays, metadata = collect(self._roots())
            h5format.write(path, arrays, kind="checkpoint", metadata=metadata)
        except BaseException:
            self._save_counter.assign_sub(1)  # a failed save must not skip a number
            raise
        return path

    def save(self, file_prefix: str | os.PathLike[str]) -> str:
        """Saves to ``<file_prefix>-<N>.h5`` (N = the incremented save counter).

        The file is written atomically (a crash leaves the previous checkpoint intact), then
        recorded as the directory's latest in its index (see `latest_checkpoint`). The
        values are one consistent snapshot even while other threads train: whole
        optimizer steps, traced-function runs and `ef.train.atomic_update()` blocks.

        Args:
            file_prefix: e.g. ``"training/ckpt"``; missing directories are created.

        Returns:
            The path of the new checkpoint file.

        Raises:
            FailedPreconditionError: if other threads kept an update group open for 60 s.

        Examples:
            >>> import os, tempfile
            >>> import eagerflow as ef
            >>> directory = tempfile.mkdtemp()
            >>> ckpt = ef.Checkpoint(v=ef.Variable(1.0))
            >>> [os.path.basename(ckpt.save(os.path.join(directory, "run", "ckpt")))
            ...  for _ in range(2)]
            ['ckpt-1.h5', 'ckpt-2.h5']
        """
        path = self._save_numbered(file_prefix)
        directory = os.path.dirname(os.path.abspath(path))
        current = index.read(directory) or index.Index()
        current.add(os.path.basename(path), time.time())
        current.checkpoints = [e for e in current.checkpoints
                               if os.path.isfile(os.path.join(directory, e.file))]
        index.write(directory, current)
        return path

    # -- restoring ------------------------------------------------------------------------
    def read(self, save_path: str | os.PathLike[str], skip_mismatch: bool = False,
             max_bytes: int | None = None) -> Any:
        """Restores the objects from a file written by `write` (or `save`).

        The save counter is left unchanged. See `restore` for what happens.

        Args:
            save_path: a checkpoint file (``.h5`` may be omitted).
            skip_mismatch: as for `restore`.
            max_bytes: the most this load may allocate, in bytes (see
                `eagerflow.saving.load_budget`); default ``ef.config.get_load_budget()``,
                or else twice the file's size plus 1 GiB.

        Returns:
            A `CheckpointLoadStatus`.

        Examples:
            >>> import os, tempfile
            >>> import eagerflow as ef
            >>> path = ef.Checkpoint(v=ef.Variable(2.0)).write(
            ...     os.path.join(tempfile.mkdtemp(), "v.h5"))
            >>> v = ef.Variable(0.0)
            >>> ef.Checkpoint(v=v).read(path).matched, float(v)
            (['v'], 2.0)
        """
        path = resolve_path(save_path)
        with load_budget.scope("Checkpoint.read", path, max_bytes):
            return restore.restore(path, self._objects, optional=(SAVE_COUNTER,),
                                   skip_mismatch=skip_mismatch)

    def restore(self, save_path: str | os.PathLike[str], skip_mismatch: bool = False,
                max_bytes: int | None = None) -> Any:
        """Restores the objects and the save counter from `save_path`.

        Every variable whose path is in the file gets its value now; saved values for
        variables that do not exist yet are assigned when they are created. Shapes and
        dtypes are checked before anything is assigned.

        Args:
            save_path: a checkpoint file (``.h5`` may be omitted), a directory (its latest
                checkpoint), or None (nothing is restored; convenient with
                ``manager.latest_checkpoint`` on a first run).
            skip_mismatch: skip values whose shape or dtype differs from their variable's
                (listed in ``status.mismatched``) instead of raising.
            max_bytes: the most this load may allocate, in bytes (see
                `eagerflow.saving.load_budget`); default ``ef.config.get_load_budget()``,
                or else twice the file's size plus 1 GiB.

        Returns:
            A `CheckpointLoadStatus`: the report, with `assert_consumed()`,
            `assert_existing_objects_matched()` and `expect_partial()`.

        Raises:
            NotFoundError: if the file does not exist.
            InvalidCheckpointError: if it is not a valid checkpoint file.
            InvalidArgumentError: on a shape/dtype mismatch, or if nothing matches.
            ResourceExhaustedError: if reading the file would allocate more than
                `max_bytes`.

        Examples:
            >>> import os, tempfile
            >>> import eagerflow as ef
            >>> directory = tempfile.mkdtemp()
            >>> _ = ef.Checkpoint(v=ef.Variable(2.0)).save(os.path.join(directory, "ckpt"))
            >>> ckpt = ef.Checkpoint(v=ef.Variable(0.0))
            >>> ckpt.restore(directory).assert_consumed().matched  # a directory: its latest
            ['v', 'save_counter']
            >>> print(ckpt.restore(None))  # first run: nothing to restore
            CheckpointLoadStatus(None): nothing restored, objects keep their values
        """
        if save_path is None:
            return status.CheckpointLoadStatus(None, self._objects)
        path = resolve_path(save_path)
        with load_budget.scope("Checkpoint.restore", path, max_bytes):
            result = restore.restore(path, _LiveRoots(self), optional=(SAVE_COUNTER,),
                                     skip_mismatch=skip_mismatch, open_root=True)
        if result.pending:  # objects attached later get their values (TensorFlow's rule),
            # for as long as this Checkpoint lives: it keeps the status alive
            self.__dict__.setdefault(status.ATTACHED, status.Attachments()).append(result)
        return result
