"""Atomic, durable file replacement, and clean-up after interrupted writes.

A file is written under a temporary name in its final directory, flushed and fsync'ed,
then renamed over the target with `os.replace` (atomic on POSIX and Windows), and the
directory is fsync'ed so the rename itself survives a power cut. A reader therefore sees
either the old complete file or the new complete file, never a partial one.

Temporary names are ``.<target name>.tmp-<host>-<pid>-<random>``, so a later save
can recognise leftovers of a killed writer and remove them (`remove_stale_temporaries`):
every `atomic_write` first removes those of dead processes of this host in its directory,
and a `CheckpointManager` removes those of its own checkpoints when it starts.

Examples:
    >>> import os, tempfile
    >>> from eagerflow.saving import fileio
    >>> d = tempfile.mkdtemp()
    >>> target = os.path.join(d, "note.txt")
    >>> def write(tmp):
    ...     with open(tmp, "w") as f:
    ...         f.write("hello")
    >>> fileio.atomic_write(target, write) == target
    True
    >>> open(target).read(), sorted(os.listdir(d))
    ('hello', ['note.txt'])
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import socket
import stat
from typing import Any

_HOST = re.sub(r"[^A-Za-z0-9_]", "_", socket.gethostname())[:40] or "host"


def _temporary_prefix(target_name: str) -> str:
    return f".{target_name}.tmp-{_HOST}-{os.getpid()}-"


def _create_temporary(directory: str, target_name: str) -> str:
    # Not tempfile.mkstemp: its files are mode 0600, and the checkpoint should get the
    # usual permissions (0666 minus the umask) like any file the user writes.
    prefix = os.path.join(directory, _temporary_prefix(target_name))
    while True:
        tmp = prefix + secrets.token_hex(4)
        try:
            os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
            return tmp
        except FileExistsError:
            continue


def fsync_directory(directory: str) -> None:
    """Makes renames and deletions in `directory` durable (no-op where unsupported).

    Examples:
        >>> import tempfile
        >>> from eagerflow.saving import fileio
        >>> fileio.fsync_directory(tempfile.mkdtemp())
    """
    if not hasattr(os, "O_DIRECTORY"):
        return
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def atomic_write(path, write_fn) -> str:
    """Writes `path` atomically and durably through a temporary file.

    Args:
        path: the final file path; missing parent directories are created.
        write_fn: called with the temporary path; must write the complete file there and
            close it.

    Returns:
        `path` as a string.

    Raises:
        Whatever `write_fn` raises; the temporary file is removed and `path` is untouched.
        A failing `fsync` or rename raises its `OSError`.

    Examples:
        >>> import os, tempfile
        >>> from eagerflow.saving import fileio
        >>> target = os.path.join(tempfile.mkdtemp(), "out.bin")
        >>> def broken(tmp):
        ...     raise OSError("disk full")
        >>> try:
        ...     fileio.atomic_write(target, broken)
        ... except OSError:
        ...     print(os.listdir(os.path.dirname(target)))
        []
    """
    path = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    # Leftovers of writers killed earlier in this directory (each a full-size file).
    remove_stale_temporaries(directory, ".+")
    tmp = _create_temporary(directory, os.path.basename(path))
    try:
        write_fn(tmp)
        fd = os.open(tmp, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.remove(tmp)
        raise
    fsync_directory(directory)
    return path


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # exists, owned by someone else
    return True


def remove_stale_temporaries(directory: str, target_pattern: str) -> list:
    r"""Removes temporary files left by killed writers of targets named `target_pattern`.

    Only files named like our temporaries (see the module docstring) of a target whose
    whole name matches `target_pattern`, written on this host by a process that no longer
    exists, are removed: a save running concurrently in another process is never
    disturbed, and no other file is touched.

    Args:
        directory: the directory to clean.
        target_pattern: a regular expression the whole target file name must match (e.g.
            ``r"ckpt-\d+\.h5"``).

    Returns:
        The removed paths.

    Examples:
        >>> import tempfile
        >>> from eagerflow.saving import fileio
        >>> fileio.remove_stale_temporaries(tempfile.mkdtemp(), r"ckpt-\d+\.h5")
        []
    """
    pattern = re.compile(
        rf"\.(?:{target_pattern})\.tmp-{re.escape(_HOST)}-(?P<pid>\d+)-[^/]*"
    )
    removed: list[Any] = []
    try:
        names = os.listdir(directory)
    except FileNotFoundError:
        return removed
    for name in names:
        match = pattern.fullmatch(name)
        if match and not _process_alive(int(match.group("pid"))):
            with contextlib.suppress(OSError):
                os.remove(os.path.join(directory, name))
                removed.append(os.path.join(directory, name))
    return removed


def read_regular_file(path: str, max_bytes: int, what: str) -> bytes:
    """The bytes of the regular file `path` (a symlink counts as its target), refusing
    anything else before reading: a FIFO (which would block forever), a device such as
    ``/dev/zero`` (endless), a directory, or a file larger than `max_bytes`.

    The file is opened without blocking and checked on the open descriptor, so it cannot
    be swapped for a FIFO between the check and the read.

    Raises:
        InvalidArgumentError: starting with `what` (e.g. ``"StringLookup: vocabulary
            file"``), naming the path and the problem.

    Examples:
        >>> import os, tempfile
        >>> from eagerflow.saving import fileio
        >>> path = os.path.join(tempfile.mkdtemp(), "v.txt")
        >>> _ = open(path, "w").write("a\\nb\\n")
        >>> fileio.read_regular_file(path, 100, "vocabulary file")
        b'a\\nb\\n'
        >>> try:
        ...     fileio.read_regular_file(os.path.dirname(path), 100, "vocabulary file")
        ... except ValueError as e:
        ...     print(str(e)[-49:])
        (it is a directory); only regular files are read.
    """
    from eagerflow.core import errors

    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | \
        getattr(os, "O_BINARY", 0)
    try:
        handle = os.open(path, flags)
    except FileNotFoundError:
        raise errors.InvalidArgumentError(f"{what} {path!r} does not exist.") from None
    except (OSError, ValueError) as e:  # ValueError: a NUL in the path
        raise errors.InvalidArgumentError(
            f"{what} {path!r} cannot be opened ({getattr(e, 'strerror', None) or e}).") from None
    try:
        info = os.fstat(handle)
        if not stat.S_ISREG(info.st_mode):
            kinds = [(stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"),
                     (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                     (stat.S_ISSOCK, "a socket")]
            kind = next((name for test, name in kinds if test(info.st_mode)), "not a file")
            raise errors.InvalidArgumentError(
                f"{what} {path!r} is not a regular file (it is {kind}); only regular files "
                "are read.")
        data = b""
        if info.st_size <= max_bytes:  # read one byte more: a file that grew is refused too
            with os.fdopen(handle, "rb", closefd=False) as file:
                data = file.read(max_bytes + 1)
        if info.st_size > max_bytes or len(data) > max_bytes:
            raise errors.InvalidArgumentError(
                f"{what} {path!r} has more than the {max_bytes} bytes allowed "
                f"({max(info.st_size, len(data))}{'+' if len(data) > max_bytes else ''}); "
                "nothing was read past the limit.")
    finally:
        os.close(handle)
    return data


MAX_JSON_DEPTH = 200  # far deeper than any model config; far below Python's recursion limit


def json_depth(text: str) -> int:
    """The deepest nesting of arrays and objects in JSON `text` (strings skipped).

    Examples:
        >>> from eagerflow.saving import fileio
        >>> fileio.json_depth('{"a": [1, {"b": "[[["}]}')
        3
    """
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


def loads_json(text: str, where: str, error=ValueError):
    """`json.loads` with the nesting depth checked first (a hostile file could otherwise
    exhaust the interpreter's recursion), errors raised as `error` naming `where`.

    Examples:
        >>> from eagerflow.saving import fileio
        >>> fileio.loads_json('{"a": 1}', "config")
        {'a': 1}
        >>> try:
        ...     fileio.loads_json("[" * 1000 + "]" * 1000, "config")
        ... except ValueError as e:
        ...     print(str(e)[:48])
        config: the JSON is nested 1000 levels deep (mor
    """
    import json

    depth = json_depth(text)
    if depth > MAX_JSON_DEPTH:
        raise error(f"{where}: the JSON is nested {depth} levels deep (more than "
                    f"{MAX_JSON_DEPTH}); it was not written by eagerflow or was altered.")
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as e:
        raise error(f"{where}: not valid JSON ({e}).") from e
