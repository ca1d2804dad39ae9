"""More cases of TensorFlow's `backprop_test.py` (tape misuse, jacobians through loops),
with the values and exception classes TensorFlow 2.21 gives."""

import numpy as np
import pytest

import eagerflow as ef


def test_reentering_a_recording_tape_raises_value_error():
    tape = ef.GradientTape()
    with tape:
        with pytest.raises(ValueError, match="already recording"):  # TF: ValueError
            with tape:
                pass


def test_watching_a_numpy_array_raises_value_error():
    with ef.GradientTape() as tape:
        with pytest.raises(ValueError, match="expects Tensors or Variables, got ndarray"):
            tape.watch(np.array(1.0))  # TF: ValueError


@pytest.mark.parametrize("traced", [False, True])
def test_jacobian_through_while_loop_on_a_non_persistent_tape(traced):
    def f(x):
        with ef.GradientTape() as tape:
            tape.watch(x)
            y = ef.while_loop(lambda i, y: i < 2, lambda i, y: (i + 1, y * x),
                              (ef.constant(0), x))[1]
        return tape.jacobian(y, x)

    g = ef.function(f) if traced else f
    np.testing.assert_allclose(g(ef.constant([1.0, 2.0])).numpy(),
                               [[3.0, 0.0], [0.0, 12.0]])  # TF


def test_batch_jacobian_eagerly():
    x = ef.constant([[1.0, 2.0], [3.0, 4.0]])
    with ef.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    np.testing.assert_allclose(tape.batch_jacobian(y, x).numpy(),
                               [[[2.0, 0.0], [0.0, 4.0]], [[6.0, 0.0], [0.0, 8.0]]])  # TF
