"""ef.cond and ef.while_loop: eagerly and in graphs, with gradients."""

import numpy as np
import pytest

import eagerflow as ef
from eagerflow.graph import graph


def collatz_steps(n):
    def body(n, steps):
        n = ef.cond(ef.equal(n % 2, 0), lambda: n // 2, lambda: 3 * n + 1)
        return n, steps + 1

    return ef.while_loop(lambda n, steps: n != 1, body, [n, 0])[1]


@pytest.mark.parametrize("start, steps", [(12, 9), (27, 111), (1, 0)])
def test_collatz_eagerly_and_in_a_graph(start, steps):
    traced = ef.function(collatz_steps)
    assert int(collatz_steps(ef.constant(start))) == steps
    assert int(traced(ef.constant(start))) == steps
    assert int(traced(ef.constant(start))) == steps  # the graph


def test_collatz_graph_is_traced_once_for_every_start():
    traced = ef.function(collatz_steps)
    assert [int(traced(ef.constant(n))) for n in (12, 27, 12, 6)] == [9, 111, 9, 8]
    assert traced.experimental_get_tracing_count() == 1
    types = [op.type for op in traced.get_concrete_function(ef.constant(1)).graph.operations]
    assert "While" in types


def test_cond_picks_the_branch_at_run_time():
    traced = ef.function(lambda x: ef.cond(ef.reduce_sum(x) > 0, lambda: x * 2.0, lambda: -x))
    np.testing.assert_array_equal(traced(ef.constant([1.0, 2.0])).numpy(), [2.0, 4.0])
    np.testing.assert_array_equal(traced(ef.constant([-1.0, -2.0])).numpy(), [1.0, 2.0])
    np.testing.assert_array_equal(traced(ef.constant([3.0, 1.0])).numpy(), [6.0, 2.0])
    assert traced.experimental_get_tracing_count() == 1


def test_cond_with_python_or_constant_predicates_is_static():
    calls = []

    def branch(name):
        calls.append(name)
        return ef.constant(name == "yes")

    assert bool(ef.cond(True, lambda: branch("yes"), lambda: branch("no")))
    traced = ef.function(lambda: ef.cond(ef.constant(False), lambda: branch("yes"),
                                         lambda: branch("no")))
    assert not bool(traced())
    assert calls == ["yes", "no"]


def test_cond_branch_shapes_may_differ():
    traced = ef.function(lambda x: ef.cond(x[0] > 0, lambda: x, lambda: ef.concat([x, x], 0)))
    cf = traced.get_concrete_function(ef.zeros([2]))
    assert cf.outputs[0].shape == (None,)
    assert traced(ef.constant([1.0, 2.0])).shape == (2,)
    assert traced(ef.constant([-1.0, 2.0])).shape == (4,)


def test_cond_structures_and_nesting():
    @ef.function
    def f(x):
        return ef.cond(x > 0, lambda: {"a": x, "b": (x * 2, 1)},
                       lambda: {"a": -x, "b": (ef.cond(x < -5, lambda: x * 0, lambda: x), 2)})

    out = f(ef.constant(3.0))
    assert float(out["a"]) == 3.0 and float(out["b"][0]) == 6.0 and int(out["b"][1]) == 1
    out = f(ef.constant(-2.0))
    assert float(out["a"]) == 2.0 and float(out["b"][0]) == -2.0 and int(out["b"][1]) == 2


def test_cond_errors():
    with pytest.raises(TypeError, match="true_fn must be callable"):
        ef.cond(True, 1, lambda: 2)
    f = ef.function(lambda x: ef.cond(x > 0, lambda: (x, x), lambda: x))
    with pytest.raises(TypeError, match="same structure"):
        f(ef.constant(1.0))
    g = ef.function(lambda x: ef.cond(x > 0, lambda: x, lambda: ef.cast(x, ef.int32)))
    with pytest.raises(TypeError, match=r"output 0 is float32\[\] in true_fn but int32\[\]"):
        g(ef.constant(1.0))
    h = ef.function(lambda x: ef.cond(x, lambda: x, lambda: x))
    with pytest.raises(ef.errors.InvalidArgumentError, match="scalar bool tensor"):
        h(ef.constant([1.0, 2.0]))
    with pytest.raises(ef.errors.InvalidArgumentError, match="must be a scalar"):
        ef.cond(ef.constant([True, False]), lambda: 1, lambda: 2)


def test_while_loop_eager_and_traced_with_maximum_iterations():
    def count(limit):
        return ef.while_loop(lambda i, s: i < 100, lambda i, s: (i + 1, s + i), [0, 0],
                             maximum_iterations=limit)

    assert [int(v) for v in count(5)] == [5, 10]
    traced = ef.function(lambda: count(7))
    assert [int(v) for v in traced()] == [7, 21]
    assert [int(v) for v in traced()] == [7, 21]


def test_while_loop_shapes_may_grow():
    traced = ef.function(lambda x: ef.while_loop(
        lambda v: ef.size(v) < 8, lambda v: [ef.concat([v, v], 0)], [x])[0])
    np.testing.assert_array_equal(traced(ef.constant([1.0])).numpy(), np.ones(8))
    np.testing.assert_array_equal(traced(ef.constant([1.0, 2.0, 3.0])).numpy(),
                                  np.tile([1.0, 2.0, 3.0], 4))


def test_while_loop_errors():
    with pytest.raises(TypeError, match="body must be callable"):
        ef.while_loop(lambda i: i < 3, None, [0])
    with pytest.raises(TypeError, match="loop_vars must be a list or tuple"):
        ef.while_loop(lambda i: i < 3, lambda i: i + 1, 0)
    with pytest.raises(ef.errors.InvalidArgumentError, match="maximum_iterations must be >= 0"):
        ef.while_loop(lambda i: i < 3, lambda i: [i + 1], [0], maximum_iterations=-1)
    f = ef.function(lambda x: ef.while_loop(lambda v: v < 3, lambda v: [ef.cast(v, ef.float32)],
                                            [x]))
    with pytest.raises(TypeError, match="dtypes and ranks must stay the same"):
        f(ef.constant(0))
    g = ef.function(lambda x: ef.while_loop(lambda a, b: a < 3, lambda a, b: [a + 1], [x, x]))
    with pytest.raises(TypeError, match="must return the structure of loop_vars"):
        g(ef.constant(0))
    h = ef.function(lambda x: ef.while_loop(lambda v: v, lambda v: [v + 1], [x]))
    with pytest.raises(ef.errors.InvalidArgumentError, match="scalar bool tensor"):
        h(ef.constant(0))
    with pytest.raises(TypeError, match="body must return the structure"):
        ef.while_loop(lambda i, j: i < 3, lambda i, j: [i + 1], [0, 0])


def test_variables_in_loop_bodies_and_branches():
    total = ef.Variable(0.0)
    scale = ef.Variable(2.0)

    @ef.function
    def accumulate(n):
        def body(i):
            total.assign_add(ef.cast(i, ef.float32) * scale)
            return [i + 1]

        ef.while_loop(lambda i: i < n, body, [0])
        return ef.cond(total > 10.0, lambda: total.read_value(), lambda: -total.read_value())

    assert float(accumulate(ef.constant(3))) == -6.0   # 0 + 2 + 4
    assert float(accumulate(ef.constant(3))) == 12.0   # 6 + 6
    scale.assign(1.0)
    assert float(accumulate(ef.constant(2))) == 13.0


def test_loop_reading_a_variable_the_body_writes():
    v = ef.Variable(1.0)

    @ef.function
    def f(n):
        def body(i):
            v.assign(v.read_value() * 2.0)
            return [i + 1]

        ef.while_loop(lambda i: i < n, body, [0])
        return v.read_value()

    assert float(f(ef.constant(3))) == 8.0
    assert float(f(ef.constant(2))) == 32.0


def test_cond_gradients_in_a_graph_and_through_a_call():
    w = ef.Variable(3.0)

    def fn(x):
        return ef.cond(x > 0, lambda: x * x * w, lambda: ef.sin(x) + w)

    traced = ef.function(fn)
    for value in (2.0, -1.0, 0.5, -0.3):
        x = ef.constant(value)
        grads = []
        for f in (fn, traced):
            with ef.GradientTape() as tape:
                tape.watch(x)
                y = f(x)
            grads.append([float(g) for g in tape.gradient(y, [x, w])])
        assert grads[0] == pytest.approx(grads[1]), value


def test_cond_second_order_in_a_graph():
    @ef.function
    def f(x):
        with ef.GradientTape() as outer:
            outer.watch(x)
            with ef.GradientTape() as inner:
                inner.watch(x)
                y = ef.cond(x > 0, lambda: x ** 3, lambda: x ** 2)
            g = inner.gradient(y, x)
        return g, outer.gradient(g, x)

    assert [float(v) for v in f(ef.constant(2.0))] == [12.0, 12.0]
    assert [float(v) for v in f(ef.constant(-3.0))] == [-6.0, 2.0]


def test_while_gradients_in_a_graph_match_eager():
    w = ef.Variable(0.9)

    def power(x, n):
        return ef.while_loop(lambda i, acc: i < n, lambda i, acc: (i + 1, acc * x * w),
                             [0, ef.ones_like(x)])[1]

    traced = ef.function(power)
    x, n = ef.constant([1.5, -0.5]), ef.constant(4)
    for f in (traced, traced):
        with ef.GradientTape() as tape:
            tape.watch(x)
            y = ef.reduce_sum(f(x, n))
        gx, gw = tape.gradient(y, [x, w])
        with ef.GradientTape() as eager_tape:
            eager_tape.watch(x)
            expected = ef.reduce_sum(power(x, n))
        ex, ew = eager_tape.gradient(expected, [x, w])
        np.testing.assert_allclose(gx.numpy(), ex.numpy(), rtol=1e-5)
        np.testing.assert_allclose(float(gw), float(ew), rtol=1e-5)


def test_while_gradient_inside_a_train_step():
    w = ef.Variable(0.5)

    @ef.function
    def step(x):
        with ef.GradientTape() as tape:
            y = ef.while_loop(lambda i, h: i < 3, lambda i, h: (i + 1, ef.tanh(h * w + x)),
                              [0, ef.zeros_like(x)])[1]
            loss = ef.reduce_sum(y * y)
        grad = tape.gradient(loss, w)
        w.assign_sub(0.1 * grad)
        return loss, grad

    def eager_grad(x, value):
        v = ef.Variable(value)
        with ef.GradientTape() as tape:
            h = ef.zeros_like(x)
            for _ in range(3):
                h = ef.tanh(h * v + x)
            loss = ef.reduce_sum(h * h)
        return tape.gradient(loss, v)

    x = ef.constant([0.3, -0.2, 0.8])
    for _ in range(2):
        before = float(w)
        _, grad = step(x)
        assert float(grad) == pytest.approx(float(eager_grad(x, before)), rel=1e-5)


def test_random_ops_in_a_differentiated_branch_are_refused():
    @ef.function
    def f(x):
        with ef.GradientTape() as tape:
            tape.watch(x)
            y = ef.cond(x > 0, lambda: x * ef.random.uniform([]), lambda: x)
        return tape.gradient(y, x)

    with pytest.raises(ef.errors.UnimplementedError, match="random op RandomUniform"):
        f(ef.constant(1.0))


def test_python_if_error_suggests_cond_and_while_loop():
    @ef.function(autograph=False)
    def f(x):
        while x > 0:
            x -= 1
        return x

    with pytest.raises(graph.OperatorNotAllowedInGraphError, match="ef.while_loop"):
        f(ef.constant(3))
    converted = ef.function(f.python_function)  # AutoGraph on (the default)
    assert int(converted(ef.constant(3))) == 0


def test_gradient_through_a_loop_whose_variable_grows_is_refused():
    @ef.function
    def f(x):
        with ef.GradientTape() as tape:
            tape.watch(x)
            y = ef.while_loop(lambda v: ef.size(v) < 4, lambda v: [ef.concat([v, v * x], 0)],
                              [ef.reshape(x, [1])])[0]
            total = ef.reduce_sum(y)
        return tape.gradient(total, x)

    with pytest.raises(ef.errors.UnimplementedError, match="changes shape between iterations"):
        f(ef.constant(2.0))


def test_second_order_through_a_graph_while_loop_is_refused():
    @ef.function
    def f(x):
        with ef.GradientTape() as outer:
            outer.watch(x)
            with ef.GradientTape() as inner:
                inner.watch(x)
                y = ef.while_loop(lambda i, a: i < 2, lambda i, a: (i + 1, a * x), [0, x])[1]
            g = inner.gradient(y, x)
        return outer.gradient(g, x)

    with pytest.raises(ef.errors.UnimplementedError, match="second-order gradients through"):
        f(ef.constant(2.0))
