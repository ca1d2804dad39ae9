"""The checkpoint index: a small JSON file naming a directory's latest and kept checkpoints.

``<directory>/checkpoint.json``::

    {"format": "eagerflow-checkpoint-index", "format_version": 1,
     "latest": "ckpt-3.h5",
     "checkpoints": [{"file": "ckpt-2.h5", "time": 1763790000.0},
                     {"file": "ckpt-3.h5", "time": 1763790060.0}],
     "preserved": [{"file": "ckpt-1.h5", "time": 1763786400.0}],
     "last_preserved_time": {"ckpt": 1763786400.0}}

File names are bare names inside the directory (the directory can be moved). The index
is rewritten atomically after each checkpoint file is complete, so it never names a
partial file. `checkpoints` is oldest first; `preserved` lists files that
``keep_checkpoint_every_n_hours`` exempted from deletion.

Examples:
    >>> import tempfile
    >>> from eagerflow.saving import index
    >>> d = tempfile.mkdtemp()
    >>> index.latest_checkpoint(d) is None
    True
"""

from __future__ import annotations

import json
import os
from typing import NamedTuple

from eagerflow.core import errors
from eagerflow.saving import fileio

INDEX_NAME = "checkpoint.json"
_FORMAT = "eagerflow-checkpoint-index"
_VERSION = 1


class IndexEntry(NamedTuple):
    """One checkpoint file (a bare name in the directory) and when it was written.

    Examples:
        >>> from eagerflow.saving.index import IndexEntry
        >>> IndexEntry("ckpt-1.h5", 0.0)._asdict()
        {'file': 'ckpt-1.h5', 'time': 0.0}
    """

    file: str
    time: float


class Index:
    """The parsed index of one directory (see the module docstring).

    Examples:
        >>> from eagerflow.saving.index import Index
        >>> state = Index()
        >>> state.add("ckpt-1.h5", 10.0)
        >>> state.latest, [e.file for e in state.checkpoints]
        ('ckpt-1.h5', ['ckpt-1.h5'])
    """

    def __init__(self, latest=None, checkpoints=(), preserved=(), last_preserved_time=None):
        self.latest: str | None = latest
        self.checkpoints: list = list(checkpoints)
        self.preserved: list = list(preserved)
        self.last_preserved_time: dict = dict(last_preserved_time or {})

    def add(self, file: str, time: float) -> None:
        """Records `file` as the newest checkpoint (moving it to the end if listed).

        Examples:
            >>> from eagerflow.saving.index import Index
            >>> state = Index()
            >>> for name in ("a.h5", "b.h5", "a.h5"):
            ...     state.add(name, 0.0)
            >>> [e.file for e in state.checkpoints]
            ['b.h5', 'a.h5']
        """
        self.checkpoints = [e for e in self.checkpoints if e.file != file]
        self.preserved = [e for e in self.preserved if e.file != file]
        self.checkpoints.append(IndexEntry(file, float(time)))
        self.latest = file

    def to_json(self) -> str:
        """The index as the JSON text of the index file (see the module docstring)."""
        return json.dumps({
            "format": _FORMAT,
            "format_version": _VERSION,
            "latest": self.latest,
            "checkpoints": [e._asdict() for e in self.checkpoints],
            "preserved": [e._asdict() for e in self.preserved],
            "last_preserved_time": self.last_preserved_time,
        }, indent=1)


def _bad(path: str, what: str):
    raise errors.InvalidArgumentError(
        f"Checkpoint index {path!r} is corrupted: {what}. Delete it to start a fresh index "
        "(the checkpoint .h5 files themselves are unaffected)."
    )


def _bare_name(path: str, value) -> str:
    # Names come from a file anyone may have edited; a name with a directory part could make
    # CheckpointManager delete files outside its directory.
    if (not isinstance(value, str) or not value or value in (".", "..")
            or os.path.basename(value) != value or "/" in value or "\\" in value):
        _bad(path, f"{value!r} is not a plain file name")
    return value


def _entries(path: str, items) -> list:
    if not isinstance(items, list):
        _bad(path, "a checkpoint list is not a list")
    entries = []
    for item in items:
        if not isinstance(item, dict) or not isinstance(item.get("time"), (int, float)):
            _bad(path, f"entry {item!r} needs a 'file' name and a numeric 'time'")
        entries.append(IndexEntry(_bare_name(path, item.get("file")), float(item["time"])))
    return entries


def read(directory) -> Index | None:
    """Reads the index of `directory`; None if it has none.

    Raises:
        InvalidArgumentError: if the index exists but is not a valid index file.

    Examples:
        >>> import tempfile
        >>> from eagerflow.saving import index
        >>> d = tempfile.mkdtemp()
        >>> index.write(d, index.Index(latest="c-1.h5"))
        >>> index.read(d).latest
        'c-1.h5'
    """
    path = os.path.join(os.fspath(directory), INDEX_NAME)
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except FileNotFoundError:
        return None
    try:
        data = fileio.loads_json(text, "the index")
    except ValueError as e:
        _bad(path, str(e))
    if not isinstance(data, dict) or data.get("format") != _FORMAT:
        _bad(path, f"'format' is not {_FORMAT!r}")
    if data.get("format_version") != _VERSION:
        _bad(path, f"unknown format_version {data.get('format_version')!r} (expected "
                   f"{_VERSION})")
    latest = data.get("latest")
    if latest is not None:
        _bare_name(path, latest)
    times = data.get("last_preserved_time") or {}
    if not isinstance(times, dict) or not all(
            isinstance(v, (int, float)) for v in times.values()):
        _bad(path, "'last_preserved_time' must map names to times")
    return Index(latest, _entries(path, data.get("checkpoints", [])),
                 _entries(path, data.get("preserved", [])), times)


def write(directory, index: Index) -> None:
    """Writes `index` as the index of `directory`, atomically (see `read`'s example)."""
    def write_json(tmp):
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(index.to_json())

    fileio.atomic_write(os.path.join(os.fspath(directory), INDEX_NAME), write_json)


def latest_checkpoint(checkpoint_dir: str | os.PathLike[str]) -> str | None:
    """Returns the path of the newest checkpoint recorded in `checkpoint_dir`, or None.

    If the latest recorded file was deleted, the newest recorded file that still exists is
    returned.

    Args:
        checkpoint_dir: a directory that `Checkpoint.save` or `CheckpointManager` wrote to.

    Returns:
        A path usable with `Checkpoint.restore`, or None if there is no checkpoint.

    Raises:
        InvalidArgumentError: if the directory's index file is corrupted.

    Examples:
        >>> import os, tempfile
        >>> import eagerflow as ef
        >>> d = tempfile.mkdtemp()
        >>> ckpt = ef.Checkpoint(v=ef.Variable(1.0))
        >>> _ = ckpt.save(os.path.join(d, "ckpt"))
        >>> os.path.basename(ef.saving.latest_checkpoint(d))
        'ckpt-1.h5'
    """
    directory = os.fspath(checkpoint_dir)
    parsed = read(directory)
    if parsed is None:
        return None
    candidates = [parsed.latest] if parsed.latest else []
    candidates += [e.file for e in reversed(parsed.checkpoints)]
    for name in candidates:
        path = os.path.join(directory, name)
        if os.path.isfile(path):
            return path
    return None
