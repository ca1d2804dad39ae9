"""Restoring: match saved values to variables by path, now or when they are created.

`restore` opens a file, walks the object graph, checks shapes and dtypes of every match,
reads (and verifies) every value into memory, and only then assigns the matches: a load
that fails leaves every object exactly as it was. It keeps in memory the saved values
whose variables do not exist yet but could still appear (their parent object exists: an
unbuilt layer, an optimizer without slots yet). Those wait in the returned
`status.CheckpointLoadStatus`.

Examples:
    >>> import os, tempfile
    >>> import eagerflow as ef
    >>> from eagerflow.saving import restore
    >>> path = ef.Checkpoint(w=ef.Variable([1.0, 2.0])).write(
    ...     os.path.join(tempfile.mkdtemp(), "w.h5"))
    >>> w = ef.Variable([0.0, 0.0])
    >>> restore.restore(path, {"w": w}).matched
    ['w']
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from eagerflow.core import errors, variable
from eagerflow.saving import binding, h5format, object_graph, status


def _could_appear(key: str, bound: binding.Binding, open_root: bool) -> bool:
    """Whether a variable for saved `key` may still be created: the nearest file node above
    it that stands for a live object stands for an object (not a variable), so e.g. building
    a layer or a first optimizer step can create it; or none does yet and the root takes new
    attributes (a Checkpoint: ``ckpt.v = ef.Variable(0.)`` after `restore`)."""
    if key in bound.objects:
        return False  # something that is not a restorable variable already stands there
    parts = key.split("/")
    for end in range(len(parts) - 1, 0, -1):
        node = bound.objects.get("/".join(parts[:end]))
        if node is not None:
            return not isinstance(node, variable.Variable)
    return open_root


def read_aliases(reader) -> dict:
    """The file's validated alias record (`binding.decode_aliases`); ``{}`` for files
    written without one.

    Raises:
        InvalidCheckpointError: naming the file and what is wrong with the record.
    """
    blob = reader.metadata(binding.ALIASES)
    if blob is None:
        return {}
    try:
        return binding.decode_aliases(blob, reader.entries)
    except ValueError as e:
        raise h5format.InvalidCheckpointError(
            f"Checkpoint file {reader.path!r}: refusing its object alias record: {e}.") from None


def restore(save_path, roots: Mapping, exclude=(), optional=(), skip_mismatch=False,
            strict=False, then: Callable[[], None] | None = None, open_root: bool = False):
    """Restores `roots` from the file `save_path`; see the module docstring.

    Args:
        save_path: an existing checkpoint file.
        roots: ``{name: object}`` as for `object_graph.walk`.
        exclude: objects not to restore into.
        optional: file paths that are neither required nor reported unused.
        skip_mismatch: skip (and list) values whose shape or dtype differs instead of
            raising.
        strict: also raise (before assigning anything) if an existing variable has no
            value in the file, unless `skip_mismatch`.
        open_root: objects may still be attached to the root itself (a Checkpoint's
            roots, read live): values for top-level names nothing holds yet wait for them
            instead of being unused.
        then: a last step run after the values are assigned (layers' load hooks). If it
            raises, every variable of `roots` gets its previous value back and nothing is
            left pending, so the load still changes no variable.

    Returns:
        A `status.CheckpointLoadStatus`.

    Raises:
        NotFoundError, InvalidCheckpointError: see `h5format.Reader`.
        InvalidArgumentError: on a shape/dtype mismatch (nothing is assigned then), a
            missing value with `strict`, or if nothing in the file matches anything.

    Examples:
        >>> import os, tempfile
        >>> import eagerflow as ef
        >>> from eagerflow.saving import restore
        >>> path = ef.Checkpoint(w=ef.Variable(1.0), b=ef.Variable(2.0)).write(
        ...     os.path.join(tempfile.mkdtemp(), "wb.h5"))
        >>> status = restore.restore(path, {"w": ef.Variable(0.0)})
        >>> status.matched, status.unused
        (['w'], ['b'])
    """
    with h5format.Reader(save_path) as reader:
        if reader.kind == "saved_model":  # (written by the same writer, holds no objects)
            raise h5format.InvalidCheckpointError(
                f"{reader.path!r} is an ef.saved_model export, not a checkpoint, weights or "
                "model file: load it with ef.saved_model.load(path).")
        file = binding.FileGraph(reader.entries, read_aliases(reader))
        current = object_graph.walk(roots, exclude)
        targets = current.all_variables()
        bound = binding.bind(current, file)
        matches = bound.matches(current, file)
        ready, mismatches = [], []
        for path, target in matches.items():
            entry = reader.entries[path]
            if entry.shape != target.shape or entry.dtype != target.dtype:
                mismatches.append(status.Mismatch(path, entry.shape, entry.dtype,
                                                  target.shape, target.dtype))
            else:
                ready.append((path, target))
        pending_keys: list[Any] = []
        unused: list[Any] = []
        for key in reader.entries:
            if key in matches or key in optional:
                continue
            (pending_keys if _could_appear(key, bound, open_root) else unused).append(key)
        if not ready and not pending_keys and not mismatches:
            raise errors.InvalidArgumentError(
                f"Checkpoint {reader.path!r} matches nothing in the objects being restored. "
                f"Top-level names in the file: {_top_level(reader.entries)}; in the objects: "
                f"{sorted(object_graph.escape(name) for name in roots)}."
            )
        found = {id(target) for target in matches.values()}
        missing = [p for p, target in targets.items()
                   if id(target) not in found and p not in optional]
        if (mismatches or (strict and missing)) and not skip_mismatch:
            problems = [m.describe() for m in mismatches[:10]]
            if strict and missing:
                problems.append(f"{len(missing)} variable(s) have no value in the file: "
                                f"{status.short_list(missing)}")
            raise errors.InvalidArgumentError(
                f"Cannot restore checkpoint {reader.path!r} (nothing was restored): "
                + "; ".join(problems) + ". Variables and file side by side:\n"
                + _side_by_side({**{p: t for p, t in targets.items() if id(t) not in found},
                                 **matches}, reader.entries)
                + "\nPass skip_mismatch=True to skip what does not fit."
            )
        # All or nothing: every value is read (and checked) before any variable changes,
        # so a corrupt dataset leaves the objects exactly as they were.
        arrays = reader.read_all([path for path, _ in ready] + pending_keys)
        values = [(target, arrays[path]) for path, target in ready]
        pending = {key: arrays[key] for key in pending_keys}
        previous = [(target, target.numpy()) for target in targets.values()] if then else []
        with variable.atomic_update():  # a save in another thread sees all or none
            for target, value in values:
                variable.adopt(target, value)  # the fresh array becomes the value: no copy
        result = status.CheckpointLoadStatus(reader.path, roots, exclude, reader.entries,
                                             optional, skip_mismatch, file.aliases)
    if then is not None:
        try:
            then()
        except BaseException:
            for target, value in previous:
                variable.adopt(target, value)
            raise
    result._record([path for path, _ in ready], pending, unused, mismatches, current, bound)
    return result


def _side_by_side(targets: dict, entries: dict, limit: int = 40) -> str:
    """A table of variable paths and shapes next to file paths and shapes, differences
    marked, so the first divergence is visible at a glance."""
    rows = []
    for path in sorted(set(targets) | set(entries)):
        target, entry = targets.get(path), entries.get(path)
        ours = f"{target.shape} {target.dtype.name}" if target is not None else "-"
        theirs = f"{entry.shape} {entry.dtype.name}" if entry is not None else "-"
        rows.append(("  " if ours == theirs else "! ", path, ours, theirs))
    hidden = 0
    if len(rows) > limit:  # too long: keep the rows that differ
        shown = [r for r in rows if r[0] != "  "]
        hidden, rows = len(rows) - len(shown[:limit]), shown[:limit]
    width = max([len(r[1]) for r in rows] + [4])
    lines = [f"  {'path':<{width}}  {'variable':<24}  file"]
    lines += [f"{m}{p:<{width}}  {o:<24}  {t}" for m, p, o, t in rows]
    if hidden:
        lines.append(f"  ... ({hidden} more rows, mostly matching, not shown)")
    return "\n".join(lines)


def _top_level(entries) -> list:
    return sorted({key.split("/", 1)[0] for key in entries})
