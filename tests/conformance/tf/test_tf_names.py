"""TensorFlow names added for the TF-conformance issue, checked against values recorded
from TensorFlow 2.21: add_n, linalg.diag, recompute_grad, grad_pass_through,
gradients_function(dy=)."""

import numpy as np
import pytest

import eagerflow as ef
from eagerflow import testing


def test_add_n_as_tf():
    assert ef.add_n([ef.constant([1.0, 2.0]), ef.constant([3.0, 4.0])]).numpy().tolist() == \
        [4.0, 6.0]
    assert float(ef.math.add_n([ef.constant(1.0)])) == 1.0
    with pytest.raises(ef.errors.InvalidArgumentError, match=r"same size and shape.*\[2\] != "
                                                             r"input 1: \[1\]"):
        ef.add_n([ef.constant([1.0, 2.0]), ef.constant([3.0])])
    with pytest.raises(ValueError, match="at least one tensor"):
        ef.add_n([])
    with pytest.raises(ef.errors.InvalidArgumentError, match="input #1.*int32"):
        ef.add_n([ef.constant(1.0), ef.constant(1)])
    testing.check_gradients(lambda a, b: ef.add_n([a, b, a]), np.random.rand(3),
                            np.random.rand(3))


@pytest.mark.parametrize("kwargs, diagonal, expected", [
    # tf.linalg.diag(diagonal, **kwargs).numpy().tolist() in TF 2.21
    ({}, [1.0, 2.0], [[1.0, 0.0], [0.0, 2.0]]),
    ({"k": 1}, [[1.0, 2.0], [3.0, 4.0]],
     [[[0.0, 1.0, 0.0], [0.0, 0.0, 2.0], [0.0, 0.0, 0.0]],
      [[0.0, 3.0, 0.0], [0.0, 0.0, 4.0], [0.0, 0.0, 0.0]]]),
    ({"k": -1, "num_rows": 4, "padding_value": 9}, [1.0, 2.0],
     [[9.0, 9.0], [1.0, 9.0], [9.0, 2.0], [9.0, 9.0]]),
    ({"num_rows": 3, "num_cols": 2}, [1.0, 2.0], [[1.0, 0.0], [0.0, 2.0], [0.0, 0.0]]),
    ({"num_cols": 4}, [1.0, 2.0], [[1.0, 0.0, 0.0, 0.0], [0.0, 2.0, 0.0, 0.0]]),
    ({"num_rows": 4}, [1.0, 2.0], [[1.0, 0.0], [0.0, 2.0], [0.0, 0.0], [0.0, 0.0]]),
    ({"num_rows": 3, "num_cols": 3, "k": 1}, [1.0, 2.0],
     [[0.0, 1.0, 0.0], [0.0, 0.0, 2.0], [0.0, 0.0, 0.0]]),
])
def test_linalg_diag_as_tf(kwargs, diagonal, expected):
    assert ef.linalg.diag(diagonal, **kwargs).numpy().tolist() == expected


def test_linalg_diag_refuses_what_tf_refuses():
    with pytest.raises(ef.errors.InvalidArgumentError, match="rows is too small"):
        ef.linalg.diag([1.0, 2.0], num_rows=1)
    with pytest.raises(ef.errors.InvalidArgumentError, match="not consistent"):
        ef.linalg.diag([1.0, 2.0], num_rows=4, num_cols=4)
    with pytest.raises(ef.errors.InvalidArgumentError, match="at least 1-dim"):
        ef.linalg.diag(1.0)
    testing.check_gradients(lambda d: ef.linalg.diag(d, k=1, padding_value=3.0),
                            np.random.rand(2, 3))


def test_grad_pass_through_as_tf():
    # TF: d/dx of grad_pass_through(round)(y * x) with x = 2, y = 3 is 3.0; the gradient
    # through grad_pass_through(v.assign)(y * 2) with respect to y is 2.0 (v becomes 6).
    x, y = ef.Variable(2.0), ef.constant(3.0)
    with ef.GradientTape() as tape:
        z = ef.grad_pass_through(ef.round)(y * x)
    assert float(tape.gradient(z, x)) == 3.0
    v = ef.Variable(1.0)
    with ef.GradientTape() as tape:
        tape.watch(y)
        out = ef.grad_pass_through(v.assign)(y * 2.0)
    assert (float(out), float(tape.gradient(out, y)), float(v.numpy())) == (6.0, 2.0, 6.0)


def test_recompute_grad_as_tf():
    # TF: sin(a @ w) with a = [[1]], w = [[2]]: value 0.9092974, d/da -0.8322937,
    # d/dw -0.41614684.
    w = ef.Variable([[2.0]])
    f = ef.recompute_grad(lambda a: ef.sin(ef.matmul(a, w)))
    a = ef.constant([[1.0]])
    with ef.GradientTape(persistent=True) as tape:
        tape.watch(a)
        r = f(a)
    np.testing.assert_allclose(r.numpy(), [[0.9092974]], rtol=1e-6)
    np.testing.assert_allclose(tape.gradient(r, a).numpy(), [[-0.8322937]], rtol=1e-6)
    np.testing.assert_allclose(tape.gradient(r, w).numpy(), [[-0.41614684]], rtol=1e-6)
    testing.check_gradients(ef.recompute_grad(lambda t: ef.tanh(t) * t), np.random.rand(4))


def test_gradients_function_dy():
    grads = ef.gradients_function(lambda a, b: a * b)(
        ef.constant([1.0, 2.0]), ef.constant([3.0, 4.0]), dy=ef.constant([10.0, 100.0]))
    assert [g.numpy().tolist() for g in grads] == [[30.0, 400.0], [10.0, 200.0]]
