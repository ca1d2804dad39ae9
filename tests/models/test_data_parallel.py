"""models/data_parallel.py pieces that need no MPI job (the job is tests/distribute)."""

import numpy as np
import pytest

import eagerflow as ef
from eagerflow.models import data_adapter, data_parallel
from eagerflow.models import strategy as strategy_lib


def test_local_rows_split_a_global_batch():
    batch = (ef.constant(np.arange(6.0)), np.arange(6), None)
    x, y, w = data_parallel.local_rows(batch, 1, 2, "fit")
    assert x.numpy().tolist() == [3.0, 4.0, 5.0] and y.tolist() == [3, 4, 5] and w is None
    assert data_parallel.local_rows(np.arange(5), 1, 2, "evaluate", exact=False).tolist() \
        == [2, 3, 4]


def test_local_rows_refuse_uneven_or_mismatched_batches():
    with pytest.raises(ValueError, match="fit: a global batch of 5 rows cannot be split "
                                         "evenly over 2 ranks"):
        data_parallel.local_rows(np.arange(5), 0, 2, "fit")
    with pytest.raises(ValueError, match=r"one batch size.*\[3, 4\]"):
        data_parallel.local_rows((np.arange(4), np.arange(3)), 0, 2, "fit")


class _Disagreeing(strategy_lib.Strategy):
    """A two-rank stand-in whose other rank holds one sample more (the first allgather:
    the sizes) or read a different first batch (the next one: its fingerprint)."""

    num_replicas_in_sync, rank, is_chief = 2, 0, True

    def __init__(self, sizes_agree=False):
        self.sizes_agree = sizes_agree

    def all_gather_object(self, obj):
        if self.sizes_agree:
            self.sizes_agree = False
            return [obj, obj]
        return [obj, obj + 1]


def test_ranks_reading_different_batches_is_an_error():
    data = data_adapter.adapt(np.ones((4, 2)), np.ones(4), batch_size=4, shuffle=True)
    replica = data_parallel.ReplicaData(data, _Disagreeing(sizes_agree=True), "fit",
                                      training=True)
    with pytest.raises(ValueError, match="the ranks read different global batches"):
        next(iter(replica.epoch()))


def test_ranks_holding_different_numbers_of_samples_is_an_error():
    # (shuffled, rank 0's order indexed past the other rank's rows: a bare IndexError)
    data = data_adapter.adapt(np.ones((4, 2)), np.ones(4), batch_size=4, shuffle=True)
    with pytest.raises(ValueError, match=r"fit: every rank must pass the same data, but the "
                                         r"ranks hold different numbers of samples \(rank 0: "
                                         r"4, rank 1: 5\)"):
        data_parallel.ReplicaData(data, _Disagreeing(), "fit", training=True)


def test_fit_refuses_a_batch_size_the_ranks_cannot_share():
    data = data_adapter.adapt(np.ones((10, 2)), np.ones(10), batch_size=4)
    with pytest.raises(ValueError, match="global batch of 2 rows cannot be split evenly "
                                         "over 4 ranks"):
        data_parallel.ReplicaData(data, type("Four", (_Disagreeing,),
                                           {"num_replicas_in_sync": 4})(), "fit", True)
