"""TensorFlow guide "Introduction to Variables", ported step by step with `tf.` turned into
`ef.` (the step names follow the guide's sections). Placing work on a GPU differs on
purpose: eagerflow has no GPU backend and says so instead of silently using the CPU."""

import numpy as np
import pytest

import eagerflow as ef


def test_create_a_variable():
    my_tensor = ef.constant([[1.0, 2.0], [3.0, 4.0]])
    my_variable = ef.Variable(my_tensor)
    # Variables can be all kinds of types, just like tensors
    bool_variable = ef.Variable([False, False, False, True])
    complex_variable = ef.Variable([5 + 4j, 6 + 1j])
    assert bool_variable.dtype == ef.bool
    assert complex_variable.dtype == np.complex128  # as in TensorFlow
    np.testing.assert_array_equal(complex_variable.numpy(), [5 + 4j, 6 + 1j])

    assert my_variable.shape == (2, 2)
    assert my_variable.dtype == ef.float32
    np.testing.assert_array_equal(my_variable.numpy(), [[1.0, 2.0], [3.0, 4.0]])

    assert repr(my_variable).startswith("<ef.Variable 'Variable' shape=(2, 2) dtype=float32")
    viewed = ef.convert_to_tensor(my_variable)  # Viewed as a tensor
    assert isinstance(viewed, ef.Tensor) and not isinstance(viewed, ef.Variable)
    np.testing.assert_array_equal(viewed, my_tensor)
    argmax = ef.math.argmax(my_variable)  # Index of highest value
    assert argmax.dtype == ef.int64
    np.testing.assert_array_equal(argmax, [1, 1])
    # This creates a new tensor; it does not reshape the variable.
    copied = ef.reshape(my_variable, [1, 4])
    np.testing.assert_array_equal(copied, [[1.0, 2.0, 3.0, 4.0]])
    assert my_variable.shape == (2, 2)

    a = ef.Variable([2.0, 3.0])
    # This will keep the same dtype, float32
    a.assign([1, 2])
    assert a.dtype == ef.float32
    np.testing.assert_array_equal(a.numpy(), [1.0, 2.0])
    # Not allowed as it resizes the variable (TensorFlow raises ValueError too)
    with pytest.raises(ValueError, match=r"shape \(3,\) to variable 'Variable' of shape \(2,\)"):
        a.assign([1.0, 2.0, 3.0])

    a = ef.Variable([2.0, 3.0])
    # Create b based on the value of a
    b = ef.Variable(a)
    a.assign([5, 6])
    # a and b are different
    np.testing.assert_array_equal(a.numpy(), [5.0, 6.0])
    np.testing.assert_array_equal(b.numpy(), [2.0, 3.0])
    # There are other versions of assign
    np.testing.assert_array_equal(a.assign_add([2, 3]).numpy(), [7.0, 9.0])
    np.testing.assert_array_equal(a.assign_sub([7, 9]).numpy(), [0.0, 0.0])


def test_lifecycles_naming_and_watching():
    my_tensor = ef.constant([[1.0, 2.0], [3.0, 4.0]])
    # Create a and b; they will have the same name but will be backed by different tensors.
    a = ef.Variable(my_tensor, name="Mark")
    # A new variable with the same name, but different value
    # Note that the scalar add is broadcast
    b = ef.Variable(my_tensor + 1, name="Mark")
    # These are elementwise-unequal, despite having the same name
    equal = a == b
    assert isinstance(equal, ef.Tensor) and equal.dtype == ef.bool
    np.testing.assert_array_equal(equal, [[False, False], [False, False]])
    assert a.name == b.name == "Mark"

    step_counter = ef.Variable(1, trainable=False)
    assert step_counter.dtype == ef.int32 and not step_counter.trainable
    assert repr(step_counter) == "<ef.Variable 'Variable' shape=() dtype=int32, numpy=1>"
    with ef.GradientTape() as tape:
        loss = ef.cast(step_counter, ef.float32) * 2.0
    assert tape.watched_variables() == ()  # not trainable: not watched
    assert loss.dtype == ef.float32


def test_placing_variables_and_tensors():
    with ef.device('CPU:0'):
        # Create some tensors
        a = ef.Variable([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
        b = ef.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
        c = ef.matmul(a, b)
    np.testing.assert_array_equal(c, [[22.0, 28.0], [49.0, 64.0]])
    assert c.device.endswith("CPU:0")

    with ef.device('CPU:0'):
        a = ef.Variable([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
        b = ef.Variable([[1.0, 2.0, 3.0]])
    # TensorFlow without a GPU silently runs this on the CPU; eagerflow refuses GPU:0.
    with pytest.raises(ef.errors.NotFoundError, match=r"GPU:0.*no GPU backend"):
        with ef.device('GPU:0'):
            # Element-wise multiply
            k = a * b
    k = a * b
    np.testing.assert_array_equal(k, [[1.0, 4.0, 9.0], [4.0, 10.0, 18.0]])
