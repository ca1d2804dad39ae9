"""AutoGraph (eagerflow/graph/autograph.py): Python control flow on tensors in ef.function."""

import numpy as np
import pytest

import eagerflow as ef
from eagerflow.graph import autograph, graph


def _ops(f, *args):
    return [op.type for op in f.get_concrete_function(*args).graph.operations]


def test_if_on_a_tensor_becomes_cond_and_on_a_python_value_stays_python():
    @ef.function
    def f(x, negate):
        if negate:  # a Python bool: plain Python, one branch traced
            x = -x
        if ef.reduce_sum(x) > 0:
            y = x * 2.0
        else:
            y = x - 1.0
        return y

    np.testing.assert_allclose(f(ef.constant([1.0, 2.0]), False), [2.0, 4.0])
    np.testing.assert_allclose(f(ef.constant([1.0, 2.0]), True), [-2.0, -3.0])
    assert "If" in _ops(f, ef.constant([1.0]), False)
    assert "Neg" not in _ops(f, ef.constant([1.0]), False)


def test_early_return_break_and_continue():
    @ef.function
    def first_multiple(n, k):
        i = ef.constant(1)
        found = ef.constant(-1)
        while i < n:
            if i % k != 0:
                i += 1
                continue
            found = i
            break
        return found

    assert int(first_multiple(ef.constant(20), ef.constant(7))) == 7
    assert int(first_multiple(ef.constant(5), ef.constant(7))) == -1

    @ef.function
    def sign(x):
        if x > 0:
            return ef.constant(1.0)
        elif x < 0:
            return ef.constant(-1.0)
        return ef.constant(0.0)

    assert [float(sign(ef.constant(v))) for v in (3.0, -2.0, 0.0)] == [1.0, -1.0, 0.0]
    assert sign.experimental_get_tracing_count() == 1


def test_for_over_a_tensor_range_rows_and_python_lists():
    weights = [2.0, 3.0]

    @ef.function
    def f(n, rows):
        total = ef.constant(0.0)
        for i in range(n):  # a tensor bound: a graph loop
            total += ef.cast(i, "float32")
        for row in rows:  # a tensor: a loop over its first axis
            total += ef.reduce_sum(row)
        for w in weights:  # a Python list: unrolled at trace time
            total = total * w
        return total

    rows = ef.constant(np.arange(6, dtype="float32").reshape(3, 2))
    assert float(f(ef.constant(4), rows)) == (0 + 1 + 2 + 3 + 15) * 6
    assert float(f(ef.constant(0), rows)) == 15 * 6
    assert f.experimental_get_tracing_count() == 1
    assert _ops(f, ef.constant(4), rows).count("While") == 2


def test_nested_loops_and_conditions_match_python():
    def reference(n):
        count = 0
        for i in range(n):
            j = 0
            while j < i:
                if (i + j) % 3 == 0 and j > 0:
                    count += 1
                j += 1
        return count

    traced = ef.function(reference)
    for n in (0, 4, 9):
        assert int(traced(ef.constant(n))) == reference(n)


def test_gradients_flow_through_converted_loops():
    @ef.function
    def power(x, n):
        y = ef.ones_like(x)
        for _ in range(n):
            y = y * x
        return y

    x = ef.Variable(1.5)
    with ef.GradientTape() as tape:
        y = power(x.read_value(), ef.constant(4))
    assert float(tape.gradient(y, x)) == pytest.approx(4 * 1.5 ** 3)


def test_and_or_not_and_conditional_expressions():
    @ef.function
    def f(x):
        inside = x > 0 and x < 10 and not x == 5
        y = x * 2.0 if inside or x == 100 else -x
        return y

    assert [float(f(ef.constant(v))) for v in (3.0, 5.0, 12.0, 100.0)] == [6.0, -5.0,
                                                                              -12.0, 200.0]


def test_layer_call_control_flow_is_converted_inside_fit():
    class Clip(ef.layers.Layer):
        def call(self, x):
            if ef.reduce_max(ef.abs(x)) > 1.0:
                x = x / ef.reduce_max(ef.abs(x))
            return x

    model = ef.Sequential([ef.layers.Dense(2), Clip()])
    model.compile(optimizer="sgd", loss="mse")
    history = model.fit(np.ones((8, 3), "float32"), np.zeros((8, 2), "float32"), epochs=2,
                        verbose=0)
    assert len(history.history["loss"]) == 2


def test_methods_keep_their_closure_and_super():
    class Base:
        def scale(self):
            return 2.0

    class Child(Base):
        def __init__(self):
            self.offset = 1.0

        @ef.function
        def run(self, x):
            if x > 0:
                x = x * super().scale()
            return x + self.offset

    child = Child()
    assert float(child.run(ef.constant(3.0))) == 7.0
    assert float(child.run(ef.constant(-3.0))) == -2.0


def test_python_side_effects_run_while_tracing_only():
    calls = []

    @ef.function
    def f(x):
        calls.append(1)
        if x > 0:
            x = x + 1.0
        return x

    f(ef.constant(1.0))
    f(ef.constant(-1.0))
    assert len(calls) == 1


def test_a_variable_assigned_in_one_branch_only_names_the_line():
    @ef.function
    def f(x):
        if x > 0:
            y = x
        return y

    with pytest.raises(ValueError, match=r"test_autograph.py:\d+: 'y' must also be assigned "
                                        r"in the else branch"):
        f(ef.constant(1.0))


def test_branches_that_disagree_on_a_dtype_name_the_variable():
    @ef.function
    def f(x):
        if x > 0:
            y = ef.constant(1)
        else:
            y = ef.constant(1.5)
        return y

    with pytest.raises(TypeError, match="variable 'y'.*int32.*float32"):
        f(ef.constant(1.0))


def test_return_inside_a_tensor_loop_is_a_clear_error():
    @ef.function
    def f(n):
        i = ef.constant(0)
        while i < n:
            if i == 3:
                return i
            i += 1
        return i

    with pytest.raises(autograph.ConversionError, match="`return` inside a loop"):
        f(ef.constant(5))


def test_break_inside_with_is_refused_by_name():
    @ef.function
    def f(x):
        for _ in range(3):
            with ef.name_scope("s"):
                break
        return x

    with pytest.raises(autograph.ConversionError, match=r"test_autograph.py:\d+: .*`with`"):
        f(ef.constant(1.0))


def test_autograph_off_traces_the_function_as_written():
    def f(x):
        if x > 0:
            return x
        return -x

    assert autograph.convert(f) is not f
    with pytest.raises(graph.OperatorNotAllowedInGraphError, match="autograph=False"):
        ef.function(f, autograph=False)(ef.constant(1.0))


def _double_if_positive(x):
    if x > 0:
        return x * 2.0
    return x


def _twice(y):
    for _ in range(2):
        y = _double_if_positive(y)
    return y


def test_functions_and_methods_the_traced_function_calls_are_converted():
    class Net(ef.Model):
        def __init__(self):
            super().__init__()
            self.dense = ef.layers.Dense(1, kernel_initializer="ones")

        def call(self, x):
            return _twice(ef.reduce_sum(self.dense(x)))

    @ef.function
    def traced(x):
        return _twice(x) + 1.0

    assert float(traced(ef.constant(3.0))) == 13.0
    assert float(traced(ef.constant(-3.0))) == -2.0
    net = Net()
    assert float(ef.function(lambda x: net(x))(ef.ones([1, 2]))) == 8.0


def test_eagerflow_code_is_never_converted():
    assert not autograph._is_user_function(ef.optim.Adam.update_step)
    assert autograph.convert(ef.layers.Dense.call) is ef.layers.Dense.call


def test_a_non_scalar_condition_names_the_line():
    @ef.function
    def f(x):
        if x > 0:
            x = -x
        return x

    with pytest.raises(ef.errors.InvalidArgumentError,
                       match=r"test_autograph.py:\d+: the condition of this `if` is a tensor "
                             r"of shape \(2,\)"):
        f(ef.constant([1.0, 2.0]))


def test_for_over_ef_range_of_a_tensor_loops_in_the_graph():
    @ef.function
    def total(n):
        t = 0
        for i in ef.range(1, n + 1):
            t += i
        return t

    assert total(ef.constant(4)).numpy() == 10
    assert total(ef.constant(100)).numpy() == 5050  # one trace, any bound
    assert total.experimental_get_tracing_count() == 1
    assert "While" in _ops(total, ef.constant(3))

    @ef.function
    def steps(n):
        t = ef.constant(0.0)
        for x in ef.range(n, 0.0, -0.5, dtype=ef.float32):
            t += x
        return t

    assert steps(ef.constant(2.0)).numpy() == 2.0 + 1.5 + 1.0 + 0.5
    assert _ops(total, 3).count("While") == 0  # a Python bound keeps the Python loop


def test_a_converted_function_can_call_itself():
    def fact(n):
        if n <= 1:
            return 1
        return n * fact(n - 1)

    assert ef.function(lambda: ef.constant(fact(5)))().numpy() == 120
    traces = []

    @ef.function
    def recursive_fn(n):
        if n > 0:
            traces.append(n)
            return recursive_fn(n - 1)
        return 1

    assert recursive_fn(3) == 1 and traces == [3, 2, 1]
    with pytest.raises(RecursionError):  # a tensor bound never ends the tracing
        recursive_fn(ef.constant(3))


def test_a_return_ending_a_with_block_is_converted():
    @ef.function
    def f(x):
        with ef.GradientTape() as tape:
            tape.watch(x)
            y = x * x
            return y + 1.0
        return x  # dead code, as in Python

    assert float(f(ef.constant(3.0))) == 10.0


def test_a_return_inside_a_branch_of_a_with_block_is_refused():
    @ef.function
    def f(x):
        with ef.GradientTape():
            if x > 0:
                return x
            y = -x
        return y

    with pytest.raises(autograph.ConversionError, match="inside a `with` or `try` block"):
        f(ef.constant(1.0))
