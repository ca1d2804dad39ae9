"""GradientTape: recording, structures, higher order, None reasons, lifetime, threads."""

import gc
import threading
import weakref

import numpy as np
import pytest

import eagerflow as ef
from eagerflow.core import context
from eagerflow.core.errors import EagerflowWarning


def test_watched_tensor_gradient():
    x = ef.constant(3.0)
    with ef.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    assert float(tape.gradient(y, x)) == 6.0


def test_unwatched_constant_gives_none_with_reason():
    x = ef.constant(3.0)
    with ef.GradientTape() as tape:
        y = x * x
    assert tape.gradient(y, x) is None
    assert "not watched" in tape.why_none(x)
    assert "tape.watch" in tape.why_none(x)


def test_tensor_computed_before_tape_is_not_connected():
    x = ef.constant(2.0)
    with ef.GradientTape() as tape:
        tape.watch(x)
    z = x * 2.0  # outside the with block
    assert tape.gradient(z, x) is None
    assert "does not depend" in tape.why_none(x)


def test_unconnected_source_reason_and_zero_option():
    x, y = ef.constant(1.0), ef.constant(2.0)
    with ef.GradientTape(persistent=True) as tape:
        tape.watch([x, y])
        z = x * 3.0
    assert tape.gradient(z, y) is None
    assert "does not depend" in tape.why_none(y)
    zero = tape.gradient(z, y, unconnected_gradients="zero")
    assert zero.shape == () and float(zero) == 0.0


def test_unconnected_gradients_validation():
    x = ef.constant(1.0)
    with ef.GradientTape() as tape:
        tape.watch(x)
        y = x * 2
    with pytest.raises(ValueError, match="unconnected_gradients must be 'none' or 'zero'"):
        tape.gradient(y, x, unconnected_gradients="nan")


def test_non_differentiable_path_gives_none():
    x = ef.constant([1.0, 2.0])
    with ef.GradientTape() as tape:
        tape.watch(x)
        y = ef.cast(ef.argmax(x), ef.float32) * x[0]
        z = ef.round(x)
    grads = tape.gradient(z, x)
    assert grads is None
    assert "non-differentiable" in tape.why_none(x)
    del y


def test_structured_sources():
    a, b, c = ef.constant(1.0), ef.constant(2.0), ef.constant(3.0)
    with ef.GradientTape(persistent=True) as tape:
        tape.watch([a, b, c])
        y = a * b * c
    grads = tape.gradient(y, {"a": a, "rest": (b, [c])})
    assert float(grads["a"]) == 6.0
    assert isinstance(grads["rest"], tuple)
    assert float(grads["rest"][0]) == 3.0 and float(grads["rest"][1][0]) == 2.0
    single = tape.gradient(y, a)
    assert isinstance(single, ef.Tensor)


def test_watch_nested_structure_and_multiple_targets():
    a, b = ef.constant(1.0), ef.constant(2.0)
    with ef.GradientTape() as tape:
        tape.watch({"a": a, "b": [b]})
        y1, y2 = a * 2.0, a * b
    ga, gb = tape.gradient([y1, y2], [a, b])
    assert float(ga) == 4.0 and float(gb) == 1.0


def test_output_gradients():
    x = ef.constant([1.0, 2.0])
    with ef.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    g = tape.gradient(y, x, output_gradients=ef.constant([10.0, 100.0]))
    np.testing.assert_allclose(g.numpy(), [20.0, 400.0])


def test_output_gradients_count_mismatch():
    x = ef.constant(1.0)
    with ef.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    with pytest.raises(ValueError, match="output_gradients has 2 entries but target has 1"):
        tape.gradient(y, x, output_gradients=[1.0, 2.0])


def test_integer_sources_give_none_and_watch_warns():
    i = ef.constant(3)
    with pytest.warns(EagerflowWarning, match="gradients exist only for floating-point"):
        with ef.GradientTape() as tape:
            tape.watch(i)
            y = ef.cast(i, ef.float32) * 2.0
    assert tape.gradient(y, i) is None
    assert "dtype int32" in tape.why_none(i)


def test_watch_of_non_tensor_is_an_error():
    with ef.GradientTape() as tape:
        with pytest.raises(ValueError, match="expects Tensors or Variables, got float"):
            tape.watch(3.0)


def test_gradient_source_and_target_types():
    x = ef.constant(1.0)
    with ef.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * 2
    with pytest.raises(TypeError, match="sources must be Tensors or Variables"):
        tape.gradient(y, "x")
    with pytest.raises(TypeError, match="target must be a Tensor or Variable"):
        tape.gradient(None, x)


def test_second_call_of_non_persistent_tape_raises():
    x = ef.constant(1.0)
    with ef.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    tape.gradient(y, x)
    with pytest.raises(RuntimeError, match="persistent=True"):
        tape.gradient(y, x)


def test_persistent_tape_allows_many_calls():
    x = ef.constant(2.0)
    with ef.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        z = y * y
    assert float(tape.gradient(y, x)) == 4.0
    assert float(tape.gradient(z, x)) == 32.0


def test_gradient_inside_block_warns_once_and_records_backward():
    x = ef.constant(3.0)
    with pytest.warns(EagerflowWarning, match="inside the tape's `with` block"):
        with ef.GradientTape() as tape:
            tape.watch(x)
            y = x * x
            g = tape.gradient(y, x)
    assert float(g) == 6.0


def test_persistent_tape_gradient_of_gradient_inside_block():
    x = ef.constant(3.0)
    with ef.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x * x
        g = tape.gradient(y, x)
    assert float(tape.gradient(g, x)) == 18.0


def test_nested_tapes_third_order_and_unconnected_fourth():
    x = ef.constant(2.0)
    with ef.GradientTape() as t3:
        t3.watch(x)
        with ef.GradientTape() as t2:
            t2.watch(x)
            with ef.GradientTape() as t1:
                t1.watch(x)
                y = x * x * x
            d1 = t1.gradient(y, x)
        d2 = t2.gradient(d1, x)
    d3 = t3.gradient(d2, x)
    assert (float(d1), float(d2), float(d3)) == (12.0, 12.0, 6.0)


def test_third_derivative_of_square_is_unconnected():
    grad = ef.gradients_function(lambda x: x * x)
    gradgrad = ef.gradients_function(lambda x: grad(x)[0])
    assert ef.gradients_function(lambda x: gradgrad(x)[0])(3.0) == [None]


def test_stop_recording():
    x = ef.constant(2.0)
    with ef.GradientTape() as tape:
        tape.watch(x)
        with tape.stop_recording():
            hidden = x * x
        y = hidden + x * 3.0
    assert float(tape.gradient(y, x)) == 3.0  # only the recorded branch
    with pytest.raises(RuntimeError, match="inside the tape's `with` block"):
        with tape.stop_recording():
            pass


def test_stop_recording_excludes_ops():
    x = ef.constant(2.0)
    with ef.GradientTape() as tape:
        tape.watch(x)
        with tape.stop_recording():
            hidden = x * x
    assert tape.gradient(hidden, x) is None


def test_reset():
    x = ef.constant(2.0)
    with ef.GradientTape() as tape:
        tape.watch(x)
        y = x * x
        tape.reset()
        tape.watch(x)
        z = x * 5.0
    assert float(tape.gradient(z, x)) == 5.0
    del y


def test_reenter_is_an_error():
    tape = ef.GradientTape()
    with tape:
        with pytest.raises(ValueError, match="already recording"):
            tape.__enter__()


def test_variables_are_watched_automatically():
    v = ef.Variable(2.0)
    frozen = ef.Variable(5.0, trainable=False)
    with ef.GradientTape() as tape:
        y = v * frozen
    assert tape.watched_variables() == (v,)
    gv, gf = tape.gradient(y, [v, frozen])
    assert float(gv) == 5.0 and gf is None


def test_watch_accessed_variables_false():
    v, w = ef.Variable(2.0), ef.Variable(3.0)
    with ef.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(w)
        y = v * w
    gv, gw = tape.gradient(y, [v, w])
    assert gv is None and float(gw) == 2.0
    assert "watch_accessed_variables=False" in tape.why_none(v)


def test_variable_read_twice_with_assignment_between():
    v = ef.Variable(2.0)
    with ef.GradientTape() as tape:
        a = v * 1.0
        v.assign(5.0)
        b = v * v
        y = a + b
    # d/dv (v_old + v_new^2) summed over both reads: 1 + 2 * 5
    assert float(tape.gradient(y, v)) == 11.0


def test_variable_not_read_reason():
    v = ef.Variable(1.0)
    x = ef.constant(1.0)
    with ef.GradientTape() as tape:
        tape.watch(x)
        y = x * 2
    assert tape.gradient(y, v) is None
    assert "never read" in tape.why_none(v)
    assert ef.core.tape.none_reason(v) == tape.why_none(v)


def test_trainable_false_variable_reason():
    v = ef.Variable(1.0, trainable=False)
    with ef.GradientTape() as tape:
        y = v * 2
    assert tape.gradient(y, v) is None
    assert "not trainable" in tape.why_none(v)


def test_variable_target():
    v = ef.Variable(3.0)
    with ef.GradientTape() as tape:
        tape.watch(v)
    assert float(tape.gradient(v, v)) == 1.0


def test_broadcast_gradients_are_summed_to_input_shapes():
    a = ef.constant(np.ones((3, 1, 4)))
    b = ef.constant(np.ones((2, 1)))
    with ef.GradientTape() as tape:
        tape.watch([a, b])
        y = a * b
    ga, gb = tape.gradient(y, [a, b])
    assert ga.shape == (3, 1, 4) and gb.shape == (2, 1)
    np.testing.assert_allclose(ga.numpy(), 2.0)
    np.testing.assert_allclose(gb.numpy(), 12.0)


def test_gradient_dtype_matches_source():
    x = ef.constant([1.0, 2.0])
    with ef.GradientTape() as tape:
        tape.watch(x)
        y = x * np.float64(2.0) + ef.constant(np.array([0.5, 0.5]))  # float64 result
    g = tape.gradient(y, x)
    assert y.dtype == np.float64 and g.dtype == np.float32


def test_rule_is_called_only_for_needed_inputs():
    x = ef.constant(np.ones((2, 3)))
    w = ef.Variable(np.ones((3, 4)))
    calls = []
    original = ef.ops.linalg_ops._matmul.grad

    def spy(dy, y, a, b, needs, **attrs):
        calls.append(needs)
        return original(dy, y, a, b, needs=needs, **attrs)

    ef.ops.linalg_ops._matmul.grad = spy
    try:
        with ef.GradientTape() as tape:
            y = ef.matmul(x, w)
        tape.gradient(y, w)
    finally:
        ef.ops.linalg_ops._matmul.grad = original
    assert calls == [(False, True)]


def test_missing_gradient_rule_is_unimplemented_error():
    op = ef.core.dispatch.Op("NoGradTestOp", lambda x: x * 1)
    x = ef.constant(1.0)
    with ef.GradientTape() as tape:
        tape.watch(x)
        y = ef.core.dispatch.execute(op, (x,))
    with pytest.raises(ef.errors.UnimplementedError, match="No gradient is defined for op"):
        tape.gradient(y, x)


def test_jacobian():
    x = ef.constant([1.0, 2.0, 3.0])
    with ef.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    jac = tape.jacobian(y, x)
    np.testing.assert_allclose(jac.numpy(), np.diag([2.0, 4.0, 6.0]))
    with pytest.raises(RuntimeError, match="persistent=True"):
        tape.jacobian(y, x)


def test_jacobian_of_matrix_and_unconnected():
    x = ef.constant(np.arange(6.0).reshape(2, 3))
    u = ef.constant(1.0)
    with ef.GradientTape(persistent=True) as tape:
        tape.watch([x, u])
        y = ef.reduce_sum(x, axis=1)
    jac, none = tape.jacobian(y, [x, u])
    assert jac.shape == (2, 2, 3) and none is None
    expected = np.zeros((2, 2, 3))
    expected[0, 0] = expected[1, 1] = 1
    np.testing.assert_allclose(jac.numpy(), expected)
    zero = tape.jacobian(y, u, unconnected_gradients="zero")
    assert zero.shape == (2,) and not zero.numpy().any()


def test_batch_jacobian():
    x = ef.constant(np.random.default_rng(0).standard_normal((4, 3)))
    with ef.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = ef.nn.softmax(x)
    full = tape.jacobian(y, x).numpy()
    batch = tape.batch_jacobian(y, x).numpy()
    assert batch.shape == (4, 3, 3)
    np.testing.assert_allclose(batch, np.einsum("ijik->ijk", full), atol=1e-12)
    with pytest.raises(ef.errors.InvalidArgumentError, match="same leading"):
        tape.batch_jacobian(y, ef.constant(np.ones((5, 3))))


def test_non_persistent_tape_releases_tensors_after_gradient():
    x = ef.constant(np.ones(1000))
    with ef.GradientTape() as tape:
        tape.watch(x)
        hidden = ef.exp(x)
        y = ef.reduce_sum(hidden)
    probe = weakref.ref(hidden)
    del hidden
    assert probe() is not None  # held by the tape's record of reduce_sum
    tape.gradient(y, x)
    gc.collect()
    assert probe() is None
    assert not tape._records and not tape._watched


def test_unused_results_are_not_kept_by_the_tape():
    x = ef.constant(np.ones(1000))
    with ef.GradientTape() as tape:
        tape.watch(x)
        probe = weakref.ref(ef.exp(x))
        assert probe() is None


def test_deleting_a_persistent_tape_frees_its_records():
    x = ef.constant(np.ones(10))
    tape = ef.GradientTape(persistent=True)
    with tape:
        tape.watch(x)
        kept = ef.reduce_sum(ef.exp(x))
    probe = weakref.ref(tape)
    del tape
    gc.collect()
    assert probe() is None
    assert kept is not None


def test_no_active_tape_means_fast_path():
    assert not context.flags.intercepted
    with ef.GradientTape():
        assert context.flags.intercepted
    assert not context.flags.intercepted


def test_tapes_are_thread_local():
    x = ef.constant(2.0)
    results = {}

    def worker():
        with ef.GradientTape() as tape:
            tape.watch(x)
            results["thread_tape_sees"] = len(context.thread.tapes)
            y = x * x
        results["grad"] = float(tape.gradient(y, x))

    with ef.GradientTape() as main_tape:
        main_tape.watch(x)
        t = threading.Thread(target=worker)
        t.start()
        t.join()
        z = x * 3.0
    assert results == {"thread_tape_sees": 1, "grad": 4.0}
    assert float(main_tape.gradient(z, x)) == 3.0


def test_slicing_is_differentiable():
    x = ef.constant(np.arange(12.0).reshape(3, 4))
    with ef.GradientTape() as tape:
        tape.watch(x)
        y = ef.reduce_sum(x[1:, ::2]) + ef.reduce_sum(x[ef.constant([0, 0])])
    g = tape.gradient(y, x).numpy()
    expected = np.zeros((3, 4))
    expected[1:, ::2] = 1
    expected[0] += 2
    np.testing.assert_allclose(g, expected)


def test_iteration_is_differentiable():
    x = ef.constant([[1.0, 2.0], [3.0, 4.0]])
    with ef.GradientTape() as tape:
        tape.watch(x)
        rows = [row * float(i + 1) for i, row in enumerate(x)]
        y = ef.reduce_sum(rows[0] + rows[1])
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [[1, 1], [2, 2]])


def test_unconnected_gradients_enum_means_the_same_as_its_string():
    x, y = ef.constant([1.0, 2.0]), ef.constant(3.0)
    with ef.GradientTape(persistent=True) as tape:
        tape.watch([x, y])
        z = ef.reduce_sum(x * 2.0)
    assert tape.gradient(z, y, unconnected_gradients=ef.UnconnectedGradients.NONE) is None
    zero = tape.gradient(z, [x, y], unconnected_gradients=ef.UnconnectedGradients.ZERO)
    np.testing.assert_array_equal(zero[0].numpy(), [2.0, 2.0])
    assert zero[1].numpy() == 0.0 and zero[1].dtype == ef.float32


def test_why_none_says_numpy_left_the_tape():
    v = ef.Variable([1.0, 2.0], name="w")
    with ef.GradientTape() as tape:
        loss = ef.reduce_sum(v.numpy() * 2.0)  # v is only read through .numpy()
    assert tape.gradient(loss, v) is None
    assert "except by .numpy(), which leaves the tape" in tape.why_none(v)

    x = ef.constant([1.0, 2.0])
    with ef.GradientTape() as tape:
        tape.watch(x)
        y = x * 3.0
        loss = ef.constant(np.sum(y.numpy()))  # the path to x goes through NumPy
    assert tape.gradient(loss, x) is None
    assert ".numpy() was called inside the tape" in tape.why_none(x)


def test_why_none_without_numpy_keeps_the_general_reasons():
    v = ef.Variable([1.0, 2.0])
    with ef.GradientTape() as tape:
        loss = ef.constant(1.0)
    tape.gradient(loss, v)
    assert "watch_accessed_variables=False" in tape.why_none(v)
    x = ef.constant([1.0, 2.0])
    with ef.GradientTape() as tape:
        tape.watch(x)
        loss = ef.reduce_sum(ef.cast(ef.argmax(x), ef.float32))
    tape.gradient(loss, x)
    assert "non-differentiable op such as argmax" in tape.why_none(x)
