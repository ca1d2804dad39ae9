"""models/distribution.py: which strategy sees which variable creation, and when."""

import numpy as np

import eagerflow as ef
from eagerflow.models import distribution


class Recorder:
    """A stand-in strategy: records each variable it is handed, with its value then."""

    num_replicas_in_sync = 1

    def __init__(self):
        self.seen = []

    def _variable_created(self, variable):
        self.seen.append((variable.name, variable.numpy().copy()))


def test_objects_made_in_the_scope_hand_over_their_later_variables():
    recorder = Recorder()
    with distribution.scope(recorder) as entered:
        assert entered is recorder and distribution.current() is recorder
        model = ef.Sequential([ef.layers.Dense(2, name="d")])
        optimizer = ef.optim.Adam()
    assert distribution.current() is None
    outside = ef.layers.Dense(1, name="outside")
    outside(ef.ones([1, 2]))
    model(ef.ones([1, 3]))  # built after the block
    optimizer.build(model.trainable_variables)  # slots after the block
    names = [name for name, _ in recorder.seen]
    assert {"d/kernel", "d/bias", "d/kernel/momentum", "d/bias/velocity"} <= set(names)
    assert not any(name.startswith("outside") for name in names)
    assert distribution.of(model) is recorder and distribution.of(outside) is None
    assert distribution.of(optimizer) is recorder


def test_an_object_leaves_the_registry_with_its_life():
    recorder = Recorder()
    with distribution.scope(recorder):
        layer = ef.layers.Dense(2)
    key = id(layer)
    assert distribution._owners.get(key) is recorder
    del layer
    assert key not in distribution._owners


def test_a_deferred_restore_fills_the_variable_before_the_strategy_sees_it(tmp_path):
    source = ef.Sequential([ef.layers.Dense(2, name="d", kernel_initializer="ones")])
    source(ef.ones([1, 3]))
    path = ef.Checkpoint(model=source).write(str(tmp_path / "ckpt"))
    recorder = Recorder()
    with distribution.scope(recorder):
        target = ef.Sequential([ef.layers.Dense(2, name="d", kernel_initializer="zeros")])
    ef.Checkpoint(model=target).restore(path)
    target(ef.ones([1, 3]))  # built now: restored, then handed over
    last = {name: value for name, value in recorder.seen}
    np.testing.assert_array_equal(last["d/kernel"], np.ones((3, 2), np.float32))
