"""Comparisons, logical and bitwise ops (eagerflow/ops/logic.py)."""

import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import eagerflow as ef
from eagerflow.ops import logic
from tests.ops.opcase import OpCase, check_forward, parametrize

_COMPARISONS = {
    "equal": (ef.equal, np.equal), "not_equal": (ef.not_equal, np.not_equal),
    "less": (ef.less, np.less), "less_equal": (ef.less_equal, np.less_equal),
    "greater": (ef.greater, np.greater), "greater_equal": (ef.greater_equal, np.greater_equal),
}
_SHAPES = [((), ()), ((3, 4), (3, 4)), ((3, 4), (4,)), ((3, 1), (1, 4)), ((), (2, 3))]
_BOOLS = [[True, True, False, False], [True, False, True, False]]

CASES = []
for _name, (_fn, _ref) in _COMPARISONS.items():
    CASES += [OpCase(f"{_name}-{a}-{b}", _fn, _ref, shapes=[a, b], order=0) for a, b in _SHAPES]
    CASES.append(OpCase(f"{_name}-ties", _fn, _ref, inputs=[[1.0, 2.0, 3.0], [1.0, 3.0, 2.0]],
                        order=0))
    CASES.append(OpCase(f"{_name}-int", _fn, _ref, inputs=[[1, 2, 3], [2, 2, 2]], order=0))
CASES += [
    OpCase("logical_and", ef.logical_and, np.logical_and, inputs=_BOOLS, order=0),
    OpCase("logical_or", ef.logical_or, np.logical_or, inputs=_BOOLS, order=0),
    OpCase("logical_xor", ef.math.logical_xor, np.logical_xor, inputs=_BOOLS, order=0),
    OpCase("logical_not", ef.logical_not, np.logical_not, inputs=_BOOLS[:1], order=0),
    OpCase("logical_and-broadcast", ef.logical_and, np.logical_and,
           inputs=[[[True], [False]], [True, False, True]], order=0),
    OpCase("bitwise_and", logic.bitwise_and, np.bitwise_and, inputs=[[6, 5], [3, 1]], order=0),
    OpCase("bitwise_or", logic.bitwise_or, np.bitwise_or, inputs=[[6, 5], [3, 1]], order=0),
    OpCase("bitwise_xor", logic.bitwise_xor, np.bitwise_xor, inputs=[[6, 5], [3, 1]], order=0),
    OpCase("bitwise_and-bool", logic.bitwise_and, np.bitwise_and, inputs=_BOOLS, order=0),
    OpCase("invert-int", logic.invert, np.invert, inputs=[[0, 5, -3]], order=0),
    OpCase("invert-bool", logic.invert, np.invert, inputs=_BOOLS[:1], order=0),
]


@parametrize(CASES)
def test_forward(case):
    check_forward(case)


def test_results_are_bool_and_carry_no_gradient():
    x = ef.constant([1.0, 2.0])
    with ef.GradientTape(persistent=True) as tape:
        tape.watch(x)
        results = [fn(x, 1.5) for fn, _ in _COMPARISONS.values()]
    for result in results:
        assert result.dtype == ef.bool
        assert tape.gradient(result, x) is None


def test_operators_and_math_namespace_use_these_ops():
    a, b = ef.constant([1, 2]), ef.constant([2, 2])
    assert (a < b).numpy().tolist() == [True, False]
    assert (a == b).numpy().tolist() == [False, True]
    assert (a != b).numpy().tolist() == [True, False]
    assert ((a > 1) & (b > 1)).numpy().tolist() == [False, True]
    assert ((a > 1) | (b > 5)).numpy().tolist() == [False, True]
    assert ef.math.equal is logic.equal and ef.math.logical_xor is logic.logical_xor


@settings(max_examples=25, deadline=None)
@given(name=st.sampled_from(sorted(_COMPARISONS)), data=st.data())
def test_comparisons_broadcast_like_numpy(name, data):
    op, reference = _COMPARISONS[name]
    shapes = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=3, max_side=4))
    values = st.integers(-3, 3).map(float)  # few distinct values, so ties are common
    x = data.draw(hnp.arrays(np.float32, shapes.input_shapes[0], elements=values))
    y = data.draw(hnp.arrays(np.float32, shapes.input_shapes[1], elements=values))
    got = op(ef.constant(x), ef.constant(y))
    assert got.shape == shapes.result_shape
    np.testing.assert_array_equal(got.numpy(), reference(x, y))


# -- bad input ----------------------------------------------------------------------------
@pytest.mark.parametrize("op, name", [
    (ef.logical_and, "LogicalAnd"), (ef.logical_or, "LogicalOr"),
    (ef.math.logical_xor, "LogicalXor"),
])
def test_logical_ops_need_bool_tensors(op, name):
    with pytest.raises(ef.errors.InvalidArgumentError,
                       match=rf"^{op.__name__} expects bool tensors, got dtype int32; compare or "
                             rf"cast first \[Op:{name}\]$"):
        op([1, 0], [True, True])


def test_logical_not_needs_a_bool_tensor():
    with pytest.raises(ef.errors.InvalidArgumentError,
                       match=r"logical_not expects bool tensors, got dtype float32; compare or "
                             r"cast first \[Op:LogicalNot\]"):
        ef.logical_not([1.0])


def test_comparison_of_incompatible_shapes():
    with pytest.raises(ef.errors.InvalidArgumentError,
                       match=r"Incompatible shapes: \(2, 3\) vs\. \(4,\) \[Op:Less\]"):
        ef.less(ef.zeros([2, 3]), ef.zeros([4]))
