"""The buffer seam (eagerflow/core/buffers.py): read, wrap, write, update."""

import threading

import numpy as np
import pytest

import eagerflow as ef
from eagerflow.core import buffers, variable


def test_read_is_a_read_only_view_without_a_copy():
    x = ef.constant([1.0, 2.0, 3.0])
    view = buffers.read(x)
    assert not view.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        view[0] = 5.0
    with pytest.raises(ValueError, match="read-only"):
        np.add(view, 1.0, out=view)  # kernels' out= too
    assert np.shares_memory(view, buffers.read(x))  # no copy
    np.testing.assert_array_equal(x.numpy(), [1.0, 2.0, 3.0])


def test_read_tells_no_tape_but_numpy_does():
    x = ef.constant(3.0)
    with ef.GradientTape() as tape:
        tape.watch(x)
        y = x * x
        buffers.read(y)
    assert float(tape.gradient(y, x)) == 6.0  # reading the buffer left nothing behind


def test_read_of_a_variable_keeps_its_values_across_writes():
    v = ef.Variable([1.0, 2.0])
    view = buffers.read(v)
    v.assign_add([10.0, 10.0])
    np.testing.assert_array_equal(view, [1.0, 2.0])
    np.testing.assert_array_equal(buffers.read(v), [11.0, 12.0])


def test_read_refuses_other_values():
    with pytest.raises(TypeError, match="buffers.read expects an ef.Tensor .* got list"):
        buffers.read([1.0])

    @ef.function
    def traced(x):
        buffers.read(x)
        return x

    with pytest.raises(TypeError, match="traced by ef.function"):
        traced(ef.constant(1.0))


def test_wrap_makes_a_tensor_of_the_array_itself():
    array = np.arange(3, dtype=np.int32)
    t = buffers.wrap(array)
    assert isinstance(t, ef.Tensor) and t.dtype == ef.int32
    assert np.shares_memory(buffers.read(t), array)


@pytest.mark.parametrize("mode, expected", [
    ("assign", [5.0, 6.0]), ("assign_add", [6.0, 8.0]), ("assign_sub", [-4.0, -4.0]),
])
def test_write_is_in_place_and_visible_to_later_reads(mode, expected):
    v = ef.Variable([1.0, 2.0])
    address = buffers.read(v).ctypes.data  # a temporary view: no reference kept
    buffers.write(v, np.array([5.0, 6.0], np.float32), mode)
    assert buffers.read(v).ctypes.data == address  # no tensor shared it: no copy
    np.testing.assert_array_equal(v.numpy(), expected)
    np.testing.assert_array_equal(v.read_value().numpy(), expected)


def test_write_keeps_tensors_read_earlier():
    v = ef.Variable([1.0, 2.0])
    before = v.read_value()
    with ef.GradientTape() as tape:
        y = v * v
    buffers.write(v, np.array([3.0, 4.0], np.float32))
    np.testing.assert_array_equal(before.numpy(), [1.0, 2.0])
    np.testing.assert_array_equal(tape.gradient(y, v).numpy(), [2.0, 4.0])  # saved values


def test_write_checks_shape_and_dtype():
    v = ef.Variable([1.0, 2.0], name="w")
    with pytest.raises(ef.errors.InvalidArgumentError,
                       match=r"Cannot assign a value of shape \(3,\) to variable 'w' of "
                             r"shape \(2,\)"):
        buffers.write(v, np.zeros(3, np.float32))
    counter = ef.Variable([1, 2], name="n")
    with pytest.raises(ef.errors.InvalidArgumentError,
                       match="Cannot assign_add a value of dtype float32 to variable 'n' of "
                             "dtype int32: cast it first"):
        buffers.write(counter, np.array([0.5, 0.5], np.float32), "assign_add")
    np.testing.assert_array_equal(counter.numpy(), [1, 2])
    buffers.write(v, np.array([1, 1], np.int32), "assign_add")  # int into float: same kind
    np.testing.assert_array_equal(v.numpy(), [2.0, 3.0])
    assert v.dtype == ef.float32
    with pytest.raises(ValueError, match="mode must be one of"):
        buffers.write(v, np.zeros(2, np.float32), "assign_mul")


def test_update_runs_the_kernel_on_the_variables_own_arrays():
    w, m = ef.Variable([1.0, 2.0]), ef.Variable([0.0, 0.0])
    before = w.read_value()

    def momentum(w_buf, m_buf, grad, rate):
        np.multiply(m_buf, 0.9, out=m_buf)
        np.add(m_buf, grad, out=m_buf)
        np.subtract(w_buf, rate * m_buf, out=w_buf)

    buffers.update([w, m], momentum, np.array([1.0, 1.0], np.float32), 0.5)
    np.testing.assert_allclose(m.numpy(), [1.0, 1.0])
    np.testing.assert_allclose(w.numpy(), [0.5, 1.5])
    np.testing.assert_array_equal(before.numpy(), [1.0, 2.0])  # copied before the write
    assert w.dtype == ef.float32 and w.shape == (2,)


def test_update_refuses_bad_arguments():
    v = ef.Variable([1.0])
    with pytest.raises(TypeError, match="buffers.update expects ef.Variables, got Tensor"):
        buffers.update([ef.constant([1.0])], lambda b: None)
    with pytest.raises(ValueError, match="a variable is given twice"):
        buffers.update([v, v], lambda a, b: None)


def test_writes_refuse_while_traced():
    v = ef.Variable([1.0, 2.0])

    @ef.function
    def step():
        buffers.update([v], lambda b: np.add(b, 1.0, out=b))
        return v.read_value()

    with pytest.raises(TypeError, match="buffers.write/update"):
        step()
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])


def test_snapshot_waits_for_a_kernel_writing_in_another_thread():
    v = ef.Variable(np.zeros(4, np.float32))
    started, release = threading.Event(), threading.Event()

    def slow_kernel(buf):
        buf[:2] = 1.0
        started.set()
        release.wait(5)
        buf[2:] = 1.0

    writer = threading.Thread(target=buffers.update, args=([v], slow_kernel))
    writer.start()
    started.wait(5)
    taken = []
    reader = threading.Thread(target=lambda: taken.append(variable.snapshot([v])[0].copy()))
    reader.start()
    reader.join(0.2)
    assert reader.is_alive()  # it waits: the write is half done
    release.set()
    writer.join(5)
    reader.join(5)
    np.testing.assert_array_equal(taken[0], np.ones(4))  # all of the write, never half
