"""Creation ops: constant, convert_to_tensor, zeros/ones(_like), fill, eye, range, linspace."""

import numpy as np
import pytest

import eagerflow as ef
from tests.ops.opcase import OpCase, check_forward, check_forward_mode, check_gradient, parametrize

CASES = [
    OpCase("fill", lambda v: ef.fill([2, 3], v), lambda v: np.full((2, 3), v), shapes=[()]),
    # not differentiable: forward only
    OpCase("zeros_like", ef.zeros_like, np.zeros_like, shapes=[(3, 4)], order=0),
    OpCase("ones_like", ef.ones_like, np.ones_like, shapes=[(3, 4)], order=0),
]


@parametrize(CASES)
def test_forward(case):
    check_forward(case)


@parametrize(CASES)
def test_gradient(case):
    check_gradient(case)


@parametrize(CASES)
def test_jvp(case):
    check_forward_mode(case)


def test_zeros_ones_eye_fill():
    assert ef.zeros([2, 3]).dtype == ef.float32 and ef.zeros([2, 3]).shape == (2, 3)
    assert ef.zeros(3).shape == (3,)
    assert ef.zeros([]).shape == ()
    assert ef.ones([2], dtype=ef.int64).numpy().tolist() == [1, 1]
    assert ef.ones(ef.constant([2, 1])).shape == (2, 1)
    np.testing.assert_array_equal(ef.eye(3).numpy(), np.eye(3))
    np.testing.assert_array_equal(ef.eye(2, 3).numpy(), np.eye(2, 3))
    assert ef.eye(2, batch_shape=[4]).shape == (4, 2, 2)
    assert ef.eye(2, dtype=ef.int32).dtype == ef.int32
    assert ef.fill([2, 2], 7).dtype == ef.int32
    assert ef.fill([2], 1.5).numpy().tolist() == [1.5, 1.5]
    assert ef.fill([2], 1.5).dtype == ef.float32


def test_zeros_like_and_ones_like_dtypes():
    assert ef.zeros_like([1, 2]).dtype == ef.int32
    assert ef.zeros_like([1, 2], dtype=ef.float32).numpy().tolist() == [0.0, 0.0]
    assert ef.ones_like(ef.zeros([2, 2], ef.float64)).dtype == ef.float64
    assert ef.ones_like([1.0], dtype="int64").dtype == ef.int64


def test_range_dtypes_and_values():
    assert ef.range(5).numpy().tolist() == [0, 1, 2, 3, 4]
    assert ef.range(5).dtype == ef.int32
    assert ef.range(2, 8, 3).numpy().tolist() == [2, 5]
    assert ef.range(5, 0, -2).numpy().tolist() == [5, 3, 1]
    assert ef.range(1.0, 2.0, 0.5).dtype == ef.float32
    assert ef.range(0, 1, 0.25, dtype=ef.float64).numpy().tolist() == [0.0, 0.25, 0.5, 0.75]
    assert ef.range(ef.constant(3)).numpy().tolist() == [0, 1, 2]
    assert ef.range(ef.constant(3, dtype=ef.int64)).dtype == ef.int64
    assert ef.range(0).shape == (0,)


def test_linspace():
    np.testing.assert_allclose(ef.linspace(0.0, 1.0, 5).numpy(), np.linspace(0, 1, 5))
    assert ef.linspace(0, 10, 3).dtype == ef.float32  # integer ends still give floats
    result = ef.linspace([0.0, 1.0], [1.0, 2.0], 3, axis=1)
    np.testing.assert_allclose(result.numpy(), [[0.0, 0.5, 1.0], [1.0, 1.5, 2.0]])
    assert ef.linspace(ef.constant(0.0, ef.float64), 1.0, 2).dtype == ef.float64


def test_constant_with_shape_and_dtype():
    assert ef.constant(0.5, shape=[2, 2]).numpy().tolist() == [[0.5, 0.5], [0.5, 0.5]]
    assert ef.constant([1, 2, 3, 4], shape=[2, 2]).numpy().tolist() == [[1, 2], [3, 4]]
    assert ef.constant([[1, 2]], dtype=ef.float64).dtype == ef.float64
    t = ef.constant([1, 2])
    assert ef.constant(t) is t
    assert ef.constant(t, dtype=ef.float32).dtype == ef.float32
    v = ef.Variable([1.0, 2.0])
    assert ef.constant(v).numpy().tolist() == [1.0, 2.0]


def test_constant_copies_numpy_input():
    array = np.array([1.0, 2.0])
    t = ef.constant(array)
    array[0] = 99.0
    assert t.numpy().tolist() == [1.0, 2.0]


def test_convert_to_tensor():
    t = ef.constant([1.0])
    assert ef.convert_to_tensor(t) is t
    assert ef.convert_to_tensor(t, dtype=ef.float32) is t
    assert ef.convert_to_tensor([1, 2], dtype_hint=ef.float32).dtype == ef.float32
    assert ef.convert_to_tensor([1, 2], dtype=ef.float64).dtype == ef.float64
    v = ef.Variable([3.0])
    assert isinstance(ef.convert_to_tensor(v), ef.Tensor)


# -- bad input ----------------------------------------------------------------------------
_E = ef.errors.InvalidArgumentError


def test_bad_shape_arguments():
    with pytest.raises(_E, match=r"shape must be a list of integers, got \[2\.5\] \[Op:Zeros\]"):
        ef.zeros([2.5])
    with pytest.raises(_E, match=r"shape must be a list of integers, got \[\[1, 2\], \[3\]\] "
                                 r"\[Op:Reshape\]"):
        ef.reshape(ef.zeros([3]), [[1, 2], [3]])
    with pytest.raises(_E, match=r"shape must be a list of integers.*\[Op:Ones\]"):
        ef.ones([[2, 3], [4, 5]])


def test_constant_with_a_mismatched_shape():
    with pytest.raises(_E, match=r"Cannot reshape a value with 3 elements to shape \(2,\) "
                                 r"\[Op:Const\]"):
        ef.constant([1, 2, 3], shape=[2])


def test_convert_to_tensor_with_a_conflicting_dtype():
    with pytest.raises(_E, match=r"requested dtype int32 for a tensor of dtype float32; use "
                                 r"ef\.cast"):
        ef.convert_to_tensor(ef.constant(1.0), dtype=ef.int32)


def test_fill_needs_a_scalar():
    with pytest.raises(_E, match=r"value must be a scalar, got shape \(2,\) \[Op:Fill\]"):
        ef.fill([2], [1, 2])


def test_range_bad_arguments():
    with pytest.raises(_E, match=r"Requires delta != 0 \[Op:Range\]"):
        ef.range(1, 5, 0)
    with pytest.raises(_E, match=r"expected a scalar, got shape \(2,\) \[Op:Range\]"):
        ef.range([1, 2])


def test_from_dlpack_copies_from_any_dlpack_producer():
    source = np.arange(6, dtype=np.int64).reshape(2, 3)
    t = ef.from_dlpack(source)
    assert t.dtype == np.int64 and t.shape == (2, 3)
    source[0, 0] = 100  # the tensor is immutable: it does not share the producer's buffer
    assert t.numpy()[0, 0] == 0
    assert ef.from_dlpack(ef.constant([True, False])).numpy().tolist() == [True, False]


def test_from_dlpack_errors_name_the_function_and_the_input():
    with pytest.raises(TypeError, match=r"ef.from_dlpack expects .*__dlpack__.*type list"):
        ef.from_dlpack([1, 2])

    class OnAnotherDevice:
        def __dlpack__(self, **kwargs):
            raise BufferError("no CPU copy")

        def __dlpack_device__(self):
            return (2, 0)  # kDLCUDA

    with pytest.raises(BufferError, match="ef.from_dlpack cannot import this OnAnotherDevice"):
        ef.from_dlpack(OnAnotherDevice())


def test_one_converter_for_arrays_python_data_and_traced_lists():
    from eagerflow.core import dispatch
    array = np.array([1, 2], np.int64)
    converted = dispatch.convert_input(array, dtype=ef.float32)
    assert converted.dtype == ef.float32
    assert dispatch.convert_input(array).dtype == ef.int64  # arrays keep their dtype
    assert ef.convert_to_tensor(np.array(["a"])).numpy().tolist() == [b"a"]  # text: bytes
    assert ef.convert_to_tensor(array, dtype_hint=ef.float32).dtype == ef.float32
    assert ef.convert_to_tensor([1, 2], dtype_hint=ef.float32).dtype == ef.float32
    array[0] = 9  # a copy was taken
    assert ef.convert_to_tensor(array).numpy()[0] == 9 and converted.numpy()[0] == 1.0

    @ef.function
    def packed(x):  # a list holding traced tensors keeps their dtype, whatever the hint
        return ef.convert_to_tensor([x, x], dtype_hint=ef.int32)

    assert packed(ef.constant(1.5)).dtype == ef.float32


# TensorFlow 2.21's tf.range(*args): (args, dtype, values)
RANGE_TF = [
    ((5,), "int32", [0, 1, 2, 3, 4]),
    ((1.0, 2.0, 0.5), "float32", [1.0, 1.5]),
    ((np.int64(5),), "int64", [0, 1, 2, 3, 4]),
    ((np.int64(1), 2.5), "float32", [1.0, 2.0]),
    ((3, np.float64(5.0)), "float64", [3.0, 4.0]),
    ((np.float32(1.0), 5.0), "float32", [1.0, 2.0, 3.0, 4.0]),
    ((np.int32(1), np.int64(4)), "int64", [1, 2, 3]),
    ((np.float16(0.0), 3), "float16", [0.0, 1.0, 2.0]),
    ((0, np.float16(3.0)), "float16", [0.0, 1.0, 2.0]),
    ((np.int64(0), np.float32(3.0)), "float32", [0.0, 1.0, 2.0]),
    ((1, 4, np.float64(0.5)), "float64", [1.0, 1.5, 2.0, 2.5, 3.0, 3.5]),
]


@pytest.mark.parametrize("args, dtype, values", RANGE_TF)
def test_range_takes_tensorflow_s_dtype(args, dtype, values):
    # Before, range(np.int64(0), 2.5, 0.5) was int64 [0 0 0 0 0] (TF: float32 0.0 ... 2.0).
    result = ef.range(*args)
    assert result.dtype == dtype and result.numpy().tolist() == values
    assert ef.range(np.int64(0), 2.5, 0.5).numpy().tolist() == [0.0, 0.5, 1.0, 1.5, 2.0]
