"""One memory budget for everything a load allocates.

A file decides how much memory its load takes: the weights its architecture creates
(``Dense(units)``, ``Embedding(input_dim)``, ...), the values it stores, the buffers and
build probes its layer configs size (``RepeatVector(n)``, ``CategoryEncoding(num_tokens)``,
a lookup layer's ``max_tokens``, an ``Input`` shape), and the layer-state archive it
decompresses. `ef.models.load_model`, ``Model.load_weights``, `ef.saving.load_weights`,
``Checkpoint.restore`` / ``read`` and `ef.saved_model.load` therefore run inside one
`scope`: each of those allocations is charged to it *before* it is made (`charge`, or
``context.thread.load_budget`` in ops), and the first one that would take the load
past its budget raises `ResourceExhaustedError` naming the layer (or variable, or op) and
the sizes, with nothing allocated for it.

**The default budget** is twice the file's size plus 1 GiB. Eagerflow files store tensors
uncompressed, so a legitimate file's weights take about its own size; a load allocates
them at most twice (the variables the architecture builds and the values read into them),
and 1 GiB covers build probes, lookup buffers and the like with a wide margin. A 10 KB file
can therefore never make a load allocate more than about 1 GiB, however large the shapes
it names.

**Raising it**, for a trusted file whose layers legitimately allocate more than they store
(e.g. a large lookup layer saved before adapting): pass ``max_bytes=`` to the load
function, or set a process-wide default with ``ef.config.set_load_budget``, which also
covers loads made for you (callbacks, `CheckpointManager`).

Examples:
    >>> import os, tempfile
    >>> import eagerflow as ef
    >>> model = ef.Sequential([ef.Input((4,)), ef.layers.Dense(1000, name="wide")])
    >>> path = model.save(os.path.join(tempfile.mkdtemp(), "m.h5"))
    >>> try:
    ...     ef.models.load_model(path, max_bytes=10_000)
    ... except ef.errors.ResourceExhaustedError as e:
    ...     print(str(e).split("): ")[1].split(";")[0])
    layer 'wide': weight 'kernel' of shape (4, 1000) (float32) needs 16000 bytes (15.6 KiB)
    >>> ef.models.load_model(path, max_bytes=100_000).layers[0].units
    1000
"""

from __future__ import annotations

import contextlib
import math
import os
from collections.abc import Iterator

import numpy as np

from eagerflow import config
from eagerflow.core import context, errors

DEFAULT_SLACK = 1 << 30  # the default budget's allowance beyond twice the file's size


def check_max_bytes(max_bytes, function: str) -> int | None:
    """`max_bytes` as an int (or None), or a ValueError naming `function`.

    Examples:
        >>> from eagerflow.saving import load_budget
        >>> load_budget.check_max_bytes(10, "load_model")
        10
    """
    if max_bytes is None:
        return None
    if isinstance(max_bytes, bool) or not hasattr(type(max_bytes), "__index__") or (
            max_bytes < 0):  # (NumPy ints are ints too)
        raise ValueError(f"{function}: `max_bytes` must be None or a non-negative number of "
                         f"bytes. Received: max_bytes={max_bytes!r}")
    return int(max_bytes)


def _size(nbytes: int) -> str:
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if nbytes >= 1 << shift:
            return f"{nbytes / (1 << shift):.1f} {unit}"
    return f"{nbytes} bytes"


class LoadBudget:
    """What one load may still allocate (see the module docstring).

    Attributes:
        limit: the budget in bytes.
        spent: bytes charged so far (transient allocations excluded).
        function: the load function, for messages (``"load_model"``).
        path: the file being loaded.
    """

    def __init__(self, limit: int, function: str, path: str, origin: str) -> None:
        self.limit, self.function, self.path, self.origin = limit, function, path, origin
        self.spent = 0
        self._sites: list[str] = []

    def charge(self, shape, dtype, what: str, transient: bool = False) -> None:
        """Charges an array of `shape` and `dtype` for `what` (``"layer 'd': weight
        'kernel' ..."``) before it is allocated, raising `ResourceExhaustedError` instead
        if the load would exceed its budget. A `transient` allocation (a probe's output,
        freed at once) must fit in what is left but is not kept on the bill."""
        nbytes = math.prod(int(n) for n in shape) * np.dtype(dtype).itemsize
        total = self.spent + nbytes
        if total > self.limit:
            site = f"{self._sites[-1]}: " if self._sites and not what.startswith(
                "layer") else ""
            raise errors.ResourceExhaustedError(
                f"{self.function}({self.path!r}): {site}{what} needs {nbytes} bytes "
                f"({_size(nbytes)}); with {_size(self.spent)} already allocated, the load "
                f"would exceed its budget of {_size(self.limit)} ({self.origin}). Nothing was "
                "allocated for it. If the file is trusted, raise the budget with "
                f"{self.function}(..., max_bytes=...) or ef.config.set_load_budget(...).")
        if not transient:
            self.spent = total

    @contextlib.contextmanager
    def within(self, site: str) -> Iterator[None]:
        """Names `site` (``"layer 'repeat'"``) in errors of the charges made inside."""
        self._sites.append(site)
        try:
            yield
        finally:
            self._sites.pop()


@contextlib.contextmanager
def scope(function: str, path, max_bytes: int | None = None) -> Iterator[LoadBudget]:
    """Runs the load of `path` by `function` under one budget (this thread's allocations).

    A load inside another load (``load_model`` restoring its weights) shares the outer
    budget. `max_bytes` overrides `set_load_budget`, which overrides the default.

    Examples:
        >>> import os, tempfile
        >>> from eagerflow.saving import load_budget
        >>> path = os.path.join(tempfile.mkdtemp(), "f.h5")
        >>> _ = open(path, "wb").write(b"x" * 10)
        >>> with load_budget.scope("demo", path, max_bytes=100) as budget:
        ...     load_budget.charge((20,), "float32", "a buffer")
        >>> budget.spent
        80
    """
    active = context.thread.load_budget
    if active is not None:
        yield active
        return
    path = os.fspath(path)
    max_bytes = check_max_bytes(max_bytes, function)
    configured = config.get_load_budget()
    if max_bytes is not None:
        limit, origin = max_bytes, f"max_bytes={max_bytes}"
    elif configured is not None:
        limit, origin = configured, f"ef.config.set_load_budget({configured})"
    else:
        try:
            file_size = os.path.getsize(path)
        except OSError:
            file_size = 0  # the reader reports the missing file
        limit = 2 * file_size + DEFAULT_SLACK
        origin = f"the default: twice the file's {_size(file_size)} plus 1 GiB"
    budget = LoadBudget(limit, function, path, origin)
    context.thread.load_budget = budget
    try:
        yield budget
    finally:
        context.thread.load_budget = None


def charge(shape, dtype, what: str, transient: bool = False) -> None:
    """Charges an allocation to the load in progress in this thread (`LoadBudget.charge`);
    does nothing when no load is in progress.

    Examples:
        >>> from eagerflow.saving import load_budget
        >>> load_budget.charge((10 ** 12,), "float64", "no load: nothing to charge")
    """
    budget = context.thread.load_budget
    if budget is not None:
        budget.charge(shape, dtype, what, transient)


@contextlib.contextmanager
def new_weight(layer: str, name: str, shape, dtype) -> Iterator[None]:
    """Charges weight `name` of `layer` to the load in progress (if any), then runs the
    body (its initializer) with the budget suspended: the initial value *is* the
    allocation just charged, so its random draws are not charged twice."""
    budget = context.thread.load_budget
    if budget is None:
        yield
        return
    budget.charge(shape, dtype, f"layer {layer!r}: weight {name!r} of shape {tuple(shape)} "
                  f"({np.dtype(dtype).name})")
    context.thread.load_budget = None
    try:
        yield
    finally:
        context.thread.load_budget = budget


def site(name: str):
    """A context naming `name` in budget errors raised inside it, during a load (a no-op
    otherwise): the functional API wraps each layer's build probes in one."""
    budget = context.thread.load_budget
    return budget.within(name) if budget is not None else contextlib.nullcontext()

