"""Looking inside checkpoint files without building any object.

Also a command: ``python -m eagerflow.saving FILE`` prints every saved variable.

Examples:
    >>> import os, tempfile
    >>> import eagerflow as ef
    >>> path = ef.Checkpoint(w=ef.Variable([[1.0, 2.0]])).write(
    ...     os.path.join(tempfile.mkdtemp(), "w.h5"))
    >>> ef.saving.list_variables(path)
    [('w', (1, 2), 'float32')]
    >>> ef.saving.load_variable(path, "w")
    array([[1., 2.]], dtype=float32)
"""

from __future__ import annotations

import os
from typing import Any

from eagerflow.core import errors
from eagerflow.saving import checkpoint, h5format


def list_variables(ckpt_dir_or_file: str | os.PathLike[str]) -> list:
    """Lists the variables saved in a checkpoint.

    Args:
        ckpt_dir_or_file: a checkpoint file, or a directory (its latest checkpoint).

    Returns:
        ``[(path, shape, dtype name), ...]`` sorted by path.

    Raises:
        NotFoundError, InvalidCheckpointError: as `Checkpoint.restore`.

    Examples:
        >>> import os, tempfile
        >>> import eagerflow as ef
        >>> path = ef.Checkpoint(step=ef.Variable(3)).write(
        ...     os.path.join(tempfile.mkdtemp(), "s.h5"))
        >>> ef.saving.list_variables(path)
        [('step', (), 'int32')]
    """
    with h5format.Reader(checkpoint.resolve_path(ckpt_dir_or_file)) as reader:
        return sorted((key, e.shape, e.dtype.name) for key, e in reader.entries.items())


def load_variable(ckpt_dir_or_file: str | os.PathLike[str], name: str) -> Any:
    """Returns the saved value at path `name` as a NumPy array.

    Args:
        ckpt_dir_or_file: a checkpoint file, or a directory (its latest checkpoint).
        name: the object path, e.g. ``"model/dense1/kernel"``.

    Returns:
        A new ndarray.

    Raises:
        NotFoundError: if the file does not exist or has no value at `name`.

    Examples:
        >>> import os, tempfile
        >>> import eagerflow as ef
        >>> path = ef.Checkpoint(step=ef.Variable(3)).write(
        ...     os.path.join(tempfile.mkdtemp(), "s.h5"))
        >>> ef.saving.load_variable(path, "step")
        array(3, dtype=int32)
    """
    with h5format.Reader(checkpoint.resolve_path(ckpt_dir_or_file)) as reader:
        if name not in reader.entries:
            close = sorted(k for k in reader.entries if k.rsplit("/", 1)[-1]
                           == name.rsplit("/", 1)[-1])
            raise errors.NotFoundError(
                f"Checkpoint {reader.path!r} has no variable {name!r}"
                + (f"; similar paths: {close[:5]}" if close else "")
                + f" ({len(reader.entries)} variables; see list_variables)."
            )
        return reader.read(name)


class CheckpointReader:
    """Reads a checkpoint's variables by name without building any object (TensorFlow's
    `tf.train.load_checkpoint` reader). Made by `load_checkpoint`.

    Each `get_tensor` opens the file, reads that value and checks its checksum; the
    reader keeps only the file's table of contents.

    Examples:
        >>> import os, tempfile
        >>> import eagerflow as ef
        >>> path = ef.Checkpoint(w=ef.Variable([[1.0, 2.0]])).write(
        ...     os.path.join(tempfile.mkdtemp(), "w.h5"))
        >>> reader = ef.train.load_checkpoint(path)
        >>> reader.get_variable_to_shape_map(), reader.has_tensor("w")
        ({'w': [1, 2]}, True)
        >>> reader.get_tensor("w")
        array([[1., 2.]], dtype=float32)
    """

    def __init__(self, path: str) -> None:  # noqa: D107
        self.path = path
        with h5format.Reader(path) as reader:
            self._entries = dict(reader.entries)

    def get_variable_to_shape_map(self) -> dict:
        """``{name: shape as a list}`` of every saved variable."""
        return {k: list(e.shape) for k, e in sorted(self._entries.items())}

    def get_variable_to_dtype_map(self) -> dict:
        """``{name: numpy dtype}`` of every saved variable."""
        return {k: e.dtype for k, e in sorted(self._entries.items())}

    def has_tensor(self, name: str) -> bool:
        """Whether the checkpoint holds a variable at path `name`."""
        return name in self._entries

    def get_tensor(self, name: str) -> Any:
        """The saved value at path `name`, as a new NumPy array.

        Raises:
            NotFoundError: if there is no variable at `name` (similar paths are named).
            InvalidCheckpointError: if its data is corrupt.
        """
        return load_variable(self.path, name)

    def __repr__(self) -> str:
        return f"<CheckpointReader {self.path!r}: {len(self._entries)} variables>"


def load_checkpoint(ckpt_dir_or_file: str | os.PathLike[str]) -> CheckpointReader:
    """A `CheckpointReader` for a checkpoint file, or a directory's latest checkpoint.

    Raises:
        NotFoundError: if there is no such file (or no checkpoint in the directory).
        InvalidCheckpointError: if the file is not a valid checkpoint.

    Examples:
        >>> import os, tempfile
        >>> import eagerflow as ef
        >>> path = ef.Checkpoint(step=ef.Variable(3)).write(
        ...     os.path.join(tempfile.mkdtemp(), "s.h5"))
        >>> ef.train.load_checkpoint(path).get_variable_to_dtype_map()
        {'step': dtype('int32')}
    """
    return CheckpointReader(checkpoint.resolve_path(ckpt_dir_or_file))


def list_variables_tf(ckpt_dir_or_file: str | os.PathLike[str]) -> list:
    """TensorFlow's `tf.train.list_variables`: ``[(name, shape as a list), ...]`` sorted by
    name (`ef.saving.list_variables` also gives each dtype).

    Examples:
        >>> import os, tempfile
        >>> import eagerflow as ef
        >>> path = ef.Checkpoint(w=ef.Variable([[1.0, 2.0]])).write(
        ...     os.path.join(tempfile.mkdtemp(), "w.h5"))
        >>> ef.train.list_variables(path)
        [('w', [1, 2])]
    """
    return [(name, list(shape)) for name, shape, _ in list_variables(ckpt_dir_or_file)]


def main(argv=None) -> int:
    """Prints the variables of each checkpoint named on the command line.

    Examples:
        >>> import os, tempfile
        >>> import eagerflow as ef
        >>> from eagerflow.saving import listing
        >>> path = ef.Checkpoint(step=ef.Variable(3)).write(
        ...     os.path.join(tempfile.mkdtemp(), "s.h5"))
        >>> listing.main([path])  # doctest: +ELLIPSIS
        /...s.h5
          step  []  int32
          1 variables, 1 values
        0
    """
    import argparse

    parser = argparse.ArgumentParser(prog="python -m eagerflow.saving",
                                     description="List the variables in checkpoint files.")
    parser.add_argument("paths", nargs="+", help="checkpoint files or directories")
    args = parser.parse_args(argv)
    for path in args.paths:
        rows = list_variables(path)
        total = 0
        print(checkpoint.resolve_path(path))
        for key, shape, dtype in rows:
            count = 1
            for n in shape:
                count *= n
            total += count
            print(f"  {key}  {list(shape)}  {dtype}")
        print(f"  {len(rows)} variables, {total} values")
    return 0
