"""Slot creation, lookup, tracking and reset."""

import numpy as np
import pytest

import eagerflow as ef


def test_build_is_idempotent_and_creates_every_slot():
    a, b = ef.Variable([1.0]), ef.Variable([[1.0, 2.0]])
    opt = ef.optim.Adam()
    opt.build([a, b])
    first = opt._slot_variables()
    opt.build([a, b])
    opt.apply_gradients([(ef.constant([1.0]), a)])
    assert opt._slot_variables() == first
    assert [(v is a or v is b, name) for v, name, _ in first] == [
        (True, "momentum"), (True, "velocity"), (True, "momentum"), (True, "velocity")]
    assert opt.get_slot(b, "velocity").shape == (1, 2)
    assert not opt.get_slot(b, "velocity").trainable


def test_slots_are_keyed_by_variable_identity_not_name():
    a, b = ef.Variable([1.0], name="same"), ef.Variable([5.0], name="same")
    opt = ef.optim.SGD(1.0, momentum=0.5)
    opt.apply_gradients([(ef.constant([1.0]), a), (ef.constant([2.0]), b)])
    assert opt.get_slot(a, "momentum") is not opt.get_slot(b, "momentum")
    assert float(opt.get_slot(b, "momentum")[0]) == -2.0


def test_get_slot_errors_name_the_variable_and_the_slots():
    w = ef.Variable([1.0], name="dense/kernel")
    opt = ef.optim.Adam()
    with pytest.raises(ef.errors.NotFoundError, match="no slots for variable 'dense/kernel'"):
        opt.get_slot(w, "momentum")
    opt.build([w])
    with pytest.raises(ef.errors.NotFoundError,
                       match=r"no slot 'moment' .* slots are \['momentum', 'velocity'\]"):
        opt.get_slot(w, "moment")


def test_new_slots_are_announced_for_deferred_restore():
    class Recorder:
        def __init__(self):
            self.slots, self.variables = [], []

        def slot_created(self, optimizer, variable, slot_name, slot):
            self.slots.append((variable, slot_name, slot))
            slot.assign(np.full(slot.shape, 7.0, slot.dtype))  # as a restore would

        def variable_created(self, obj, name, variable):
            self.variables.append(name)

    opt = ef.optim.SGD(1.0, momentum=1.0)
    recorder = opt._deferred_restore = Recorder()
    w = ef.Variable([0.0])
    opt.apply_gradients([(ef.constant([1.0]), w)])
    assert [(v is w, name) for v, name, _ in recorder.slots] == [(True, "momentum")]
    # The restored slot value was in place before the first update used it: m = 7 - 1.
    assert float(opt.get_slot(w, "momentum")[0]) == 6.0
    opt.learning_rate = ef.Variable(0.5)
    assert recorder.variables == ["learning_rate"]


def test_trackable_children_are_own_state_not_slots():
    opt = ef.optim.Adam(weight_decay=0.1)
    w = ef.Variable([1.0])
    opt.build([w])
    children = opt._trackable_children()
    assert list(children) == ["iterations", "learning_rate", "weight_decay", "beta_1", "beta_2"]
    assert all(isinstance(v, ef.Variable) for v in children.values())
    assert len(opt.variables) == 5 + 2


def test_reset_state_zeroes_slots_and_iterations():
    w = ef.Variable([1.0, 2.0])
    opt = ef.optim.RMSprop(momentum=0.9, centered=True)
    for _ in range(3):
        opt.apply_gradients([(ef.constant([1.0, 1.0]), w)])
    opt.reset_state()
    assert int(opt.iterations) == 0
    for _, _, slot in opt._slot_variables():
        np.testing.assert_array_equal(slot.numpy(), 0.0)
