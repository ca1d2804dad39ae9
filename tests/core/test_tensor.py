"""Tensor: immutability, repr, operators, Python conversions, NumPy interop, indexing."""

import operator

import numpy as np
import pytest

import eagerflow as ef


def test_basic_properties():
    t = ef.constant([[1.0, 2.0], [3.0, 4.0]])
    assert t.shape == (2, 2) and isinstance(t.shape, tuple)
    assert t.dtype == np.float32 and t.ndim == 2
    assert t.device == "/device:CPU:0" and t.cpu() is t
    assert isinstance(t.numpy(), np.ndarray)


def test_repr_and_str():
    assert repr(ef.matmul([[2.0]], [[2.0]])) == "ef.Tensor([[4.]], shape=(1, 1), dtype=float32)"
    assert str(ef.constant(4.0)) == "ef.Tensor(4.0, shape=(), dtype=float32)"
    assert repr(ef.constant([1, 2])) == "ef.Tensor([1 2], shape=(2,), dtype=int32)"
    assert repr(ef.constant([[1, 2], [3, 4]])) == (
        "ef.Tensor(\n[[1 2]\n [3 4]], shape=(2, 2), dtype=int32)"
    )


def test_string_tensors_show_dtype_string_and_quoted_values():
    # TensorFlow: tf.Tensor(b'Gray wolf', shape=(), dtype=string); eagerflow keeps str values.
    assert str(ef.constant("Gray wolf")) == "ef.Tensor('Gray wolf', shape=(), dtype=string)"
    assert repr(ef.constant(["a", "bb"])) == "ef.Tensor(['a' 'bb'], shape=(2,), dtype=string)"
    assert repr(ef.constant(b"ab")) == "ef.Tensor(b'ab', shape=(), dtype=string)"
    # object arrays hold only strings (anything else is refused on conversion)
    as_objects = ef.constant(np.array(["x"], object))
    assert repr(as_objects) == "ef.Tensor(['x'], shape=(1,), dtype=string)"
    assert ef.constant("Gray wolf").dtype.kind == "U"  # the dtype itself stays NumPy's


def test_immutable():
    t = ef.constant([1.0, 2.0])
    with pytest.raises(TypeError, match="immutable"):
        t[0] = 5.0
    with pytest.raises(ValueError, match="read-only"):
        t.numpy()[0] = 5.0
    with pytest.raises(ValueError, match="read-only"):
        np.asarray(t)[0] = 5.0
    assert np.array(t, copy=True).flags.writeable


def test_constant_copies_its_input():
    array = np.array([1.0, 2.0])
    t = ef.constant(array)
    array[0] = 100.0
    assert float(t[0]) == 1.0


def test_op_inputs_from_mutable_arrays_are_copied():
    array = np.array([1.0, 2.0])
    t = ef.reshape(array, [2, 1])
    array[0] = 100.0
    assert float(t[0, 0]) == 1.0


@pytest.mark.parametrize(
    "op, expected",
    [
        (operator.add, [4.0, 6.0]), (operator.sub, [-2.0, -2.0]), (operator.mul, [3.0, 8.0]),
        (operator.truediv, [1 / 3, 0.5]), (operator.floordiv, [0.0, 0.0]),
        (operator.mod, [1.0, 2.0]), (operator.pow, [1.0, 16.0]),
    ],
)
def test_binary_operators_and_reflections(op, expected):
    a, b = ef.constant([1.0, 2.0]), ef.constant([3.0, 4.0])
    np.testing.assert_allclose(op(a, b).numpy(), expected, rtol=1e-6)
    np.testing.assert_allclose(op(a.numpy().tolist(), b).numpy(), expected, rtol=1e-6)
    np.testing.assert_allclose(op(a, b.numpy().tolist()).numpy(), expected, rtol=1e-6)


def test_ndarray_op_tensor_returns_tensor():
    t = ef.constant([1.0, 2.0])
    results = (np.ones(2) + t, np.ones(2) * t, np.ones(2) - t, np.ones((1, 2)) @ ef.ones([2, 1]))
    for result in results:
        assert isinstance(result, ef.Tensor)


def test_unary_operators_and_comparisons():
    t = ef.constant([-1.0, 2.0])
    np.testing.assert_allclose((-t).numpy(), [1.0, -2.0])
    np.testing.assert_allclose(abs(t).numpy(), [1.0, 2.0])
    np.testing.assert_allclose((+t).numpy(), [-1.0, 2.0])
    assert (t < 0).numpy().tolist() == [True, False]
    assert (t <= -1).numpy().tolist() == [True, False]
    assert (t > 0).numpy().tolist() == [False, True]
    assert (t >= 2).numpy().tolist() == [False, True]
    assert (t == 2.0).numpy().tolist() == [False, True]
    assert (t != 2.0).numpy().tolist() == [True, False]
    assert (t == None) is False and (t != None) is True  # noqa: E711
    mask = ef.constant([True, False])
    assert (~mask).numpy().tolist() == [False, True]
    assert (mask & ef.constant([True, True])).numpy().tolist() == [True, False]
    assert (mask | ef.constant([False, True])).numpy().tolist() == [True, True]
    assert (mask ^ ef.constant([True, True])).numpy().tolist() == [False, True]


def test_weak_python_scalars_keep_dtype():
    t = ef.constant([1.0], dtype=ef.float32)
    assert (t * 2.0).dtype == np.float32 and (2 + t).dtype == np.float32
    assert (ef.constant([1], dtype=ef.int32) + 1).dtype == np.int32
    assert (ef.constant(1, dtype=ef.float16) * 3.5).dtype == np.float16
    assert ef.add(1.0, 2).dtype == np.float32


def test_python_conversions():
    assert bool(ef.constant(True)) and not bool(ef.constant([0.0]))
    assert int(ef.constant(3.7)) == 3 and float(ef.constant(2)) == 2.0
    assert complex(ef.constant(1.0)) == 1 + 0j
    assert operator.index(ef.constant(4)) == 4
    assert list(range(ef.constant(3))) == [0, 1, 2]
    assert [1, 2, 3][ef.constant(1)] == 2
    assert format(ef.constant(3.14159), ".3f") == "3.142"
    assert f"{ef.constant(2.5):.1f}" == "2.5"
    assert format(ef.constant([1, 2])) == "[1 2]"  # the values, as TensorFlow shows them
    x = ef.constant(0.5)
    assert (x if x > 0.0 else -x) is x


def test_conversion_errors():
    with pytest.raises(ef.errors.InvalidArgumentError, match="one element, got shape \\(2,\\)"):
        bool(ef.constant([1.0, 2.0]))
    with pytest.raises(ValueError, match="exactly one element"):
        float(ef.constant([1.0, 2.0]))
    with pytest.raises(TypeError, match="Only integer tensors can be used as an index"):
        operator.index(ef.constant(1.5))
    with pytest.raises(TypeError, match="only scalar tensors accept format specs"):
        format(ef.constant([1.0, 2.0]), ".2f")


def test_len_and_iteration():
    t = ef.constant([[1, 2], [3, 4], [5, 6]])
    assert len(t) == 3
    rows = list(t)
    assert [r.numpy().tolist() for r in rows] == [[1, 2], [3, 4], [5, 6]]
    with pytest.raises(TypeError, match="scalar tensor"):
        len(ef.constant(1))
    with pytest.raises(TypeError, match="Cannot iterate over a scalar tensor"):
        iter(ef.constant(1))
    assert list(ef.zeros([0, 2])) == []


def test_numpy_style_indexing():
    t = ef.constant(np.arange(24).reshape(2, 3, 4))
    a = t.numpy()
    keys = [0, -1, (1, 2), (slice(None), 1), (Ellipsis, 2), (None, 0), (0, slice(None, None, -1)),
            ([1, 0],), (a[..., 0] > 5,), (ef.constant(1), ef.constant([0, 2]))]
    for key in keys:
        np_key = tuple(k.numpy() if isinstance(k, ef.Tensor) else k for k in key) \
            if isinstance(key, tuple) else key
        np.testing.assert_array_equal(t[key].numpy(), a[np_key])
    with pytest.raises(ef.errors.InvalidArgumentError, match="index 5 is out of bounds"):
        t[5]


def test_numpy_functions_accept_tensors():
    t = ef.constant([1.0, -2.0])
    assert isinstance(np.square(t), np.ndarray)
    np.testing.assert_allclose(np.square(t), [1.0, 4.0])
    assert np.mean(t) == -0.5
    assert np.asarray(t, dtype=np.float64).dtype == np.float64


def test_hash_is_identity():
    a, b = ef.constant(1.0), ef.constant(1.0)
    assert hash(a) != hash(b) or a is b
    assert len({a: 1, b: 2}) == 2


def test_tensor_constructor_and_copy():
    import copy
    import pickle

    t = ef.Tensor([1, 2], dtype=ef.float64)
    assert t.dtype == np.float64
    assert copy.copy(t) is t and copy.deepcopy(t) is t
    assert pickle.loads(pickle.dumps(t)).numpy().tolist() == [1.0, 2.0]


def test_gpu_requests_fail_clearly():
    with pytest.raises(ef.errors.NotFoundError, match="no GPU is available"):
        ef.constant(1.0).gpu()


def test_array_protocol_follows_numpy_2():
    t = ef.constant([1.0, 2.0])
    view = np.asarray(t)
    assert not view.flags.writeable and np.shares_memory(view, t.numpy())
    copied = np.array(t, copy=True)
    copied[0] = 9.0  # a copy is the caller's
    assert copied.flags.writeable and t.numpy()[0] == 1.0
    assert np.asarray(t, dtype=np.float64).dtype == np.float64
    with pytest.raises(ValueError, match="float32 to float64 copies; copy=False"):
        np.asarray(t, dtype=np.float64, copy=False)
    with pytest.raises(TypeError, match=r"len\(\) of unsized object"):
        len(ef.constant(1.0))


@pytest.mark.parametrize("make", [ef.constant, ef.Variable], ids=["tensor", "variable"])
def test_dlpack_export_is_a_copy_the_consumer_owns(make):
    source = make([[1.0, 2.0], [3.0, 4.0]])
    assert source.__dlpack_device__() == (1, 0)
    exported = np.from_dlpack(source)
    assert exported.dtype == np.float32 and exported.shape == (2, 2)
    exported[0, 0] = 100.0  # writable, and writing it leaves the tensor alone
    assert source.numpy()[0, 0] == 1.0
    legacy = np.from_dlpack(source, copy=True)  # a consumer asking for a copy gets one
    assert legacy.tolist() == [[1.0, 2.0], [3.0, 4.0]]
    with pytest.raises(BufferError, match=r"copy=False.*immutable.*t\.numpy\(\)"):
        np.from_dlpack(source, copy=False)


def test_dlpack_export_of_a_variable_is_its_value_at_export_time():
    v = ef.Variable([1.0, 2.0])
    exported = np.from_dlpack(v)
    v.assign([5.0, 6.0])
    assert exported.tolist() == [1.0, 2.0] and v.numpy().tolist() == [5.0, 6.0]


def test_torch_takes_tensors_through_dlpack():
    torch = pytest.importorskip("torch")
    t = ef.constant([[1.0, 2.0], [3.0, 4.0]])
    for converted in (torch.from_dlpack(t), torch.as_tensor(t), torch.tensor(t)):
        assert converted.tolist() == [[1.0, 2.0], [3.0, 4.0]]
        assert converted.dtype == torch.float32
    converted[0, 0] = 0.0
    assert t.numpy()[0, 0] == 1.0
    assert torch.as_tensor(ef.constant(3, ef.int64)).item() == 3
    back = ef.from_dlpack(torch.arange(4))
    assert back.dtype == np.int64 and back.numpy().tolist() == [0, 1, 2, 3]


def test_an_index_past_the_end_is_an_index_error_as_in_numpy():
    t = ef.constant([1.0, 2.0])
    for index_into in (t, ef.Variable([1.0, 2.0])):
        with pytest.raises(IndexError, match="index 5 is out of bounds for axis 0 with size 2"):
            index_into[5]  # noqa: B018
    with pytest.raises(ef.errors.InvalidArgumentError, match=r"0-dimensional.*StridedSlice"):
        ef.constant(1.0)[0]  # noqa: B018

    def by_index(sequence):  # Python's old sequence protocol: stop at IndexError
        items, i = [], 0
        while True:
            try:
                items.append(float(sequence[i]))
            except IndexError:
                return items
            i += 1

    assert by_index(t) == [1.0, 2.0]
