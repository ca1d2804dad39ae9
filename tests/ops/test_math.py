"""Elementwise math ops (eagerflow/ops/math.py): forward, gradients, bad input."""

import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import eagerflow as ef
from eagerflow.core.dispatch import execute
from eagerflow.ops import math as math_ops
from tests.ops.opcase import (
    OpCase,
    check_forward,
    check_forward_mode,
    check_gradient,
    parametrize,
    squared,
    unary_cases,
)

# scalar pair, same-shape matrices, the three broadcasting patterns
BINARY_SHAPES = [((), ()), ((3, 4), (3, 4)), ((3, 4), (4,)), ((3, 1), (1, 4)), ((), (2, 3))]


def _binary(name, fn, reference, domain=(-2.0, 2.0), order=2, **kwargs):
    return [
        OpCase(f"{name}-{a}-{b}", fn, reference, shapes=[a, b], domain=domain, order=order,
               **kwargs)
        for a, b in BINARY_SHAPES
    ]


CASES = [
    *_binary("add", ef.add, np.add),
    *_binary("subtract", ef.subtract, np.subtract),
    *_binary("multiply", ef.multiply, np.multiply),
    *_binary("divide", ef.divide, np.divide, domain=(0.5, 2.0)),
    OpCase("divide-negative", lambda x, y: ef.divide(x, -y), lambda x, y: x / -y,
           shapes=[(3, 4), (4,)], domain=(0.5, 2.0)),
    OpCase("truediv", ef.math.truediv, np.true_divide, shapes=[(3,), (3,)], domain=(0.5, 2.0)),
    *_binary("pow", ef.pow, np.power, domain=(0.2, 2.0)),
    *_binary("atan2", ef.atan2, np.arctan2, domain=(0.2, 2.0)),
    OpCase("pow-int-exponent-negative-base", lambda x: ef.pow(x, 3.0), lambda x: x**3.0,
           shapes=[(2, 3)]),
    OpCase("pow-scalar-base", lambda y: ef.pow(2.0, y), lambda y: 2.0**y, shapes=[(4,)]),
    *_binary("squared_difference", ef.math.squared_difference, lambda x, y: (x - y) ** 2),
    *_binary("maximum", ef.maximum, np.maximum),
    *_binary("minimum", ef.minimum, np.minimum),
    # x mod y is smooth away from the multiples of y, which random draws avoid.
    *_binary("mod", ef.mod, np.mod, domain=(0.5, 3.0)),
    OpCase("mod-negative", lambda x, y: ef.mod(-x, y), lambda x, y: np.mod(-x, y),
           shapes=[(3, 4), (4,)], domain=(0.5, 3.0)),
    *_binary("floordiv", ef.floordiv, np.floor_divide, domain=(0.5, 3.0), order=0),
    OpCase("clip_by_value", lambda x: ef.clip_by_value(x, -1.0, 1.0),
           lambda x: np.clip(x, -1.0, 1.0), shapes=[(3, 4)]),
    OpCase("clip_by_value-tensor-bounds", lambda x, lo: ef.clip_by_value(x, lo, 1.5),
           lambda x, lo: np.clip(x, lo, 1.5), shapes=[(3, 4), (4,)]),
    OpCase("cast-float64", lambda x: ef.cast(x, ef.float64), lambda x: x.astype(np.float64),
           shapes=[(3, 4)], dtypes=(np.float64,)),
    OpCase("cast-int32", lambda x: ef.cast(x, ef.int32), lambda x: x.astype(np.int32),
           shapes=[(3, 4)], domain=(-5.0, 5.0), order=0),
    OpCase("where", lambda x, y: ef.where(x > 0, x, y), lambda x, y: np.where(x > 0, x, y),
           shapes=[(3, 4), (3, 4)]),
    OpCase("where-broadcast", lambda x, y: ef.where(x > 0, x, y),
           lambda x, y: np.where(x > 0, x, y), shapes=[(3, 1), (4,)]),
    OpCase("where-scalar-branch", lambda x: ef.where(x > 0, x, 0.0),
           lambda x: np.where(x > 0, x, 0.0).astype(x.dtype), shapes=[(5,)]),
    OpCase("where-indices", lambda x: ef.where(x > 0), lambda x: np.argwhere(x > 0),
           shapes=[(3, 4)], order=0),
]


# The activations named next to the math ops live in ops/nn_ops.py: relu, softmax
# and log_softmax (the rest of ef.nn is tested with the nn ops).
def _np_softmax(x, axis=-1):
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


def _np_log_softmax(x, axis=-1):
    shifted = x - np.max(x, axis=axis, keepdims=True)
    return shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))


CASES += [
    *unary_cases("relu", ef.nn.relu, lambda x: np.maximum(x, 0)),
    OpCase("softmax-vector", ef.nn.softmax, _np_softmax, shapes=[(5,)]),
    OpCase("softmax-matrix", ef.nn.softmax, _np_softmax, shapes=[(3, 4)]),
    OpCase("softmax-axis0", lambda x: ef.nn.softmax(x, axis=0),
           lambda x: _np_softmax(x, 0), shapes=[(3, 4)]),
    OpCase("softmax-3d-axis1", lambda x: ef.nn.softmax(x, axis=1),
           lambda x: _np_softmax(x, 1), shapes=[(2, 3, 4)]),
    OpCase("log_softmax-vector", ef.nn.log_softmax, _np_log_softmax, shapes=[(5,)]),
    OpCase("log_softmax-matrix", ef.nn.log_softmax, _np_log_softmax, shapes=[(3, 4)]),
    OpCase("log_softmax-axis-2", lambda x: ef.nn.log_softmax(x, axis=-2),
           lambda x: _np_log_softmax(x, -2), shapes=[(2, 3, 4)]),
]

# Linear ones squared, so that order 2 runs the gradients of their gradient rules.
CASES += [squared(case) for case in CASES if case.name.startswith(
    ("add", "subtract", "truediv", "where-", "cast-float64", "clip_by_value"))
    and case.order]


@parametrize(CASES)
def test_forward(case):
    check_forward(case)


@parametrize(CASES)
def test_gradient(case):
    check_gradient(case)


@parametrize(CASES)
def test_jvp(case):
    check_forward_mode(case)


# -- gradient conventions -----------------------------------------------------------------
def _grads(f, *values):
    xs = [ef.constant(np.asarray(v, np.float64)) for v in values]
    with ef.GradientTape() as tape:
        tape.watch(xs)
        y = f(*xs)
    return [None if g is None else g.numpy() for g in tape.gradient(y, xs)]


def test_maximum_ties_send_the_gradient_to_x():
    dx, dy = _grads(ef.maximum, [1.0, 2.0, 3.0], [1.0, 1.0, 3.0])
    np.testing.assert_array_equal(dx, [1.0, 1.0, 1.0])
    np.testing.assert_array_equal(dy, [0.0, 0.0, 0.0])


def test_minimum_ties_send_the_gradient_to_x():
    dx, dy = _grads(ef.minimum, [1.0, 2.0, 3.0], [1.0, 1.0, 3.0])
    np.testing.assert_array_equal(dx, [1.0, 0.0, 1.0])
    np.testing.assert_array_equal(dy, [0.0, 1.0, 0.0])


def test_maximum_gradient_with_broadcast_scalar_sums_back():
    dx, dy = _grads(ef.maximum, [[1.0, 5.0], [3.0, 0.0]], 2.0)
    np.testing.assert_array_equal(dx, [[0.0, 1.0], [1.0, 0.0]])
    assert dy.shape == () and float(dy) == 2.0


def test_clip_by_value_gradient_only_inside_the_interval():
    (dx,) = _grads(lambda x: ef.clip_by_value(x, -1.0, 1.0), [-2.0, 0.5, 3.0])
    np.testing.assert_array_equal(dx, [0.0, 1.0, 0.0])


def test_pow_gradient_for_exponent_is_zero_where_base_is_not_positive():
    dx, dy = _grads(ef.pow, [0.0, -2.0, 2.0], [2.0, 2.0, 2.0])
    np.testing.assert_allclose(dx, [0.0, -4.0, 4.0])
    np.testing.assert_allclose(dy, [0.0, 0.0, 4.0 * np.log(2.0)])
    assert np.isfinite(dy).all()


def test_where_gradient_goes_to_the_selected_branch():
    xs = [ef.constant([1.0, 2.0, 3.0]), ef.constant([10.0, 20.0, 30.0])]
    with ef.GradientTape() as tape:
        tape.watch(xs)
        y = ef.where([True, False, True], xs[0], xs[1])
    dx, dy = tape.gradient(y, xs)
    np.testing.assert_array_equal(dx.numpy(), [1.0, 0.0, 1.0])
    np.testing.assert_array_equal(dy.numpy(), [0.0, 1.0, 0.0])


def test_mod_gradient_values():
    dx, dy = _grads(ef.mod, [7.0, -7.0], [3.0, 3.0])
    np.testing.assert_array_equal(dx, [1.0, 1.0])
    np.testing.assert_array_equal(dy, [-2.0, 3.0])  # -floor(x / y)


def test_non_differentiable_ops_give_no_gradient():
    for op in (ef.floor, ef.ceil, ef.round):
        (dx,) = _grads(op, [0.4, 1.6])
        assert dx is None, op.__name__
    (dx, dy) = _grads(ef.floordiv, [7.0], [2.0])
    assert dx is None and dy is None


def test_integer_arithmetic_keeps_integer_dtypes():
    a, b = ef.constant([7, -7]), ef.constant([2, 2])
    assert (a + b).dtype == ef.int32
    assert ef.floordiv(a, b).numpy().tolist() == [3, -4]
    assert ef.mod(a, b).numpy().tolist() == [1, 1]
    assert ef.maximum(a, b).dtype == ef.int32
    assert ef.divide(a, b).dtype == ef.float64


def test_squared_difference_of_python_scalars():
    assert float(ef.math.squared_difference(3.0, 1.0)) == 4.0


def test_where_single_argument_returns_int64_coordinates():
    result = ef.where([[False, True], [True, True]])
    assert result.dtype == ef.int64
    assert result.numpy().tolist() == [[0, 1], [1, 0], [1, 1]]


def test_relu_gradient_at_zero_is_zero():
    (dx,) = _grads(ef.nn.relu, [-1.0, 0.0, 2.0])
    np.testing.assert_array_equal(dx, [0.0, 0.0, 1.0])


def test_softmax_family_is_stable_for_large_logits():
    logits = ef.constant([[1000.0, 1000.0, -1000.0]])
    np.testing.assert_allclose(ef.nn.softmax(logits).numpy(), [[0.5, 0.5, 0.0]])
    np.testing.assert_allclose(ef.nn.log_softmax(logits).numpy(),
                               [[-np.log(2.0), -np.log(2.0), -2000.0 - np.log(2.0)]], rtol=1e-6)
    assert ef.nn.relu(ef.constant([-3, 3])).dtype == ef.int32


@pytest.mark.parametrize("op, name", [(ef.nn.softmax, "Softmax"),
                                      (ef.nn.log_softmax, "LogSoftmax")])
def test_softmax_family_bad_input(op, name):
    with pytest.raises(ef.errors.InvalidArgumentError,
                       match=rf"{name} needs floating-point logits, got dtype int32 "
                             rf"\[Op:{name}\]"):
        op([1, 2])
    with pytest.raises(ef.errors.InvalidArgumentError,
                       match=rf"axis 2 is out of bounds for logits of shape \(2, 3\) "
                             rf"\[Op:{name}\]"):
        op(ef.zeros([2, 3]), axis=2)
    with pytest.raises(ef.errors.InvalidArgumentError,
                       match=r"axis -1 is out of bounds for logits of shape \(\)"):
        op(1.0)


# -- hypothesis: forward against NumPy with broadcasting ----------------------------------
_BINARY_OPS = {
    "add": (ef.add, np.add),
    "subtract": (ef.subtract, np.subtract),
    "multiply": (ef.multiply, np.multiply),
    "maximum": (ef.maximum, np.maximum),
    "minimum": (ef.minimum, np.minimum),
    "squared_difference": (ef.math.squared_difference, lambda x, y: (x - y) ** 2),
}


@st.composite
def _broadcast_pair(draw, dtype, low=-100.0, high=100.0):
    shapes = draw(hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=3, max_side=4))
    elements = st.floats(low, high, width=np.dtype(dtype).itemsize * 8)
    x = draw(hnp.arrays(dtype, shapes.input_shapes[0], elements=elements))
    y = draw(hnp.arrays(dtype, shapes.input_shapes[1], elements=elements))
    return x, y, shapes.result_shape


@settings(max_examples=25, deadline=None)
@given(name=st.sampled_from(sorted(_BINARY_OPS)), dtype=st.sampled_from([np.float32, np.float64]),
       data=st.data())
def test_binary_ops_broadcast_like_numpy(name, dtype, data):
    op, reference = _BINARY_OPS[name]
    x, y, shape = data.draw(_broadcast_pair(dtype))
    got = op(ef.constant(x), ef.constant(y))
    want = reference(x, y)
    assert got.shape == shape
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-6)


@settings(max_examples=20, deadline=None)
@given(dtype=st.sampled_from([np.float32, np.float64]), data=st.data())
def test_divide_and_pow_broadcast_like_numpy(dtype, data):
    x, y, shape = data.draw(_broadcast_pair(dtype, 0.25, 4.0))
    np.testing.assert_allclose(ef.divide(x, y).numpy(), x / y, rtol=1e-6)
    np.testing.assert_allclose(ef.pow(x, y).numpy(), np.power(x, y), rtol=1e-5)
    assert ef.pow(x, y).shape == shape


# -- bad input ----------------------------------------------------------------------------
def test_incompatible_broadcast_shapes_name_the_op_and_both_shapes():
    with pytest.raises(ef.errors.InvalidArgumentError,
                       match=r"Incompatible shapes: \(2, 3\) vs\. \(4,\) \[Op:AddV2\]"):
        ef.add(ef.zeros([2, 3]), ef.zeros([4]))
    with pytest.raises(ef.errors.InvalidArgumentError,
                       match=r"Incompatible shapes: \(2, 3\) vs\. \(4,\) \[Op:Mul\]"):
        ef.zeros([2, 3]) * ef.zeros([4])
    with pytest.raises(ValueError,
                       match=r"Incompatible shapes: \(3,\) vs\. \(2,\) \[Op:Maximum\]"):
        ef.maximum([1.0, 2.0, 3.0], [1.0, 2.0])


def test_incompatible_shapes_under_a_tape():
    x = ef.zeros([2, 3])
    with ef.GradientTape() as tape:
        tape.watch(x)
        with pytest.raises(ef.errors.InvalidArgumentError,
                           match=r"Incompatible shapes: \(2, 3\) vs\. \(4,\) \[Op:Sub\]"):
            ef.subtract(x, [1.0, 2.0, 3.0, 4.0])


def test_where_needs_both_branches_or_neither():
    with pytest.raises(ValueError, match=r"needs both `x` and `y`, or neither.*\[Op:SelectV2\]"):
        ef.where([True], [1.0])
    with pytest.raises(ValueError, match=r"needs both `x` and `y`, or neither"):
        ef.where([True], y=[1.0])


def test_integer_division_by_zero_is_an_error():
    with pytest.raises(ef.errors.InvalidArgumentError,
                       match=r"^Integer division by zero \[Op:FloorDiv\]$"):
        ef.floordiv(7, 0)
    with pytest.raises(ef.errors.InvalidArgumentError,
                       match=r"^Integer division by zero \[Op:FloorMod\]$"):
        ef.mod(ef.constant([7, 3]), ef.constant([1, 0]))
    with pytest.raises(ef.errors.InvalidArgumentError, match=r"\[Op:FloorDiv\]"):
        ef.constant([7]) // 0
    with np.errstate(divide="ignore"):
        assert float(ef.floordiv(7.0, 0.0)) == np.inf  # floats follow IEEE, like TensorFlow


def test_cast_to_an_unknown_dtype():
    with pytest.raises(TypeError, match=r"Cannot interpret 'float99' as a dtype"):
        ef.cast([1.0], "float99")


def test_forward_errors_name_the_op_and_inputs():
    with pytest.raises(ef.errors.UnimplementedError, match=r"Cast string to float32.*\[Op:Cast\]"):
        execute(math_ops._cast, (ef.constant(["a"]),), {"dtype": np.dtype("float32")})
