"""AutoGraph corner cases checked against eager Python and TensorFlow's tf.function."""

import pytest

import eagerflow as ef


def test_and_or_on_graph_tensors_evaluate_the_right_side_only_when_needed():
    calls = ef.Variable(0.0)

    def counted():
        calls.assign_add(1.0)
        return calls > 0

    @ef.function
    def f(x):
        if x > 0 and counted():
            return x
        return -x

    @ef.function
    def g(x):
        if x < 0 or counted():
            return x
        return -x

    assert float(f(ef.constant(-1.0))) == 1.0 and float(calls) == 0.0  # not called
    assert float(f(ef.constant(2.0))) == 2.0 and float(calls) == 1.0
    assert float(g(ef.constant(-1.0))) == -1.0 and float(calls) == 1.0  # not called
    assert float(g(ef.constant(3.0))) == 3.0 and float(calls) == 2.0


def test_and_or_on_non_bool_or_non_scalar_graph_tensors_raise():
    # eagerly `x and z` is z (3.0); it used to give True in a graph.
    @ef.function
    def left_float(x, z):
        return x and z

    with pytest.raises(TypeError, match="left operand of `and` is a float32 tensor"):
        left_float(ef.constant(2.0), ef.constant(3.0))

    @ef.function
    def right_float(x, z):
        return (x > 0) or z

    with pytest.raises(TypeError, match="right operand of `or` is a float32"):
        right_float(ef.constant(-2.0), ef.constant(3.0))

    @ef.function
    def vector(x):
        return x > 0 and x < 2

    with pytest.raises(ef.errors.InvalidArgumentError, match="ef.logical_and"):
        vector(ef.constant([1.0, 3.0]))


def test_a_loop_variable_that_changes_dtype_raises_instead_of_being_cast_back():
    @ef.function
    def widened(n):
        s = ef.constant(0)
        for _ in ef.range(n):
            s = ef.cast(s, ef.int64) + ef.cast(2**40, ef.int64)
        return s

    # it used to be cast back to int32 each iteration and return 0 (eagerly 2**41)
    with pytest.raises(TypeError, match=r"'s' is int32 before the loop but int64"):
        widened(ef.constant(2))

    @ef.function
    def precise(xs):
        s = ef.constant(0.0)
        for x in xs:
            s = ef.cast(s, ef.float64) + x
        return s

    with pytest.raises(TypeError, match=r"'s' is float32 before the loop but float64"):
        precise(ef.constant([1.0, 2.0], ef.float64))

    @ef.function
    def truncated(x):
        s = ef.constant(0)
        while x > 0:
            s = 1.5
            x -= 1
        return s

    with pytest.raises(TypeError, match="int32 before the loop but float32"):
        truncated(ef.constant(2.0))


def test_python_numbers_in_loops_keep_their_eager_values():
    @ef.function
    def f(x):
        total, count, last = 0, 0, ef.constant(0.0)
        while x > 0:
            total = total + x      # a Python int that becomes a float tensor
            count += 1             # stays an integer
            last = 2               # a Python int the float32 variable holds exactly
            x -= 1.5
        return total, count, last

    total, count, last = f(ef.constant(4.0))
    assert float(total) == 7.5 and count.dtype == ef.int32 and int(count) == 3
    assert last.dtype == ef.float32 and float(last) == 2.0


def test_dict_items_and_attributes_assigned_in_tensor_control_flow_are_state():
    @ef.function
    def count(x):
        c = {"n": 0}
        while x > 0:
            c["n"] += 1      # it used to run once, at trace time, and always give 1
            x -= 1
        return c["n"]

    assert int(count(ef.constant(3.0))) == 3 and int(count(ef.constant(-1.0))) == 0

    @ef.function
    def pick(x):
        d = {}
        if x > 0:
            d["k"] = x * 2
        else:
            d["k"] = x * 3
        return d["k"]

    assert float(pick(ef.constant(1.0))) == 2.0 and float(pick(ef.constant(-1.0))) == -3.0

    class Accumulator:
        def __init__(self):
            self.total, self.steps = ef.constant(0.0), 0

        @ef.function
        def run(self, xs):
            for x in xs:
                self.total = self.total + x
                self.steps += 1
            return self.total, self.steps

    total, steps = Accumulator().run(ef.constant([1.0, 2.0, 3.0]))
    assert float(total) == 6.0 and int(steps) == 3

    @ef.function
    def one_branch(x):
        d = {}
        if x > 0:
            d["k"] = x
        return d.get("k", 0.0)

    with pytest.raises(ValueError, match=r"\"d\['k'\]\" must also be assigned in the else"):
        one_branch(ef.constant(-2.0))


def test_a_tensor_dependent_return_without_a_value_on_every_path_is_named():
    @ef.function
    def falls_off(x):
        if x > 0:
            return x
        elif x < -10:
            return x * 0

    with pytest.raises(TypeError, match="another path of the `if`.*returns None"):
        falls_off(ef.constant(-1.0))


def test_loops_over_trace_time_tensors_with_a_tensor_break_are_graph_loops():
    @ef.function
    def first_above(x):
        found = ef.constant(-1)
        for i in ef.range(5):          # a bound known at trace time
            if ef.cast(i, ef.float32) > x:
                found = i
                break
        return found

    assert int(first_above(ef.constant(2.0))) == 3
    assert int(first_above(ef.constant(9.0))) == -1

    @ef.function
    def capped(x):
        i = ef.constant(0)             # a condition known at trace time
        while i < 3:
            i += 1
            x = x + ef.cast(i, ef.float32)
            if x > 2:
                break
        return x, i

    assert [float(v) for v in capped(ef.constant(0.0))] == [3.0, 2.0]
    assert [float(v) for v in capped(ef.constant(-10.0))] == [-4.0, 3.0]


def test_a_variable_written_in_a_branch_inside_a_loop_is_read_on_every_iteration():
    v = ef.Variable(0.0)

    @ef.function
    def grow(n):
        for _ in ef.range(n):
            if v > 2.0:          # the read was hoisted before the loop: always 0
                v.assign(v * 10.0)
            else:
                v.assign_add(1.0)
        return v.read_value()

    assert float(grow(ef.constant(5))) == 300.0    # 1, 2, 3, 30, 300 (it gave 5)

    w = ef.Variable(0.0)

    def body(i):
        ef.cond(w > 2.0, lambda: w.assign_add(10.0), lambda: w.assign_add(1.0))
        return i + 1

    @ef.function(autograph=False)
    def explicit(n):
        return ef.while_loop(lambda i: i < n, body, [ef.constant(0)])

    explicit(ef.constant(5))
    assert float(w) == 23.0


def test_lambdas_and_functions_given_to_cond_and_while_loop_are_converted():
    @ef.function
    def absolute(x):
        magnitude = lambda t: t if t > 0 else -t  # noqa: E731
        return magnitude(x)

    assert float(absolute(ef.constant(-2.0))) == 2.0

    @ef.function
    def nested(x):
        def small_or_tenfold():
            if x > 1:
                return x
            return x * 10

        return ef.cond(x > 0, small_or_tenfold, lambda: -x)

    assert float(nested(ef.constant(0.5))) == 5.0 and float(nested(ef.constant(2.0))) == 2.0

    @ef.function
    def loop(x):
        def body(i, acc):
            if acc > 5:
                acc = acc - 1
            else:
                acc = acc + 3
            return i + 1, acc

        return ef.while_loop(lambda i, a: i < 4, body, [ef.constant(0), x])

    assert [float(v) for v in loop(ef.constant(0.0))] == [4.0, 8.0]


def test_tuples_and_lists_of_tensors_are_loop_and_branch_state():
    @ef.function
    def fib(n):
        pair = (ef.constant(0), ef.constant(1))
        for _ in ef.range(n):
            pair = (pair[1], pair[0] + pair[1])
        return pair

    assert [int(v) for v in fib(ef.constant(10))] == [55, 89]

    @ef.function
    def choose(x):
        if x > 0:
            p = [x * 2, 2]
        else:
            p = [-x, 3]
        return p

    assert [float(v) for v in choose(ef.constant(-4.0))] == [4.0, 3.0]

    @ef.function
    def shrinks(x):
        acc = [x, x]
        while acc[0] < 10:
            acc = [acc[0] * 3]
        return acc

    with pytest.raises(TypeError, match="'acc' is a list of 2 before the loop"):
        shrinks(ef.constant(1.0))


def test_a_for_loops_variable_keeps_its_last_value_after_a_tensor_loop():
    @ef.function
    def first_over_two(n):
        for i in ef.range(n):
            if i > 2:
                break
        return i

    assert int(first_over_two(ef.constant(10))) == 3
    assert int(first_over_two(ef.constant(2))) == 1
    assert int(first_over_two(ef.constant(0))) == 0   # never ran: 0, as in TensorFlow

    @ef.function(input_signature=[ef.TensorSpec([None, 2], ef.float32)])
    def last_row(x):
        total = ef.zeros([2])
        for row in x:
            total = total + row
        return row + 0.0 * total

    assert last_row(ef.constant([[1.0, 2.0], [3.0, 4.0]])).numpy().tolist() == [3.0, 4.0]
