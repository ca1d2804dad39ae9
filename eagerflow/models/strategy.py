"""The distribution strategy interface: the `Strategy` base class, the default strategy
(this process alone), and which strategy owns which object.

`fit`, `evaluate` and `predict` train through a strategy: the model's
(`model.distribute_strategy`), which is the default one, `get_strategy()`, when the model
was made under no ``strategy.scope()``. The trainer calls it unconditionally, so its loops
have no single-process branch: with one replica every collective is the identity and
every trainer hook leaves the data, logs and outputs as they are. A strategy for several
processes (`ef.distribute.MPIStrategy`) subclasses `Strategy` and supplies the
communication; what `fit` does with N replicas (split each global batch, merge logs, ...)
is written once, here and in `eagerflow/models/data_parallel.py`, on top of it.

This module lives in `models` (not in `ef.distribute`, which is above `models`) because the
layers, optimizers and `fit` must reach it: `ef.distribute` re-exports `Strategy`,
`get_strategy` and `has_strategy`.

The registry behind the scopes: the first ``strategy.scope()`` installs this module as
`context.creation_observer`, the hook that `Variable.__init__`, `Trackable.__new__` and
`Trackable._track_new_variable` / `_track_new_slot` call. While a scope is open, every
Trackable made (layer, model, optimizer, metric) is recorded as owned by the strategy
(`of(obj)`), every optimizer made gets the strategy's gradient reduction
(`Optimizer.gradient_reducer`), and every Variable made is handed to
``strategy.variable_created(variable)``. Later creations by an owned object (a layer
built on its first call after the block, an optimizer slot) reach the owner's strategy
through `announce`, after any deferred checkpoint restore filled them.

Examples:
    >>> import eagerflow as ef
    >>> from eagerflow.models import strategy as strategy_lib
    >>> class Recorder(strategy_lib.Strategy):
    ...     seen = []
    ...     def variable_created(self, variable):
    ...         self.seen.append(variable.name)
    >>> recorder = Recorder()
    >>> with recorder.scope():
    ...     layer = ef.layers.Dense(2, name="d")
    ...     v = ef.Variable(1.0, name="v")
    >>> _ = layer(ef.ones([1, 3]))          # built after the block: still seen
    >>> recorder.seen, strategy_lib.of(layer) is recorder
    (['v', 'd/kernel', 'd/bias'], True)
"""

from __future__ import annotations

import contextlib
import sys
import weakref
from collections.abc import Callable
from typing import Any

import numpy as np

from eagerflow.core import context, nest, tensor
from eagerflow.models import data_parallel
from eagerflow.ops import creation
from eagerflow.ops.typing import AxisLike

_owners: dict[int, object] = {}  # id(object made under a scope) -> its strategy
_replica_counts: set[int] = set()  # num_replicas_in_sync of the strategies made so far
_REDUCE_OPS = ("sum", "mean")


def _reduce_op(reduce_op, function: str) -> str:
    """`reduce_op` ("sum"/"mean" in any case, or an enum with such a `value`) as
    "sum"/"mean"; a clear error naming `function` otherwise."""
    op = str(getattr(reduce_op, "value", reduce_op)).lower()
    if op not in _REDUCE_OPS:
        raise ValueError(f"{function}: reduce_op must be 'sum' or 'mean'. "
                         f"Received: reduce_op={reduce_op!r}")
    return op


def _axes(axis, rank: int, function: str) -> tuple:
    """`axis` (an int or a sequence of them, negative counting from the end) as sorted
    non-negative ints, checked against a value of rank `rank`."""
    items = axis if isinstance(axis, (list, tuple)) else (axis,)
    axes = []
    for item in items:
        if isinstance(item, bool) or not isinstance(item, (int, np.integer)) or \
                not -rank <= int(item) < rank:
            raise ValueError(f"{function}: axis must be an int (or a list of ints) in "
                             f"[-{rank}, {rank}) for a value of rank {rank}. Received: "
                             f"axis={axis!r}")
        axes.append(int(item) % rank)
    if len(set(axes)) != len(axes):
        raise ValueError(f"{function}: axis {axis!r} names an axis twice")
    return tuple(sorted(axes))


def _numeric_tensor(value, function: str) -> tensor.Tensor:
    if not isinstance(value, tensor.Tensor):
        value = creation.convert_to_tensor(value)
    if value.dtype.kind not in "iufc":
        raise TypeError(f"{function}: expected a numeric value (integer or floating point); "
                        f"got dtype {value.dtype.name}. Cast it first, e.g. "
                        "ef.cast(value, 'int32').")
    return value


class Strategy:
    """A distribution strategy: how a model is trained over `num_replicas_in_sync`
    replicas; this base class is itself the default strategy, this process alone.

    Its public methods follow `tf.distribute.Strategy` where TensorFlow has the name
    (`num_replicas_in_sync`, `scope`, `run`, `reduce`, `gather`,
    `experimental_distribute_dataset`) and `tf.distribute.ReplicaContext` (`all_reduce`);
    `broadcast_object` and `all_gather_object` move Python objects as Horovod's do.
    With one replica every collective returns its input (as a tensor where it takes
    tensors).

    A strategy for several processes subclasses it and overrides the communication:
    `num_replicas_in_sync` and `rank` (attributes), `sum_arrays`, `all_reduce`, `gather`,
    `broadcast_object`, `all_gather_object`, and the hooks eagerflow calls:
    `variable_created` (a variable made under the scope), `reduce_gradients` (what every
    optimizer of the scope applies), `end_of_data`, `after_chief` and `report_failure`.
    What `fit`, `evaluate` and `predict` do with several replicas is written once in
    terms of these (the "trainer" methods below: `distribute_batches`,
    `prepare_training`, `any_replica`, `sync_start`, `reduce_logs`,
    `average_local_state`, `gather_predictions`); a subclass need not touch them.

    Attributes:
        num_replicas_in_sync: the number of replicas (processes) training together.
        rank: this process's replica, 0 to ``num_replicas_in_sync - 1``.

    Examples:
        >>> import eagerflow as ef
        >>> strategy = ef.distribute.get_strategy()    # the default: this process alone
        >>> strategy.num_replicas_in_sync, strategy.rank, strategy.is_chief
        (1, 0, True)
        >>> strategy.run(lambda x: x * 2, args=(ef.constant(3.0),))
        ef.Tensor(6.0, shape=(), dtype=float32)
        >>> strategy.reduce("sum", ef.constant([1.0, 2.0]), axis=0)
        ef.Tensor(3.0, shape=(), dtype=float32)
    """

    num_replicas_in_sync: int = 1
    rank: int = 0

    @property
    def is_chief(self) -> bool:
        """Whether this is replica 0, which shows progress and writes files."""
        return self.rank == 0

    def scope(self) -> Any:
        """A context manager: objects made inside belong to this strategy (their variables
        start equal on every replica, also those created after the block; their
        optimizers reduce gradients over the replicas).

        Examples:
            >>> import eagerflow as ef
            >>> strategy = ef.distribute.Strategy()
            >>> with strategy.scope():
            ...     model = ef.Sequential([ef.layers.Dense(1)])
            >>> model.distribute_strategy is strategy
            True
        """
        return scope(self)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} num_replicas_in_sync={self.num_replicas_in_sync}>"

    # -- the public API (TensorFlow's names) -----------------------------------------------
    def run(self, fn: Callable[..., Any], args: tuple = (), kwargs: dict | None = None) -> Any:
        """Runs ``fn(*args, **kwargs)`` on this process's replica and returns its result,
        this replica's (as `tf.distribute.Strategy.run`; a replica is a process here, so
        each process calls `run` with its own inputs). `fit`, `evaluate` and `predict` run
        every step through it.

        Examples:
            >>> import eagerflow as ef
            >>> ef.distribute.get_strategy().run(lambda x, y: x + y, args=(1,), kwargs={"y": 2})
            3
        """
        return fn(*args, **(kwargs or {}))

    def reduce(self, reduce_op: Any, value: Any, axis: AxisLike = None) -> Any:
        """The sum or mean of `value` over the replicas, returned on every replica.

        Works eagerly and inside `ef.function`. An integer mean rounds down; the mean of
        an axis with no rows on any replica is NaN.

        Args:
            reduce_op: ``"sum"`` or ``"mean"`` (any case).
            value: a tensor, array or number (same dtype, and same shape but along `axis`,
                on every replica).
            axis: also reduce this axis, or these axes (as TensorFlow's
                ``strategy.reduce(..., axis=0)`` does over the batch axis): the mean is
                then over all replicas' rows.

        Returns:
            A Tensor.

        Raises:
            ValueError: for another `reduce_op`, a bad `axis`, or (on every replica) values
                whose shapes or dtypes differ between the replicas.
            TypeError: for a value that is not numeric (bool, string).

        Examples:
            >>> import eagerflow as ef
            >>> strategy = ef.distribute.get_strategy()
            >>> strategy.reduce("mean", ef.constant([1.0, 3.0]), axis=0)
            ef.Tensor(2.0, shape=(), dtype=float32)
        """
        function = f"{type(self).__name__}.reduce"
        op = _reduce_op(reduce_op, function)
        from eagerflow import math
        from eagerflow.ops import array_ops

        value = _numeric_tensor(value, function)
        parts = [value]
        if axis is not None:  # the global mean divides by every replica's rows
            axes = _axes(axis, len(value.shape), function)
            count = creation.convert_to_tensor(1, dtype=value.dtype)
            for a in axes:
                count = count * math.cast(array_ops.shape(value)[a], value.dtype)
            parts = [math.reduce_sum(value, axis=list(axes)), count]
        parts = self.all_reduce("sum", parts)
        if op == "sum":
            return parts[0]
        divisor = parts[1] if axis is not None else self.num_replicas_in_sync
        return math.floordiv(parts[0], divisor) if value.dtype.kind in "iu" \
            else parts[0] / divisor

    def all_reduce(self, reduce_op: Any, value: Any) -> Any:
        """Each tensor of `value` (a tensor, array, number, or a list/dict of them) summed
        or averaged elementwise over the replicas, as `tf.distribute.ReplicaContext`'s
        ``all_reduce``; returned on every replica, as tensors in `value`'s structure.

        Works eagerly and inside `ef.function`. An integer mean rounds down.

        Args:
            reduce_op: ``"sum"`` or ``"mean"`` (any case).
            value: numeric tensors of the same shapes and dtypes on every replica.

        Returns:
            Tensors, in the structure of `value`.

        Raises:
            ValueError: for another `reduce_op`, or (on every replica) values whose shapes
                or dtypes differ between the replicas.
            TypeError: for a value that is not numeric.

        Examples:
            >>> import eagerflow as ef
            >>> ef.distribute.get_strategy().all_reduce("sum", {"a": ef.constant([1.0, 2.0])})
            {'a': ef.Tensor([1. 2.], shape=(2,), dtype=float32)}
        """
        function = f"{type(self).__name__}.all_reduce"
        _reduce_op(reduce_op, function)
        return nest.map_structure(lambda leaf: _numeric_tensor(leaf, function), value)

    def gather(self, value: Any, axis: int) -> Any:
        """Every replica's `value` concatenated along `axis`, in replica order, on every
        replica (as `tf.distribute.Strategy.gather`); the sizes along `axis` may differ.

        Args:
            value: a tensor or array of rank 1 or more (the same shape but along `axis`
                on every replica).
            axis: the axis to concatenate along (an int, negative counting from the end).

        Returns:
            A Tensor.

        Raises:
            ValueError: if `axis` is not an axis of `value`.

        Examples:
            >>> import eagerflow as ef
            >>> ef.distribute.get_strategy().gather(ef.constant([1.0, 2.0]), axis=0)
            ef.Tensor([1. 2.], shape=(2,), dtype=float32)
        """
        function = f"{type(self).__name__}.gather"
        if isinstance(axis, (list, tuple)):
            raise ValueError(f"{function}: axis must be one int. Received: axis={axis!r}")
        value = value if isinstance(value, tensor.Tensor) else creation.convert_to_tensor(value)
        _axes(axis, len(value.shape), function)
        return value

    def broadcast_object(self, obj: Any) -> Any:
        """The chief's (replica 0's) `obj`, any picklable Python object, on every replica.

        Examples:
            >>> import eagerflow as ef
            >>> ef.distribute.get_strategy().broadcast_object({"epoch": 3})
            {'epoch': 3}
        """
        return obj

    def all_gather_object(self, obj: Any) -> list:
        """Every replica's `obj` (any picklable Python object), in replica order, as a list
        on every replica.

        Examples:
            >>> import eagerflow as ef
            >>> ef.distribute.get_strategy().all_gather_object("rank 0's")
            ["rank 0's"]
        """
        return [obj]

    def distribute_dataset(self, dataset: Any) -> Any:
        """This replica's part of every global batch of `dataset` (batched with the global
        batch size): replica r gets rows ``[r * b, (r + 1) * b)`` of each batch, b = B / N.

        Every element is seen once per epoch by exactly one replica, and the replicas
        together see the batches one process would see. A replica whose dataset ends while
        another still has batches raises (no replica waits forever), when the dataset is
        read from the main thread: apply ``prefetch`` before this, not after.

        Args:
            dataset: an `ef.data.Dataset` of global batches, the same on every replica (its
                `shuffle` stages are given replica 0's seeds here, a collective: call this
                on every replica). Training needs batches that divide by N; `evaluate` and
                `predict` split any batch.

        Returns:
            An `ef.data.Dataset` of this replica's rows; `fit` accepts it as it is.

        Raises:
            TypeError: if `dataset` is not an `ef.data.Dataset`.

        Examples:
            >>> import eagerflow as ef
            >>> strategy = ef.distribute.get_strategy()
            >>> batches = strategy.distribute_dataset(ef.data.Dataset.range(6).batch(4))
            >>> [b.numpy().tolist() for b in batches]
            [[0, 1, 2, 3], [4, 5]]
        """
        return data_parallel.ReplicaDataset(dataset, self)

    def experimental_distribute_dataset(self, dataset: Any) -> Any:
        """TensorFlow's name of `distribute_dataset`.

        Examples:
            >>> import eagerflow as ef
            >>> ds = ef.data.Dataset.range(4).batch(2)
            >>> int(ef.distribute.get_strategy().experimental_distribute_dataset(ds)
            ...     .cardinality())
            2
        """
        return self.distribute_dataset(dataset)

    # -- the hooks eagerflow calls (overridden by a multi-process strategy) ----------------
    def sum_arrays(self, arrays: list, what: str) -> list:
        """The elementwise sum over the replicas of each NumPy array in `arrays` (the same
        shapes and dtypes on every replica, not checked), eagerly, as new arrays: the
        communication `fit` merges logs and state with (see `models/data_parallel.py`).
        `what` names the collective in errors (a timeout, a failed replica).

        Examples:
            >>> import eagerflow as ef, numpy as np
            >>> ef.distribute.get_strategy().sum_arrays([np.ones(2)], "an example")
            [array([1., 1.])]
        """
        return [np.array(array) for array in arrays]

    def variable_created(self, variable: Any) -> None:
        """Called once for each variable made under the scope, or made later by an object
        made there (after a deferred checkpoint restore filled it): a multi-process
        strategy gives it replica 0's value. The default does nothing."""

    def reduce_gradients(self, gradients: list) -> list:
        """The gradients every replica's optimizer applies: the mean over the replicas of
        each one (one fused allreduce; a graph op inside `ef.function`). The optimizers
        made under the scope use it as their `gradient_reducer`.

        Examples:
            >>> import eagerflow as ef
            >>> ef.distribute.get_strategy().reduce_gradients([ef.constant(1.0)])
            [ef.Tensor(1.0, shape=(), dtype=float32)]
        """
        return list(gradients)

    def end_of_data(self) -> None:
        """Called by a replica whose training data ended, where the others may still run a
        gradient step: a multi-process strategy makes every replica raise then instead of
        hanging. The default does nothing."""

    def after_chief(self, action: Callable[[], Any], what: str) -> Any:
        """Runs `action()` on the chief, and on every other replica once the chief's has
        ended (so a file the chief wrote just before is complete when the others read it);
        returns its result. An error on the chief is raised on every replica. `what` names
        the action in errors.

        Examples:
            >>> import eagerflow as ef
            >>> ef.distribute.get_strategy().after_chief(lambda: "read", "load_weights")
            'read'
        """
        return action()

    def report_failure(self, error: BaseException) -> None:
        """Called when `fit`, `evaluate` or `predict` fails on this replica with `error`: a
        multi-process strategy tells the other replicas, so that those waiting for this
        one raise at once. Never raises. The default does nothing."""

    # -- the trainer's calls (fit, evaluate, predict; see models/data_parallel.py) ---------
    def distribute_batches(self, data: Any, function: str, training: bool) -> Any:
        """The batch source of this replica for `fit`, `evaluate` or `predict` (`function`):
        `data` (a data adapter of global batches) itself with one replica, else one that
        yields this replica's rows of each global batch (None for an empty share of a
        small last batch when not `training`)."""
        if self.num_replicas_in_sync == 1:
            return data  # one replica reads every batch
        return data_parallel.ReplicaData(data, self, function, training)

    def prepare_training(self, model: Any) -> None:
        """Called by `fit` before it trains `model`: the model's optimizer reduces its
        gradients over the replicas; with one replica, a warning if this process is one of
        several replicas of another strategy (the model was made outside its scope)."""
        if self.num_replicas_in_sync == 1:
            data_parallel.warn_if_unreplicated(model, replicas_expected(), "fit")
            return
        optimizer = model.optimizer
        if optimizer is not None and optimizer.gradient_reducer is None:
            with scope(self):  # its slots, made later, start equal everywhere
                object_created(optimizer)
            optimizer.gradient_reducer = self.reduce_gradients

    def any_replica(self, flag: bool, what: str = "stop_training") -> bool:
        """True on every replica if `flag` is true on any (so that all run the same
        collectives next); `what` names the flag in errors."""
        if self.num_replicas_in_sync == 1:
            return bool(flag)
        return data_parallel.any_replica(self, flag, what)

    def sync_start(self, model: Any, epoch: int) -> int:
        """Every replica starts `fit` from the chief's `epoch` and the chief's values of the
        model's and optimizer's variables (after ``on_train_begin``); returns the epoch."""
        if self.num_replicas_in_sync == 1:
            return epoch
        return data_parallel.sync_start(model, self, epoch)

    def reduce_logs(self, model: Any, logs: dict) -> dict:
        """`logs` (Python floats, from this replica's steps) as every replica reports them:
        metric results computed from the metric states summed over the replicas, other
        values averaged. With one replica, `logs` themselves."""
        if self.num_replicas_in_sync == 1:
            return logs
        return data_parallel.global_logs(model, self, logs)

    def average_local_state(self, model: Any) -> None:
        """At the end of a training epoch: each non-trainable floating-point variable of
        `model` that differs between the replicas (BatchNormalization's moving statistics)
        becomes its mean over them."""
        if self.num_replicas_in_sync > 1:
            data_parallel.average_local_state(model, self)

    def gather_predictions(self, outputs: list, concatenate: Callable[[list], Any]) -> Any:
        """`predict`'s per-batch `outputs` of every replica joined by `concatenate` in global
        row order, on every replica (an output is None for an empty share)."""
        if self.num_replicas_in_sync == 1:
            return concatenate(outputs)
        return data_parallel.gather_predictions(self, outputs, concatenate)


_default = Strategy()


def strategy_made(strategy) -> None:
    """Called by a multi-process strategy when it is made: `fit` warns when a model trains
    outside every strategy of a process that is one of several replicas."""
    _replica_counts.add(int(getattr(strategy, "num_replicas_in_sync", 1)))


def replicas_expected() -> int:
    """The largest replica count of the strategies made in this process (1 if none)."""
    return max(_replica_counts, default=1)


@contextlib.contextmanager
def scope(strategy):
    """Makes `strategy` current in this thread for the block (see the module docstring)."""
    context.creation_observer = sys.modules[__name__]  # type: ignore[assignment]  # from now on, creations come here
    stack = context.thread.strategies
    stack.append(strategy)
    try:
        yield strategy
    finally:
        stack.pop()


def current():
    """The innermost strategy whose scope is open in this thread, or None."""
    stack = context.thread.strategies
    return stack[-1] if stack else None


def get_strategy() -> Strategy:
    """The current strategy: the innermost one whose scope is open in this thread, else
    the default strategy (this process alone), as `tf.distribute.get_strategy`.

    Examples:
        >>> import eagerflow as ef
        >>> ef.distribute.get_strategy().num_replicas_in_sync
        1
    """
    return current() or _default


def has_strategy() -> bool:
    """Whether a strategy's scope is open in this thread (`tf.distribute.has_strategy`).

    Examples:
        >>> import eagerflow as ef
        >>> ef.distribute.has_strategy()
        False
    """
    return current() is not None


def of(obj):
    """The strategy `obj` (a Trackable or a Variable) was made under, or None."""
    return _owners.get(id(obj))


def object_created(obj, variable=False) -> None:
    """Records `obj` (made in an open scope) as owned; a Variable is also handed over, and
    an optimizer reduces its gradients with the strategy's `reduce_gradients` (as
    TensorFlow's optimizers do under a strategy: also one that `fit` does not know of, a
    GAN's two optimizers in a custom `train_step`)."""
    strategy = current()
    if strategy is None:
        return
    if id(obj) not in _owners:
        _owners[id(obj)] = strategy
        weakref.finalize(obj, _owners.pop, id(obj), None)  # the entry goes with its object
        from eagerflow.optim import optimizer as optimizer_lib

        if isinstance(obj, optimizer_lib.Optimizer):
            obj.gradient_reducer = strategy.reduce_gradients
    if variable:
        with context.init_scope():  # a real, one-time write even while tracing
            strategy.variable_created(obj)


def announce(owner, variable, parent=None) -> None:
    """`owner` made `variable` (`parent`'s slot, if given): its strategy sees it."""
    strategy = _owners.get(id(owner)) or _owners.get(id(parent))
    if strategy is not None:
        with scope(strategy):
            object_created(variable, variable=True)
