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
