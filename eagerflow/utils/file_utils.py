"""`get_file` (Keras's ``keras.utils.get_file``): a file fetched once into a cache
directory, verified, and optionally extracted.

The origin may be a local path or a ``file://`` address (both work offline) or an
``http(s)://`` address. Downloads are written to a temporary file and renamed into place
only when complete and, given a hash, verified. Archives are extracted as hostile input:
a member whose path leaves the extraction directory (absolute, ``..``, a link pointing
out) or that is not a plain file or directory refuses the whole archive, and the
extraction is written to a temporary directory renamed into place when complete.

Examples:
    >>> import os, tempfile, eagerflow as ef
    >>> source = os.path.join(tempfile.mkdtemp(), "notes.txt")
    >>> with open(source, "w") as f:
    ...     _ = f.write("hello")
    >>> path = ef.utils.get_file(origin="file://" + source, cache_dir=tempfile.mkdtemp())
    >>> os.path.basename(path), open(path).read()
    ('notes.txt', 'hello')
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tarfile
import tempfile
import urllib.parse
import zipfile
from typing import Any

from eagerflow.core import errors
from eagerflow.saving import fileio

ENV_VAR = "EAGERFLOW_HOME"
_CHUNK = 1 << 16
_TIMEOUT_SECONDS = 30


def _home() -> str:
    return os.environ.get(ENV_VAR) or os.path.join(os.path.expanduser("~"), ".eagerflow")


def _hash_of(path: str, algorithm: str) -> str:
    digest = hashlib.new(algorithm)
    with open(path, "rb") as f:
        while chunk := f.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def _algorithm(hash_algorithm: str, file_hash: str) -> str:
    if hash_algorithm not in ("auto", "md5", "sha256"):
        raise ValueError(f"get_file: hash_algorithm must be 'auto', 'md5' or 'sha256'; got "
                         f"{hash_algorithm!r}")
    if hash_algorithm == "auto":
        return "sha256" if len(file_hash) == 64 else "md5"
    return hash_algorithm


def _copy_into(origin: str, target: str) -> None:
    """Copies a local file or downloads a URL to `target`, atomically."""
    parsed = urllib.parse.urlsplit(origin)
    if parsed.scheme in ("http", "https", "ftp"):
        from urllib import request  # ~20 ms to import: only when downloading

        try:
            source: Any = request.urlopen(origin, timeout=_TIMEOUT_SECONDS)
        except OSError as e:
            raise errors.NotFoundError(
                f"get_file could not download {origin}: {e}. Without a network, download the "
                "file elsewhere and pass its local path (or a file:// address) as `origin`."
            ) from e
    else:
        local = urllib.parse.unquote(parsed.path) if parsed.scheme == "file" else origin
        if not os.path.isfile(local):
            raise errors.NotFoundError(f"get_file: no file at {origin!r}")
        source = open(local, "rb")

    def write(temporary: str) -> None:
        with source, open(temporary, "wb") as out:
            shutil.copyfileobj(source, out, _CHUNK)

    fileio.atomic_write(target, write)


def _inside(root: str, name: str, archive: str) -> str:
    target = os.path.realpath(os.path.join(root, name))
    if os.path.isabs(name) or not (target == root or target.startswith(root + os.sep)):
        raise errors.InvalidArgumentError(
            f"get_file refuses to extract {archive}: its member {name!r} would be written "
            f"outside the extraction directory")
    return target


def _extract(archive: str, destination: str, archive_format: Any) -> bool:
    formats = ["tar", "zip"] if archive_format == "auto" else (
        [archive_format] if isinstance(archive_format, str) else list(archive_format or []))
    for kind in formats:
        if kind not in ("tar", "zip"):
            raise ValueError(f"get_file: archive_format must be 'auto', 'tar', 'zip' or None; "
                             f"got {kind!r}")
        if kind == "tar" and tarfile.is_tarfile(archive):
            opener: Any = tarfile.open
        elif kind == "zip" and zipfile.is_zipfile(archive):
            opener = zipfile.ZipFile
        else:
            continue
        parent = os.path.dirname(destination)
        staging = tempfile.mkdtemp(dir=parent, prefix=os.path.basename(destination) + ".")
        root = os.path.realpath(staging)
        try:
            with opener(archive) as opened:
                if kind == "tar":
                    for member in opened.getmembers():
                        _inside(root, member.name, archive)
                        if not (member.isfile() or member.isdir()):
                            raise errors.InvalidArgumentError(
                                f"get_file refuses to extract {archive}: its member "
                                f"{member.name!r} is a link or special file")
                    opened.extractall(root, filter="data")
                else:
                    for name in opened.namelist():
                        _inside(root, name, archive)
                    opened.extractall(root)
            if os.path.isdir(destination):
                shutil.rmtree(destination)
            os.replace(staging, destination)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        return True
    return False


def get_file(fname: str | None = None, origin: str | None = None, untar: bool = False,
             md5_hash: str | None = None, file_hash: str | None = None,
             cache_subdir: str = "datasets", hash_algorithm: str = "auto",
             extract: bool = False, archive_format: Any = "auto", cache_dir: str | None = None,
             force_download: bool = False) -> str:
    """The local path of a file from `origin`, fetched into a cache directory if missing.

    The file goes to ``cache_dir/cache_subdir/fname`` (``cache_dir`` defaults to
    ``$EAGERFLOW_HOME`` or ``~/.eagerflow``; an absolute `cache_subdir` is used as it is),
    with Keras 3's names: with `extract`, the archive is kept as ``<fname>_archive`` and
    extracted into ``<fname>`` (or, for an `fname` with an extension, kept as `fname` and
    extracted into ``<stem>_extracted``), and that directory is returned.

    Args:
        fname: the local file name (no directories); default: the last part of `origin`.
        origin: a local path, a ``file://`` address or an ``http(s)://`` address.
        untar: deprecated form of ``extract=True, archive_format="tar"``.
        md5_hash: deprecated form of `file_hash` with ``hash_algorithm="md5"``.
        file_hash: the expected sha256 or md5 hex digest: a cached file that differs is
            fetched again, and a fetched file that differs is an error (and not kept).
        cache_subdir: the subdirectory of `cache_dir`.
        hash_algorithm: ``"auto"`` (by the digest's length), ``"md5"`` or ``"sha256"``.
        extract: extract a tar or zip archive.
        archive_format: ``"auto"`` (tar, then zip), ``"tar"``, ``"zip"``, a list, or None.
        cache_dir: the cache directory.
        force_download: fetch even when a cached copy exists.

    Returns:
        The path of the file, or of the extraction directory.

    Raises:
        ValueError: without `origin`, for an `fname` that holds a directory, or when the
            fetched file's hash differs from `file_hash`.
        NotFoundError: when `origin` cannot be read (a missing local file, no network);
            nothing is left behind.
        InvalidArgumentError: for an archive with a member that would land outside the
            extraction directory, or a link or special-file member.
    """
    if origin is None:
        raise ValueError('Please specify the "origin" argument (URL of the file to download).')
    if md5_hash is not None and file_hash is None:
        file_hash, hash_algorithm = md5_hash, "md5"
    algorithm = _algorithm(hash_algorithm, file_hash) if file_hash else ""
    directory = os.path.join(os.path.expanduser(cache_dir or _home()), cache_subdir)
    os.makedirs(directory, exist_ok=True)
    provided = os.fspath(fname) if fname else None
    name = provided or os.path.basename(urllib.parse.urlsplit(origin).path)
    if not name:
        raise ValueError(f"Can't parse the file name from the origin provided: '{origin}'. "
                         "Please specify the `fname` argument.")
    if os.sep in name or (os.altsep and os.altsep in name) or name in (".", ".."):
        raise ValueError("Paths are no longer accepted as the `fname` argument. To specify the "
                         f"file's parent directory, use the `cache_dir` argument. Received: "
                         f"fname={name}")
    extraction = None
    if extract or untar:
        if provided and "." in name:
            target = os.path.join(directory, name)
            extraction = os.path.join(directory, name[:name.find(".")] + "_extracted")
        else:
            target = os.path.join(directory, name + "_archive")
            extraction = os.path.join(directory, name)
    else:
        target = os.path.join(directory, name)
    fetch = force_download or not os.path.exists(target) or bool(
        file_hash and _hash_of(target, algorithm) != file_hash.lower())
    if fetch:
        _copy_into(origin, target)
        if file_hash and _hash_of(target, algorithm) != file_hash.lower():
            os.unlink(target)
            raise ValueError(f"Incomplete or corrupted file detected. The {algorithm} file "
                             f"hash of {origin} does not match the provided value of "
                             f"{file_hash}; nothing was kept.")
    if extraction is None:
        return target
    if not _extract(target, extraction, "tar" if untar else archive_format):
        raise errors.InvalidArgumentError(
            f"get_file could not extract {target}: it is not a {archive_format} archive")
    return extraction
