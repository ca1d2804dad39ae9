import threading

import numpy as np

import eagerflow as ef
from eagerflow.optim import global_step


def test_one_int64_variable_per_process():
    results = []
    threads = [threading.Thread(target=lambda: results.append(
        global_step.get_or_create_global_step())) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    step = global_step.get_or_create_global_step()
    assert all(r is step for r in results)
    assert step.dtype == np.int64 and step.name == "global_step" and not step.trainable
    assert global_step.get_global_step() is step
    assert ef.optim.get_or_create_global_step is global_step.get_or_create_global_step


def test_apply_gradients_increments_it():
    step = global_step.get_or_create_global_step()
    start = int(step)
    w = ef.Variable(1.0)
    opt = ef.optim.SGD(0.1)
    for _ in range(3):
        opt.apply_gradients(zip([ef.constant(1.0)], [w], strict=True), global_step=step)
    assert int(step) == start + 3
