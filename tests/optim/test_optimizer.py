"""Behaviour shared by every optimizer (the base class)."""

import weakref

import numpy as np
import pytest

import eagerflow as ef
from eagerflow.core.errors import EagerflowWarning


def _pair(value=1.0, name="w"):
    return ef.constant(value), ef.Variable(value, name=name)


# -- apply_gradients --------------------------------------------------------------------------
def test_accepts_a_zip_and_counts_iterations():
    variables = [ef.Variable([1.0, 2.0]), ef.Variable(3.0)]
    grads = [ef.constant([1.0, 1.0]), ef.constant(2.0)]
    opt = ef.optim.SGD(0.5)
    returned = opt.apply_gradients(zip(grads, variables, strict=True))
    assert returned is opt.iterations
    assert opt.iterations.dtype == np.int64 and int(opt.iterations) == 1
    np.testing.assert_allclose(variables[0].numpy(), [0.5, 1.5])
    assert float(variables[1]) == 2.0


def test_accepts_numpy_and_python_gradients_and_casts_them():
    w = ef.Variable([1.0, 1.0])
    ef.optim.SGD(1.0).apply_gradients([(np.array([0.5, 0.25]), w), ])
    ef.optim.SGD(1.0).apply_gradients([([0.5, 0.25], w)])
    assert w.dtype == np.float32
    np.testing.assert_allclose(w.numpy(), [0.0, 0.5])


def test_no_pairs_is_a_no_op():
    opt = ef.optim.Adam()
    assert opt.apply_gradients([]) is opt.iterations
    assert int(opt.iterations) == 0


def test_none_gradient_warning_points_at_the_caller():
    a, b = ef.Variable(1.0, name="a"), ef.Variable(1.0, name="b")
    with pytest.warns(EagerflowWarning) as caught:
        ef.optim.SGD().apply_gradients([(ef.constant(1.0), a), (None, b)])
    assert caught[0].filename == __file__


def test_global_step_is_incremented():
    step = ef.Variable(np.int64(41), trainable=False)
    opt = ef.optim.SGD(0.1)
    opt.apply_gradients([_pair()], global_step=step)
    assert int(step) == 42 and int(opt.iterations) == 1


def test_global_step_must_be_a_variable():
    w = ef.Variable(1.0)
    with pytest.raises(TypeError, match="`global_step` must be an ef.Variable"):
        ef.optim.SGD(0.1).apply_gradients([(ef.constant(1.0), w)], global_step=3)
    assert float(w) == 1.0


def test_none_gradients_are_skipped_with_one_warning_giving_the_reason():
    used, unused = ef.Variable(1.0, name="used"), ef.Variable(1.0, name="unused")
    with ef.GradientTape() as tape:
        loss = used * used
    grads = tape.gradient(loss, [used, unused])
    opt = ef.optim.Adam(0.1)
    with pytest.warns(EagerflowWarning, match=r"(?s)\['unused'\].*never read"):
        opt.apply_gradients(zip(grads, [used, unused], strict=True))
    assert float(used) != 1.0 and float(unused) == 1.0
    # The skipped variable got no slots, and the warning is not repeated every step.
    with pytest.raises(ef.errors.NotFoundError):
        opt.get_slot(unused, "momentum")
    opt.apply_gradients(zip(grads, [used, unused], strict=True))


def test_all_none_gradients_is_an_error_listing_variables_and_reasons():
    a, b = ef.Variable(1.0, name="a"), ef.Variable(1.0, name="b", trainable=False)
    c = ef.Variable(1.0, name="c")
    with ef.GradientTape() as tape:
        loss = ef.stop_gradient(c) * 2.0 + ef.constant(1.0)
    grads = tape.gradient(loss, [a, b])
    with pytest.raises(ef.errors.InvalidArgumentError,
                       match=r"(?s)No gradients provided for any variable.*'a': the variable "
                             r"was never read.*'b': the variable is not trainable"):
        ef.optim.SGD().apply_gradients(zip(grads, [a, b], strict=True))


def test_shape_mismatch_names_the_variable_and_changes_nothing():
    good, bad = ef.Variable([1.0, 1.0], name="good"), ef.Variable([1.0, 1.0], name="dense/bias")
    opt = ef.optim.SGD(1.0)
    with pytest.raises(ef.errors.InvalidArgumentError,
                       match=r"Gradient for variable 'dense/bias' has shape \(3,\), but the "
                             r"variable has shape \(2,\)"):
        opt.apply_gradients([(ef.constant([1.0, 1.0]), good), (ef.constant([1.0] * 3), bad)])
    np.testing.assert_array_equal(good.numpy(), [1.0, 1.0])
    assert int(opt.iterations) == 0


def test_same_variable_twice_is_an_error():
    w = ef.Variable(1.0, name="twice")
    with pytest.raises(ef.errors.InvalidArgumentError, match="'twice' more than once"):
        ef.optim.SGD().apply_gradients([(ef.constant(1.0), w), (ef.constant(2.0), w)])


def test_items_must_be_pairs_of_gradient_and_variable():
    with pytest.raises(TypeError, match=r"expects \(gradient, variable\) pairs"):
        ef.optim.SGD().apply_gradients([ef.constant(1.0)])
    with pytest.raises(TypeError, match="second element of each pair must be an ef.Variable"):
        ef.optim.SGD().apply_gradients([(ef.constant(1.0), ef.constant(1.0))])


def test_integer_variables_cannot_be_updated():
    counter = ef.Variable(3, name="counter")
    with pytest.raises(ef.errors.InvalidArgumentError, match="'counter' has dtype int32"):
        ef.optim.SGD().apply_gradients([(ef.constant(1), counter)])
    with pytest.raises(ef.errors.InvalidArgumentError, match="floating-point"):
        ef.optim.Adam().build([counter])


def test_build_rejects_non_variables():
    with pytest.raises(TypeError, match="build expects ef.Variables"):
        ef.optim.Adam().build([ef.constant(1.0)])


def test_tensor_read_before_the_update_keeps_its_value():
    w = ef.Variable([1.0, 2.0])
    before = w.read_value()
    as_array = before.numpy()
    ef.optim.Adam(0.1).apply_gradients([(ef.constant([1.0, 1.0]), w)])
    np.testing.assert_array_equal(before.numpy(), [1.0, 2.0])
    np.testing.assert_array_equal(as_array, [1.0, 2.0])
    assert float(w[0]) < 1.0


def test_update_is_in_place_when_nothing_shares_the_buffer():
    w = ef.Variable(np.ones((4, 4), np.float32))
    buffer = weakref.ref(w._buf)  # a weak reference does not count as sharing
    opt = ef.optim.SGD(0.1, momentum=0.9)
    for _ in range(3):
        opt.apply_gradients([(ef.constant(np.ones((4, 4), np.float32)), w)])
    assert buffer() is w._buf


def test_gradient_tensors_are_never_modified():
    g = ef.constant([1.0, -2.0])
    for opt in (ef.optim.SGD(0.1, momentum=0.9, clipvalue=0.5), ef.optim.Adam(clipnorm=0.1),
                ef.optim.RMSprop(centered=True, global_clipnorm=0.1), ef.optim.Adagrad()):
        opt.apply_gradients([(g, ef.Variable([0.0, 0.0]))])
    np.testing.assert_array_equal(g.numpy(), [1.0, -2.0])


def test_constraint_is_applied_after_the_update():
    w = ef.Variable([1.0, -1.0], constraint=lambda v: ef.maximum(v, 0.0))
    ef.optim.SGD(1.0).apply_gradients([(ef.constant([0.5, 0.5]), w)])
    np.testing.assert_array_equal(w.numpy(), [0.5, 0.0])


def test_apply_keras_form():
    a, b = ef.Variable(1.0), ef.Variable(2.0)
    opt = ef.optim.SGD(1.0)
    opt.apply([ef.constant(0.5), ef.constant(0.5)], [a, b])
    opt.apply([ef.constant(0.5), ef.constant(0.5)])  # the built variables, in order
    assert (float(a), float(b)) == (0.0, 1.0)
    with pytest.raises(ef.errors.InvalidArgumentError, match="built on exactly 1"):
        opt.apply([ef.constant(0.5)])
    with pytest.raises(ef.errors.InvalidArgumentError, match="2 gradients for 1 variables"):
        opt.apply([ef.constant(0.5), ef.constant(0.5)], [a])


# -- clipping ---------------------------------------------------------------------------------
def test_clipnorm_clips_each_gradient_on_its_own():
    a, b = ef.Variable([0.0, 0.0]), ef.Variable([0.0])
    ef.optim.SGD(1.0, clipnorm=1.0).apply_gradients(
        [(ef.constant([3.0, 4.0]), a), (ef.constant([0.5]), b)])
    np.testing.assert_allclose(a.numpy(), [-0.6, -0.8], rtol=1e-6)
    np.testing.assert_allclose(b.numpy(), [-0.5])


def test_global_clipnorm_clips_all_gradients_together():
    a, b = ef.Variable([0.0]), ef.Variable([0.0])
    ef.optim.SGD(1.0, global_clipnorm=1.0).apply_gradients(
        [(ef.constant([3.0]), a), (ef.constant([4.0]), b)])
    np.testing.assert_allclose([float(a[0]), float(b[0])], [-0.6, -0.8], rtol=1e-6)


def test_clipvalue_clips_each_element():
    w = ef.Variable([0.0, 0.0, 0.0])
    ef.optim.SGD(1.0, clipvalue=0.5).apply_gradients([(ef.constant([-2.0, 0.25, 9.0]), w)])
    np.testing.assert_allclose(w.numpy(), [0.5, -0.25, -0.5])


def test_only_one_clipping_option():
    with pytest.raises(ValueError, match="only one of `clipnorm`, `clipvalue`"):
        ef.optim.SGD(clipnorm=1.0, clipvalue=1.0)


@pytest.mark.parametrize("option", ["clipnorm", "clipvalue", "global_clipnorm"])
def test_clipping_value_must_be_positive(option):
    with pytest.raises(ValueError, match=f"`{option}` must be > 0"):
        ef.optim.Adam(**{option: 0.0})
    with pytest.raises(ValueError, match=f"`{option}` must be a float"):
        ef.optim.Adam(**{option: "1"})


def test_weight_decay_must_be_non_negative():
    with pytest.raises(ValueError, match="`weight_decay` must be >= 0"):
        ef.optim.SGD(weight_decay=-0.1)


# -- minimize ---------------------------------------------------------------------------------
def test_minimize_updates_the_trainable_variables_the_loss_read():
    used = ef.Variable(2.0)
    frozen = ef.Variable(3.0, trainable=False)
    unused = ef.Variable(5.0)
    opt = ef.optim.SGD(0.25)
    loss = opt.minimize(lambda: used * used * frozen)
    assert float(loss) == 12.0
    assert float(used) == 2.0 - 0.25 * 12.0 and float(frozen) == 3.0 and float(unused) == 5.0


def test_minimize_with_var_list_and_callable_var_list():
    a, b = ef.Variable(1.0), ef.Variable(1.0)
    opt = ef.optim.SGD(1.0)
    opt.minimize(lambda: a * b, var_list=[a])
    assert (float(a), float(b)) == (0.0, 1.0)
    opt.minimize(lambda: a * b + b, var_list=lambda: [b])
    assert float(b) == 0.0


def test_minimize_with_a_tape_and_a_tensor_loss():
    w = ef.Variable(3.0)
    opt = ef.optim.SGD(0.5)
    with ef.GradientTape() as tape:
        loss = w * w
    assert opt.minimize(loss, tape=tape) is loss
    assert float(w) == 0.0
    tape2 = ef.GradientTape()
    opt.minimize(lambda: w + 1.0, tape=tape2)
    assert float(w) == -0.5


def test_minimize_errors():
    opt = ef.optim.SGD()
    with pytest.raises(TypeError, match="`loss` must be a callable"):
        opt.minimize(ef.constant(1.0))
    with pytest.raises(TypeError, match="loss must be a Tensor"):
        opt.minimize(lambda: 1.0)
    with pytest.raises(ef.errors.InvalidArgumentError, match="read no trainable variables"):
        opt.minimize(lambda: ef.constant(2.0) * 3.0)


def test_custom_optimizer_subclass():
    class SignSGD(ef.optim.Optimizer):
        def update_step(self, gradient, variable, learning_rate):
            variable.assign_sub(learning_rate * ef.sign(gradient))

    w = ef.Variable([1.0, 1.0])
    SignSGD(learning_rate=0.5).apply_gradients([(ef.constant([3.0, -0.1]), w)])
    np.testing.assert_array_equal(w.numpy(), [0.5, 1.5])


def test_base_class_needs_an_update_rule():
    with pytest.raises(TypeError, match="abstract"):
        ef.optim.Optimizer()


# -- slots: creation, lookup, tracking and reset ----------------------------------------
def test_build_is_idempotent_and_creates_every_slot():
    a, b = ef.Variable([1.0]), ef.Variable([[1.0, 2.0]])
    opt = ef.optim.Adam()
    opt.build([a, b])
    first = opt.slot_variables()
    opt.build([a, b])
    opt.apply_gradients([(ef.constant([1.0]), a)])
    assert opt.slot_variables() == first
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
    for _, _, slot in opt.slot_variables():
        np.testing.assert_array_equal(slot.numpy(), 0.0)


def test_apply_gradients_says_numpy_left_the_tape():
    v = ef.Variable([1.0, 2.0], name="w")
    with ef.GradientTape() as tape:
        loss = ef.reduce_sum(v.numpy() * 2.0)
    grads = tape.gradient(loss, [v])
    with pytest.raises(ef.errors.InvalidArgumentError,
                       match=r"'w': the variable was never read .* except by \.numpy\(\), "
                             r"which leaves the tape"):
        ef.optimizers.SGD().apply_gradients(zip(grads, [v]))
