"""Optimizer checkpoints written before the optimizer's state was declared in `build`
(eagerflow 18758f2) restore identically: every slot, the shared state and the counters
come back, and the next step gives the values that code gave (bit for bit).

`data/optimizers_main.h5` was written by that code after three steps of seven optimizers
(AMSGrad Adam, Nadam, Nesterov SGD, AdamW with EMA, RMSprop with gradient accumulation,
Adafactor, Lamb); `data/optimizers_main_next.npz` holds its variables and slots after a
fourth step."""

import os

import numpy as np
import pytest

import eagerflow as ef

DATA = os.path.join(os.path.dirname(__file__), "data")


def _optimizers():
    return {
        "adam": ef.optim.Adam(0.01, amsgrad=True),
        "nadam": ef.optim.Nadam(0.01),
        "sgd": ef.optim.SGD(0.1, momentum=0.9, nesterov=True),
        "adamw_ema": ef.optim.AdamW(0.01, weight_decay=0.1, use_ema=True),
        "rms_accum": ef.optim.RMSprop(0.01, gradient_accumulation_steps=2),
        "adafactor": ef.optim.Adafactor(0.01),
        "lamb": ef.optim.Lamb(0.01),
    }


def _variables(names):
    return {name: [ef.Variable(np.zeros((2, 3), np.float32), name=f"{name}_k"),
                   ef.Variable(np.zeros(2, np.float32), name=f"{name}_b")]
            for name in names}


def _grads(step):
    return [np.sin(np.arange(6, dtype=np.float32).reshape(2, 3) + step),
            np.cos(np.array([1.0, 2.0], np.float32) * step)]


@pytest.mark.parametrize("build_first", [False, True], ids=["deferred", "built"])
def test_a_checkpoint_written_before_restores_identically(build_first):
    optimizers = _optimizers()
    variables = _variables(optimizers)
    if build_first:
        for name, optimizer in optimizers.items():
            optimizer.build(variables[name])
    checkpoint = ef.Checkpoint(**{f"v_{n}": v for n, v in variables.items()}, **optimizers)
    checkpoint.read(os.path.join(DATA, "optimizers_main.h5")).assert_existing_objects_matched()
    expected = np.load(os.path.join(DATA, "optimizers_main_next.npz"))
    for name, optimizer in optimizers.items():
        assert int(optimizer.iterations) == int(expected[f"{name}/iterations"]) - 1
        optimizer.apply_gradients(zip([ef.constant(g) for g in _grads(3)], variables[name]))
        for k, var in enumerate(variables[name]):
            np.testing.assert_array_equal(var.numpy(), expected[f"{name}/{k}"], err_msg=name)
        slots = {f"{name}/slot/{var.name}/{slot_name}": slot
                 for var, slot_name, slot in optimizer.slot_variables()}
        assert sorted(slots) == sorted(key for key in expected.files
                                       if key.startswith(f"{name}/slot/")), name
        for key, slot in slots.items():
            np.testing.assert_array_equal(slot.numpy(), expected[key], err_msg=key)
        assert int(optimizer.iterations) == int(expected[f"{name}/iterations"])
