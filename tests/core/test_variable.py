"""Variable: creation, assignment, in-place safety, tape watching, memory."""

import gc
import weakref

import numpy as np
import pytest

import eagerflow as ef
from eagerflow.core import buffers


def test_creation_and_properties():
    v = ef.Variable([1.0, 2.0], name="w")
    assert v.shape == (2,) and v.dtype == np.float32 and v.ndim == 1
    assert v.name == "w" and v.trainable and v.device == "/device:CPU:0"
    assert ef.Variable(1.0).name == "Variable"
    assert ef.Variable(1, trainable=True).trainable is False  # integers never train
    assert ef.Variable(np.zeros(3), dtype=ef.float32).dtype == np.float32
    assert ef.Variable(lambda: ef.ones([2])).shape == (2,)
    assert ef.Variable(ef.constant([1.0]), dtype=ef.float64).dtype == np.float64


def test_creation_errors():
    with pytest.raises(ef.errors.InvalidArgumentError, match="needs an initial_value"):
        ef.Variable()
    with pytest.raises(ef.errors.InvalidArgumentError, match="expected shape \\(3,\\)"):
        ef.Variable([1.0, 2.0], shape=[3])


def test_trainable_setter():
    v = ef.Variable(1.0)
    v.trainable = False
    assert not v.trainable
    counter = ef.Variable(0)
    with pytest.raises(ef.errors.InvalidArgumentError, match="cannot be trainable"):
        counter.trainable = True


def test_assign_methods_return_the_variable():
    v = ef.Variable([1.0, 2.0])
    assert v.assign([3.0, 4.0]) is v
    assert v.assign_add([1.0, 1.0]) is v
    assert v.assign_sub(ef.constant([0.5, 0.5])) is v
    np.testing.assert_allclose(v.numpy(), [3.5, 4.5])


def test_assign_errors_name_the_variable():
    v = ef.Variable([1.0, 2.0], name="w")
    with pytest.raises(ef.errors.InvalidArgumentError, match="variable 'w' of shape \\(2,\\)"):
        v.assign([1.0, 2.0, 3.0])
    counter = ef.Variable([1, 2], name="c")
    with pytest.raises(ef.errors.InvalidArgumentError, match="dtype float32 to variable 'c'"):
        counter.assign(ef.constant([1.5, 2.5]))


def test_earlier_reads_never_change():
    v = ef.Variable([1.0, 2.0])
    before = v.read_value()
    view = before.numpy()
    v.assign_add([1.0, 1.0])
    v.assign([7.0, 7.0])
    np.testing.assert_allclose(before.numpy(), [1.0, 2.0])
    np.testing.assert_allclose(view, [1.0, 2.0])
    np.testing.assert_allclose(v.numpy(), [7.0, 7.0])


def test_views_of_a_read_are_protected():
    v = ef.Variable(np.arange(4.0))
    reshaped = ef.reshape(v, [2, 2])  # a NumPy view of the buffer
    v.assign_add(np.ones(4))
    np.testing.assert_allclose(reshaped.numpy().ravel(), np.arange(4.0))


def test_writes_are_in_place_when_nothing_shares_the_buffer():
    v = ef.Variable(np.zeros(4))
    address = buffers.read(v).ctypes.data  # not a reference: holding one would force a copy
    v.assign_add(np.ones(4))
    v.read_value()  # a read whose result is dropped at once
    v.assign_add(np.ones(4))
    assert buffers.read(v).ctypes.data == address
    held = v.read_value()
    v.assign_add(np.ones(4))
    assert buffers.read(v).ctypes.data != address and float(held[0]) == 2.0


def test_numpy_returns_a_writable_copy():
    v = ef.Variable([1.0, 2.0])
    array = v.numpy()
    array[0] = 100.0
    assert float(v[0]) == 1.0


def test_operators_and_numpy_interop():
    v = ef.Variable([1.0, 2.0])
    assert isinstance(v + 1, ef.Tensor)
    np.testing.assert_allclose((2 * v).numpy(), [2.0, 4.0])
    np.testing.assert_allclose((np.ones(2) - v).numpy(), [0.0, -1.0])
    np.testing.assert_allclose(np.square(v), [1.0, 4.0])
    row = ef.Variable([[1.0, 2.0]])
    np.testing.assert_allclose((row @ ef.constant([[1.0], [1.0]])).numpy(), [[3.0]])
    assert bool(ef.reduce_all(v == v)) and float(v[1]) == 2.0
    assert [float(x) for x in v] == [1.0, 2.0] and len(v) == 2
    assert format(ef.Variable(1.5), ".2f") == "1.50" and float(ef.Variable(1.5)) == 1.5
    assert int(ef.Variable(3)) == 3 and list(range(ef.Variable(2))) == [0, 1]
    assert hash(v) == hash(v)


def test_item_assignment_is_refused():
    v = ef.Variable([1.0])
    with pytest.raises(TypeError, match="does not support item assignment"):
        v[0] = 2.0


def test_repr():
    v = ef.Variable([1.0, 2.0], name="w")
    assert repr(v) == "<ef.Variable 'w' shape=(2,) dtype=float32, numpy=array([1., 2.], " \
                      "dtype=float32)>"
    # A scalar shows its value as TensorFlow does (`numpy=1`, not `numpy=array(1, ...)`).
    assert repr(ef.Variable(1, trainable=False)) == \
        "<ef.Variable 'Variable' shape=() dtype=int32, numpy=1>"
    assert repr(ef.Variable(0.1, name="lr")).endswith("dtype=float32, numpy=0.1>")
    assert repr(ef.Variable(True)).endswith("dtype=bool, numpy=True>")


def test_memory_is_freed_with_the_last_reference():
    v = ef.Variable(np.ones(10))
    with ef.GradientTape() as tape:
        y = ef.reduce_sum(v * v)
    tape.gradient(y, v)
    probe = weakref.ref(v)
    del v, y, tape
    gc.collect()
    assert probe() is None


def test_copy_semantics():
    import copy

    v = ef.Variable([1.0], name="w")
    assert copy.copy(v) is v
    clone = copy.deepcopy(v)
    clone.assign([5.0])
    assert float(v[0]) == 1.0 and clone.name == "w"
