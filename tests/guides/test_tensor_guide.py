"""TensorFlow guide "Introduction to Tensors", ported step by step with `tf.` turned into
`ef.` (the step names follow the guide's sections; cells that only print are checked
through the values they print). Ragged, string-op and sparse sections differ on purpose:
each asserts the error that says so."""

import numpy as np
import pytest

import eagerflow as ef

_RANK_3 = [
    [[0, 1, 2, 3, 4],
     [5, 6, 7, 8, 9]],
    [[10, 11, 12, 13, 14],
     [15, 16, 17, 18, 19]],
    [[20, 21, 22, 23, 24],
     [25, 26, 27, 28, 29]],
]


def test_basics():
    # This will be an int32 tensor by default; see "dtypes" below.
    rank_0_tensor = ef.constant(4)
    assert str(rank_0_tensor) == "ef.Tensor(4, shape=(), dtype=int32)"
    rank_1_tensor = ef.constant([2.0, 3.0, 4.0])
    assert str(rank_1_tensor) == "ef.Tensor([2. 3. 4.], shape=(3,), dtype=float32)"
    rank_2_tensor = ef.constant([[1, 2],
                                 [3, 4],
                                 [5, 6]], dtype=ef.float16)
    assert str(rank_2_tensor) == (
        "ef.Tensor(\n[[1. 2.]\n [3. 4.]\n [5. 6.]], shape=(3, 2), dtype=float16)")
    rank_3_tensor = ef.constant(_RANK_3)
    assert rank_3_tensor.shape == (3, 2, 5) and rank_3_tensor.dtype == ef.int32

    as_array = np.array(rank_2_tensor)
    assert as_array.dtype == np.float16
    np.testing.assert_array_equal(as_array, [[1, 2], [3, 4], [5, 6]])
    np.testing.assert_array_equal(rank_2_tensor.numpy(), as_array)

    a = ef.constant([[1, 2],
                     [3, 4]])
    b = ef.constant([[1, 1],
                     [1, 1]])  # Could have also said `ef.ones([2,2], dtype=ef.int32)`
    np.testing.assert_array_equal(ef.add(a, b), [[2, 3], [4, 5]])
    np.testing.assert_array_equal(ef.multiply(a, b), [[1, 2], [3, 4]])
    np.testing.assert_array_equal(ef.matmul(a, b), [[3, 3], [7, 7]])
    np.testing.assert_array_equal(a + b, ef.add(a, b))  # element-wise addition
    np.testing.assert_array_equal(a * b, ef.multiply(a, b))  # element-wise multiplication
    np.testing.assert_array_equal(a @ b, ef.matmul(a, b))  # matrix multiplication
    assert (a @ b).dtype == ef.int32

    c = ef.constant([[4.0, 5.0], [10.0, 1.0]])
    assert float(ef.reduce_max(c)) == 10.0  # Find the largest value
    argmax = ef.math.argmax(c)  # Find the index of the largest value
    assert argmax.dtype == ef.int64  # as in TensorFlow
    np.testing.assert_array_equal(argmax, [1, 0])
    expected = np.exp([[4.0, 5.0], [10.0, 1.0]])
    np.testing.assert_allclose(ef.nn.softmax(c), expected / expected.sum(-1, keepdims=True),
                               rtol=1e-6)

    converted = ef.convert_to_tensor([1, 2, 3])
    assert converted.dtype == ef.int32 and converted.shape == (3,)
    assert ef.reduce_max([1, 2, 3]).dtype == ef.int32 and int(ef.reduce_max([1, 2, 3])) == 3
    from_numpy = ef.reduce_max(np.array([1, 2, 3]))  # NumPy's int64 is kept, as in TF
    assert from_numpy.dtype == ef.int64 and int(from_numpy) == 3


def test_about_shapes():
    rank_4_tensor = ef.zeros([3, 2, 4, 5])
    assert rank_4_tensor.dtype == ef.float32  # Type of every element
    assert rank_4_tensor.ndim == 4  # Number of axes
    assert rank_4_tensor.shape == (3, 2, 4, 5)  # Shape of tensor
    assert rank_4_tensor.shape[0] == 3  # Elements along axis 0 of tensor
    assert rank_4_tensor.shape[-1] == 5  # Elements along the last axis of tensor
    assert ef.size(rank_4_tensor).numpy() == 3 * 2 * 4 * 5  # Total number of elements
    assert ef.size(rank_4_tensor).dtype == ef.int32

    rank = ef.rank(rank_4_tensor)
    assert rank.dtype == ef.int32 and int(rank) == 4
    shape = ef.shape(rank_4_tensor)
    assert shape.dtype == ef.int32
    np.testing.assert_array_equal(shape, [3, 2, 4, 5])


def test_single_axis_indexing():
    rank_1_tensor = ef.constant([0, 1, 1, 2, 3, 5, 8, 13, 21, 34])
    values = np.array([0, 1, 1, 2, 3, 5, 8, 13, 21, 34], np.int32)
    np.testing.assert_array_equal(rank_1_tensor.numpy(), values)
    assert rank_1_tensor[0].numpy() == 0  # First
    assert rank_1_tensor[1].numpy() == 1  # Second
    assert rank_1_tensor[-1].numpy() == 34  # Last
    assert rank_1_tensor[0].shape == () and rank_1_tensor[0].dtype == ef.int32
    for index in (np.s_[:], np.s_[:4], np.s_[4:], np.s_[2:7], np.s_[::2], np.s_[::-1]):
        np.testing.assert_array_equal(rank_1_tensor[index].numpy(), values[index])


def test_multi_axis_indexing():
    rank_2_tensor = ef.constant([[1, 2], [3, 4], [5, 6]], dtype=ef.float16)
    values = np.array([[1, 2], [3, 4], [5, 6]], np.float16)
    # Pull out a single value from a 2-rank tensor
    assert rank_2_tensor[1, 1].numpy() == 4.0 and rank_2_tensor[1, 1].dtype == ef.float16
    # Get row and column tensors
    np.testing.assert_array_equal(rank_2_tensor[1, :].numpy(), [3, 4])  # Second row
    np.testing.assert_array_equal(rank_2_tensor[:, 1].numpy(), [2, 4, 6])  # Second column
    np.testing.assert_array_equal(rank_2_tensor[-1, :].numpy(), [5, 6])  # Last row
    assert rank_2_tensor[0, -1].numpy() == 2.0  # First item in last column
    np.testing.assert_array_equal(rank_2_tensor[1:, :].numpy(), values[1:, :])  # Skip a row

    rank_3_tensor = ef.constant(_RANK_3)
    assert str(rank_3_tensor[:, :, 4]) == (
        "ef.Tensor(\n[[ 4  9]\n [14 19]\n [24 29]], shape=(3, 2), dtype=int32)")


def test_manipulating_shapes():
    # Shape returns the size along each axis
    x = ef.constant([[1], [2], [3]])
    assert str(x.shape) == "(3, 1)"
    # `t.shape` is a plain tuple here: TensorFlow's `x.shape.as_list()` is `list(x.shape)`,
    # or ef.TensorShape's method (see the docs' "What differs on purpose").
    assert list(x.shape) == [3, 1]
    assert ef.TensorShape(x.shape).as_list() == [3, 1]
    # You can reshape a tensor to a new shape.
    reshaped = ef.reshape(x, [1, 3])
    assert x.shape == (3, 1) and reshaped.shape == (1, 3)

    rank_3_tensor = ef.constant(_RANK_3)
    values = np.array(_RANK_3)
    # A `-1` passed in the `shape` argument says "Whatever fits".
    np.testing.assert_array_equal(ef.reshape(rank_3_tensor, [-1]), np.arange(30))
    np.testing.assert_array_equal(ef.reshape(rank_3_tensor, [3 * 2, 5]), values.reshape(6, 5))
    np.testing.assert_array_equal(ef.reshape(rank_3_tensor, [3, -1]), values.reshape(3, 10))

    # Bad examples: reshape keeps the element order, so these mix the axes
    np.testing.assert_array_equal(ef.reshape(rank_3_tensor, [2, 3, 5]),
                                  values.reshape(2, 3, 5))
    np.testing.assert_array_equal(ef.reshape(rank_3_tensor, [5, 6]), values.reshape(5, 6))
    # This doesn't work at all: TensorFlow raises InvalidArgumentError too
    with pytest.raises(ef.errors.InvalidArgumentError,
                       match=r"30 values.*\[7, -1\] \[Op:Reshape\]"):
        ef.reshape(rank_3_tensor, [7, -1])


def test_more_on_dtypes():
    the_f64_tensor = ef.constant([2.2, 3.3, 4.4], dtype=ef.float64)
    the_f16_tensor = ef.cast(the_f64_tensor, dtype=ef.float16)
    # Now, cast to an uint8 and lose the decimal precision
    the_u8_tensor = ef.cast(the_f16_tensor, dtype=ef.uint8)
    assert str(the_u8_tensor) == "ef.Tensor([2 3 4], shape=(3,), dtype=uint8)"


def test_broadcasting():
    x = ef.constant([1, 2, 3])
    y = ef.constant(2)
    z = ef.constant([2, 2, 2])
    # All of these are the same computation
    for result in (ef.multiply(x, 2), x * y, x * z):
        assert result.dtype == ef.int32
        np.testing.assert_array_equal(result, [2, 4, 6])

    # These are the same computations
    x = ef.reshape(x, [3, 1])
    y = ef.range(1, 5)
    assert y.dtype == ef.int32
    np.testing.assert_array_equal(y, [1, 2, 3, 4])
    product = ef.multiply(x, y)
    assert product.shape == (3, 4)
    x_stretch = ef.constant([[1, 1, 1, 1],
                             [2, 2, 2, 2],
                             [3, 3, 3, 3]])
    y_stretch = ef.constant([[1, 2, 3, 4],
                             [1, 2, 3, 4],
                             [1, 2, 3, 4]])
    np.testing.assert_array_equal(x_stretch * y_stretch, product)  # Again, operator overloading

    np.testing.assert_array_equal(ef.broadcast_to(ef.constant([1, 2, 3]), [3, 3]),
                                  [[1, 2, 3]] * 3)


def test_ragged_tensors():
    ragged_list = [
        [0, 1, 2, 3],
        [4, 5],
        [6, 7, 8],
        [9]]
    # TensorFlow raises ValueError here too; eagerflow's InvalidArgumentError is one.
    with pytest.raises(ValueError, match="Nested lists must be rectangular"):
        ef.constant(ragged_list)
    with pytest.raises(AttributeError, match=r"no ragged tensors \(tf.ragged.*sequence_mask"):
        ef.ragged.constant(ragged_list)


def test_string_tensors():
    # Tensors can be strings, too here is a scalar string.
    scalar_string_tensor = ef.constant("Gray wolf")
    assert str(scalar_string_tensor) == "ef.Tensor(b'Gray wolf', shape=(), dtype=string)"
    # If you have three string tensors of different lengths, this is OK.
    tensor_of_strings = ef.constant(["Gray wolf",
                                     "Quick brown fox",
                                     "Lazy dog"])
    # Note that the shape is (3,). The string length is not included.
    assert tensor_of_strings.shape == (3,)
    assert str(tensor_of_strings).endswith("shape=(3,), dtype=string)")
    assert ef.constant("🥳👍").numpy() == "🥳👍".encode()  # bytes, UTF-8 encoded
    # You can use split to split a string into a set of tensors.
    np.testing.assert_array_equal(ef.strings.split(scalar_string_tensor, sep=" ").numpy(),
                                  [b"Gray", b"wolf"])
    # ...and to_number to parse numbers.
    text = ef.constant("1 10 100")
    np.testing.assert_array_equal(ef.strings.to_number(ef.strings.split(text, " ")).numpy(),
                                  [1.0, 10.0, 100.0])
    with pytest.raises(AttributeError, match=r"no tf.io \(file reading"):
        ef.io.decode_raw(ef.constant("Duck"), ef.uint8)


def test_sparse_tensors():
    with pytest.raises(AttributeError, match=r"no sparse tensors \(tf.sparse.*scatter_nd"):
        ef.sparse.SparseTensor(indices=[[0, 0], [1, 2]],
                               values=[1, 2],
                               dense_shape=[3, 4])
    # The dense equivalent the error points to:
    dense = ef.scatter_nd([[0, 0], [1, 2]], [1, 2], [3, 4])
    np.testing.assert_array_equal(dense, [[1, 0, 0, 0], [0, 0, 2, 0], [0, 0, 0, 0]])
