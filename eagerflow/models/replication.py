"""What `fit`, `evaluate` and `predict` do when the model belongs to a multi-process
strategy (`ef.distribute.MPIStrategy` launched with N > 1 ranks).

* Data: `batch_size` (or a Dataset's batch) is the global batch; every rank reads the
  same global batches (array shuffles are drawn on rank 0 and broadcast; the first batch
  of each epoch is compared across ranks) and keeps its rows ``[r * b, (r + 1) * b)``
  with ``b = B / N``. Training needs B divisible by N (else a clear error); evaluation and
  prediction split any batch. A Dataset with a `shard` stage, or one from
  `strategy.distribute_dataset`, already holds this rank's batches: used as it is.
* Gradients: the model's optimizer averages them over the ranks (one fused allreduce per
  step, see `ef.distribute.DistributedOptimizer`); the variables are broadcast from rank 0
  when training starts (after `BackupAndRestore` may have restored them on the chief).
* Logs: metric states are summed over the ranks (true of every built-in metric: totals,
  counts, confusion counts) before results are computed, so logs, `History` and
  `evaluate` are global and equal on every rank; other logged values are averaged.
* Files and output: only the chief (rank 0) shows the progress bar and runs the callbacks
  that write files (`ModelCheckpoint`, `CSVLogger`, `TensorBoard`, `BackupAndRestore`);
  `model.save` / `save_weights` write on the chief only.
* `predict` returns every row, in order, on every rank.

The strategy is reached through `eagerflow.models.distribution` (this package cannot import
`ef.distribute`); its protocol is described in `eagerflow/distribute/mpi_strategy.py`.

Examples:
    >>> import numpy as np
    >>> from eagerflow.models import replication
    >>> replication.local_rows((np.arange(8), np.arange(8)), 1, 2, "fit")
    (array([4, 5, 6, 7]), array([4, 5, 6, 7]))
"""

from __future__ import annotations

import zlib

import numpy as np

from eagerflow.core import nest
from eagerflow.models import distribution


def strategy_of(model):
    """The multi-process strategy `model` was made under (or the current one), else None.

    Examples:
        >>> import eagerflow as ef
        >>> from eagerflow.models import replication
        >>> replication.strategy_of(ef.Sequential()) is None
        True
    """
    strategy = distribution.of(model) or distribution.current()
    if strategy is None or getattr(strategy, "num_replicas_in_sync", 1) <= 1:
        return None
    return strategy


def is_writer(model) -> bool:
    """Whether this process writes the model's files: always, except on a non-chief rank."""
    strategy = strategy_of(model)
    return strategy is None or strategy.is_chief


def local_rows(element, rank: int, size: int, function: str, exact: bool = True):
    """Rank `rank`'s rows of every array in the global batch `element` (same structure).

    With `exact`, the batch must split evenly (training: each rank's mean gradient must
    weigh equally); without, rank r gets rows ``[r * n // size, (r + 1) * n // size)``.

    Raises:
        ValueError: if the leading sizes differ, or (`exact`) do not divide by `size`.
    """
    leaves = [leaf for leaf in nest.flatten(element) if leaf is not None]
    sizes = {int(np.shape(leaf)[0]) for leaf in leaves if np.ndim(leaf) > 0}
    if len(sizes) != 1:
        raise ValueError(f"{function}: the arrays of a global batch must have one batch size "
                         f"to split over {size} ranks; got leading sizes {sorted(sizes)}")
    rows = sizes.pop()
    if exact and rows % size:
        raise ValueError(
            f"{function}: a global batch of {rows} rows cannot be split evenly over {size} "
            f"ranks (MPIStrategy: batch_size is the global batch, each rank trains on "
            f"batch_size / {size} rows). Use a batch size divisible by {size}, and a "
            "number of samples whose last batch is too (or Dataset.batch(..., "
            "drop_remainder=True)).")
    start, stop = rank * rows // size, (rank + 1) * rows // size

    def take(leaf):
        if leaf is None or np.ndim(leaf) == 0:
            return leaf
        return leaf[start:stop]

    return nest.map_structure(take, element)


def _fingerprint(element) -> int:
    code = 0
    for leaf in nest.flatten(element):
        if leaf is not None:
            code = zlib.crc32(np.ascontiguousarray(np.asarray(leaf)).tobytes(), code)
    return code


class ReplicaData:
    """The batch source of one rank: wraps a data adapter (see the module docstring)."""

    def __init__(self, data, strategy, function: str, training: bool):
        self._data, self._strategy = data, strategy
        self._function, self._training = function, training
        source = getattr(data, "source", None)
        # A dataset from strategy.distribute_dataset already holds this rank's rows; so
        # does one the user sharded per rank.
        self._presplit = getattr(source, "_replica_strategy", None) is not None
        self._sharded = not self._presplit and _is_sharded(source)
        self.steps = data.steps
        size = strategy.num_replicas_in_sync
        batch = getattr(data, "batch_size", None)
        if training and batch is not None and getattr(data, "num_samples", None):
            last = data.num_samples % batch
            for rows in (batch, last):
                if rows:
                    local_rows(np.empty(rows), 0, size, function)
        if hasattr(data, "_draw_order"):  # arrays: one shuffle order, drawn on rank 0
            draw = data._draw_order
            data._draw_order = lambda count: strategy._broadcast_object(draw(count))

    def __getattr__(self, name):
        return getattr(self._data, name)

    def epoch(self):
        strategy = self._strategy
        first = True
        split = not (self._presplit or self._sharded)
        for batch in self._data.epoch():
            if first and split:
                codes = strategy._allgather_object(_fingerprint(batch))
                if len(set(codes)) != 1:
                    raise ValueError(
                        f"{self._function}: the ranks read different global batches (rank "
                        f"{strategy.rank} differs from another): every rank must see the same "
                        "data in the same order. Give Dataset.shuffle a seed (or call "
                        "ef.random.set_seed with one seed on every rank), or use "
                        "strategy.distribute_dataset / Dataset.shard.")
            first = False
            if split:
                batch = local_rows(batch, strategy.rank, strategy.num_replicas_in_sync,
                                   self._function, exact=self._training)
            yield batch
        if self._training:
            strategy._end_of_data()  # a rank out of data early: every rank raises


def _is_sharded(dataset) -> bool:
    """Whether a Dataset pipeline has a `shard` stage (its batches are this rank's own)."""
    from eagerflow.data import transforms

    pending = [dataset] if dataset is not None else []
    while pending:
        node = pending.pop()
        if isinstance(node, transforms.ShardDataset):
            return True
        pending.extend(getattr(node, "_inputs", ()))
    return False


def prepare_training(model, strategy) -> None:
    """Makes the model's optimizer average gradients over the ranks."""
    optimizer = model.optimizer
    if optimizer is not None and "_gradient_reducer" not in optimizer.__dict__:
        with distribution.scope(strategy):
            distribution.object_created(optimizer)
        optimizer.__dict__["_gradient_reducer"] = strategy._reduce_gradients


def chief_callbacks(callbacks, strategy):
    """The callbacks this rank runs: a non-chief skips those that print or write files."""
    if strategy.is_chief or callbacks is None or not isinstance(callbacks, (list, tuple)):
        return callbacks
    return [c for c in callbacks if not getattr(c, "_chief_only", False)]


def agree(strategy, flag: bool) -> bool:
    """True on every rank if `flag` is true on any (so all ranks run the same collectives)."""
    return bool(strategy._allreduce([np.array([int(flag)], np.int64)], "max")[0][0])


def sync_start(model, strategy, start: int) -> int:
    """Every rank starts from the chief's epoch and variables (after `on_train_begin`)."""
    start = strategy._broadcast_object(start)
    variables = list(model.variables)
    if model.optimizer is not None:
        variables += list(model.optimizer.variables)
    seen, unique = set(), []
    for variable in variables:
        if id(variable) not in seen:
            seen.add(id(variable))
            unique.append(variable)
    values = strategy._broadcast_object([v.numpy() for v in unique] if strategy.is_chief
                                        else None)
    if not strategy.is_chief:
        for variable, value in zip(unique, values, strict=True):
            variable.assign(value)
    return start


def global_logs(model, logs, pythonify) -> dict:
    """The logs as Python floats, global: metric results from the states summed over the
    ranks (as `Trainer._epoch_logs` picks them), other logged values averaged."""
    strategy = strategy_of(model)
    metric_variables = [v for metric in model.metrics for v in metric.variables]
    local = [v.numpy() for v in metric_variables]
    summed = strategy._allreduce(local, "sum")
    try:
        for variable, value in zip(metric_variables, summed, strict=True):
            variable.assign(value)
        results = pythonify(model.get_metrics_result())
    finally:
        for variable, value in zip(metric_variables, local, strict=True):
            variable.assign(value)
    flat = pythonify(logs)
    if not flat:
        return results
    if set(flat) <= set(results):
        return {key: results[key] for key in flat}
    # The step logged values of its own: average the numbers over the ranks.
    keys = [key for key, value in flat.items() if isinstance(value, float)]
    means = strategy._allreduce([np.array([flat[k] for k in keys], np.float64)], "sum")[0]
    flat.update(zip(keys, (means / strategy.num_replicas_in_sync).tolist(), strict=True))
    return flat


def gather_predictions(strategy, outputs: list, concatenate):
    """Every rank's per-batch outputs joined in global row order, on every rank."""
    per_rank = strategy._allgather_object(outputs)
    batches = []
    for index in range(len(outputs)):
        parts = [rank_outputs[index] for rank_outputs in per_rank
                 if rank_outputs[index] is not None]
        batches.append(concatenate(parts))
    return concatenate(batches)

