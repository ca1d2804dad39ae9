"""`strategy.distribute_dataset`: each rank's rows of every global batch, as a Dataset.

Examples:
    >>> import eagerflow as ef
    >>> strategy = ef.distribute.MPIStrategy()
    >>> ds = strategy.distribute_dataset(ef.data.Dataset.range(4).batch(2))
    >>> int(ds.cardinality())
    2
"""

from __future__ import annotations

import threading
from contextlib import closing

from eagerflow.core.spec import TensorSpec
from eagerflow.data import dataset, structure
from eagerflow.models import replication


def _unknown_batch(spec):
    if isinstance(spec, TensorSpec) and spec.shape is not None and len(spec.shape) > 0:
        return TensorSpec((None, *spec.shape[1:]), spec.dtype, spec.name)
    return spec


class ReplicaDataset(dataset.Dataset):
    """Rows ``[r * b, (r + 1) * b)`` of every batch of `input_dataset` for rank r of
    `strategy` (b = batch / num_replicas_in_sync); see `MPIStrategy.distribute_dataset`."""

    def __init__(self, input_dataset, strategy):
        if not isinstance(input_dataset, dataset.Dataset):
            raise TypeError(
                "distribute_dataset: expected an ef.data.Dataset of global batches. "
                f"Received: {type(input_dataset).__name__}")
        self._inputs = (input_dataset,)
        self._replica_strategy = strategy  # fit: these batches are already this rank's
        # evaluate / predict split a batch that does not divide (set while they read it)
        self._exact_split = True
        replication.share_shuffle_seeds(input_dataset, strategy)  # one order everywhere

    def _elements(self):
        strategy = self._replica_strategy
        exact = self._exact_split
        with closing(self._inputs[0]._elements()) as elements:
            for element in elements:
                yield replication.local_rows(element, strategy.rank,
                                             strategy.num_replicas_in_sync,
                                             "distribute_dataset", exact=exact)
        if not exact:
            return  # evaluation: the end of the data is no training step to match
        # Reached only when the data ended (not when the reader stopped early): a rank
        # whose data ended while another still trains must fail, not hang. Only from the
        # main thread: a collective from a prefetching thread could interleave with the
        # main thread's gradient allreduce.
        if threading.current_thread() is threading.main_thread():
            strategy._end_of_data()

    def _compute_spec(self):
        return structure.map_leaves(_unknown_batch, self._inputs[0].element_spec)

    def _cardinality(self) -> int:
        return self._inputs[0]._cardinality()
