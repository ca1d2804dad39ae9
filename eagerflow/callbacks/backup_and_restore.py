"""`BackupAndRestore`: resume an interrupted `fit` where it left off.

At the end of every epoch the callback writes a backup of the model's weights, the
optimizer's state (slots, iteration count, learning rate) and eagerflow's random-number
generators, and a small JSON file naming that backup and the epoch. When `fit` starts
again with the same callback directory, it restores all of it and continues from the epoch
after the last finished one; with the same seed and data, the final weights equal those of
a run that was never interrupted (the data order and dropout masks continue from the same
random state). A finished `fit` deletes the backup (unless ``delete_checkpoint=False``).

Under an `ef.distribute.MPIStrategy` every rank runs the callback: the ranks' random
states (each draws its own dropout masks) are gathered to the chief, which writes them
all; on restore each rank gets its own back. Only the chief reads or writes files, and an
error on the chief (a bad backup) is raised on every rank. A backup made with another
number of ranks is refused.

Each backup file is written atomically and the JSON file is replaced only after it, so a
crash during a backup leaves the previous one usable. The JSON file is checked in full
(size, nesting, keys, types, ranges, the random states) before anything is adopted.

Examples:
    >>> import eagerflow as ef, tempfile
    >>> callback = ef.callbacks.BackupAndRestore(backup_dir=tempfile.mkdtemp())
"""

from __future__ import annotations

import json
import os
import pickle
import re
from typing import Any

from eagerflow.callbacks import base
from eagerflow.ops import random
from eagerflow.saving import fileio

_STATE_FILE = "training_state.json"
_BACKUP_NAME = re.compile(r"backup-epoch[0-9]{1,9}\.h5")
_FORMAT = "eagerflow-backup"
_MAX_EPOCH = 10**9  # backup file names hold at most 9 digits
_MAX_STATE_BYTES = 64 * 2**20  # a few hundred bytes per random stream and rank


def _write_json_atomically(path: str, document: dict) -> None:
    def write(temporary):
        with open(temporary, "w") as f:
            json.dump(document, f)

    fileio.atomic_write(path, write)


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:60] + "..."


def _portable(error: BaseException) -> BaseException:
    """`error` if it survives pickling (to be raised on the other ranks), else its text."""
    try:
        pickle.loads(pickle.dumps(error))
    except Exception:  # noqa: BLE001 - any error that cannot travel is sent as text
        return RuntimeError(f"BackupAndRestore failed on rank 0: {type(error).__name__}: "
                            f"{error}")
    return error


class BackupAndRestore(base.Callback):
    """Backs up the training state every epoch and restores it when `fit` restarts.

    Under an `ef.distribute.MPIStrategy`, every rank's random state is saved and each rank
    resumes with its own (so Dropout masks continue bitwise); the files are written and
    read by the chief only. Resuming with another number of ranks than the backup was
    made with raises (the ranks' random streams cannot be mapped onto other ranks): resume
    with the same number, or delete `backup_dir` to start over.

    Args:
        backup_dir: a directory used only for this backup (created if missing).
        save_freq: "epoch" (the only supported value: a backup mid-epoch would also need
            the position inside the epoch's data).
        delete_checkpoint: delete the backup when `fit` finishes normally.

    Raises:
        ValueError: for an empty `backup_dir` or a `save_freq` other than "epoch"; when
            `fit` starts, for a state file that is malformed in any way (naming the file
            and what is wrong) or made with another number of ranks.

    Examples:
        >>> import eagerflow as ef
        >>> callback = ef.callbacks.BackupAndRestore("/tmp/backup")
    """

    # Every rank runs it (each rank's random state is saved and restored); only the chief
    # touches files.
    _chief_only = False

    def __init__(self, backup_dir: Any, save_freq: str = "epoch",
                 delete_checkpoint: bool = True) -> None:
        super().__init__()
        if not backup_dir:
            raise ValueError(
                f"BackupAndRestore: backup_dir must be a directory. Received: {backup_dir!r}"
            )
        if save_freq != "epoch":
            raise ValueError(
                "BackupAndRestore: only save_freq='epoch' is supported (a mid-epoch backup "
                f"would also need the position in the data). Received: save_freq={save_freq!r}"
            )
        self.backup_dir = os.fspath(backup_dir)
        self.save_freq = save_freq
        self.delete_checkpoint = delete_checkpoint
        self.restored_epoch: Any = None

    @property
    def _state_path(self) -> str:
        return os.path.join(self.backup_dir, _STATE_FILE)

    def _checkpoint(self):
        from eagerflow.saving import Checkpoint

        objects = {"model": self.model}
        optimizer = getattr(self.model, "optimizer", None)
        if optimizer is not None:
            objects["optimizer"] = optimizer
        return Checkpoint(**objects)

    def _refuse(self, problem: str) -> ValueError:
        return ValueError(f"BackupAndRestore: {self._state_path} {problem}. Delete the "
                          "directory to start training from scratch.")

    def _unreadable(self, error: Exception) -> ValueError:
        return ValueError(f"BackupAndRestore: cannot read {self._state_path} ({error}). Delete "
                          "the directory to start training from scratch.")

    def _read_state(self, replicas: int = 1):
        """The validated state file (None when there is none), its random states a list
        with one per rank; raises naming the file for anything malformed."""
        try:
            with open(self._state_path, "rb") as f:
                raw = f.read(_MAX_STATE_BYTES + 1)
        except FileNotFoundError:
            return None
        except OSError as e:
            raise self._unreadable(e) from e
        if len(raw) > _MAX_STATE_BYTES:
            raise self._refuse(f"is larger than {_MAX_STATE_BYTES} bytes; it was not written "
                               "by this callback")
        try:
            state = fileio.loads_json(raw.decode("utf-8"), "JSON")
        except (ValueError, UnicodeDecodeError) as e:
            raise self._unreadable(e) from e
        if not isinstance(state, dict) or state.get("format") != _FORMAT:
            raise ValueError(
                f"BackupAndRestore: {self._state_path} is not a backup state file written by "
                "eagerflow. Use an empty directory for backup_dir.")
        missing = [key for key in ("epoch", "file", "rng") if key not in state]
        if missing:
            raise ValueError(
                f"BackupAndRestore: {self._state_path} lacks {missing}; it was not written by "
                "this callback or was edited. Delete the directory to start from scratch.")
        epoch, name = state["epoch"], state["file"]
        if type(epoch) is not int or not 0 <= epoch < _MAX_EPOCH:
            raise self._refuse(f"has epoch {_shown(epoch)}, expected an integer in "
                               f"[0, {_MAX_EPOCH})")
        # Paths read from the file never leave backup_dir: only our own file names.
        if not isinstance(name, str) or not _BACKUP_NAME.fullmatch(name):
            raise ValueError(
                f"BackupAndRestore: {self._state_path} names the checkpoint {name!r}, which is "
                "not a backup file of this directory (expected backup-epoch<N>.h5). Refusing "
                "to read or delete it.")
        if name != f"backup-epoch{epoch}.h5":
            raise self._refuse(f"names the checkpoint {name!r} for epoch {epoch}: they "
                               "disagree, so the file was edited")
        states = state["rng"]
        if isinstance(states, dict) and "num_replicas" not in state:
            states = [states]  # written before every rank's state was saved: one process
        if not isinstance(states, list) or not states:
            raise self._refuse("has 'rng' that is not a list of random states (one per rank)")
        made_with = state.get("num_replicas", 1)
        if type(made_with) is not int or made_with != len(states):
            raise self._refuse(f"says num_replicas={_shown(made_with)} but holds "
                               f"{len(states)} random states")
        if made_with != replicas:
            raise ValueError(
                f"BackupAndRestore: {self._state_path} was made by a run on {made_with} "
                f"rank(s), and this one has {replicas}: each rank's random state (dropout "
                f"masks) cannot be resumed on another number of ranks. Resume with "
                f"{made_with} rank(s), or delete the directory to start training from scratch.")
        for rank, rank_state in enumerate(states):
            try:
                random.check_state(rank_state)
            except ValueError as e:
                raise self._refuse(f"holds a malformed random state for rank {rank} ({e})") \
                    from None
        return state | {"rng": states}

    def _restore(self, replicas: int):
        """The chief's part of a restore: reads and checks everything, then the weights.
        Returns the random states (one per rank) and the epoch, or None."""
        state = self._read_state(replicas)
        if state is None:
            return None
        # Deferred restore: optimizer slots created by the first step get their values then.
        self._checkpoint().read(os.path.join(self.backup_dir, state["file"]))
        return state["rng"], state["epoch"]

    def on_train_begin(self, logs: dict[str, Any] | None = None) -> None:
        self.restored_epoch = None
        # The model's ef.distribute.Strategy (the default one: this process alone, where
        # every collective returns its input). The chief reads; every replica gets its
        # outcome (an error too).
        strategy = self.model.distribute_strategy
        if strategy.is_chief:
            try:
                restored = self._restore(strategy.num_replicas_in_sync)
            except Exception as error:
                strategy.broadcast_object(_portable(error))
                raise
            strategy.broadcast_object(restored)
        else:
            restored = strategy.broadcast_object(None)
            if isinstance(restored, BaseException):
                raise restored
        if restored is None:
            return
        states, epoch = restored
        random.set_state(states[strategy.rank])
        self.restored_epoch = int(epoch)
        # `fit` continues from here (Keras's protocol for this callback).
        self.model._initial_epoch = self.restored_epoch + 1

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        strategy = self.model.distribute_strategy
        states = strategy.all_gather_object(random.get_state())  # one per replica
        # An error writing on the chief is raised on every replica (none waits for it).
        strategy.after_chief(lambda: self._write(epoch, states) if strategy.is_chief
                             else None, "BackupAndRestore")

    def _write(self, epoch: int, states: list) -> None:
        os.makedirs(self.backup_dir, exist_ok=True)
        old = self._read_state(len(states))
        name = f"backup-epoch{epoch}.h5"
        self._checkpoint().write(os.path.join(self.backup_dir, name))
        _write_json_atomically(self._state_path, {
            "format": _FORMAT, "epoch": int(epoch), "file": name,
            "num_replicas": len(states), "rng": states,
        })
        if old is not None and old["file"] != name:
            self._remove(old["file"])

    def _remove(self, name: str) -> None:
        path = os.path.join(self.backup_dir, name)
        if os.path.exists(path):
            os.remove(path)

    def on_train_end(self, logs: dict[str, Any] | None = None) -> None:
        strategy = self.model.distribute_strategy
        if not self.delete_checkpoint or not strategy.is_chief:
            return
        state = self._read_state(strategy.num_replicas_in_sync)
        if state is not None:
            self._remove(state["file"])
            os.remove(self._state_path)
