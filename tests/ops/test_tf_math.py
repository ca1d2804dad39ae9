"""ef.math's predicates, counting, polyval, cumulative_logsumexp (a primitive: gradient-
and JVP-checked) and invert_permutation."""

import numpy as np
import pytest

import eagerflow as ef
from tests.ops.opcase import OpCase, check_forward, check_forward_mode, check_gradient, parametrize


def _np_cumulative_logsumexp(x, axis=0, exclusive=False, reverse=False):
    values = np.flip(x, axis) if reverse else x
    out = np.log(np.cumsum(np.exp(values), axis=axis))
    if exclusive:
        out = np.concatenate([np.full_like(np.take(out, [0], axis), -np.inf),
                              np.take(out, np.arange(out.shape[axis] - 1), axis)], axis)
    return np.flip(out, axis) if reverse else out


CASES = [
    OpCase("cumulative_logsumexp", ef.math.cumulative_logsumexp, _np_cumulative_logsumexp,
           shapes=[(4, 3)]),
    OpCase("cumulative_logsumexp_reverse",
           lambda x: ef.math.cumulative_logsumexp(x, axis=1, reverse=True),
           lambda x: _np_cumulative_logsumexp(x, axis=1, reverse=True), shapes=[(2, 5)]),
    OpCase("cumulative_logsumexp_exclusive",
           lambda x: ef.math.cumulative_logsumexp(x, axis=-1, exclusive=True)[..., 1:],
           lambda x: _np_cumulative_logsumexp(x, axis=-1, exclusive=True)[..., 1:],
           shapes=[(2, 4)]),
    OpCase("polyval", lambda c0, c1, x: ef.math.polyval([c0, c1, 2.0], x),
           lambda c0, c1, x: np.polyval([c0, c1, 2.0], x), shapes=[(), (), (4,)]),
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


def test_cumulative_logsumexp_does_not_overflow_and_handles_scalars():
    np.testing.assert_allclose(ef.math.cumulative_logsumexp([1000.0, 1000.0]).numpy(),
                               [1000.0, 1000.0 + np.log(2.0)], rtol=1e-6)
    assert float(ef.math.cumulative_logsumexp(2.0)) == 2.0
    assert float(ef.math.cumulative_logsumexp(2.0, exclusive=True)) == -np.inf


def test_count_nonzero_and_zero_fraction_dtypes():
    assert ef.math.count_nonzero([1.0, 0.0], dtype=ef.int32).dtype == np.int32
    assert ef.math.zero_fraction([1, 0, 0, 0]).dtype == np.float32
    assert float(ef.math.zero_fraction([1, 0, 0, 0])) == 0.75


def test_rint_keeps_the_dtype_and_rounds_halves_to_even():
    np.testing.assert_array_equal(ef.math.rint(np.array([0.5, 1.5, 2.5])).numpy(),
                                  [0.0, 2.0, 2.0])


def test_invert_permutation_traces():
    @ef.function
    def inverse(p):
        return ef.math.invert_permutation(p)

    np.testing.assert_array_equal(inverse(ef.constant([2, 0, 1])).numpy(), [1, 2, 0])


@pytest.mark.parametrize("call, match", [
    (lambda: ef.math.is_nan([1, 2]), "IsNan expects a floating-point"),
    (lambda: ef.math.rint([1, 2]), "Rint expects a floating-point"),
    (lambda: ef.math.invert_permutation([[0, 1]]), "expects a vector of integers"),
    (lambda: ef.math.cumulative_logsumexp([1.0], axis=2), "axis 2 is out of range"),
    (lambda: ef.math.in_top_k([0], [1.0, 2.0], 1), "predictions of shape"),
])
def test_bad_input_names_the_problem(call, match):
    with pytest.raises(ef.errors.InvalidArgumentError, match=match):
        call()


def test_polyval_needs_a_list():
    with pytest.raises(ValueError, match="`coeffs` must be a list"):
        ef.math.polyval(ef.constant([1.0, 2.0]), 1.0)
    assert ef.math.polyval([], ef.constant([1.0, 2.0])).numpy().tolist() == [0.0, 0.0]
