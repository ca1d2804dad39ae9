"""models/strategy.py: the Strategy base class (the default strategy), and which strategy
sees which variable creation, and when."""

import numpy as np
import pytest

import eagerflow as ef
from eagerflow.models import strategy as strategy_lib


class Recorder(strategy_lib.Strategy):
    """A strategy that records each variable it is handed, with its value then."""

    def __init__(self):
        self.seen = []

    def variable_created(self, variable):
        self.seen.append((variable.name, variable.numpy().copy()))


def test_objects_made_in_the_scope_hand_over_their_later_variables():
    recorder = Recorder()
    with recorder.scope() as entered:
        assert entered is recorder and strategy_lib.current() is recorder
        model = ef.Sequential([ef.layers.Dense(2, name="d")])
        optimizer = ef.optim.Adam()
    assert strategy_lib.current() is None
    outside = ef.layers.Dense(1, name="outside")
    outside(ef.ones([1, 2]))
    model(ef.ones([1, 3]))  # built after the block
    optimizer.build(model.trainable_variables)  # slots after the block
    names = [name for name, _ in recorder.seen]
    assert {"d/kernel", "d/bias", "d/kernel/momentum", "d/bias/velocity"} <= set(names)
    assert not any(name.startswith("outside") for name in names)
    assert strategy_lib.of(model) is recorder and strategy_lib.of(outside) is None
    assert strategy_lib.of(optimizer) is recorder


def test_an_object_leaves_the_registry_with_its_life():
    recorder = Recorder()
    with recorder.scope():
        layer = ef.layers.Dense(2)
    key = id(layer)
    assert strategy_lib._owners.get(key) is recorder
    del layer
    assert key not in strategy_lib._owners


def test_a_deferred_restore_fills_the_variable_before_the_strategy_sees_it(tmp_path):
    source = ef.Sequential([ef.layers.Dense(2, name="d", kernel_initializer="ones")])
    source(ef.ones([1, 3]))
    path = ef.Checkpoint(model=source).write(str(tmp_path / "ckpt"))
    recorder = Recorder()
    with recorder.scope():
        target = ef.Sequential([ef.layers.Dense(2, name="d", kernel_initializer="zeros")])
    ef.Checkpoint(model=target).restore(path)
    target(ef.ones([1, 3]))  # built now: restored, then handed over
    last = {name: value for name, value in recorder.seen}
    np.testing.assert_array_equal(last["d/kernel"], np.ones((3, 2), np.float32))


def test_the_default_strategy_is_one_replica_whose_collectives_return_their_input():
    strategy = ef.distribute.get_strategy()
    assert isinstance(strategy, ef.distribute.Strategy) and not ef.distribute.has_strategy()
    assert (strategy.num_replicas_in_sync, strategy.rank, strategy.is_chief) == (1, 0, True)
    assert ef.Sequential().distribute_strategy is strategy
    assert strategy.run(lambda a, b=0: a + b, args=(1,), kwargs={"b": 2}) == 3
    summed = strategy.all_reduce("SUM", {"a": ef.constant([1.0, 2.0]), "b": 3})
    assert summed["a"].numpy().tolist() == [1.0, 2.0] and int(summed["b"]) == 3
    assert float(strategy.reduce("mean", ef.constant([1.0, 2.0, 6.0]), axis=0)) == 3.0
    assert strategy.gather(ef.constant([[1, 2]]), axis=-1).numpy().tolist() == [[1, 2]]
    assert strategy.broadcast_object({"x": 1}) == {"x": 1}
    assert strategy.all_gather_object("me") == ["me"]
    assert strategy.after_chief(lambda: "done", "a test") == "done"
    grads = [ef.constant(1.0)]
    assert strategy.reduce_gradients(grads) == grads
    np.testing.assert_array_equal(strategy.sum_arrays([np.arange(3)], "a test")[0],
                                  np.arange(3))
    data = object()
    assert strategy.distribute_batches(data, "fit", training=True) is data
    assert strategy.any_replica(1) is True and strategy.sync_start(None, 4) == 4
    assert strategy.reduce_logs(None, {"loss": 1.0}) == {"loss": 1.0}
    assert strategy.gather_predictions([1, 2], sum) == 3


def test_the_collectives_check_their_arguments():
    strategy = ef.distribute.Strategy()
    with pytest.raises(ValueError, match=r"Strategy.all_reduce: reduce_op must be 'sum' or "
                                         r"'mean'. Received: reduce_op='max'"):
        strategy.all_reduce("max", 1.0)
    with pytest.raises(TypeError, match="Strategy.all_reduce: expected a numeric value"):
        strategy.all_reduce("sum", ef.constant([True]))
    with pytest.raises(ValueError, match=r"Strategy.gather: axis must be an int .* "
                                         r"Received: axis=1"):
        strategy.gather(ef.constant([1.0]), axis=1)
    with pytest.raises(ValueError, match=r"Strategy.gather: axis must be one int. "
                                         r"Received: axis=\[0\]"):
        strategy.gather(ef.constant([1.0]), axis=[0])
    with pytest.raises(TypeError, match="DistributedOptimizer: strategy must be an "
                                        "ef.distribute.Strategy. Received: str"):
        ef.distribute.DistributedOptimizer(ef.optim.SGD(), strategy="mpi")


def test_optimizers_made_in_a_scope_get_the_gradient_reduction_hook():
    class Halving(strategy_lib.Strategy):
        def reduce_gradients(self, gradients):
            return [g / 2 for g in gradients]

    strategy = Halving()
    with strategy.scope():
        optimizer = ef.optim.SGD(1.0)
    assert ef.optim.SGD(1.0).gradient_reducer is None
    assert optimizer.gradient_reducer == strategy.reduce_gradients
    w = ef.Variable(1.0)
    optimizer.apply_gradients([(ef.constant(1.0), w)])
    assert float(w) == 0.5  # the hook ran before the update
    plain = ef.distribute.DistributedOptimizer(ef.optim.SGD(1.0), strategy=strategy)
    assert plain.gradient_reducer == strategy.reduce_gradients
