"""MPIStrategy run alone (one replica), and its errors; the MPI job is in test_mpi.py."""

import sys

import numpy as np
import pytest

import eagerflow as ef
from eagerflow.distribute import mpi_strategy


def test_alone_it_is_one_replica_and_fit_trains_as_usual():
    strategy = ef.distribute.MPIStrategy()
    assert (strategy.num_replicas_in_sync, strategy.rank, strategy.is_chief) == (1, 0, True)
    assert "num_replicas_in_sync=1" in repr(strategy)
    ef.random.set_seed(1)
    with strategy.scope():
        model = ef.Sequential([ef.layers.Dense(1, input_shape=(2,))])
        model.compile(optimizer="sgd", loss="mse")
    ef.random.set_seed(1)
    plain = ef.Sequential([ef.layers.Dense(1, input_shape=(2,))])
    plain.compile(optimizer="sgd", loss="mse")
    x, y = np.arange(16.0).reshape(8, 2) / 16, np.ones((8, 1))
    model.fit(x, y, batch_size=4, epochs=2, verbose=0, shuffle=False)
    plain.fit(x, y, batch_size=4, epochs=2, verbose=0, shuffle=False)
    for got, want in zip(model.get_weights(), plain.get_weights(), strict=True):
        np.testing.assert_array_equal(got, want)
    assert strategy.communication_stats()["allreduce_calls"] == 0


def test_reduce_sum_and_mean_eagerly_and_traced():
    strategy = ef.distribute.MPIStrategy()
    assert float(strategy.reduce("SUM", 3.0)) == 3.0
    assert strategy.reduce("mean", ef.constant([7, 8]), axis=0).numpy() == 7  # ints floor
    traced = ef.function(lambda v: strategy.reduce("mean", v, axis=0))
    assert float(traced(ef.constant([1.0, 2.0]))) == 1.5


def test_reduce_refuses_other_operations():
    strategy = ef.distribute.MPIStrategy()
    with pytest.raises(ValueError, match="reduce_op must be 'sum' or 'mean'.*'max'"):
        strategy.reduce("max", 1.0)
    assert np.isnan(float(strategy.reduce("mean", ef.zeros([0]), axis=0)))


def test_reduce_over_several_axes_and_its_argument_errors():
    strategy = ef.distribute.MPIStrategy()
    value = ef.constant([[1.0, 2.0], [3.0, 6.0]])
    assert float(strategy.reduce("mean", value, axis=[0, -1])) == 3.0
    assert strategy.reduce("sum", value, axis=-1).numpy().tolist() == [3.0, 9.0]
    with pytest.raises(ValueError, match=r"axis must be an int .* in \[-2, 2\).*axis=2"):
        strategy.reduce("sum", value, axis=2)
    with pytest.raises(ValueError, match="names an axis twice"):
        strategy.reduce("sum", value, axis=(1, -1))
    with pytest.raises(TypeError, match="expected a numeric value.*got dtype bool"):
        strategy.reduce("sum", ef.constant([True, False]))


def test_launched_by_mpiexec_without_mpi4py_is_an_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "mpi4py", None)
    monkeypatch.setenv("PMI_SIZE", "2")
    with pytest.raises(ImportError, match=r"eagerflow\[mpi\]"):
        mpi_strategy.MPIStrategy()
    monkeypatch.setenv("PMI_SIZE", "1")  # mpiexec -n 1: one process either way
    assert mpi_strategy.MPIStrategy().num_replicas_in_sync == 1
    monkeypatch.delenv("PMI_SIZE")
    assert mpi_strategy.MPIStrategy().num_replicas_in_sync == 1  # not launched


class _FakeTwoRanks(mpi_strategy.MPIStrategy):
    """Rank `rank` of two, without MPI: collectives answer as the other rank would."""

    def __init__(self, rank):
        super().__init__()
        self.num_replicas_in_sync, self.rank = 2, rank


def test_the_out_of_data_flag_names_who_ran_out():
    running = _FakeTwoRanks(0)
    with pytest.raises(ef.errors.OutOfRangeError, match=r"1 of the 2 ranks ran out of data "
                                                        r"while this rank \(rank 0\)"):
        running._check_flag(1.0, 1)
    with pytest.raises(ef.errors.OutOfRangeError, match="rank 1 ran out of data while 1 of"):
        _FakeTwoRanks(1)._check_flag(1.0, 0)
    running._check_flag(2.0, 1)  # everyone had data
    running._check_flag(0.0, 0)  # everyone ended together


def test_distribute_dataset_alone_keeps_every_row_and_checks_its_input():
    strategy = ef.distribute.MPIStrategy()
    ds = strategy.distribute_dataset(ef.data.Dataset.range(5).batch(2))
    assert [b.numpy().tolist() for b in ds] == [[0, 1], [2, 3], [4]]
    assert ds.element_spec.shape == (None,)
    with pytest.raises(TypeError, match="distribute_dataset: expected an ef.data.Dataset"):
        strategy.distribute_dataset([1, 2])


def test_distributed_optimizer_checks_its_argument_and_keeps_the_optimizer():
    opt = ef.optim.SGD(0.1)
    assert ef.distribute.DistributedOptimizer(opt) is opt
    with pytest.raises(TypeError, match="DistributedOptimizer: expected an ef.optim"):
        ef.distribute.DistributedOptimizer("sgd")


@pytest.mark.parametrize("timeout", [0, -1.0, float("nan"), float("inf"), "10", True])
def test_timeout_must_be_a_positive_number_a_timedelta_or_none(timeout):
    with pytest.raises(ValueError, match=r"timeout must be a positive number of seconds.*"
                                         rf"Received: timeout={timeout!r}"):
        ef.distribute.MPIStrategy(timeout=timeout)


def test_timeout_default_and_forms():
    import datetime

    assert ef.distribute.MPIStrategy().timeout == mpi_strategy.DEFAULT_TIMEOUT == 1800.0
    assert ef.distribute.MPIStrategy(timeout=datetime.timedelta(minutes=2)).timeout == 120.0
    assert ef.distribute.MPIStrategy(timeout=None).timeout is None


def test_a_collective_past_its_deadline_raises_and_the_strategy_refuses_more(monkeypatch):
    monkeypatch.setattr(mpi_strategy, "_timed_out", [])
    strategy = ef.distribute.MPIStrategy(timeout=0.05)
    polls = iter([False] * 3 + [True])
    strategy._wait(lambda: next(polls), "an allreduce")  # completes before the deadline
    with pytest.raises(TimeoutError, match=r"MPIStrategy: the gradient allreduce on rank 0 of "
                                           r"1 did not complete within the deadline \(0\.05 s\)"):
        strategy._wait(lambda: False, "the gradient allreduce", pending=True)
    assert mpi_strategy._timed_out  # a process exiting now aborts its MPI job
    with pytest.raises(ef.errors.FailedPreconditionError,
                       match=r"the gradient allreduce timed out on rank 0 after .* s, so the "
                             r"ranks' collectives are out of step"):
        strategy._wait(lambda: True, "a broadcast")
