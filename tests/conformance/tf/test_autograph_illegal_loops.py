"""TensorFlow's AutoGraph reference test
`autograph/tests/loop_control_flow_illegal_cases_test.py` on `ef.function`: a `break` or
`return` on a tensor inside a Python loop is refused at trace time with TensorFlow 2.21's
class, `NotImplementedError` (one difference, marked below)."""

import itertools

import pytest

import eagerflow as ef


def tf_break_in_py_for(values):
    s = 0
    for c in values:
        if ef.greater(c % 2, 0):
            break
        s += c
    return s


def tf_return_in_py_for(values):
    s = 0
    for c in values:
        if ef.greater(c % 2, 0):
            return s
        else:
            return s
        s += c
    return s


def tf_break_in_py_while(x):
    s = 0
    while x > 0:
        x -= 1
        if ef.greater(x % 2, 0):
            break
        s += x
    return s


def tf_return_in_py_while(x):
    s = 0
    while x > 0:
        x -= 1
        if ef.greater(x % 2, 0):
            return s
        else:
            return s
        s += x
    return s


@pytest.mark.parametrize("values, target", list(itertools.product(
    ([1], [1, 2], [1, 2, 3]), (tf_break_in_py_for, tf_return_in_py_for))))
def test_tf_control_flow_in_py_for(values, target):
    with pytest.raises(NotImplementedError):
        ef.function(target)([ef.constant(v) for v in values])


@pytest.mark.parametrize("n, target", list(itertools.product(
    (1, 2, 3), (tf_break_in_py_while, tf_return_in_py_while))))
def test_tf_control_flow_in_py_while(n, target):
    # A difference: TensorFlow raises NotImplementedError, since any tf.Tensor condition
    # is a graph value there. Here `ef.greater(x % 2, 0)` of a Python int is a constant of
    # the trace, decided while tracing, so the function gives its eager result.
    assert int(ef.function(target)(n)) == int(target(n))

