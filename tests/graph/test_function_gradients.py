"""Gradients through ef.function: a tape around a call, and tapes inside traced code."""

import numpy as np
import pytest

import eagerflow as ef
from eagerflow.testing import check_gradients

FUNCTIONS = {
    "elementwise": lambda x: ef.sin(ef.exp(x)) * x + x * x * x,
    "reductions": lambda x: ef.reduce_logsumexp(x) * ef.reduce_mean(ef.square(x)),
    "matmul": lambda x: ef.matmul(ef.reshape(x, [2, 3]), ef.transpose(ef.reshape(x, [2, 3]))),
    "softmax": lambda x: ef.nn.softmax(ef.reshape(x, [3, 2])) * ef.tanh(x[:2]),
    "indexing": lambda x: ef.gather(x, [0, 2, 2]) * x[1:4] + ef.reduce_max(x),
    "broadcast": lambda x: ef.reshape(x, [6, 1]) * ef.reshape(x, [1, 6]) + 1.0,
}


def _gradients(fn, x, order):
    """The gradients of `fn` at `x` up to `order`, computed with nested tapes."""
    tapes = [ef.GradientTape(persistent=True) for _ in range(order)]
    for t in tapes:
        t.__enter__()
        t.watch(x)
    value = ef.reduce_sum(fn(x))
    results = []
    for i in range(order - 1, -1, -1):
        tapes[i].__exit__(None, None, None)
        value = ef.reduce_sum(tapes[i].gradient(value, x))
        results.append(value.numpy())
    return results


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_tape_around_a_call_matches_eager_to_second_order(name):
    fn = FUNCTIONS[name]
    traced = ef.function(fn)
    x = ef.constant(np.linspace(-0.7, 0.9, 6).astype(np.float64))
    eager = _gradients(fn, x, 2)
    for _ in range(2):  # the first call is the traced run, the second runs the graph
        np.testing.assert_allclose(_gradients(traced, x, 2), eager, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_traced_functions_pass_the_gradient_checker(name):
    traced = ef.function(FUNCTIONS[name])
    check_gradients(traced, np.linspace(-0.7, 0.9, 6), order=2)


def test_third_order_through_a_call():
    traced = ef.function(lambda x: x * x * x * x)
    x = ef.constant(2.0)
    with ef.GradientTape() as t3:
        t3.watch(x)
        with ef.GradientTape() as t2:
            t2.watch(x)
            with ef.GradientTape() as t1:
                t1.watch(x)
                y = traced(x)
            d1 = t1.gradient(y, x)
        d2 = t2.gradient(d1, x)
    assert (float(d1), float(d2), float(t3.gradient(d2, x))) == (32.0, 48.0, 48.0)


def test_first_call_under_a_tape_records_the_traced_run():
    traced = ef.function(lambda x: ef.exp(x) * 3.0)
    x = ef.constant([0.0, 1.0])
    with ef.GradientTape() as tape:
        tape.watch(x)
        y = traced(x)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), 3 * np.exp([0.0, 1.0]), rtol=1e-6)
    assert traced.experimental_get_tracing_count() == 1


def test_variables_read_in_a_call_get_gradients():
    w = ef.Variable([[1.0, 2.0], [3.0, 4.0]])
    b = ef.Variable([0.5, -0.5])
    counter = ef.Variable(0, trainable=False)

    @ef.function
    def model(x):
        counter.assign_add(1)
        return ef.reduce_sum(ef.nn.relu(ef.matmul(x, w) + b) ** 2)

    x = ef.constant([[1.0, -1.0]])
    for _ in range(2):
        with ef.GradientTape() as tape:
            loss = model(x)
        gw, gb, gx = tape.gradient(loss, [w, b, x])
        with ef.GradientTape() as eager_tape:
            eager = ef.reduce_sum(ef.nn.relu(ef.matmul(x, w) + b) ** 2)
        ew, eb = eager_tape.gradient(eager, [w, b])
        np.testing.assert_allclose(gw.numpy(), ew.numpy())
        np.testing.assert_allclose(gb.numpy(), eb.numpy())
        assert gx is None  # x is not watched
    assert int(counter) == 2


def test_watch_accessed_variables_false_is_respected():
    w = ef.Variable(3.0)
    traced = ef.function(lambda x: w * x)
    x = ef.constant(2.0)
    with ef.GradientTape(watch_accessed_variables=False, persistent=True) as tape:
        tape.watch(x)
        y = traced(x)
    assert tape.gradient(y, w) is None
    assert float(tape.gradient(y, x)) == 3.0


def test_integer_outputs_and_unwatched_inputs_mix():
    @ef.function
    def f(x, n):
        return x * ef.cast(n, ef.float32), n * 2

    x, n = ef.constant(2.0), ef.constant(3)
    with ef.GradientTape() as tape:
        tape.watch(x)
        y, m = f(x, n)
    assert int(m) == 6 and float(tape.gradient(y, x)) == 3.0


def test_custom_gradient_inside_a_traced_function():
    @ef.custom_gradient
    def clip_grad(x):
        def grad(dy):
            return ef.clip_by_value(dy, -0.1, 0.1)
        return ef.identity(x), grad

    @ef.function
    def f(x):
        with ef.GradientTape() as tape:
            tape.watch(x)
            y = clip_grad(x) * 5.0
        return y, tape.gradient(y, x)

    traced = ef.function(lambda x: clip_grad(x) * 5.0)
    x = ef.constant([1.0, 2.0])
    for _ in range(2):
        np.testing.assert_allclose(f(x)[1].numpy(), [0.1, 0.1])
        with ef.GradientTape() as tape:
            tape.watch(x)
            y = traced(x)
        np.testing.assert_allclose(tape.gradient(y, x).numpy(), [0.1, 0.1])


def test_train_step_in_one_graph_matches_eager():
    rng = np.random.default_rng(0)
    data = rng.standard_normal((8, 4)).astype(np.float32)
    labels = np.eye(3, dtype=np.float32)[rng.integers(0, 3, 8)]
    init = [rng.standard_normal((4, 5)).astype(np.float32), np.zeros(5, np.float32),
            rng.standard_normal((5, 3)).astype(np.float32), np.zeros(3, np.float32)]

    def make():
        variables = [ef.Variable(v) for v in init]

        def step(x, y):
            w1, b1, w2, b2 = variables
            with ef.GradientTape() as tape:
                logits = ef.matmul(ef.nn.relu(ef.matmul(x, w1) + b1), w2) + b2
                loss = -ef.reduce_mean(ef.reduce_sum(y * ef.nn.log_softmax(logits), axis=1))
            for v, g in zip(variables, tape.gradient(loss, variables), strict=True):
                v.assign_sub(0.1 * g)
            return loss

        return step, variables

    eager_step, eager_vars = make()
    traced_step, traced_vars = make()
    traced_step = ef.function(traced_step)
    x, y = ef.constant(data), ef.constant(labels)
    for _ in range(4):
        np.testing.assert_allclose(float(traced_step(x, y)), float(eager_step(x, y)), rtol=1e-6)
    for a, b in zip(traced_vars, eager_vars, strict=True):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-7)
    assert traced_step.experimental_get_tracing_count() == 1


def test_second_order_inside_a_graph():
    @ef.function
    def hessian_diag(x):
        with ef.GradientTape() as outer:
            outer.watch(x)
            with ef.GradientTape() as inner:
                inner.watch(x)
                y = ef.reduce_sum(x ** 3)
            g = inner.gradient(y, x)
        return g, outer.gradient(g, x)

    g, h = hessian_diag(ef.constant([1.0, 2.0]))
    g, h = hessian_diag(ef.constant([2.0, 3.0]))
    np.testing.assert_allclose(g.numpy(), [12.0, 27.0])
    np.testing.assert_allclose(h.numpy(), [12.0, 18.0])


def test_gradients_with_unknown_batch_dimension():
    w = ef.Variable(np.arange(6, dtype=np.float32).reshape(3, 2))

    @ef.function(input_signature=[ef.TensorSpec([None, 3], ef.float32)])
    def loss_and_grad(x):
        with ef.GradientTape() as tape:
            tape.watch(x)
            loss = ef.reduce_mean(ef.square(ef.matmul(x, w))) + ef.reduce_sum(x[:, 0])
        return loss, tape.gradient(loss, [x, w])

    for batch in (2, 5):
        x = ef.constant(np.linspace(-1, 1, batch * 3).astype(np.float32).reshape(batch, 3))
        loss, (gx, gw) = loss_and_grad(x)
        with ef.GradientTape() as tape:
            tape.watch(x)
            eager = ef.reduce_mean(ef.square(ef.matmul(x, w))) + ef.reduce_sum(x[:, 0])
        ex, ew = tape.gradient(eager, [x, w])
        np.testing.assert_allclose(float(loss), float(eager), rtol=1e-6)
        np.testing.assert_allclose(gx.numpy(), ex.numpy(), rtol=1e-5)
        np.testing.assert_allclose(gw.numpy(), ew.numpy(), rtol=1e-5)
    assert loss_and_grad.experimental_get_tracing_count() == 1


def test_tape_around_a_call_with_unknown_batch_dimension():
    traced = ef.function(lambda x: ef.reduce_mean(x * x, axis=0),
                         input_signature=[ef.TensorSpec([None, 2], ef.float32)])
    for batch in (3, 4):
        x = ef.constant(np.ones((batch, 2), np.float32) * 2)
        with ef.GradientTape() as tape:
            tape.watch(x)
            y = traced(x)
        np.testing.assert_allclose(tape.gradient(y, x).numpy(), np.full((batch, 2), 4 / batch))


def test_jacobian_of_a_traced_function():
    traced = ef.function(lambda x: x * x)
    x = ef.constant([1.0, 2.0, 3.0])
    with ef.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = traced(x)
    np.testing.assert_allclose(tape.jacobian(y, x).numpy(), np.diag([2.0, 4.0, 6.0]))


def test_a_concrete_function_called_in_a_trace_keeps_its_custom_gradient():
    @ef.custom_gradient
    def clip_gradients(y):
        return y, lambda dy: ef.clip_by_norm(dy, 0.5)

    clipped = ef.function(clip_gradients).get_concrete_function(ef.TensorSpec([]))
    outer = ef.function(lambda x: clipped(x) * 1.0)
    v = ef.Variable(2.0)
    with ef.GradientTape() as tape:
        output = outer(v * v)
    assert float(output) == 4.0
    assert float(tape.gradient(output, v)) == pytest.approx(2.0)  # TF: 2.0 (4 clipped)

    @ef.custom_gradient
    def log1pexp(x):  # a stable gradient written in ops: higher orders work through it
        e = ef.exp(x)
        return ef.math.log1p(e), lambda dy: dy * (1 - 1 / (1 + e))

    inner = ef.function(log1pexp).get_concrete_function(ef.TensorSpec([None], ef.float64))
    scale = ef.Variable(np.array([0.5, 2.0, -1.0]))
    check_gradients(ef.function(lambda x: inner(x * scale) * x), np.array([0.3, -0.8, 1.1]),
                    order=2)

    @ef.custom_gradient
    def cube(x):  # the input itself is an intermediate of the gradient
        return x * x * x, lambda dy: dy * 3.0 * x * x

    cubed = ef.function(cube).get_concrete_function(ef.TensorSpec([None], ef.float64))
    check_gradients(ef.function(lambda x: cubed(x) * 1.0), np.array([0.3, -0.8, 1.1]),
                    order=2)
