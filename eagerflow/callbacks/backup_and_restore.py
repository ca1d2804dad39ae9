"""`BackupAndRestore`: resume an interrupted `fit` where it left off.

At the end of every epoch the callback writes a backup of the model's weights, the
optimizer's state (slots, iteration count, learning rate) and eagerflow's random-number
generators, and a small JSON file naming that backup and the epoch. When `fit` starts
again with the same callback directory, it restores all of it and continues from the epoch
after the last finished one; with the same seed and data, the final weights equal those of
a run that was never interrupted (the data order and dropout masks continue from the same
random state). A finished `fit` deletes the backup (unless ``delete_checkpoint=False``).

Each backup file is written atomically and the JSON file is replaced only after it, so a
crash during a backup leaves the previous one usable.

Examples:
    >>> import eagerflow as ef, tempfile
    >>> callback = ef.callbacks.BackupAndRestore(backup_dir=tempfile.mkdtemp())
"""

from __future__ import annotations

import json
import os
import re
from typing import Any

from eagerflow.callbacks import base
from eagerflow.ops import random
from eagerflow.saving import fileio

_STATE_FILE = "training_state.json"
_BACKUP_NAME = re.compile(r"backup-epoch[0-9]{1,9}\.h5")
_FORMAT = "eagerflow-backup"


def _write_json_atomically(path: str, document: dict) -> None:
    def write(temporary):
        with open(temporary, "w") as f:
            json.dump(document, f)

    fileio.atomic_write(path, write)


class BackupAndRestore(base.Callback):
    """Backs up the training state every epoch and restores it when `fit` restarts.

    Args:
        backup_dir: a directory used only for this backup (created if missing).
        save_freq: "epoch" (the only supported value: a backup mid-epoch would also need
            the position inside the epoch's data).
        delete_checkpoint: delete the backup when `fit` finishes normally.

    Raises:
        ValueError: for an empty `backup_dir` or a `save_freq` other than "epoch".

    Examples:
        >>> import eagerflow as ef
        >>> callback = ef.callbacks.BackupAndRestore("/tmp/backup")
    """

    _chief_only = True  # under ef.distribute, only rank 0 runs it (it prints or writes)

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

    def _read_state(self):
        try:
            with open(self._state_path) as f:
                state = fileio.loads_json(f.read(), "the state file")
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as e:
            raise ValueError(
                f"BackupAndRestore: cannot read {self._state_path} ({e}). Delete the "
                "directory to start training from scratch."
            ) from e
        if not isinstance(state, dict) or state.get("format") != _FORMAT:
            raise ValueError(
                f"BackupAndRestore: {self._state_path} is not a backup state file written by "
                "eagerflow. Use an empty directory for backup_dir."
            )
        missing = [key for key in ("epoch", "file", "rng") if key not in state]
        if missing:
            raise ValueError(
                f"BackupAndRestore: {self._state_path} lacks {missing}; it was not written by "
                "this callback or was edited. Delete the directory to start from scratch.")
        name = state["file"]
        # Paths read from the file never leave backup_dir: only our own file names.
        if not isinstance(name, str) or not _BACKUP_NAME.fullmatch(name):
            raise ValueError(
                f"BackupAndRestore: {self._state_path} names the checkpoint {name!r}, which is "
                "not a backup file of this directory (expected backup-epoch<N>.h5). Refusing "
                "to read or delete it.")
        if isinstance(state["epoch"], bool) or not isinstance(state["epoch"], int):
            raise ValueError(
                f"BackupAndRestore: {self._state_path} has epoch {state['epoch']!r}, expected an "
                "integer.")
        return state

    def on_train_begin(self, logs: dict[str, Any] | None = None) -> None:
        self.restored_epoch = None
        state = self._read_state()
        if state is None:
            return
        path = os.path.join(self.backup_dir, state["file"])
        # Deferred restore: optimizer slots created by the first step get their values then.
        self._checkpoint().read(path)
        random.set_state(state["rng"])
        self.restored_epoch = int(state["epoch"])
        # `fit` continues from here (Keras's protocol for this callback).
        self.model._initial_epoch = self.restored_epoch + 1

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        os.makedirs(self.backup_dir, exist_ok=True)
        old = self._read_state()
        name = f"backup-epoch{epoch}.h5"
        self._checkpoint().write(os.path.join(self.backup_dir, name))
        _write_json_atomically(self._state_path, {
            "format": _FORMAT, "epoch": int(epoch), "file": name, "rng": random.get_state(),
        })
        if old is not None and old["file"] != name:
            self._remove(old["file"])

    def _remove(self, name: str) -> None:
        path = os.path.join(self.backup_dir, name)
        if os.path.exists(path):
            os.remove(path)

    def on_train_end(self, logs: dict[str, Any] | None = None) -> None:
        if not self.delete_checkpoint:
            return
        state = self._read_state()
        if state is not None:
            self._remove(state["file"])
            os.remove(self._state_path)
