"""`CheckpointManager`: numbered saves in one directory, keeping only the newest few.

The manager's state lives in the directory's index (see `index`), so a new manager on the
same directory, in a new process, knows the checkpoints an earlier one wrote. Each save
writes the new file completely, then rewrites the index, then deletes the files that fell
out of it: a crash at any point leaves the index naming only complete files. A process
killed during a save can leave a temporary file, a file the index no longer names (killed
before deleting it) or one it never named (killed before recording it); the next manager
started on the directory deletes those (TensorFlow's manager never does: it only forgets
them). The manager owns the names ``<checkpoint_name>-<number>.h5`` in its directory: keep
no other files named so there, and let one manager at a time save under one name.

Examples:
    >>> import tempfile
    >>> import eagerflow as ef
    >>> directory = tempfile.mkdtemp()
    >>> step = ef.Variable(0)
    >>> manager = ef.CheckpointManager(ef.Checkpoint(step=step), directory, max_to_keep=2)
    >>> for _ in range(3):
    ...     _ = step.assign_add(1)
    ...     _ = manager.save()
    >>> [p.rsplit("/", 1)[-1] for p in manager.checkpoints]
    ['ckpt-2.h5', 'ckpt-3.h5']
    >>> ef.CheckpointManager(ef.Checkpoint(step=step), directory).latest_checkpoint.endswith(
    ...     "ckpt-3.h5")
    True
"""

from __future__ import annotations

import contextlib
import operator
import os
import re
import time
import warnings
from collections.abc import Callable
from typing import Any

from eagerflow.core import errors
from eagerflow.saving import checkpoint, fileio, h5format, index

_clock = time.time  # replaced in tests to simulate hours passing


class CheckpointManager:
    """Saves numbered checkpoints to a directory and deletes all but the newest few.

    Args:
        checkpoint: the `Checkpoint` to save and restore.
        directory: where checkpoints go (created on the first save).
        max_to_keep: how many recent checkpoints to keep (None keeps all).
        keep_checkpoint_every_n_hours: additionally keep, forever, one checkpoint per this
            many hours among those rotated out (listed in the index as "preserved").
        checkpoint_name: file name prefix: files are ``<name>-<number>.h5``.
        init_fn: called by `restore_or_initialize` when there is no checkpoint yet.

    When it starts, the manager cleans up after saves that were killed: it deletes files
    ``<checkpoint_name>-<number>.h5`` in `directory` that the directory's index does not
    name, and leftover temporary files of its checkpoints and of the index (see the
    module docstring).

    Raises:
        InvalidArgumentError: for a non-Checkpoint, a bad `max_to_keep`,
            `keep_checkpoint_every_n_hours` or `checkpoint_name`.

    Examples:
        >>> import tempfile
        >>> import eagerflow as ef
        >>> weights = ef.Variable([1.0, 2.0])
        >>> manager = ef.CheckpointManager(ef.Checkpoint(w=weights), tempfile.mkdtemp())
        >>> manager.restore_or_initialize() is None  # nothing saved yet
        True
        >>> manager.save(checkpoint_number=100).endswith("ckpt-100.h5")
        True
    """

    def __init__(self, checkpoint: Any, directory: str | os.PathLike[str], max_to_keep: int = 5,
                 keep_checkpoint_every_n_hours: Any = None, checkpoint_name: str = "ckpt",
                 init_fn: Callable[..., Any] | None = None) -> None:
        if not isinstance(checkpoint, _checkpoint_class()):
            raise errors.InvalidArgumentError(
                "CheckpointManager expects an ef.Checkpoint as `checkpoint`. Received: "
                f"{type(checkpoint).__name__}. Wrap your objects: ef.Checkpoint(model=model)."
            )
        if max_to_keep is not None and (
                not isinstance(max_to_keep, int) or isinstance(max_to_keep, bool)
                or max_to_keep < 1):
            raise errors.InvalidArgumentError(
                f"`max_to_keep` must be a positive int or None. Received: "
                f"max_to_keep={max_to_keep!r}"
            )
        if keep_checkpoint_every_n_hours is not None and not (
                isinstance(keep_checkpoint_every_n_hours, (int, float))
                and keep_checkpoint_every_n_hours > 0):
            raise errors.InvalidArgumentError(
                "`keep_checkpoint_every_n_hours` must be a positive number or None. "
                f"Received: keep_checkpoint_every_n_hours={keep_checkpoint_every_n_hours!r}"
            )
        if (not isinstance(checkpoint_name, str) or not checkpoint_name
                or os.path.basename(checkpoint_name) != checkpoint_name):
            raise errors.InvalidArgumentError(
                "`checkpoint_name` must be a non-empty file name without a directory part. "
                f"Received: checkpoint_name={checkpoint_name!r}"
            )
        self._checkpoint = checkpoint
        self._directory = os.fspath(directory)
        self._max_to_keep = max_to_keep
        self._keep_hours = keep_checkpoint_every_n_hours
        self._name = checkpoint_name
        self._init_fn = init_fn
        self._pattern = re.compile(re.escape(checkpoint_name) + r"-(\d+)\.h5")
        recovered = index.read(self._directory)
        self._sweep(recovered)
        state = recovered or index.Index()
        self._entries = self._mine(state)
        self._last_preserved = state.last_preserved_time.get(checkpoint_name, _clock())

    def _sweep(self, state) -> None:
        """Deletes what killed saves left behind: temporaries of this manager's files and
        of the index (of dead writers on this host), and this manager's checkpoint files
        that the index does not name (rotated out by a save killed before it deleted
        them, or written by one killed before it recorded them).

        Without an index nothing shows that the directory's files are the manager's, so
        then no checkpoint file is deleted.
        """
        fileio.remove_stale_temporaries(self._directory, self._pattern.pattern)
        fileio.remove_stale_temporaries(self._directory, re.escape(index.INDEX_NAME))
        if state is None:
            return
        named = {e.file for e in state.checkpoints + state.preserved} | {state.latest}
        for name in sorted(os.listdir(self._directory)):
            path = os.path.join(self._directory, name)
            if (self._pattern.fullmatch(name) and name not in named
                    and os.path.isfile(path) and not os.path.islink(path)):
                with contextlib.suppress(FileNotFoundError):
                    os.remove(path)

    def _mine(self, state) -> list:
        return [e for e in state.checkpoints if self._pattern.fullmatch(e.file)
                and os.path.isfile(os.path.join(self._directory, e.file))]

    @property
    def checkpoint(self) -> Any:
        """The managed `Checkpoint`.

        Examples:
            >>> import tempfile
            >>> import eagerflow as ef
            >>> ckpt = ef.Checkpoint(v=ef.Variable(1.0))
            >>> ef.CheckpointManager(ckpt, tempfile.mkdtemp()).checkpoint is ckpt
            True
        """
        return self._checkpoint

    @property
    def directory(self) -> str:
        """The directory checkpoints are written to.

        Examples:
            >>> import eagerflow as ef
            >>> ef.CheckpointManager(ef.Checkpoint(v=ef.Variable(1.0)), "runs/a").directory
            'runs/a'
        """
        return self._directory

    @property
    def checkpoints(self) -> list:
        """Paths of the kept checkpoints, oldest first.

        Examples:
            >>> import os, tempfile
            >>> import eagerflow as ef
            >>> manager = ef.CheckpointManager(ef.Checkpoint(v=ef.Variable(1.0)),
            ...                                tempfile.mkdtemp(), max_to_keep=1)
            >>> _, _ = manager.save(), manager.save()
            >>> [os.path.basename(p) for p in manager.checkpoints]
            ['ckpt-2.h5']
        """
        return [os.path.join(self._directory, e.file) for e in self._entries]

    @property
    def latest_checkpoint(self) -> str | None:
        """Path of the newest checkpoint, or None before the first save.

        Examples:
            >>> import tempfile
            >>> import eagerflow as ef
            >>> manager = ef.CheckpointManager(ef.Checkpoint(v=ef.Variable(1.0)),
            ...                                tempfile.mkdtemp())
            >>> manager.latest_checkpoint is None
            True
            >>> manager.save() == manager.latest_checkpoint
            True
        """
        return os.path.join(self._directory, self._entries[-1].file) if self._entries else None

    def save(self, checkpoint_number: Any = None) -> str:
        """Saves a new checkpoint and deletes those beyond `max_to_keep`.

        Args:
            checkpoint_number: the number in the file name (an int, or e.g.
                ``optimizer.iterations``); by default the checkpoint's save counter.

        Returns:
            The path of the new checkpoint.

        Raises:
            InvalidArgumentError: if `checkpoint_number` is not a non-negative integer.

        Examples:
            >>> import os, tempfile
            >>> import eagerflow as ef
            >>> step = ef.Variable(500)
            >>> manager = ef.CheckpointManager(ef.Checkpoint(step=step), tempfile.mkdtemp())
            >>> os.path.basename(manager.save(checkpoint_number=step))
            'ckpt-500.h5'
        """
        number = None
        if checkpoint_number is not None:
            try:
                number = operator.index(checkpoint_number)
            except TypeError:
                number = -1
            if number < 0:
                raise errors.InvalidArgumentError(
                    "`checkpoint_number` must be a non-negative integer. Received: "
                    f"checkpoint_number={checkpoint_number!r}"
                )
        path = self._checkpoint._save_numbered(os.path.join(self._directory, self._name),
                                               number)
        state = index.read(self._directory) or index.Index()
        state.add(os.path.basename(path), _clock())
        mine = self._mine(state)
        doomed = []
        while self._max_to_keep is not None and len(mine) > self._max_to_keep:
            old = mine.pop(0)
            state.checkpoints.remove(old)
            if self._keep_hours and old.time - self._last_preserved >= self._keep_hours * 3600:
                self._last_preserved = old.time
                state.preserved.append(old)
            else:
                doomed.append(old)
        state.last_preserved_time[self._name] = self._last_preserved
        index.write(self._directory, state)
        for old in doomed:  # only after the index stopped naming them
            with contextlib.suppress(FileNotFoundError):
                os.remove(os.path.join(self._directory, old.file))
        self._entries = mine
        return path

    def restore_or_initialize(self) -> Any:
        """Restores the newest checkpoint, or calls `init_fn` if there is none.

        If the newest file is unreadable (corrupted by something outside eagerflow), the
        next newest is tried, with a warning.

        Returns:
            The path restored from, or None if there was no checkpoint.

        Raises:
            InvalidCheckpointError: if every kept checkpoint is unreadable.

        Examples:
            >>> import os, tempfile
            >>> import eagerflow as ef
            >>> directory, v = tempfile.mkdtemp(), ef.Variable(1.0)
            >>> manager = ef.CheckpointManager(ef.Checkpoint(v=v), directory,
            ...                                init_fn=lambda: v.assign(42.0))
            >>> manager.restore_or_initialize(), float(v)  # nothing saved: init_fn runs
            (None, 42.0)
            >>> _ = manager.save()
            >>> _ = v.assign(0.0)
            >>> os.path.basename(manager.restore_or_initialize()), float(v)
            ('ckpt-1.h5', 42.0)
        """
        first_error = None
        for path in reversed(self.checkpoints):
            try:
                self._checkpoint.restore(path)
            except h5format.InvalidCheckpointError as e:
                first_error = first_error or e
                warnings.warn(f"Skipping unreadable checkpoint: {e}", errors.EagerflowWarning,
                              stacklevel=2)
                continue
            return path
        if first_error is not None:
            raise first_error
        if self._init_fn is not None:
            self._init_fn()
        return None


def _checkpoint_class():
    return checkpoint.Checkpoint
