"""Which distribution strategy an object belongs to, for code below `ef.distribute`.

Layers, optimizers and `fit` cannot import `ef.distribute` (it sits above them), so they
reach the strategy here. While ``scope(strategy)`` is open (``strategy.scope()``), every
Trackable constructed is recorded as owned by it (`of(obj)`), and every Variable
constructed is handed to ``strategy._variable_created(variable)``. Later creations by an
owned object (a layer built on its first call, an optimizer slot) come through
`Trackable._track_new_variable` / `_track_new_slot` to `announce`, after any deferred
restore filled them. The strategy's protocol is in `eagerflow/distribute/mpi_strategy.py`.

Examples:
    >>> import eagerflow as ef
    >>> from eagerflow.core import distribution
    >>> class Recorder:
    ...     seen = []
    ...     def _variable_created(self, variable):
    ...         self.seen.append(variable.name)
    >>> recorder = Recorder()
    >>> with distribution.scope(recorder):
    ...     layer = ef.layers.Dense(2, name="d")
    ...     v = ef.Variable(1.0, name="v")
    >>> _ = layer(ef.ones([1, 3]))          # built after the block: still seen
    >>> recorder.seen, distribution.of(layer) is recorder
    (['v', 'd/kernel', 'd/bias'], True)
"""

from __future__ import annotations

import contextlib
import weakref

from eagerflow.core import context

_owners: dict[int, object] = {}  # id(object made under a scope) -> its strategy


@contextlib.contextmanager
def scope(strategy):
    """Makes `strategy` current in this thread for the block (see the module docstring)."""
    stack = context.thread.__dict__.setdefault("strategies", [])
    stack.append(strategy)
    try:
        yield strategy
    finally:
        stack.pop()


def current():
    """The innermost strategy whose scope is open in this thread, or None."""
    stack = context.thread.__dict__.get("strategies")
    return stack[-1] if stack else None


def of(obj):
    """The strategy `obj` (a Trackable or a Variable) was made under, or None."""
    return _owners.get(id(obj))


def object_created(obj, variable=False) -> None:
    """Records `obj` (made in an open scope) as owned; a Variable is also handed over."""
    strategy = current()
    if strategy is not None and id(obj) not in _owners:
        _owners[id(obj)] = strategy
        weakref.finalize(obj, _owners.pop, id(obj), None)  # the entry goes with its object
    if strategy is not None and variable:
        with context.eager_scope():  # a real, one-time write even while tracing
            strategy._variable_created(obj)


def announce(owner, variable, parent=None) -> None:
    """`owner` made `variable` (`parent`'s slot, if given): its strategy sees it."""
    strategy = _owners.get(id(owner)) or _owners.get(id(parent))
    if strategy is not None:
        with scope(strategy):
            object_created(variable, variable=True)
