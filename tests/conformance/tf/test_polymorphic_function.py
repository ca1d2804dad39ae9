"""Cases of TensorFlow's `polymorphic_function_test.py` (and the `tf.function` cases of
issue 30) on `ef.function`, with the values and exception classes TensorFlow 2.21 gives."""

import numpy as np
import pytest

import eagerflow as ef


# -- iterators read by graph loops ---------------------------------------------------------
def _sum_in_while(n):
    dataset = ef.data.Dataset.range(3)

    @ef.function
    def f(n):
        it = iter(dataset)
        total = ef.constant(0, ef.int64)
        i = ef.constant(0)
        while i < n:
            total += next(it)
            i += 1
        return total

    return f(ef.constant(n))


def test_next_in_tensor_while_advances():
    assert int(_sum_in_while(3)) == 3  # TF: 3


def test_next_past_the_end_in_tensor_while_raises_out_of_range():
    with pytest.raises(ef.errors.OutOfRangeError, match="End of sequence"):
        _sum_in_while(4)


def test_iterator_made_inside_restarts_each_call_where_the_trace_left_it():
    dataset = ef.data.Dataset.range(10)

    @ef.function
    def f(n):
        it = iter(dataset)
        first = next(it)
        total = ef.constant(0, ef.int64)
        i = ef.constant(0)
        while i < n:
            total += next(it)
            i += 1
        return first, total, next(it)

    # TF: [0, 6, 4], [0, 3, 3], [0, 0, 1]
    assert [int(v) for v in f(ef.constant(3))] == [0, 6, 4]
    assert [int(v) for v in f(ef.constant(2))] == [0, 3, 3]
    assert [int(v) for v in f(ef.constant(0))] == [0, 0, 1]


def test_iterator_from_outside_read_in_branch_inside_loop():
    it = iter(ef.data.Dataset.range(10))

    @ef.function
    def f(n):
        total = ef.constant(0, ef.int64)
        for i in ef.range(n):
            if i % 2 == 0:
                total += next(it)
        return total

    assert int(f(ef.constant(4))) == 1  # TF: 1, then 5
    assert int(f(ef.constant(3))) == 5


# -- AutoGraph: loop variables -----------------------------------------------------------------
@pytest.mark.parametrize("make", [lambda: ef.range(0), lambda: ef.range(ef.constant(0))])
def test_loop_variable_after_empty_trace_time_range(make):
    @ef.function
    def f():
        for i in make():
            pass
        return i  # noqa: F821 - defined by the loop, as in TensorFlow

    assert int(f()) == 0  # TF: 0


def test_loop_variable_after_empty_python_range_is_unbound():
    @ef.function
    def f(n):
        for i in range(n):
            pass
        return i  # noqa: F821

    with pytest.raises(UnboundLocalError):  # TF: UnboundLocalError
        f(0)
