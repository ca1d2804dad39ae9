"""The facts ops declare for graph passes (`Op` flags, core/dispatch.py) hold for their
forwards: every forward call the op tables make is checked against the op's facts."""

import inspect

import numpy as np
import pytest

from eagerflow.core import dispatch
from tests.ops.opcase import all_cases, ops_reached

_FACTS = ("elementwise", "fresh", "neutral", "elidable", "involution", "shape_only", "ufunc",
          "returns_array", "value_shaped_axis")
_CASES = all_cases()  # importing the test modules registers every op family they use
# Ops the tables only reach inside graphs (a shape with unknown dimensions), string ops
# (no float row) and ops only graph passes make, run directly.
_DIRECT_CALLS = [
    ("Shape", (np.zeros((2, 3), np.float32),), {"out_type": np.dtype(np.int32)}),
    ("Size", (np.zeros((2, 3), np.float32),), {"out_type": np.dtype(np.int64)}),
    ("OneHot", (np.array([0, 2]),), {"depth": 3, "on_value": 1.0, "off_value": 0.0,
                                      "axis": -1, "dtype": np.dtype(np.float32)}),
    ("StringSplitV2", (np.array([b"a b", b"c"], object),), {"padding": b""}),
    ("UnicodeSplit", (np.array([b"ab", b"c"], object),), {"padding": ""}),
    # made by a graph pass only (graph/passes/matmul_bias.py), no gradient: no table row
    ("MatMulSum", (np.ones((4, 2), np.float32), np.ones((4, 3), np.float32),
                   np.ones((2, 2, 3), np.float32)), {"axis": (0, 1)}),
]


def _declares_facts(op) -> bool:
    """Whether `op` has a forward and declares a fact about it (the graph-only ops of the
    registry have no forward: the executor runs them)."""
    return op.forward is not None and any(getattr(op, fact) not in (None, False)
                                          for fact in _FACTS)


def _same(got, want, what):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, what
    np.testing.assert_array_equal(got, want, err_msg=what)


def _check(op, forward, values, attrs, out):
    """Checks each fact `op` declares on one call ``forward(*values, **attrs) -> out``."""
    arrays = [v for v in values if isinstance(v, np.ndarray)]
    outs = [out] if op.num_outputs == 1 else list(out)
    if op.fresh:
        for o in outs:
            assert isinstance(o, (np.ndarray, np.generic)), f"{op.name}: not an array"
            assert not any(np.may_share_memory(o, a) for a in arrays), f"{op.name}: a view"
    if op.ufunc is not None:
        kernel, *constants = op.ufunc if isinstance(op.ufunc, tuple) else (op.ufunc,)
        _same(kernel(*values, *constants), out, f"{op.name}: ufunc")
    if op.elementwise and isinstance(out, np.ndarray) and out.ndim:
        _check_in_place(op, forward, values, attrs, out)
    if op.neutral:
        for index, number in op.neutral.items():
            other = values[1 - index]
            swapped = list(values)
            swapped[index] = np.full_like(values[index], number) \
                if isinstance(values[index], np.ndarray) else number
            result = np.asarray(forward(*swapped, **attrs))
            if isinstance(other, np.ndarray) and (result.dtype, result.shape) == (
                    other.dtype, other.shape):
                _same(result, other, f"{op.name}: neutral {number} at input {index}")
    if op.elidable and isinstance(values[0], np.ndarray):
        x, o = values[0], np.asarray(out)
        if op.elidable is True or (op.elidable == "dtype" and o.dtype == x.dtype) or (
                op.elidable == "shape" and o.shape == x.shape):
            _same(o, x, f"{op.name}: elidable")
    if op.involution:
        _same(forward(out, **attrs), values[0], f"{op.name}: involution")
    if op.shape_only:
        _same(forward(np.zeros_like(values[0]), **attrs), out, f"{op.name}: shape only")
    if op.returns_array:
        for o in outs:
            assert type(o) is np.ndarray or np.ndim(o) == 0, f"{op.name}: not an ndarray"
    if op.value_shaped_axis is not None:
        assert all(o.ndim for o in outs), f"{op.name}: a 0-d output has no value-shaped axis"


def _check_in_place(op, forward, values, attrs, out):
    """The kernel writes the result into the buffer of an input of its shape and dtype, as
    a compiled plan does when that input is dead."""
    if op.ufunc is None:
        assert "out" in inspect.signature(forward).parameters, f"{op.name}: no out="
    kernel, *constants = (op.ufunc if isinstance(op.ufunc, tuple) else (op.ufunc,)) \
        if op.ufunc is not None else (None,)
    for index, x in enumerate(values):
        if not (isinstance(x, np.ndarray) and (x.shape, x.dtype) == (out.shape, out.dtype)):
            continue
        inputs = list(values)
        inputs[index] = buffer = x.copy()
        if kernel is not None:
            result = kernel(*inputs, *constants, out=buffer)
        else:
            result = forward(*inputs, **attrs, out=buffer)
        assert result is buffer or np.shares_memory(result, buffer), f"{op.name}: out="
        _same(buffer, out, f"{op.name}: in place over input {index}")


@pytest.fixture
def checked_forwards():
    """Wraps every op's forward in `_check` while the test runs; yields the names checked."""
    checked = set()
    originals = {}

    def wrap(op, forward):
        def checking(*values, **attrs):
            out = forward(*values, **attrs)
            if attrs.get("out") is not None:
                # Another kernel's in-place use (MaxPoolBiasRelu adds the bias into its
                # pooled array): the facts are about the op's own calls, with a result
                # of its own, and the inputs may now be overwritten.
                return out
            _check(op, forward, values, attrs, out)
            checked.add(op.name)
            return out
        return checking

    for op in dispatch.OPS.values():
        if _declares_facts(op):
            originals[op] = op.forward
            op.forward = wrap(op, op.forward)
    try:
        yield checked
    finally:
        for op, forward in originals.items():
            op.forward = forward


def test_declared_facts_hold_on_every_op_table_case(checked_forwards):
    for case in _CASES:
        ops_reached(case)
    for name, values, attrs in _DIRECT_CALLS:
        dispatch.execute(dispatch.OPS[name], values, attrs)
    declared = {name for name, op in dispatch.OPS.items() if _declares_facts(op)}
    unchecked = sorted(declared - checked_forwards)
    assert not unchecked, f"ops whose facts no op-table case checked: {unchecked}"
