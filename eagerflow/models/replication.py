"""What `fit`, `evaluate` and `predict` do when the model belongs to a multi-process
strategy (`ef.distribute.MPIStrategy` launched with N > 1 ranks).

* Data: `batch_size` (or a Dataset's batch) is the global batch; every rank reads the
  same global batches (array shuffles are drawn on rank 0 and broadcast, a Dataset's
  shuffle stages get rank 0's seeds; the first batch of each epoch is compared across
  ranks) and keeps its rows ``[r * b, (r + 1) * b)``
  with ``b = B / N``. Training needs B divisible by N (else a clear error); evaluation and
  prediction split any batch. A Dataset with a `shard` stage, or one from
  `strategy.distribute_dataset`, already holds this rank's batches: used as it is.
* Gradients: the model's optimizer averages them over the ranks (one fused allreduce per
  step, see `ef.distribute.DistributedOptimizer`); the variables are broadcast from rank 0
  when training starts (after `BackupAndRestore` may have restored them on the chief).
* Local state: at the end of every epoch the model's non-trainable floating-point
  variables (BatchNormalization's moving statistics, updated from each rank's rows) are
  replaced by their mean over the ranks.
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

import contextlib
import zlib

import numpy as np

from eagerflow.core import errors, nest
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


def warn_if_unreplicated(model, function: str) -> None:
    """Warns (once) when this process is one of several replicas of a strategy but
    `model` belongs to none: every rank then trains its own copy on all the data."""
    replicas = distribution.replicas_expected()
    if replicas > 1:
        errors.warn_once(
            "fit-outside-strategy",
            f"{function}: this process is one of {replicas} replicas of an MPIStrategy, but "
            f"the model (`{getattr(model, 'name', type(model).__name__)}`) was not made under "
            "`strategy.scope()`: each rank trains its own copy on all of the data, and every "
            "rank writes its files. Create (and compile) the model inside "
            "`with strategy.scope():` to train one model over the ranks.", stacklevel=4)


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
        share_shuffle_seeds(source, strategy)
        size = strategy.num_replicas_in_sync
        batch = getattr(data, "batch_size", None)
        if training and batch is not None and getattr(data, "num_samples", None):
            last = data.num_samples % batch
            for rows in (batch, last):
                if rows:
                    local_rows(np.empty(rows), 0, size, function)
        if hasattr(data, "_draw_order"):  # arrays: one shuffle order, drawn on rank 0
            _check_same_size(data, strategy, function)
            draw = data._draw_order
            data._draw_order = lambda count: strategy._broadcast_object(draw(count))

    def __getattr__(self, name):
        return getattr(self._data, name)

    def epoch(self):
        strategy = self._strategy
        first = True
        split = not (self._presplit or self._sharded)
        if self._presplit and not self._training:  # evaluation splits any batch size
            source = self._data.source
            source._exact_split = False
            try:
                yield from self._data.epoch()
            finally:
                source._exact_split = True
            return
        for batch in self._data.epoch():
            if first and split:
                codes = strategy._allgather_object(_fingerprint(batch))
                if len(set(codes)) != 1:
                    raise ValueError(
                        f"{self._function}: the ranks read different global batches (rank "
                        f"{strategy.rank} differs from another): every rank must see the same "
                        "data in the same order. The shuffle stages of a Dataset already take "
                        "rank 0's seeds; seed any other random stage before `batch` (a random "
                        "`map`, a generator) the same way on every rank, read the same files "
                        "everywhere, or split the data yourself with Dataset.shard.")
            first = False
            if split:
                batch = local_rows(batch, strategy.rank, strategy.num_replicas_in_sync,
                                   self._function, exact=self._training)
            yield batch
        if self._training:
            strategy._end_of_data()  # a rank out of data early: every rank raises


def _check_same_size(data, strategy, function: str) -> None:
    """Raises on every rank unless every rank holds as many samples (arrays) or batches (a
    PyDataset): each rank reads its rows of the same global batches, in one order drawn
    on rank 0 (with other sizes, rank 0's order indexed past another rank's rows)."""
    arrays = data.num_samples is not None
    size = data.num_samples if arrays else getattr(data, "count", None)
    sizes = strategy._allgather_object(size)
    if len(set(sizes)) == 1:
        return
    what = "samples" if arrays else "batches (len() of the PyDataset)"
    listed = ", ".join(f"rank {rank}: {count}" for rank, count in enumerate(sizes))
    raise ValueError(
        f"{function}: every rank must pass the same data, but the ranks hold different "
        f"numbers of {what} ({listed}). Under MPIStrategy `{function}` splits each global "
        "batch of the same arrays over the ranks. To give each rank data of its own, pass "
        "a Dataset of its batches (ef.data.Dataset.from_tensor_slices(...).shard(...), "
        "with the same number of batches on every rank), or cut the arrays to one length.")


def share_shuffle_seeds(dataset, strategy) -> None:
    """Gives every `shuffle` stage of a Dataset pipeline rank 0's seed, so that all ranks
    read the same global batches in the same order. (A shuffle's seed combines the global
    seed with its own, as in tf.data: one ``ef.random.set_seed(rank)`` per rank would
    otherwise give each rank another order, and each its rows of other batches.) Called on
    every rank at the same point (one broadcast); anything but a Dataset is left as it is.
    """
    from eagerflow.data import dataset as dataset_lib
    from eagerflow.data import iterator

    if not isinstance(dataset, dataset_lib.Dataset):
        return
    shuffles = iterator.shuffle_stages(dataset)
    seeds = strategy._broadcast_object([stage._seed for stage in shuffles])
    if len(seeds) != len(shuffles):
        raise ValueError(
            f"MPIStrategy: rank {strategy.rank}'s dataset has {len(shuffles)} shuffle stages "
            f"and rank 0's has {len(seeds)}: every rank must build the same pipeline")
    for stage, seed in zip(shuffles, seeds, strict=True):
        stage._seed = tuple(seed)


def average_local_state(model, strategy) -> None:
    """Replaces each non-trainable floating-point variable of `model` (BatchNormalization's
    moving mean and variance: each rank updates them from its own rows) by its mean over
    the ranks, as TensorFlow reads such a variable under a multi-replica strategy. Summed
    in float64, so a variable equal on every rank (frozen weights) keeps its exact value.
    """
    variables = [v for v in model.non_trainable_variables if v.dtype.kind == "f"]
    # Only those that differ somewhere travel (a frozen backbone's weights do not).
    codes = strategy._allgather_object([_fingerprint(v.numpy()) for v in variables])
    variables = [v for i, v in enumerate(variables) if len({c[i] for c in codes}) > 1]
    if not variables:
        return
    sums = strategy._allreduce([np.asarray(v.numpy(), np.float64) for v in variables], "sum",
                               "the allreduce of the moving statistics")
    for variable, total in zip(variables, sums, strict=True):
        variable.assign((total / strategy.num_replicas_in_sync).astype(variable.dtype))


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


@contextlib.contextmanager
def failures_reported(model):
    """Runs the block (`fit`, `evaluate` or `predict` of `model`); an exception leaving
    it is reported to the other ranks first (`strategy._report_failure`), so that ranks
    waiting for this one in a collective raise at once instead of at the deadline."""
    try:
        yield
    except BaseException as error:
        strategy = strategy_of(model)
        if strategy is not None:
            strategy._report_failure(error)
        raise


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


def agree(strategy, flag: bool, what: str = "stop_training") -> bool:
    """True on every rank if `flag` is true on any (so all ranks run the same collectives);
    `what` names the flag in a timeout's error."""
    return bool(strategy._allreduce([np.array([int(flag)], np.int64)], "max",
                                    f"the allreduce agreeing on {what}")[0][0])


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
    summed = strategy._allreduce(local, "sum", "the allreduce of the metric states")
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
    means = strategy._allreduce([np.array([flat[k] for k in keys], np.float64)], "sum",
                                "the allreduce of the logs")[0]
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

