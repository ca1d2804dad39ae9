"""dtype rules (eagerflow/core/dtypes.py): conversion, the promotion table, ef.cast."""

import numpy as np
import pytest

import eagerflow as ef
from eagerflow.core import dtypes

_E = ef.errors.InvalidArgumentError


@pytest.mark.parametrize("value, dtype", [
    (1.5, ef.float32),
    ([1.0, 2.5], ef.float32),
    ([[1, 2.5], [3, 4]], ef.float32),  # mixed ints and floats: floats win
    (3, ef.int32),
    ([[1, 2], [3, 4]], ef.int32),
    ((1, 2), ef.int32),
    (2**31, ef.int64),  # out of int32 range
    (-(2**31) - 1, ef.int64),
    ([1, 2**40], ef.int64),
    (2**31 - 1, ef.int32),
    (True, ef.bool),
    ([True, False], ef.bool),
    (1 + 2j, np.complex128),  # TensorFlow keeps Python complex at double precision
    ([5 + 4j, 6 + 1j], np.complex128),
    ([], ef.float32),
])
def test_python_data_gets_tensorflow_dtypes(value, dtype):
    assert ef.constant(value).dtype == dtype
    assert ef.convert_to_tensor(value).dtype == dtype


@pytest.mark.parametrize("value", [
    np.float64(1.0), np.float16(1.0), np.int64(3), np.int8(3), np.bool_(True),
    np.arange(3), np.ones(2, np.float64), np.ones(2, np.float16), np.ones(2, np.uint8),
    np.complex128(1j),
])
def test_numpy_values_keep_their_dtype(value):
    assert ef.constant(value).dtype == np.asarray(value).dtype


def test_lists_of_numpy_scalars_keep_their_dtype():
    assert ef.constant([np.float64(1.0), np.float64(2.0)]).dtype == ef.float64
    assert ef.constant([np.int64(1)]).dtype == ef.int64


def test_values_are_preserved():
    assert ef.constant(2**40).numpy().item() == 2**40
    assert ef.constant([[1, 2], [3, 4]]).numpy().tolist() == [[1, 2], [3, 4]]
    assert ef.constant(0.1).numpy() == np.float32(0.1)


def test_explicit_dtypes():
    assert ef.constant([1, 2], dtype=ef.float32).numpy().tolist() == [1.0, 2.0]
    assert ef.constant(1.0, dtype=ef.int32).numpy().item() == 1  # integral: exact
    assert ef.constant([1, 0], dtype=ef.bool).numpy().tolist() == [True, False]
    assert ef.constant(1, dtype="float64").dtype == ef.float64
    assert ef.constant(1, dtype=np.float16).dtype == ef.float16
    # An array is converted like ef.cast would (truncating), as TensorFlow does.
    assert ef.constant(np.array([1.7]), dtype=ef.int32).numpy().tolist() == [1]


def test_dtype_names_are_numpy_dtypes():
    assert ef.float32 == np.float32 and isinstance(ef.float32, np.dtype)
    assert [ef.float16, ef.float64, ef.int32, ef.int64, ef.bool, ef.uint8] == [
        np.dtype(n) for n in ("float16", "float64", "int32", "int64", "bool", "uint8")]
    assert dtypes.as_dtype("float64") == ef.float64
    assert dtypes.as_dtype(np.int32) == ef.int32
    assert dtypes.as_dtype(ef.int64) is ef.int64
    assert dtypes.is_floating(ef.float16) and dtypes.is_floating(dtypes.complex64)
    assert not dtypes.is_floating(ef.int32)
    assert dtypes.is_integer(ef.uint8) and not dtypes.is_integer(ef.bool)


# -- NumPy 2 promotion with weak Python scalars -------------------------------------------
@pytest.mark.parametrize("expression, dtype", [
    (lambda f, i: f * 2.0, ef.float32),
    (lambda f, i: 2.0 * f, ef.float32),
    (lambda f, i: f + 1, ef.float32),
    (lambda f, i: f ** 2, ef.float32),
    (lambda f, i: f / 3, ef.float32),
    (lambda f, i: i * 2, ef.int32),
    (lambda f, i: i + 2**20, ef.int32),
    (lambda f, i: i // 2, ef.int32),
    (lambda f, i: i / 2, ef.float64),  # true division of integers, like NumPy
    (lambda f, i: i * 2.5, ef.float32),  # a weak float meeting int32: the default float
    (lambda f, i: ef.maximum(f, 0), ef.float32),
    (lambda f, i: ef.where(f > 0, f, 0.0), ef.float32),
    (lambda f, i: f > 1, ef.bool),
])
def test_weak_python_scalars(expression, dtype):
    f, i = ef.constant([1.0, 2.0]), ef.constant([1, 2])
    assert expression(f, i).dtype == dtype


def test_weak_scalars_keep_float16_and_float64():
    assert (ef.constant([1.0], ef.float16) * 2.0).dtype == ef.float16
    assert (ef.constant([1.0], ef.float64) + 1).dtype == ef.float64


@pytest.mark.parametrize("a, b, dtype", [
    (ef.float32, ef.float64, ef.float64),
    (ef.float16, ef.float32, ef.float32),
    (ef.int32, ef.int64, ef.int64),
    (ef.int32, ef.float32, ef.float32),  # the table: int with float gives that float
    (ef.int64, ef.float32, ef.float32),
    (ef.int32, ef.float16, ef.float16),
    (ef.bool, ef.int32, ef.int32),
    (ef.uint8, ef.int32, ef.int32),
])
def test_tensor_tensor_promotion(a, b, dtype):
    x, y = ef.ones([2], dtype=a), ef.ones([2], dtype=b)
    assert (x + y).dtype == dtype
    assert (y * x).dtype == dtype


def test_numpy_operands_are_strong():
    f = ef.constant([1.0, 2.0])
    assert (f + np.float64(1.0)).dtype == ef.float64
    assert (f + np.ones(2, np.float64)).dtype == ef.float64
    assert isinstance(np.ones(2, np.float32) + f, ef.Tensor)


# -- ef.cast ------------------------------------------------------------------------------
def test_cast_float_to_int_truncates_toward_zero():
    assert ef.cast([1.7, -1.7, 2.5, -0.5], ef.int32).numpy().tolist() == [1, -1, 2, 0]
    assert ef.cast(ef.constant([1.9], ef.float64), "int64").dtype == ef.int64


def test_cast_values_and_dtypes():
    assert ef.cast([0, 2, -1], ef.bool).numpy().tolist() == [False, True, True]
    assert ef.cast([True, False], ef.float32).numpy().tolist() == [1.0, 0.0]
    assert ef.cast([1, 2], ef.float16).dtype == ef.float16
    assert ef.cast(3, ef.float64).numpy().item() == 3.0
    x = ef.constant([1.0])
    assert ef.cast(x, ef.float32).numpy().tolist() == [1.0]


def _cast_gradient(source_dtype, target_dtype):
    x = ef.constant([1.5, -2.5], source_dtype)
    with ef.GradientTape() as tape:
        tape.watch(x)
        y = ef.cast(x, target_dtype) * ef.cast(ef.constant([2.0, 3.0]), target_dtype)
    return x, tape.gradient(y, x)


@pytest.mark.parametrize("source, target", [
    (ef.float32, ef.float64), (ef.float64, ef.float32), (ef.float32, ef.float16),
    (ef.float32, ef.float32),
])
def test_gradient_flows_through_float_casts(source, target):
    x, grad = _cast_gradient(source, target)
    assert grad.dtype == x.dtype  # the gradient comes back in the source's dtype
    np.testing.assert_allclose(grad.numpy(), [2.0, 3.0])


@pytest.mark.parametrize("target", [ef.int32, ef.int64, ef.bool])
def test_no_gradient_through_integer_casts(target):
    x = ef.constant([1.5, -2.5])
    with ef.GradientTape() as tape:
        tape.watch(x)
        y = ef.cast(ef.cast(x, target), ef.float32) * 2.0
    assert tape.gradient(y, x) is None


def test_gradient_of_a_cast_of_float_to_float_is_checked_numerically():
    ef.testing.check_gradients(lambda x: ef.cast(ef.cast(x, ef.float64) ** 3, ef.float64),
                               [0.5, -1.5], order=2)


# -- bad input ----------------------------------------------------------------------------
def test_non_integral_float_to_integer_dtype_is_an_error():
    with pytest.raises(_E, match=r"Cannot convert 1\.5 to dtype int32: the value is not "
                                 r"integral\. Use ef\.cast to truncate explicitly\."):
        ef.constant(1.5, dtype=ef.int32)
    with pytest.raises(_E, match=r"Cannot convert \[1\.0, 2\.5\] to dtype int64"):
        ef.constant([1.0, 2.5], dtype=ef.int64)
    with pytest.raises(_E, match=r"to dtype bool: the value is not integral"):
        ef.constant(0.5, dtype=ef.bool)
    with pytest.raises(_E, match=r"Cannot convert 1\.5 to dtype int32"):
        ef.Tensor(1.5, ef.int32)


def test_out_of_range_integers_are_errors_not_wrapped():
    with pytest.raises(_E, match=r"Cannot convert 1099511627776 to dtype int32: out of its "
                                 r"range \[-2147483648, 2147483647\]\."):
        ef.constant(2**40, dtype=ef.int32)
    with pytest.raises(_E, match=r"Cannot convert \[-1, 2\] to dtype uint8: out of its range "
                                 r"\[0, 255\]"):
        ef.constant([-1, 2], dtype=ef.uint8)
    with pytest.raises(_E, match=r"to dtype int32: out of its range"):
        ef.constant(1e10, dtype=ef.int32)
    with pytest.raises(_E, match=r"Cannot convert -9223372036854775809 to a Tensor: an integer "
                                 r"is out of the int64 range\."):
        ef.constant(-(2**63) - 1)
    with pytest.raises(_E, match=r"an integer is out of the int64 range"):
        ef.constant([1, 2**64])


def test_unconvertible_values():
    with pytest.raises(_E, match=r"Attempt to convert a value \(None\) with an unsupported type "
                                 r"\(NoneType\) to a Tensor\."):
        ef.constant(None)
    with pytest.raises(_E, match=r"Cannot convert \[\[1, 2\], \[3\]\] to a Tensor: .*Nested lists "
                                 r"must be rectangular and hold numbers, bools or strings\."):
        ef.constant([[1, 2], [3]])
    with pytest.raises(_E, match=r"Cannot convert <object object at .*> to a Tensor: unsupported "
                                 r"element type object\."):
        ef.constant(object())
    with pytest.raises(_E, match=r"unsupported element type dict"):
        ef.constant([{}, {}])
    with pytest.raises(_E, match=r"Cannot convert \[1, None\] to a Tensor: unsupported element "
                                 r"type NoneType\."):
        ef.constant([1, None])


def test_long_values_are_shortened_in_messages():
    with pytest.raises(_E, match=r"Cannot convert \[\[0, 1\], \[0, 1\].*\.\.\. to a Tensor"):
        ef.constant([[0, 1]] * 40 + [[0]])


def test_bad_dtype_names():
    with pytest.raises(TypeError, match=r"Cannot interpret 'float99' as a dtype\."):
        dtypes.as_dtype("float99")
    with pytest.raises(TypeError, match=r"Cannot interpret 'nope' as a dtype"):
        ef.constant(1, dtype="nope")


@pytest.mark.parametrize("expression, dtype", [
    (lambda: ef.constant([1.0, 2.0]) * [1, 2], ef.float32),       # weak int list
    (lambda: ef.constant([1.0], ef.float16) * [1.5], ef.float16),  # weak float list
    (lambda: ef.constant([1]) * [1.5], ef.float32),               # float list meets int
    (lambda: ef.constant([1, 2], ef.int64) + [1, 2], ef.int64),
    (lambda: ef.constant([1.0], ef.float64) * [2, 3], ef.float64),
    (lambda: ef.matmul(ef.constant([[1, 2]]), ef.constant([[1.0], [2.0]])), ef.float32),
])
def test_lists_are_weak_and_ints_meeting_floats_take_the_float(expression, dtype):
    assert expression().dtype == dtype


def test_the_dtype_table_holds_in_graphs_too():
    f = ef.function(lambda i, x: (i + x, i * 0.5, x * [2, 3]))
    a, b, c = f(ef.constant([1, 2]), ef.constant([1.0, 2.0]))
    assert (a.dtype, b.dtype, c.dtype) == (ef.float32, ef.float32, ef.float32)
    np.testing.assert_array_equal(c, [2.0, 6.0])


# -- the table (dtypes.promotion, dtypes.weak_list), read by the dispatcher and the ops --------
_I32, _F16, _F32, _F64 = (np.zeros(2, d) for d in ("int32", "float16", "float32", "float64"))


@pytest.mark.parametrize("a, b, expected", [
    (_I32, _F16, np.dtype("float16")),  # an integer meeting a float takes the float's dtype
    (_F32, _I32, np.dtype("float32")),
    (_I32, 1.5, np.dtype("float32")),  # a Python float: float32, never float64
    (1.5, _I32, np.dtype("float32")),
    (_I32, 2, None),  # NumPy's answer stands: weak Python int
    (_F16, _F32, None),  # float16 with float32: NumPy gives float32
    (_F32, 2.0, None),
    (_I32, np.int64(3), None),
    (ef.constant(["a"]), 1.5, None),  # text: no arithmetic to promote
])
def test_promotion_table(a, b, expected):
    assert dtypes.promotion(a, b) == expected


@pytest.mark.parametrize("a, b", [
    (ef.constant([1, 2]), ef.constant([0.5, 0.5], ef.float16)),
    (ef.constant([1, 2]), 1.5),
    (ef.constant([1.0, 2.0], ef.float64), ef.constant([1, 2])),
])
def test_binary_ops_and_traced_functions_apply_the_table(a, b):
    expected = dtypes.promotion(a, b)
    assert (a * b).dtype == (b * a).dtype == expected
    assert ef.function(lambda x, y: x * y)(a, b).dtype == expected


def test_weak_lists_take_the_tensor_dtype_when_they_fit():
    assert dtypes.weak_list(np.array([0.5, 1.0]), np.dtype("float16")).dtype == np.float16
    assert dtypes.weak_list(np.array([1, 2]), np.dtype("int64")).dtype == np.int64
    kept = np.array([70000])
    assert dtypes.weak_list(kept, np.dtype("int16")) is kept  # does not fit: unchanged
    floats = np.array([0.5])
    assert dtypes.weak_list(floats, np.dtype("int32")) is floats  # never a float into an int
    assert (ef.constant([1.0], ef.float16) * [0.5]).dtype == ef.float16


def test_linspace_reads_the_table():
    assert ef.linspace(ef.constant(0), ef.constant(1.0), 3).dtype == ef.float32
    assert ef.linspace(ef.constant(0.0, ef.float64), 1.0, 3).dtype == ef.float64
