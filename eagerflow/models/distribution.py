"""Which `ef.distribute` strategy an object belongs to: the registry behind its scopes.

`fit` (here in models) and `ef.distribute` (above it) both read it. The first
``scope(strategy)`` installs this module as `context.creation_observer`, the hook that
`Variable.__init__`, `Trackable.__new__` and `Trackable._track_new_variable` /
`_track_new_slot` call. While a scope is open, every Trackable made (layer, model,
optimizer, metric) is recorded as owned by the strategy (`of(obj)`), and every Variable made
is handed to ``strategy._variable_created(variable)``. Later creations by an owned object
(a layer built on its first call after the block, an optimizer slot) reach the owner's
strategy through `announce`, after any deferred checkpoint restore filled them. The
strategy's protocol is described in `eagerflow/distribute/mpi_strategy.py`.

Examples:
    >>> import eagerflow as ef
    >>> from eagerflow.models import distribution
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
import sys
import weakref

from eagerflow.core import context

_owners: dict[int, object] = {}  # id(object made under a scope) -> its strategy
_replica_counts: set[int] = set()  # num_replicas_in_sync of the strategies made so far


def strategy_made(strategy) -> None:
    """Called by a strategy when it is made: `fit` warns when a model trains outside
    every strategy of a process that is one of several replicas."""
    _replica_counts.add(int(getattr(strategy, "num_replicas_in_sync", 1)))


def replicas_expected() -> int:
    """The largest replica count of the strategies made in this process (1 if none)."""
    return max(_replica_counts, default=1)


@contextlib.contextmanager
def scope(strategy):
    """Makes `strategy` current in this thread for the block (see the module docstring)."""
    context.creation_observer = sys.modules[__name__]  # type: ignore[assignment]  # from now on, creations come here
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
        _reduce_gradients_of(obj, strategy)
    if strategy is not None and variable:
        with context.init_scope():  # a real, one-time write even while tracing
            strategy._variable_created(obj)


def _reduce_gradients_of(obj, strategy) -> None:
    """An optimizer made under the scope averages its gradients over the ranks in every
    update (as TensorFlow's optimizers do under a strategy): also one that `fit` does not
    know of (a GAN's two optimizers in a custom `train_step`)."""
    reducer = getattr(strategy, "_reduce_gradients", None)
    if reducer is None:
        return
    from eagerflow.optim import optimizer as optimizer_lib

    if isinstance(obj, optimizer_lib.Optimizer):
        obj.__dict__["_gradient_reducer"] = reducer


def announce(owner, variable, parent=None) -> None:
    """`owner` made `variable` (`parent`'s slot, if given): its strategy sees it."""
    strategy = _owners.get(id(owner)) or _owners.get(id(parent))
    if strategy is not None:
        with scope(strategy):
            object_created(variable, variable=True)
