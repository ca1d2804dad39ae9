"""Data-parallel training: what `fit`, `evaluate` and `predict` do when the model's strategy
has several replicas (`ef.distribute.MPIStrategy` launched with N > 1 ranks), written once
on the communication of the `Strategy` base class (`models/strategy.py`), whose trainer
methods call these.

* Data: `batch_size` (or a Dataset's batch) is the global batch; every rank reads the
  same global batches (array shuffles are drawn on rank 0 and broadcast, a Dataset's
  shuffle stages get rank 0's seeds; the first batch of each epoch is compared across
  ranks) and keeps its rows ``[r * b, (r + 1) * b)``
  with ``b = B / N``. Training needs B divisible by N (else a clear error); evaluation and
  prediction split any batch. A Dataset with a `shard` stage, or one from
  `strategy.distribute_dataset` (`ReplicaDataset`), already holds this rank's batches:
  used as it is.
* Gradients: the model's optimizer averages them over the ranks (its `gradient_reducer`,
  one fused allreduce per step, see `ef.distribute.DistributedOptimizer`); the variables
  are broadcast from rank 0 when training starts (after `BackupAndRestore` may have
  restored them on the chief).
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

Examples:
    >>> import numpy as np
    >>> from eagerflow.models import data_parallel
    >>> data_parallel.local_rows((np.arange(8), np.arange(8)), 1, 2, "fit")
    (array([4, 5, 6, 7]), array([4, 5, 6, 7]))
"""

from __future__ import annotations

import threading
import zlib
from contextlib import closing

import numpy as np

from eagerflow.core import errors, nest
from eagerflow.core.spec import TensorSpec
from eagerflow.data import dataset as dataset_lib
from eagerflow.data import structure
from eagerflow.models import fit_loops


def warn_if_unreplicated(model, replicas: int, function: str) -> None:
    """Warns (once) when this process is one of `replicas` > 1 replicas of a strategy but
    `model` belongs to none: every rank then trains its own copy on all the data."""
    if replicas > 1:
        errors.warn_once(
            "fit-outside-strategy",
            f"{function}: this process is one of {replicas} replicas of an MPIStrategy, but "
            f"the model (`{getattr(model, 'name', type(model).__name__)}`) was not made under "
            "`strategy.scope()`: each rank trains its own copy on all of the data, and every "
            "rank writes its files. Create (and compile) the model inside "
            "`with strategy.scope():` to train one model over the ranks.", stacklevel=5)


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


def _rows(batch) -> int:
    """The batch size of a batch (0 for a rank's empty share of a small last batch)."""
    for leaf in nest.flatten(batch):
        if leaf is not None and np.ndim(leaf) > 0:
            return int(np.shape(leaf)[0])
    return 1


class ReplicaData:
    """The batch source of one rank: wraps a data adapter (see the module docstring).
    Outside training, a rank's empty share of a small last batch is yielded as None."""

    def __init__(self, data, strategy, function: str, training: bool):
        self._data, self._strategy = data, strategy
        self._function, self._training = function, training
        source = getattr(data, "source", None)
        # A dataset from strategy.distribute_dataset already holds this rank's rows; so
        # does one the user sharded per rank.
        self._presplit = isinstance(source, ReplicaDataset)
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
            data._draw_order = lambda count: strategy.broadcast_object(draw(count))

    def __getattr__(self, name):
        return getattr(self._data, name)

    def epoch(self):
        if self._training:
            yield from self._batches()
            return
        for batch in self._batches():  # evaluation: a rank may get no row of a last batch
            yield batch if _rows(batch) else None

    def _batches(self):
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
                codes = strategy.all_gather_object(_fingerprint(batch))
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
            strategy.end_of_data()  # a rank out of data early: every rank raises


def _check_same_size(data, strategy, function: str) -> None:
    """Raises on every rank unless every rank holds as many samples (arrays) or batches (a
    PyDataset): each rank reads its rows of the same global batches, in one order drawn
    on rank 0 (with other sizes, rank 0's order indexed past another rank's rows)."""
    arrays = data.num_samples is not None
    size = data.num_samples if arrays else getattr(data, "count", None)
    sizes = strategy.all_gather_object(size)
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
    from eagerflow.data import iterator

    if not isinstance(dataset, dataset_lib.Dataset):
        return
    shuffles = iterator.shuffle_stages(dataset)
    seeds = strategy.broadcast_object([stage._seed for stage in shuffles])
    if len(seeds) != len(shuffles):
        raise ValueError(
            f"MPIStrategy: rank {strategy.rank}'s dataset has {len(shuffles)} shuffle stages "
            f"and rank 0's has {len(seeds)}: every rank must build the same pipeline")
    for stage, seed in zip(shuffles, seeds, strict=True):
        stage._seed = tuple(seed)


def _unknown_batch(spec):
    if isinstance(spec, TensorSpec) and spec.shape is not None and len(spec.shape) > 0:
        return TensorSpec((None, *spec.shape[1:]), spec.dtype, spec.name)
    return spec


class ReplicaDataset(dataset_lib.Dataset):
    """Rows ``[r * b, (r + 1) * b)`` of every batch of `input_dataset` for rank r of
    `strategy` (b = batch / num_replicas_in_sync); see `Strategy.distribute_dataset`."""

    def __init__(self, input_dataset, strategy):
        if not isinstance(input_dataset, dataset_lib.Dataset):
            raise TypeError(
                "distribute_dataset: expected an ef.data.Dataset of global batches. "
                f"Received: {type(input_dataset).__name__}")
        self._inputs = (input_dataset,)
        self._replica_strategy = strategy
        # evaluate / predict split a batch that does not divide (set while they read it)
        self._exact_split = True
        share_shuffle_seeds(input_dataset, strategy)  # one order everywhere

    def _elements(self):
        strategy = self._replica_strategy
        exact = self._exact_split
        with closing(self._inputs[0]._elements()) as elements:
            for element in elements:
                yield local_rows(element, strategy.rank, strategy.num_replicas_in_sync,
                                 "distribute_dataset", exact=exact)
        if not exact:
            return  # evaluation: the end of the data is no training step to match
        # Reached only when the data ended (not when the reader stopped early): a rank
        # whose data ended while another still trains must fail, not hang. Only from the
        # main thread: a collective from a prefetching thread could interleave with the
        # main thread's gradient allreduce.
        if threading.current_thread() is threading.main_thread():
            strategy.end_of_data()

    def _compute_spec(self):
        return structure.map_leaves(_unknown_batch, self._inputs[0].element_spec)

    def _cardinality(self) -> int:
        return self._inputs[0]._cardinality()


def average_local_state(model, strategy) -> None:
    """Replaces each non-trainable floating-point variable of `model` (BatchNormalization's
    moving mean and variance: each rank updates them from its own rows) by its mean over
    the ranks, as TensorFlow reads such a variable under a multi-replica strategy. Summed
    in float64, so a variable equal on every rank (frozen weights) keeps its exact value.
    """
    variables = [v for v in model.non_trainable_variables if v.dtype.kind == "f"]
    # Only those that differ somewhere travel (a frozen backbone's weights do not).
    codes = strategy.all_gather_object([_fingerprint(v.numpy()) for v in variables])
    variables = [v for i, v in enumerate(variables) if len({c[i] for c in codes}) > 1]
    if not variables:
        return
    sums = strategy.sum_arrays([np.asarray(v.numpy(), np.float64) for v in variables],
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


def any_replica(strategy, flag: bool, what: str) -> bool:
    """True on every rank if `flag` is true on any (so all ranks run the same collectives);
    `what` names the flag in a timeout's error."""
    total = strategy.sum_arrays([np.array([int(bool(flag))], np.int64)],
                                f"the allreduce agreeing on {what}")[0]
    return bool(total[0] > 0)


def sync_start(model, strategy, start: int) -> int:
    """Every rank starts from the chief's epoch and variables (after `on_train_begin`)."""
    start = strategy.broadcast_object(start)
    variables = list(model.variables)
    if model.optimizer is not None:
        variables += list(model.optimizer.variables)
    seen, unique = set(), []
    for variable in variables:
        if id(variable) not in seen:
            seen.add(id(variable))
            unique.append(variable)
    values = strategy.broadcast_object([v.numpy() for v in unique] if strategy.is_chief
                                       else None)
    if not strategy.is_chief:
        for variable, value in zip(unique, values, strict=True):
            variable.assign(value)
    return start


def global_logs(model, strategy, logs: dict) -> dict:
    """`logs` (Python floats) global: metric results from the states summed over the ranks
    (as `Trainer._epoch_logs` picks them), other logged values averaged."""
    metric_variables = [v for metric in model.metrics for v in metric.variables]
    local = [v.numpy() for v in metric_variables]
    summed = strategy.sum_arrays(local, "the allreduce of the metric states")
    try:
        for variable, value in zip(metric_variables, summed, strict=True):
            variable.assign(value)
        results = fit_loops.pythonify_logs(model.get_metrics_result())
    finally:
        for variable, value in zip(metric_variables, local, strict=True):
            variable.assign(value)
    flat = fit_loops.pythonify_logs(logs)
    if not flat:
        return results
    if set(flat) <= set(results):
        return {key: results[key] for key in flat}
    # The step logged values of its own: average the numbers over the ranks.
    keys = [key for key, value in flat.items() if isinstance(value, float)]
    means = strategy.sum_arrays([np.array([flat[k] for k in keys], np.float64)],
                                "the allreduce of the logs")[0]
    flat.update(zip(keys, (means / strategy.num_replicas_in_sync).tolist(), strict=True))
    return flat


def gather_predictions(strategy, outputs: list, concatenate):
    """Every rank's per-batch outputs joined in global row order, on every rank."""
    per_rank = strategy.all_gather_object(outputs)
    batches = []
    for index in range(len(outputs)):
        parts = [rank_outputs[index] for rank_outputs in per_rank
                 if rank_outputs[index] is not None]
        batches.append(concatenate(parts))
    return concatenate(batches)
