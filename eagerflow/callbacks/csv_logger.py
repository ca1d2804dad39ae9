"""`CSVLogger`: one CSV row per epoch, safe to append to and to read while training.

Each row is flushed and fsynced at the end of its epoch, so a crash loses at most the
epoch in progress. Columns are ``epoch`` then the log keys in sorted order, followed by
their ``val_`` names when the first epoch has no validation (as Keras 3); a key that
appears later (``val_*`` with ``validation_freq > 1``, or a different set of metrics when
appending to an older file) widens the header: the file is rewritten atomically with
``NA`` in the rows that lack it, instead of dropping the value like Keras does.

Examples:
    >>> import eagerflow as ef, os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "log.csv")
    >>> logger = ef.callbacks.CSVLogger(path)
    >>> logger.on_train_begin()
    >>> logger.on_epoch_end(0, {"loss": 0.5, "accuracy": 0.75})
    >>> logger.on_train_end()
    >>> print(open(path).read().strip())
    epoch,accuracy,loss,val_accuracy,val_loss
    0,0.75,0.5,NA,NA
"""

from __future__ import annotations

import csv
import io
import os
from typing import Any

import numpy as np

from eagerflow.callbacks import base
from eagerflow.saving import fileio


def _cell(value) -> str:
    if isinstance(value, str):
        return value
    array = np.asarray(value)
    if array.ndim == 0:
        return repr(array.item()) if array.dtype.kind == "f" else str(array.item())
    return "[" + ", ".join(_cell(v) for v in array.reshape(-1)) + "]"


class CSVLogger(base.Callback):
    """Streams epoch results to a CSV file.

    Args:
        filename: path of the CSV file (its directory must exist).
        separator: the column separator.
        append: keep the rows of an existing file and add to them (a new file otherwise
            replaces it).

    Raises:
        ValueError: if `separator` is not a single character.

    Examples:
        >>> import eagerflow as ef
        >>> logger = ef.callbacks.CSVLogger("training.csv", append=True)
    """

    _chief_only = True  # under ef.distribute, only rank 0 runs it (it prints or writes)

    def __init__(self, filename: Any, separator: str = ",", append: bool = False) -> None:
        super().__init__()
        if not isinstance(separator, str) or len(separator) != 1:
            raise ValueError(
                f"CSVLogger: separator must be one character. Received: {separator!r}"
            )
        self.filename = os.fspath(filename)
        self.sep = separator
        self.append = append
        self.keys: list[str] | None = None

    def _read_existing(self):
        """(header, rows) of the file, or (None, []) if it is missing or empty."""
        if not os.path.exists(self.filename) or os.path.getsize(self.filename) == 0:
            return None, []
        with open(self.filename, newline="") as f:
            rows = list(csv.reader(f, delimiter=self.sep))
        return (rows[0], rows[1:]) if rows else (None, [])

    def _rewrite(self, header, rows) -> None:
        def write(temporary):
            with open(temporary, "w", newline="") as f:
                writer = csv.writer(f, delimiter=self.sep, lineterminator="\n")
                writer.writerow(header)
                writer.writerows(rows)

        fileio.atomic_write(self.filename, write)

    def on_train_begin(self, logs: dict[str, Any] | None = None) -> None:
        # Without append, the first epoch's header replaces the file (atomically, so an
        # older log survives a run that dies before its first epoch ends).
        self.keys = self._read_existing()[0] if self.append else None

    def on_epoch_end(self, epoch: int, logs: dict[str, Any] | None = None) -> None:
        logs = dict(logs or {})
        values = {"epoch": str(epoch)}
        values.update((key, _cell(value)) for key, value in logs.items())
        new_keys = ["epoch"] + sorted(logs)
        if self.keys is None:
            if not any(key.startswith("val_") for key in logs):
                # As Keras 3: the first header also names the validation columns (``NA``
                # until an epoch validates), so validation_freq > 1 keeps one header.
                new_keys += ["val_" + key for key in sorted(logs)]
            self.keys = new_keys
            self._rewrite(self.keys, [])
        elif any(key not in self.keys for key in new_keys):
            old_keys = self.keys
            header, rows = self._read_existing()
            merged = ["epoch"] + sorted(set(old_keys + new_keys) - {"epoch"})
            index = {key: i for i, key in enumerate(header or old_keys)}
            widened = [[row[index[key]] if key in index and index[key] < len(row) else "NA"
                        for key in merged] for row in rows]
            self.keys = merged
            self._rewrite(self.keys, widened)
        row = [values.get(key, "NA") for key in self.keys]
        buffer = io.StringIO()
        csv.writer(buffer, delimiter=self.sep, lineterminator="\n").writerow(row)
        with open(self.filename, "a", newline="") as f:
            f.write(buffer.getvalue())
            f.flush()
            os.fsync(f.fileno())
