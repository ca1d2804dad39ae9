"""Cases from TensorFlow's `tensorflow/python/eager/backprop_test.py` (eager, public API).

Inputs, expected values and exception classes are TensorFlow 2.21's, recorded from
`tf.GradientTape` and `tensorflow.python.eager.backprop` (`gradients_function`,
`val_and_grad_function`, `implicit_grad`, `implicit_val_and_grad`). Cases about graph mode,
GPUs, IndexedSlices, pfor and TF internals (op attrs, memory checkers) have no eagerflow
counterpart and are not ported.
"""

import functools
import warnings

import numpy as np
import pytest

import eagerflow as ef


def _values(structure):
    """Gradients as Python floats/lists in the same structure (None stays None)."""
    if isinstance(structure, (list, tuple)):
        return type(structure)(_values(s) for s in structure)
    if isinstance(structure, dict):
        return {k: _values(v) for k, v in structure.items()}
    return None if structure is None else structure.numpy().tolist()


# -- function-style gradients ------------------------------------------------------------

def test_aggregate_gradients_of_repeated_gathers():
    var = np.array([[0.1, 0.2], [0.3, 0.4], [0.5, 0.6], [0.7, 0.8]], "float32")

    def fn(x):
        g1 = ef.nn.embedding_lookup(x, np.array([0, 1]))
        g2 = ef.nn.embedding_lookup(x, np.array([2, 3]))
        g3 = ef.nn.embedding_lookup(x, np.array([1, 3]))
        return g1 * g2 * g3

    grad = ef.gradients_function(fn, [0])(ef.constant(var))[0]
    # TF: the dense sum of its IndexedSlices gradient.
    expected = [[0.15, 0.24], [0.54, 0.76], [0.03, 0.08], [0.42, 0.64]]
    np.testing.assert_allclose(grad.numpy(), expected, rtol=1e-5)


def test_where_gradient():
    g = ef.gradients_function(lambda x: ef.where(x < 10, x, x * x))
    assert float(g(5.0)[0]) == 1.0
    assert float(g(50.0)[0]) == 100.0


def test_dy_scales_the_gradient():
    assert float(ef.gradients_function(lambda x: x)(1.0, dy=2.0)[0]) == 2.0


def test_gradient_of_integer_argument_is_none():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ef.errors.EagerflowWarning)  # eagerflow's hint only
        assert ef.gradients_function(lambda x: x + x)(ef.constant(1))[0] is None


def test_error_raised_by_grad_fn_propagates():
    @ef.custom_gradient
    def f(x):
        def grad(_):
            raise RuntimeError("x")

        return x, grad

    with pytest.raises(RuntimeError, match="x"):
        ef.gradients_function(f)(ef.constant(1.0))


def test_gradients_function_inside_custom_gradient():
    @ef.custom_gradient
    def f(x):
        (y,) = ef.gradients_function(lambda x: x * x)(x)
        return y, lambda dy: [2 * dy]

    assert float(f(1.0)) == 2.0


def test_gradient_through_two_outputs_one_unused():
    def loss(x, labels):
        xent = ef.nn.softmax_cross_entropy_with_logits(labels=labels, logits=x)
        return ef.reduce_mean(xent, [0])

    (g,) = ef.gradients_function(loss, [0])(ef.constant([[0.0, 0.0]]),
                                            ef.constant([[1.0, 0.0]]))
    np.testing.assert_allclose(g.numpy(), [[-0.5, 0.5]])


def test_second_gradient_of_cross_entropy():
    def first(x):
        xent = ef.nn.softmax_cross_entropy_with_logits(labels=ef.constant([[0.0]]), logits=x)
        return ef.reduce_sum(xent, [0])

    def second(x):
        return ef.reduce_sum(ef.gradients_function(first, [0])(x)[0], [0])

    grad = ef.gradients_function(second, [0])(ef.constant([[0.1]]))[0]
    np.testing.assert_array_equal(grad.numpy(), [[0.0]])


def test_grad_grad():
    grad = ef.gradients_function(lambda x: ef.gradients_function(lambda y: y * y, [0])(x)[0])
    assert float(grad(ef.constant(3.0))[0]) == 2.0
    grad_exp = ef.gradients_function(lambda x: ef.gradients_function(ef.exp, [0])(x)[0])
    assert float(grad_exp(ef.constant(0.0))[0]) == 1.0


def test_stop_gradient_of_argmax_is_none():
    assert ef.gradients_function(lambda x: ef.stop_gradient(ef.argmax(x)))([0.0])[0] is None
    assert ef.gradients_function(lambda x: ef.argmax(x))([0.0])[0] is None


def test_constant_chain_on_cpu():
    grad = ef.gradients_function(lambda x: ef.add(ef.add(x, 2.0), ef.constant(3.0)), [0])
    assert float(grad(ef.constant(1.0))[0]) == 1.0


def test_all_arguments_by_default():
    dx, dy = ef.gradients_function(lambda a, b: a * b)(ef.constant(1.0), ef.constant(2.0))
    assert (float(dx), float(dy)) == (2.0, 1.0)


def test_value_and_gradients_function():
    value, (dx, dy) = ef.value_and_gradients_function(lambda a, b: a * b)(2.0, 3.0)
    assert (float(value), float(dx), float(dy)) == (6.0, 3.0, 2.0)
    value, grads = ef.value_and_gradients_function(lambda a, b: a * b, params=[1])(2.0, 3.0)
    assert float(value) == 6.0 and len(grads) == 1 and float(grads[0]) == 2.0


def test_star_args_partial_and_tuple_result():
    assert float(ef.gradients_function(lambda *args: args[0] * args[0])(1.0)[0]) == 2.0
    part = functools.partial(lambda x, y: x * y, ef.constant(2.0))
    assert float(ef.gradients_function(part)(ef.constant(1.0))[0]) == 2.0
    # Several results are summed: d(x + 2x)/dx.
    assert float(ef.gradients_function(lambda x: (x, 2 * x))(1.0)[0]) == 3.0
    grad = ef.gradients_function(lambda x: (x + 2, x * x))(ef.constant([0.0, 1.0, 2.0]))[0]
    assert grad.numpy().tolist() == [1.0, 3.0, 5.0]


def test_exception_in_function_leaves_no_tape_behind():
    def f(unused_x):
        raise ValueError()

    with pytest.raises(ValueError):
        ef.gradients_function(f)(1.0)
    assert float(ef.gradients_function(lambda x: x * x)(1.0)[0]) == 2.0


def test_non_tensor_arguments_left_alone():
    def conv(image, kernel, strides):
        return ef.nn.conv2d(image, kernel, strides, "SAME")

    grad = ef.gradients_function(conv, params=(0,))(
        ef.constant([[[[1.0]]]]), ef.constant([[[[2.0]]]]), [1, 1, 1, 1])[0]
    assert grad.numpy().tolist() == [[[[2.0]]]]


@pytest.mark.parametrize("make", [lambda: ef.constant(1.0), lambda: 1.0,
                                  lambda: ef.constant([[1.0]]), lambda: [[1.0]],
                                  lambda: ef.Variable(1.0)])
def test_same_object_for_two_arguments(make):
    x = make()
    dx, dy = ef.gradients_function(lambda a, b: ef.multiply(a, b))(x, x)
    assert dx.numpy().tolist() == dy.numpy().tolist() == np.ones_like(np.asarray(x)).tolist()


def test_function_returning_none_is_an_error():
    def fn(x, y):
        x * y

    x, y = ef.constant(1), ef.constant(2)
    with pytest.raises(ValueError, match="returned None"):
        ef.implicit_value_and_gradients(fn)(x, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ef.errors.EagerflowWarning)  # int arguments watched
        with pytest.raises(ValueError, match="returned None"):
            ef.value_and_gradients_function(fn)(x, y)


# -- implicit gradients -----------------------------------------------------------------

def test_implicit_gradient_of_a_variable_read():
    x = ef.Variable(1.0, name="x")
    grads_and_vars = ef.implicit_gradients(lambda: ef.add(ef.add(x.read_value(), 2.0), 3.0))()
    assert float(grads_and_vars[0][0]) == 1.0
    assert grads_and_vars[0][1] is x


def test_implicit_gradients_in_variable_creation_order():
    v0 = ef.Variable(1.0)
    v1 = ef.Variable(2.0)
    grads = ef.implicit_gradients(lambda: v1 * v1 + v0 * v0)()
    assert [v for _, v in grads] == [v0, v1]
    assert [float(g) for g, _ in grads] == [2.0, 4.0]


def test_implicit_gradient_unconnected_is_none():
    v = ef.Variable(1.0)

    def f():
        v.read_value()
        return ef.constant(1.0)

    assert ef.implicit_gradients(f)()[0][0] is None


def test_implicit_gradient_through_stack():
    x = ef.Variable([1.0], name="x")

    def fn():
        a = ef.add(x.read_value(), 1.0)
        return ef.reduce_mean(ef.stack([a, a], axis=0))

    assert ef.implicit_gradients(fn)()[0][0].numpy().tolist() == [1.0]


def test_implicit_gradient_of_custom_gradient_reading_a_variable():
    @ef.custom_gradient
    def my_square(x):
        return ef.square(x), lambda dr: 2 * dr * x + 1

    x = ef.Variable(3.0)
    grads_and_vars = ef.implicit_gradients(lambda: my_square(x))()
    assert len(grads_and_vars) == 1
    assert float(grads_and_vars[0][0]) == 7.0 and grads_and_vars[0][1] is x


def test_implicit_value_and_gradients_training_loop():
    @ef.custom_gradient
    def my_mul(x, y):
        return x * y, lambda dr: [dr * y, dr * x]

    x = ef.Variable(2.0, name="x")
    loss_grads_fn = ef.implicit_value_and_gradients(lambda x: my_mul(2.0, x.read_value()))
    losses = []
    for _ in range(5):
        loss, grads_and_vars = loss_grads_fn(x)
        losses.append(float(loss))
        for grad, var in grads_and_vars:
            var.assign_sub(0.25 * grad)
    assert losses == [4.0, 3.0, 2.0, 1.0, 0.0]


# -- GradientTape -----------------------------------------------------------------------

@pytest.mark.parametrize("traced", [False, True])
def test_no_op_behaviour_consistent(traced):
    def f(x):
        x1 = ef.identity(x)
        x2, x3, x4 = ef.add(x, 0), ef.subtract(x, 0), ef.multiply(x, 1)
        with ef.GradientTape() as t:
            t.watch([x, x1, x2, x3, x4])
            loss = x * 2.0 + x1 * 3.0 + x2 * 3.0 + x3 * 3.0 + x4 * 3.0
        return t.gradient(loss, [x, x1, x2, x3, x4])

    f = ef.function(f) if traced else f
    assert [float(g) for g in f(ef.constant(10.0))] == [2.0, 3.0, 3.0, 3.0, 3.0]


def test_two_targets():
    with ef.GradientTape() as t:
        x, y = ef.constant(3.0), ef.constant(2.0)
        t.watch([x, y])
        xx, yy = 2 * x, 3 * y
    assert _values(t.gradient([xx, yy], [x, y])) == [2.0, 3.0]


def test_output_gradient_used_in_computation():
    with ef.GradientTape() as t:
        x, y = ef.constant(3.0), ef.constant(2.0)
        t.watch([x, y])
        loss = x * y
    (dx,) = t.gradient([loss, x], [x], output_gradients=[1.0, 2.0])
    assert float(dx) == 4.0


def test_no_op_gradients():
    x, y = ef.constant(3.0), ef.constant(5.0)
    with ef.GradientTape(persistent=True) as t:
        t.watch([x, y])
        identity = ef.identity(x)
        z = y * y
    assert float(t.gradient(x, x)) == 1.0
    assert float(t.gradient(identity, x)) == 1.0
    assert float(t.gradient([x, x], x)) == 2.0
    assert _values(t.gradient([x, y, z], [x, y])) == [1.0, 11.0]


def test_multi_target_where_one_is_the_source():
    x = ef.constant(2.0)
    with ef.GradientTape() as t:
        t.watch(x)
        y = x * x
    assert float(t.gradient([x, y], x)) == 5.0


def test_no_op_on_variable_is_identity():
    v0 = ef.Variable(1.0)
    with ef.GradientTape() as t:
        y = v0.read_value()
    assert float(t.gradient(y, v0)) == 1.0


def test_no_op_gradient_2_by_2():
    a = ef.fill([2, 2], 2.0)
    with ef.GradientTape(persistent=True) as tape:
        tape.watch(a)
    assert tape.gradient(a, [a])[0].numpy().tolist() == [[1.0, 1.0], [1.0, 1.0]]
    assert tape.gradient([a, a], [a])[0].numpy().tolist() == [[2.0, 2.0], [2.0, 2.0]]


def test_stop_recording():
    with ef.GradientTape() as t:
        x = ef.Variable(1.0)
        with t.stop_recording():
            y = x * x
    assert t.gradient(y, x) is None


def test_stop_and_start_recording():
    with ef.GradientTape(persistent=True) as t:
        x = ef.Variable(1.0)
        x2 = x * 2
        with t.stop_recording():
            y = x2 * x2
        z = x2 * x2
    assert t.gradient(y, x2) is None
    assert float(t.gradient(z, x2)) == 4.0


def test_stop_recording_outside_the_block_is_an_error():
    with pytest.raises(RuntimeError, match="recording"):
        with ef.GradientTape().stop_recording():
            pass


def test_reset():
    with ef.GradientTape() as t:
        v = ef.Variable(1.0)
        loss = v * v
        t.reset()
        loss += v * v
    assert float(t.gradient(loss, v)) == 2.0


def test_python_max():
    x = [ef.Variable(2.0), ef.Variable(3.0), ef.Variable(5.0)]
    with ef.GradientTape() as t:
        f = max(x)
    grad = t.gradient(f, x)
    assert float(f) == 5.0
    assert grad[0] is None and grad[1] is None and float(grad[2]) == 1.0


def test_automatic_and_explicit_watched_variables():
    with ef.GradientTape() as t:
        assert len(t.watched_variables()) == 0
        v = ef.Variable(1.0)
        loss = v * v
        assert t.watched_variables() == (v,)
        t.reset()
        assert len(t.watched_variables()) == 0
        loss += v * v
        assert t.watched_variables() == (v,)
    with ef.GradientTape() as t:
        v = ef.Variable(1.0)
        t.watch(v)
        assert t.watched_variables() == (v,)
        t.reset()
        assert len(t.watched_variables()) == 0
        t.watch(v)
        assert t.watched_variables() == (v,)


def test_watched_variables_after_gradient_and_reset():
    with ef.GradientTape() as tape:
        x = ef.Variable(1.0)
        tape.watch(x)
    tape.gradient(x, x)
    assert tape.watched_variables() == (x,)
    with ef.GradientTape() as tape:
        x = ef.Variable(1.0)
        tape.watch(x)
        assert tape.watched_variables() == (x,)
        tape.reset()
        z = ef.Variable(2.0)
        tape.watch(z)
        assert tape.watched_variables() == (z,)
    tape.gradient(z, z)
    assert tape.watched_variables() == (z,)


def test_gradient_within_tape_block():
    v1 = ef.Variable(1.0)
    for persistent in (False, True):
        with ef.GradientTape(persistent=persistent) as t:
            loss = 2 * v1
            with warnings.catch_warnings():
                # eagerflow's hint about the cost of a gradient inside the block
                warnings.simplefilter("ignore", ef.errors.EagerflowWarning)
                grad = t.gradient(loss, v1)
        assert float(grad) == 2.0


def test_reentering_a_recording_tape_is_a_value_error():
    with ef.GradientTape() as t:
        with pytest.raises(ValueError, match="already recording"):
            with t:
                pass


def test_reentering_a_finished_tape_records_more():
    g = ef.GradientTape()
    with g:
        x = ef.constant(3.0)
        g.watch(x)
        y = 2 * x
    with g:
        z = 2 * y
    assert _values(g.gradient(target=z, sources=[x])) == [4.0]


def test_watching_is_tape_local():
    x1 = ef.Variable(2.0, trainable=False)
    x2 = ef.Variable(2.0, trainable=False)
    with ef.GradientTape() as tape1:
        with ef.GradientTape() as tape2:
            tape1.watch(x1)
            tape2.watch([x1, x2])
            y = x1**3
            z = x2**2
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ef.errors.EagerflowWarning)  # a cost hint
                dy, dz = tape2.gradient([y, z], [x1, x2])
        d2y, d2z = tape1.gradient([dy, dz], [x1, x2])
    assert float(d2y) == 12.0
    assert d2z is None


def test_repeated_sources():
    with ef.GradientTape() as g:
        x = ef.constant(3.0)
        g.watch(x)
        y = 2 * x
    assert _values(g.gradient(target=y, sources=[x, x])) == [2.0, 2.0]
    with ef.GradientTape(persistent=True) as g:
        x, y = ef.constant(3.0), ef.constant(5.0)
        g.watch(x)
        g.watch(y)
        z = x * x + x * y
    assert _values(g.gradient(target=z, sources=[x, x])) == [11.0, 11.0]
    assert _values(g.gradient(target=z, sources=[y, x])) == [3.0, 11.0]


def test_gradient_keeps_the_structure_of_sources():
    with ef.GradientTape(persistent=True) as g:
        x1, x2, x3 = ef.constant(3.0), ef.constant(3.1), ef.constant(3.2)
        g.watch([x1, x2, x3])
        y = x1 + 2 * x2 + 3 * x3
    assert _values(g.gradient(y, x1)) == 1.0
    assert _values(g.gradient(y, (x1,))) == (1.0,)
    assert _values(g.gradient(y, (x1, x2))) == (1.0, 2.0)
    assert _values(g.gradient(y, [(x1, x2), (x2, x3)])) == [(1.0, 2.0), (2.0, 3.0)]
    assert _values(g.gradient(y, (x1, x2, [x1, x3]))) == (1.0, 2.0, [1.0, 3.0])
    assert _values(g.gradient(y, [x1, {"x2": x2, "x3": x3}])) == [1.0, {"x2": 2.0, "x3": 3.0}]


def test_nested_tapes():
    with ef.GradientTape() as g:
        x = ef.constant(3.0)
        g.watch(x)
        y = x * x
        with ef.GradientTape() as gg:
            gg.watch(y)
            z = 2 * y
        inner_grad = gg.gradient(z, [y])[0]
        assert float(inner_grad) == 2.0
        y += inner_grad
    assert float(g.gradient(y, [x])[0]) == 6.0


def test_constant_target():
    with ef.GradientTape() as g:
        x = ef.Variable([3.0])
        y = ef.Variable([2.0])
    assert g.gradient(x, y) is None


def test_gradient_with_python_branch_and_while_loop():
    x = ef.constant(3.0)
    with ef.GradientTape() as g:
        g.watch(x)
        y = ef.cond(x < x, lambda: x, lambda: x * x)
    assert float(g.gradient(y, [x])[0]) == 6.0
    x = ef.constant(2.0)
    with ef.GradientTape() as g:
        g.watch([x])
        _, y = ef.while_loop(lambda i, _: i < 3, lambda i, x: (i + 1, x * 2),
                             [ef.constant(1), x])
    assert float(g.gradient(y, [x])[0]) == 4.0


def test_non_persistent_tape_second_call_is_an_error():
    with ef.GradientTape() as g:
        x = ef.constant(3.0)
        g.watch(x)
        y = x * x
        z = y * y
    g.gradient(z, [x])
    with pytest.raises(RuntimeError, match="non-persistent GradientTape"):
        g.gradient(y, [x])


def test_persistent_tape_and_higher_order():
    with ef.GradientTape(persistent=True) as g:
        x = ef.constant(3.0)
        g.watch(x)
        y = x * x
        z = y * y
    assert float(g.gradient(z, [x])[0]) == 108.0
    assert float(g.gradient(y, [x])[0]) == 6.0
    with ef.GradientTape(persistent=True) as g:
        x = ef.constant(3.0)
        g.watch(x)
        y = x**3
        dy_dx = g.gradient(y, x)
        d2y_dx2 = g.gradient(dy_dx, x)
    d3y_dx3 = g.gradient(d2y_dx2, x)
    assert [float(t) for t in (y, dy_dx, d2y_dx2, d3y_dx3)] == [27.0, 27.0, 18.0, 6.0]


def test_persistent_nested_tape():
    with ef.GradientTape(persistent=True) as g:
        x = ef.constant(3.0)
        g.watch(x)
        y = x * x
        with ef.GradientTape(persistent=True) as gg:
            gg.watch(y)
            z = 2 * y
        for _ in range(2):
            inner_grad = gg.gradient(z, [y])[0]
            assert float(inner_grad) == 2.0
        y += inner_grad
        del gg
    assert float(g.gradient(y, [x])[0]) == 6.0
    assert float(g.gradient(z, [x])[0]) == 12.0


def test_variable_and_intermediate_sources():
    v = ef.Variable(1.0, name="v")
    with ef.GradientTape() as g:
        y = v * v
    assert float(g.gradient(y, [v])[0]) == 2.0
    x = ef.constant(3.0)
    with ef.GradientTape() as g:
        g.watch(x)
        y = x * x
        z = y * y
    assert _values(g.gradient(z, [x, y])) == [108.0, 18.0]


def test_unconnected_gradients():
    x, y = ef.constant(1.0), ef.constant(3.0)
    with ef.GradientTape() as g:
        g.watch([x, y])
        z = y * 2
    assert g.gradient(z, x) is None
    x = ef.fill([2, 2], 1.0)
    with ef.GradientTape() as g:
        g.watch([x, y])
        z = y * 2
    assert g.gradient(z, x, unconnected_gradients="zero").numpy().tolist() == [[0.0, 0.0]] * 2
    xv, yv = ef.Variable(ef.fill([2, 2], 1.0)), ef.Variable(3.0)
    with ef.GradientTape() as g:
        g.watch([xv, yv])
        z = yv * 2
    assert g.gradient(z, xv, unconnected_gradients="zero").numpy().tolist() == [[0.0, 0.0]] * 2


def test_unknown_unconnected_gradients_value():
    x, y = ef.constant(1.0), ef.constant(1.0)
    with ef.GradientTape() as g:
        g.watch([x, y])
        z = y * 2
    with pytest.raises(ValueError, match="nonsense"):
        g.gradient(z, x, unconnected_gradients="nonsense")


def test_unconnected_through_nested_functions_gives_zero():
    f = ef.function(lambda x: x * x)
    h = ef.function(lambda y: ef.stop_gradient(f(y)))
    x = ef.constant(1.0)
    with ef.GradientTape() as g:
        g.watch(x)
        y = h(x + 2.0)
    assert float(g.gradient(y, x, unconnected_gradients="zero")) == 0.0


def test_selectively_watch_variables():
    x1, x2 = ef.Variable(1.0), ef.Variable(1.0)
    with ef.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(x2)
        y = x1**2
        z = x2**3
    assert tape.watched_variables() == (x2,)
    dy, dz = tape.gradient([y, z], [x1, x2])
    assert dy is None and float(dz) == 3.0


def test_distinct_equal_constants_are_distinct_sources():
    with ef.GradientTape() as g:
        x1, x2 = ef.constant(3.0), ef.constant(3.0)
        g.watch(x1)
        g.watch(x2)
        y = x1 + x2
    assert _values(g.gradient(target=y, sources=[x1])) == [1.0]

    def get_grads(a, b):
        with ef.GradientTape() as tape:
            tape.watch([a, b])
            y, z = a**3, b**2
        return _values(tape.gradient([y, z], [a, b]))

    assert get_grads(ef.constant(2.0), ef.constant(2.0)) == [12.0, 4.0]
    assert get_grads(ef.Variable(2.0), ef.Variable(2.0)) == [12.0, 4.0]


def test_split_then_concat_gradient():
    t = ef.fill([10, 4], 1.0)
    x = ef.fill([10, 4], 2.0)
    with ef.GradientTape() as tape:
        tape.watch(x)
        x1, _ = ef.split(x, num_or_size_splits=2, axis=1)
        y = ef.concat([x1**2, t], axis=1)
    expected = np.tile([4.0, 4.0, 0.0, 0.0], (10, 1))
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), expected)


@pytest.mark.parametrize("bad", [np.array(1.0), "a"])
def test_watch_of_a_non_tensor_is_a_value_error(bad):
    with pytest.raises(ValueError, match="expects Tensors or Variables"):
        ef.GradientTape().watch(bad)


# -- custom gradients inside backprop_test ----------------------------------------------

def test_custom_gradient_returning_too_few_gradients_is_a_value_error():
    @ef.custom_gradient
    def identity(x):
        return x, lambda _: []

    x = ef.Variable(1.0)
    with ef.GradientTape() as t:
        y = identity(x)
    with pytest.raises(ValueError):
        t.gradient(y, [x])


def test_custom_gradient_identity():
    @ef.custom_gradient
    def my_identity(x):
        return x, lambda dresult: [2 * dresult]

    assert float(ef.gradients_function(my_identity)(1.0)[0]) == 2.0

    @ef.custom_gradient
    def f(x):
        return x * x, lambda dy: [4 * dy]

    with ef.GradientTape() as t:
        c = ef.constant(1.0)
        t.watch(c)
        g = f(c)
    assert float(t.gradient(g, c)) == 4.0


def test_override_second_order_with_custom_gradient():
    @ef.custom_gradient
    def f(x):
        def first_order_grad(dz):
            @ef.custom_gradient
            def first_order_custom(unused_x):
                return ef.constant(-1.1), lambda ddz: -2.1 * ddz

            return dz * first_order_custom(x)

        return x + 10.0, first_order_grad

    c = ef.constant(1.0)
    with ef.GradientTape() as outer:
        outer.watch(c)
        with ef.GradientTape() as inner:
            inner.watch(c)
            d = f(c) ** 4.0
        dd = inner.gradient(d, c)
        np.testing.assert_allclose(float(dd), 4.0 * 11.0**3 * -1.1, rtol=1e-6)
    np.testing.assert_allclose(float(outer.gradient(dd, c)),
                               3.0 * 4.0 * 11.0**2 * 1.21 + 4.0 * 11.0**3 * -2.1, rtol=1e-6)


def test_custom_gradient_of_the_gradient_and_its_transpose():
    @ef.custom_gradient
    def f(x):
        z = 2.0 * x.numpy()

        def g(dz):
            @ef.custom_gradient
            def first_order(unused_x, unused_dz):
                return ef.constant(2.1), lambda unused_ddz: (2.2, 3.1)

            return first_order(x, dz)

        return ef.constant(z), g

    with ef.GradientTape(persistent=True) as t:
        with ef.GradientTape() as tt:
            c = ef.constant(1.0)
            t.watch(c)
            tt.watch(c)
            output_grad = ef.ones([])
            t.watch(output_grad)
            output = f(c)
            assert float(output) == 2.0
        gc = tt.gradient(output, c, output_gradients=output_grad)
        np.testing.assert_allclose(float(gc), 2.1, rtol=1e-6)
    np.testing.assert_allclose(float(t.gradient(gc, c)), 2.2, rtol=1e-6)
    np.testing.assert_allclose(float(t.gradient(gc, output_grad)), 3.1, rtol=1e-6)


def test_jacobian_inside_grad_fn_of_a_traced_custom_gradient():
    class MyCallable:
        def __init__(self):
            self.a, self.b, self.c = ef.Variable(1.0), ef.Variable(2.0), ef.Variable(3.0)

        def __call__(self, x):
            return self.a * x * x + self.b * x + self.c

    @ef.function
    def call(c, x):
        @ef.custom_gradient
        def _call():
            y = c(x)

            def grad(dy, variables=None):
                with ef.GradientTape(persistent=True) as g:
                    g.watch(variables)
                    y = c(x)
                grad_vars = [2 * ef.reduce_sum(dy * g.jacobian(y, v)) for v in variables]
                return (), grad_vars

            return y, grad

        return _call()

    c = MyCallable()
    x = ef.constant([1.0, 2.0, 3.0])
    with ef.GradientTape(persistent=True) as g:
        g.watch([c.a, c.b, c.c])
        y = call(c, x)
    assert g.gradient(y, x) is None


# -- jacobian and batch_jacobian (JacobianTest, BatchJacobianTest) ------------------------

def test_jacobian():
    with ef.GradientTape(persistent=True) as g:
        x, y = ef.constant([1.0, 2.0]), ef.constant([3.0, 4.0])
        g.watch(x)
        g.watch(y)
        z = x * x * y
    jx, jy = g.jacobian(z, [x, y])
    assert jx.numpy().tolist() == [[6.0, 0.0], [0.0, 16.0]]
    assert jy.numpy().tolist() == [[1.0, 0.0], [0.0, 4.0]]


def test_jacobian_of_matmul_and_of_a_gradient():
    with ef.GradientTape(persistent=True) as g:
        x = ef.constant([[1.0, 2], [3, 4]])
        g.watch(x)
        y = ef.matmul(x, x)
    expected = [[[[2.0, 3.0], [2.0, 0.0]], [[2.0, 5.0], [0.0, 2.0]]],
                [[[3.0, 0.0], [5.0, 3.0]], [[0.0, 3.0], [2.0, 8.0]]]]
    assert g.jacobian(y, x).numpy().tolist() == expected
    x = ef.ones((10, 2))
    with ef.GradientTape() as g:
        g.watch(x)
        with ef.GradientTape() as gg:
            gg.watch(x)
            y = ef.reduce_sum(ef.square(x))
        dy_x = gg.jacobian(y, x)
    assert g.batch_jacobian(dy_x, x).numpy().tolist() == [[[2.0, 0.0], [0.0, 2.0]]] * 10


def test_jacobian_on_a_used_non_persistent_tape_is_a_runtime_error():
    with ef.GradientTape() as g:
        x = ef.constant([1.0, 2.0])
        g.watch(x)
        y = x * x
    g.jacobian(y, x)
    with pytest.raises(RuntimeError, match="persistent"):
        g.jacobian(y, x)


def test_batch_jacobian():
    with ef.GradientTape(persistent=True) as g:
        x = ef.constant([[1.0, 2.0], [3.0, 4.0]])
        y = ef.constant([[3.0, 4.0], [5.0, 6.0]])
        g.watch(x)
        z = x * x * y
    expected = [[[6.0, 0.0], [0.0, 16.0]], [[30.0, 0.0], [0.0, 48.0]]]
    assert g.batch_jacobian(z, x).numpy().tolist() == expected
    with ef.GradientTape(persistent=True) as g:
        x = ef.constant([[1.0, 2], [3, 4]])
        g.watch(x)
        y = ef.matmul(x, ef.constant([[1.0, 2, 3, 4], [5, 6, 7, 8]]))
    assert g.batch_jacobian(y, x).numpy().tolist() == [[[1.0, 5.0], [2.0, 6.0], [3.0, 7.0],
                                                       [4.0, 8.0]]] * 2


def test_batch_jacobian_bad_shapes_are_value_errors():
    x = ef.random.uniform([2, 3])
    with ef.GradientTape() as g:
        y = ef.concat([x, x], axis=0)
    with pytest.raises(ValueError, match="batch"):
        g.batch_jacobian(y, x)
    for x_shape, y_shape in (([2], [2, 2]), ([2, 2], [2])):
        x = ef.random.uniform(x_shape)
        with ef.GradientTape() as g:
            y = ef.random.uniform(y_shape)
        with pytest.raises(ValueError, match="rank at least 2"):
            g.batch_jacobian(y, x)


@pytest.mark.parametrize("traced", [False, True])
def test_batch_jacobian_of_a_degenerate_shape(traced):
    def f(x):
        with ef.GradientTape(persistent=True) as tape:
            tape.watch(x)
            y = x**2
        return tape.batch_jacobian(y, x)

    f = ef.function(f) if traced else f
    assert f(ef.zeros([1, 0])).shape == (1, 0, 0)
