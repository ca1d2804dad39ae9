"""Issue 28: saving while another thread trains mixed steps (50 of 60 checkpoints).

A save is now a consistent snapshot: it takes its values at an instant when no other
thread is inside an update group (an optimizer step, the writes of one traced-function
run, a restore, an `ef.train.atomic_update()` block) or a single write, and they never
change while the file is written. Each test trains in a thread so that every consistent
state satisfies an invariant, saves from the main thread, and checks every file.
"""

import gc
import threading
import time
import weakref

import numpy as np
import pytest

import eagerflow as ef
from eagerflow.core import variable

SIZE = 4096
SAVES = 15


def _train_in_a_thread(step_fn):
    stop, errors = threading.Event(), []

    def loop():
        try:
            while not stop.is_set():
                step_fn()
        except BaseException as e:  # noqa: BLE001 - reported by the test
            errors.append(e)

    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    return stop, thread, errors


def _save_while_training(tmp_path, ckpt, step_fn, saves=SAVES):
    step_fn()  # build slots, trace
    stop, thread, errors = _train_in_a_thread(step_fn)
    try:
        paths = []
        for i in range(saves):
            paths.append(ckpt.write(tmp_path / f"c{i}.h5"))
            time.sleep(0.001)
    finally:
        stop.set()
        thread.join(10)
    assert not errors and not thread.is_alive()
    return paths


def _sgd_step(w, b, optimizer, traced):
    def step():
        with ef.GradientTape() as tape:
            loss = ef.reduce_sum(w) + ef.reduce_sum(b)
        optimizer.apply_gradients(zip(tape.gradient(loss, [w, b]), [w, b]))

    return ef.function(step) if traced else step


@pytest.mark.parametrize("traced", [False, True], ids=["eager", "traced"])
def test_saves_during_optimizer_steps_hold_whole_steps(tmp_path, traced):
    w, b = ef.Variable(np.zeros(SIZE, np.float32)), ef.Variable(np.zeros(SIZE, np.float32))
    optimizer = ef.optim.SGD(1.0)  # gradients are ones: after n steps w == b == -n
    ckpt = ef.Checkpoint(w=w, b=b, optimizer=optimizer)
    paths = _save_while_training(tmp_path, ckpt, _sgd_step(w, b, optimizer, traced))
    steps = []
    for path in paths:
        w2, b2 = ef.Variable(np.zeros(SIZE, np.float32)), ef.Variable(np.zeros(SIZE, np.float32))
        opt2 = ef.optim.SGD(1.0)
        ef.Checkpoint(w=w2, b=b2, optimizer=opt2).read(path).assert_existing_objects_matched()
        n = int(opt2.iterations)
        steps.append(n)
        assert np.all(w2.numpy() == -n) and np.all(b2.numpy() == -n), path
    assert steps == sorted(steps) and steps[-1] > steps[0]  # training went on meanwhile


def test_saves_see_a_users_atomic_update_whole(tmp_path):
    count, w = ef.Variable(np.int64(0)), ef.Variable(np.zeros(SIZE, np.float32))

    def step():
        with ef.train.atomic_update():
            count.assign_add(1)
            w.assign(np.full(SIZE, float(int(count)), np.float32))

    for path in _save_while_training(tmp_path, ef.Checkpoint(count=count, w=w), step):
        reader = ef.train.load_checkpoint(path)
        assert np.all(reader.get_tensor("w") == float(reader.get_tensor("count")))


def test_a_single_large_write_is_never_torn(tmp_path):
    # One variable written whole, without a group: every saved value is one of the
    # written ones (uniform), never half old and half new.
    w = ef.Variable(np.zeros(1 << 18, np.float32))
    value = iter(range(1, 1 << 30))

    def step():
        w.assign(np.full(1 << 18, float(next(value)), np.float32))

    for path in _save_while_training(tmp_path, ef.Checkpoint(w=w), step, saves=10):
        saved = ef.train.load_variable(path, "w")
        assert np.all(saved == saved[0])


def test_a_save_refuses_when_another_thread_keeps_a_group_open():
    v = ef.Variable(1.0)
    inside, release = threading.Event(), threading.Event()

    def hold():
        with ef.train.atomic_update():
            v.assign(2.0)
            inside.set()
            release.wait(10)

    thread = threading.Thread(target=hold)
    thread.start()
    try:
        assert inside.wait(10)
        with pytest.raises(ef.errors.FailedPreconditionError,
                           match=r"consistent snapshot of 1 variables: other threads kept "
                                 r"writing them for 0.05 s"):
            variable.snapshot([v], timeout=0.05)
    finally:
        release.set()
        thread.join(10)
    assert [float(a) for a in variable.snapshot([v], timeout=1.0)] == [2.0]


def test_a_save_inside_the_threads_own_group_does_not_wait(tmp_path):
    v = ef.Variable(1.0)
    with ef.train.atomic_update(), ef.train.atomic_update():
        v.assign(3.0)
        path = ef.Checkpoint(v=v).write(tmp_path / "own.h5")
    assert float(ef.train.load_variable(path, "v")) == 3.0


def test_saved_values_never_change_after_the_snapshot():
    v = ef.Variable(np.arange(3, dtype=np.float32))
    [before] = variable.snapshot([v])
    v.assign_add(np.ones(3, np.float32))
    np.testing.assert_array_equal(before, [0.0, 1.0, 2.0])
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0, 3.0])


def test_a_snapshot_keeps_nothing_of_its_caller_alive():
    # Looking at the threads' frames must leave no frame in a reference cycle: the caller's
    # locals (a prefetching iterator, say) then stayed alive, with the iterator's thread,
    # until the garbage collector ran.
    class Payload:
        pass

    def save_holding(payload):
        variable.snapshot([ef.Variable(1.0)])
        return weakref.ref(payload)

    gc.disable()  # what only the garbage collector would free is the bug
    try:
        ref = save_holding(Payload())  # (not inside the assert, which keeps its parts)
        assert ref() is None
    finally:
        gc.enable()
