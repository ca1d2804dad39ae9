"""Reductions and scans (eagerflow/ops/reduce.py): forward, gradients, bad input."""

import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import eagerflow as ef
from tests.ops.opcase import (
    OpCase,
    check_forward,
    check_forward_mode,
    check_gradient,
    gradient,
    parametrize,
    squared,
)


def _logsumexp(x, axis=None, keepdims=False):
    peak = np.max(x, axis=axis, keepdims=True)
    result = np.log(np.sum(np.exp(x - peak), axis=axis, keepdims=True)) + peak
    return result if keepdims else np.squeeze(result, axis=axis)


# (ef op, NumPy reference, domain): domains keep products and logs well conditioned.
_REDUCTIONS = {
    "reduce_sum": (ef.reduce_sum, np.sum, (-2.0, 2.0)),
    "reduce_mean": (ef.reduce_mean, np.mean, (-2.0, 2.0)),
    "reduce_max": (ef.reduce_max, np.max, (-2.0, 2.0)),
    "reduce_min": (ef.reduce_min, np.min, (-2.0, 2.0)),
    "reduce_prod": (ef.reduce_prod, np.prod, (0.5, 1.5)),
    "reduce_logsumexp": (ef.reduce_logsumexp, _logsumexp, (-2.0, 2.0)),
    "reduce_variance": (ef.reduce_variance, np.var, (-2.0, 2.0)),
    "reduce_std": (ef.reduce_std, np.std, (-2.0, 2.0)),
    "reduce_euclidean_norm": (ef.math.reduce_euclidean_norm,
                              lambda x, axis=None, keepdims=False: np.sqrt(
                                  np.sum(x * x, axis=axis, keepdims=keepdims)),
                              (0.2, 2.0)),
}
# (shape, axis, keepdims)
_AXIS_VARIANTS = [
    ((), None, False),
    ((5,), None, False),
    ((5,), 0, True),
    ((3, 4), None, False),
    ((3, 4), 0, False),
    ((3, 4), 1, True),
    ((3, 4), -1, False),
    ((3, 4), [0, 1], False),
    ((2, 3, 4), (0, 2), False),
    ((2, 3, 4), [-1, 1], True),
]


def _reduction_rows():
    rows = []
    for name, (op, reference, domain) in _REDUCTIONS.items():
        for shape, axis, keepdims in _AXIS_VARIANTS:
            if name == "reduce_std" and shape == ():
                continue  # the std of one value is 0, where sqrt has no derivative
            np_axis = None if axis is None else tuple(np.atleast_1d(axis))

            def fn(x, op=op, axis=axis, keepdims=keepdims):
                return op(x, axis=axis, keepdims=keepdims)

            def ref(x, reference=reference, axis=np_axis, keepdims=keepdims):
                return np.asarray(reference(x, axis=axis, keepdims=keepdims), x.dtype)

            rows.append(OpCase(f"{name}-{shape}-axis{axis}-keep{int(keepdims)}", fn, ref,
                               shapes=[shape], domain=domain, rtol=2e-5))
    return rows


def _np_scan(fn, identity):
    def scan(x, axis=0, exclusive=False, reverse=False):
        if reverse:
            x = np.flip(x, axis)
        result = fn(x, axis=axis)
        if exclusive:
            shifted = np.concatenate([np.full_like(np.take(result, [0], axis), identity),
                                      np.take(result, np.arange(x.shape[axis] - 1), axis)], axis)
            result = shifted
        return np.flip(result, axis) if reverse else result

    return scan


_np_cumsum = _np_scan(np.cumsum, 0)
_np_cumprod = _np_scan(np.cumprod, 1)


def _scan_rows():
    rows = []
    for name, op, reference, domain in [("cumsum", ef.cumsum, _np_cumsum, (-2.0, 2.0)),
                                        ("cumprod", ef.math.cumprod, _np_cumprod, (0.5, 1.5))]:
        for shape, axis in [((5,), 0), ((3, 4), 0), ((3, 4), 1), ((3, 4), -1)]:
            for exclusive in (False, True):
                for reverse in (False, True):
                    def fn(x, op=op, axis=axis, exclusive=exclusive, reverse=reverse):
                        return op(x, axis=axis, exclusive=exclusive, reverse=reverse)

                    def ref(x, reference=reference, axis=axis, exclusive=exclusive,
                            reverse=reverse):
                        return reference(x, axis, exclusive, reverse)

                    rows.append(OpCase(
                        f"{name}-{shape}-axis{axis}-excl{int(exclusive)}-rev{int(reverse)}",
                        fn, ref, shapes=[shape], domain=domain))
    return rows


def _np_top_k(x, k):
    return -np.sort(-x, axis=-1)[..., :k]


_BOOLS = [[[True, False, True], [True, True, True]]]

CASES = [
    *_reduction_rows(),
    *_scan_rows(),
    # Zeros in a product: the gradient is the product of the other entries (no division).
    OpCase("reduce_prod-with-zeros", ef.reduce_prod, np.prod,
           inputs=[[[2.0, 0.0, 3.0], [1.0, 2.0, 0.0]]], order=1),
    OpCase("reduce_prod-with-zeros-axis1", lambda x: ef.reduce_prod(x, axis=1),
           lambda x: np.prod(x, axis=1), inputs=[[[2.0, 0.0, 3.0], [0.0, 2.0, 0.0]]], order=1),
    OpCase("reduce_logsumexp-large", ef.reduce_logsumexp, _logsumexp,
           inputs=[[1000.0, 1000.0, 999.0]], order=2),
    OpCase("top_k-vector", lambda x: ef.math.top_k(x, k=3)[0], lambda x: _np_top_k(x, 3),
           shapes=[(6,)]),
    OpCase("top_k-matrix", lambda x: ef.math.top_k(x, k=2)[0], lambda x: _np_top_k(x, 2),
           shapes=[(3, 5)]),
    OpCase("top_k-k0", lambda x: ef.math.top_k(x, k=0)[0], lambda x: _np_top_k(x, 0),
           shapes=[(2, 3)], order=0),
    OpCase("argmax-axis0", ef.argmax, lambda x: np.argmax(x, axis=0), shapes=[(3, 4)],
           order=0),
    OpCase("argmax-axis-1", lambda x: ef.argmax(x, axis=-1), lambda x: np.argmax(x, axis=-1),
           shapes=[(3, 4)], order=0),
    OpCase("argmin-axis1", lambda x: ef.argmin(x, axis=1), lambda x: np.argmin(x, axis=1),
           shapes=[(3, 4)], order=0),
    OpCase("argmin-vector", ef.argmin, np.argmin, shapes=[(6,)], order=0),
    OpCase("reduce_any", ef.reduce_any, np.any, inputs=_BOOLS, order=0),
    OpCase("reduce_any-axis1", lambda x: ef.reduce_any(x, axis=1),
           lambda x: np.any(x, axis=1), inputs=_BOOLS, order=0),
    OpCase("reduce_all", ef.reduce_all, np.all, inputs=_BOOLS, order=0),
    OpCase("reduce_all-axis1-keepdims", lambda x: ef.reduce_all(x, axis=1, keepdims=True),
           lambda x: np.all(x, axis=1, keepdims=True), inputs=_BOOLS, order=0),
]


# Linear ones squared, so that order 2 runs the gradients of their gradient rules.
CASES += [squared(case) for case in CASES
          if case.name.startswith(("reduce_sum", "reduce_mean", "cumsum"))]


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
def test_reduce_max_ties_share_the_gradient():
    np.testing.assert_allclose(gradient(ef.reduce_max, [2.0, 3.0, 3.0]), [0.0, 0.5, 0.5])
    np.testing.assert_allclose(
        gradient(lambda x: ef.reduce_max(x, axis=1), [[1.0, 1.0, 1.0], [0.0, 2.0, 1.0]]),
        [[1 / 3, 1 / 3, 1 / 3], [0.0, 1.0, 0.0]])


def test_reduce_min_ties_share_the_gradient():
    np.testing.assert_allclose(gradient(ef.reduce_min, [1.0, 3.0, 1.0, 1.0]),
                               [1 / 3, 0.0, 1 / 3, 1 / 3])


def test_reduce_prod_gradient_with_zeros_matches_tensorflow():
    np.testing.assert_array_equal(gradient(ef.reduce_prod, [2.0, 0.0, 3.0]), [0.0, 6.0, 0.0])
    np.testing.assert_array_equal(gradient(ef.reduce_prod, [2.0, 0.0, 0.0]), [0.0, 0.0, 0.0])


def test_reduce_mean_gradient_divides_by_the_count():
    np.testing.assert_allclose(gradient(lambda x: ef.reduce_mean(x, axis=0), np.ones((4, 2))),
                               np.full((4, 2), 0.25))


def test_integer_and_bool_reductions_keep_tensorflow_dtypes():
    ints = ef.constant([[1, 2], [3, 4]])
    assert ef.reduce_sum(ints).dtype == ef.int32
    assert ef.reduce_prod(ints).dtype == ef.int32
    mean = ef.reduce_mean(ef.constant([1, 2]))
    assert mean.dtype == ef.int32 and int(mean) == 1  # integer mean truncates, like TF
    count = ef.reduce_sum(ef.constant([True, True, False]))
    assert count.dtype == ef.int32 and int(count) == 2
    assert ef.argmax([1.0, 3.0]).dtype == ef.int64
    assert ef.argmax([1.0, 3.0], output_type=ef.int32).dtype == ef.int32


def test_axis_may_be_a_tensor():
    x = ef.constant([[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_array_equal(ef.reduce_sum(x, axis=ef.constant(1)).numpy(), [3.0, 7.0])
    np.testing.assert_array_equal(ef.reduce_sum(x, axis=ef.constant([0, 1])).numpy(), 10.0)


def test_reduce_logsumexp_does_not_overflow():
    np.testing.assert_allclose(float(ef.reduce_logsumexp([1000.0, 1000.0])),
                               1000.0 + np.log(2.0), rtol=1e-6)
    np.testing.assert_allclose(float(ef.reduce_logsumexp([-1000.0, -1000.0])),
                               -1000.0 + np.log(2.0), rtol=1e-6)


def test_reductions_of_empty_axes():
    empty = ef.zeros([0, 3])
    assert float(ef.reduce_sum(empty)) == 0.0
    assert float(ef.reduce_prod(empty)) == 1.0
    assert ef.reduce_max(empty, axis=1).shape == (0,)


def test_top_k_indices_and_ties():
    values, indices = ef.math.top_k([[1.0, 3.0, 3.0, 2.0]], k=3)
    assert values.numpy().tolist() == [[3.0, 3.0, 2.0]]
    assert indices.dtype == ef.int32
    assert indices.numpy().tolist() == [[1, 2, 3]]  # ties: lower index first


def test_top_k_gradient_scatters_back_to_the_chosen_positions():
    grad = gradient(lambda x: ef.math.top_k(x, k=2)[0] * ef.constant([10.0, 1.0], ef.float64),
                 [[1.0, 5.0, 3.0], [9.0, 8.0, 7.0]])
    np.testing.assert_array_equal(grad, [[0.0, 10.0, 1.0], [10.0, 1.0, 0.0]])


def test_cumprod_gradient_at_zero_is_not_finite():
    # Documented limitation, like TensorFlow's rule: it divides by x.
    with np.errstate(divide="ignore", invalid="ignore"):
        grad = gradient(ef.math.cumprod, [1.0, 0.0, 3.0])
    assert not np.isfinite(grad[1])


# -- hypothesis: reductions over random axes ----------------------------------------------
_HYPOTHESIS_OPS = ["reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod",
                   "reduce_logsumexp"]


@settings(max_examples=30, deadline=None)
@given(name=st.sampled_from(_HYPOTHESIS_OPS), dtype=st.sampled_from([np.float32, np.float64]),
       keepdims=st.booleans(), data=st.data())
def test_reductions_over_random_axes_match_numpy(name, dtype, keepdims, data):
    op, reference, (low, high) = _REDUCTIONS[name]
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4))
    x = data.draw(hnp.arrays(dtype, shape, elements=st.floats(low, high, width=32)))
    axes = data.draw(st.none() | st.lists(st.integers(-len(shape), len(shape) - 1),
                                          min_size=1, max_size=len(shape), unique_by=lambda a:
                                          a % len(shape)))
    got = op(ef.constant(x), axis=axes, keepdims=keepdims)
    want = reference(x, axis=None if axes is None else tuple(axes), keepdims=keepdims)
    assert got.shape == np.shape(want)
    assert got.dtype == dtype
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-5, atol=1e-6)


@settings(max_examples=20, deadline=None)
@given(data=st.data(), exclusive=st.booleans(), reverse=st.booleans())
def test_cumsum_over_random_axes_matches_numpy(data, exclusive, reverse):
    shape = data.draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4))
    x = data.draw(hnp.arrays(np.float64, shape, elements=st.floats(-10, 10)))
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    got = ef.cumsum(x, axis=axis, exclusive=exclusive, reverse=reverse)
    np.testing.assert_allclose(got.numpy(), _np_cumsum(x, axis % len(shape), exclusive, reverse),
                               atol=1e-12)


# -- bad input ----------------------------------------------------------------------------
@pytest.mark.parametrize("op, name", [
    (ef.reduce_sum, "Sum"), (ef.reduce_mean, "Mean"), (ef.reduce_max, "Max"),
    (ef.reduce_min, "Min"), (ef.reduce_prod, "Prod"), (ef.reduce_logsumexp, "LogSumExp"),
    (ef.reduce_any, "Any"), (ef.reduce_all, "All"),
])
def test_reduction_axis_out_of_range(op, name):
    x = ef.zeros([2, 3], dtype=ef.bool if name in ("Any", "All") else ef.float32)
    with pytest.raises(ef.errors.InvalidArgumentError,
                       match=rf"Invalid reduction dimension 2 for input with 2 dimensions "
                             rf"\(expected \[-2, 2\)\) \[Op:{name}\]"):
        op(x, axis=2)
    with pytest.raises(ef.errors.InvalidArgumentError,
                       match=rf"Invalid reduction dimension -3 .*\[Op:{name}\]"):
        op(x, axis=[0, -3])


def test_reduction_axis_of_a_scalar():
    with pytest.raises(ef.errors.InvalidArgumentError,
                       match=r"Invalid reduction dimension 1 for input with 0 dimensions"):
        ef.reduce_sum(ef.constant(1.0), axis=1)


def test_reduction_duplicate_axes():
    with pytest.raises(ef.errors.InvalidArgumentError,
                       match=r"Axes contains duplicate dimension: 0 .*\[Op:Sum\]"):
        ef.reduce_sum(ef.zeros([2, 3]), axis=[0, -2])


@pytest.mark.parametrize("op, name", [(ef.reduce_max, "Max"), (ef.reduce_min, "Min")])
def test_extreme_of_an_empty_tensor(op, name):
    with pytest.raises(ef.errors.InvalidArgumentError,
                       match=rf"Reduction of an empty tensor \(shape \(0, 3\)\) has no identity "
                             rf"\[Op:{name}\]"):
        op(ef.zeros([0, 3]))
    with pytest.raises(ef.errors.InvalidArgumentError, match=rf"\(0, 3\).*\[Op:{name}\]"):
        op(ef.zeros([0, 3]), axis=0)


def test_float_only_reductions_reject_integers():
    with pytest.raises(ef.errors.InvalidArgumentError,
                       match=r"reduce_logsumexp needs a floating-point tensor, got int32 "
                             r"\[Op:LogSumExp\]"):
        ef.reduce_logsumexp([1, 2])
    with pytest.raises(ef.errors.InvalidArgumentError,
                       match=r"reduce_variance needs a floating-point tensor, got int32 "
                             r"\[Op:Variance\]"):
        ef.reduce_variance([1, 2])
    with pytest.raises(ef.errors.InvalidArgumentError, match=r"got int32 \[Op:Variance\]"):
        ef.reduce_std([1, 2])


@pytest.mark.parametrize("op, name", [
    (ef.argmax, "ArgMax"), (ef.argmin, "ArgMin"), (ef.cumsum, "Cumsum"),
    (ef.math.cumprod, "Cumprod"),
])
def test_single_axis_ops_reject_bad_axes(op, name):
    with pytest.raises(ef.errors.InvalidArgumentError,
                       match=rf"Invalid reduction dimension 2 for input with 2 dimensions.*"
                             rf"\[Op:{name}\]"):
        op(ef.zeros([2, 3]), axis=2)
    with pytest.raises(ef.errors.InvalidArgumentError,
                       match=rf"expected one axis of a tensor of rank >= 1, got axis=0 for rank "
                             rf"0 \[Op:{name}\]"):
        op(ef.constant(1.0), axis=0)
    with pytest.raises(ef.errors.InvalidArgumentError,
                       match=rf"expected one axis .* got axis=\[0, 1\] for rank 2 \[Op:{name}\]"):
        op(ef.zeros([2, 3]), axis=[0, 1])


def test_top_k_bad_k():
    with pytest.raises(ef.errors.InvalidArgumentError,
                       match=r"input must have at least k=3 columns, got shape \(2,\) "
                             r"\[Op:TopKV2\]"):
        ef.math.top_k([1.0, 2.0], k=3)
    with pytest.raises(ef.errors.InvalidArgumentError, match=r"Need k >= 0, got -1 \[Op:TopKV2\]"):
        ef.math.top_k([1.0, 2.0], k=-1)
    with pytest.raises(ef.errors.InvalidArgumentError,
                       match=r"at least k=1 columns, got shape \(\) \[Op:TopKV2\]"):
        ef.math.top_k(1.0, k=1)
