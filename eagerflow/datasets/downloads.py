"""Where the built-in data sets are stored, and how they get there.

Files live in a cache directory: ``$EAGERFLOW_DATA_DIR`` when set, else
``~/.eagerflow/datasets``. A missing file is downloaded from its canonical address
with a progress bar, written to a temporary file in that directory, checked against
its published checksum and only then renamed into place. When that fails (no network,
a wrong checksum) the error says which file to put where.

Examples:
    >>> import os
    >>> from eagerflow.datasets import downloads
    >>> default = os.path.expanduser(os.path.join("~", ".eagerflow", "datasets"))
    >>> downloads.data_dir() == os.environ.get("EAGERFLOW_DATA_DIR", default)
    True
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from typing import NamedTuple

from eagerflow.core import errors

ENV_VAR = "EAGERFLOW_DATA_DIR"
_TIMEOUT_SECONDS = 30
_CHUNK = 1 << 16


def _urlopen(url: str, timeout: float):
    """Opens `url` (tests replace this function to simulate the network)."""
    import urllib.request  # imported on first download: it costs ~20 ms at import time

    return urllib.request.urlopen(url, timeout=timeout)


class RemoteFile(NamedTuple):
    """A file of a data set: its name, where to get it, and its published checksum.

    Attributes:
        name: the file name in the cache directory.
        urls: addresses to try in order.
        checksum: ``"sha256:<hex>"`` or ``"md5:<hex>"``.
    """

    name: str
    urls: tuple
    checksum: str


def data_dir() -> str:
    """The cache directory: ``$EAGERFLOW_DATA_DIR`` or ``~/.eagerflow/datasets``."""
    configured = os.environ.get(ENV_VAR)
    if configured:
        return configured
    return os.path.join(os.path.expanduser("~"), ".eagerflow", "datasets")


def download(url: str, path: str, checksum: str) -> None:
    """Downloads `url` to `path` atomically, verifying `checksum` first.

    Raises:
        OSError: (including `urllib.error.URLError`) when the transfer fails.
        http.client.HTTPException: when the server's answer breaks off.
        InvalidArgumentError: when the checksum differs; nothing is left behind.
    """
    from tqdm.auto import tqdm  # only needed when downloading

    algorithm, expected = checksum.split(":", 1)
    digest = hashlib.new(algorithm)
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=directory, prefix=os.path.basename(path) + ".",
                                         suffix=".part")
    try:
        with os.fdopen(handle, "wb") as out, _urlopen(url, timeout=_TIMEOUT_SECONDS) as response:
            length = response.headers.get("Content-Length")
            with tqdm(total=int(length) if length else None, unit="B", unit_scale=True,
                      desc=os.path.basename(path)) as bar:
                while chunk := response.read(_CHUNK):
                    out.write(chunk)
                    digest.update(chunk)
                    bar.update(len(chunk))
            out.flush()
            os.fsync(out.fileno())
        if digest.hexdigest() != expected.lower():
            raise errors.InvalidArgumentError(
                f"The {algorithm} checksum of {url} is {digest.hexdigest()}, but the published "
                f"one is {expected}: the download is corrupt or not the expected file. "
                "Nothing was saved."
            )
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise


def fetch(files, directory: str, what: str, alternatives: str = "") -> list:
    """Local paths of `files` in `directory`, downloading the missing ones.

    Args:
        files: `RemoteFile`s.
        directory: where they are stored.
        what: the data set's name, for messages.
        alternatives: extra text for the error message (other accepted layouts).

    Raises:
        NotFoundError: when a file is missing and cannot be downloaded; the message
            lists each file, its address and where to save it.
        InvalidArgumentError: when a downloaded file fails its checksum (at every
            mirror); the message has the same instructions.
    """
    import http.client

    paths = []
    for remote in files:
        path = os.path.join(directory, remote.name)
        if not os.path.exists(path):
            failures, corrupt = [], False
            for url in remote.urls:  # mirrors, in order
                try:
                    download(url, path, remote.checksum)
                    break
                except errors.InvalidArgumentError as e:
                    corrupt = True
                    failures.append(f"{url}: {e}")
                except (OSError, ValueError, http.client.HTTPException) as e:
                    failures.append(f"{url}: {e}")
            else:
                message = _missing_message(files, directory, what, failures, alternatives)
                if corrupt:
                    raise errors.InvalidArgumentError(message)
                raise errors.NotFoundError(message)
        paths.append(path)
    return paths


def _missing_message(files, directory, what, failures, alternatives) -> str:
    lines = [f"{what} is not in {directory} and could not be downloaded:"]
    lines += [f"  {failure}" for failure in failures]
    lines.append("Download these files and save them exactly as:")
    for remote in files:
        lines.append(f"  {os.path.join(directory, remote.name)}   <- {remote.urls[0]} "
                     f"({remote.checksum})")
    if alternatives:
        lines.append(alternatives)
    lines.append(f"or set {ENV_VAR} to the directory that holds them, or pass "
                 "load_data(path=...).")
    return "\n".join(lines)
