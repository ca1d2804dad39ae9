"""ef.math's segment reductions, bincount and confusion_matrix: forward against NumPy,
gradients to order 2, and the errors for unsorted ids and data-dependent sizes in traces."""

import numpy as np
import pytest

import eagerflow as ef
from tests.ops.opcase import OpCase, check_forward, check_forward_mode, check_gradient, parametrize

_IDS = np.array([0, 0, 2, 2, 3])
_UNSORTED = np.array([2, -1, 0, 2, 1])


def _np_segments(data, ids, count, reduce_fn, empty):
    rows = [reduce_fn(data[ids == i], axis=0) if np.any(ids == i) else
            np.full(data.shape[1:], empty, data.dtype) for i in range(count)]
    return np.stack(rows)


CASES = [
    OpCase("segment_sum", lambda d: ef.math.segment_sum(d, _IDS),
           lambda d: _np_segments(d, _IDS, 4, np.sum, 0.0), shapes=[(5, 2)]),
    OpCase("segment_mean", lambda d: ef.math.segment_mean(d, _IDS),
           lambda d: _np_segments(d, _IDS, 4, np.mean, 0.0), shapes=[(5, 2)]),
    OpCase("segment_max", lambda d: ef.math.segment_max(d, _IDS),
           lambda d: _np_segments(d, _IDS, 4, np.max, 0.0), shapes=[(5, 2)]),
    OpCase("segment_min", lambda d: ef.math.segment_min(d, _IDS),
           lambda d: _np_segments(d, _IDS, 4, np.min, 0.0), shapes=[(5,)]),
    OpCase("segment_prod", lambda d: ef.math.segment_prod(d, _IDS),
           lambda d: _np_segments(d, _IDS, 4, np.prod, 1.0), shapes=[(5, 2)]),
    OpCase("unsorted_segment_sum", lambda d: ef.math.unsorted_segment_sum(d, _UNSORTED, 4),
           lambda d: _np_segments(d, _UNSORTED, 4, np.sum, 0.0), shapes=[(5, 2)]),
    OpCase("unsorted_segment_sqrt_n",
           lambda d: ef.math.unsorted_segment_sqrt_n(d, _UNSORTED, 3),
           lambda d: _np_segments(d, _UNSORTED, 3,
                                  lambda v, axis: v.sum(axis) / np.sqrt(len(v)), 0.0),
           shapes=[(5,)]),
    OpCase("unsorted_segment_max", lambda d: ef.math.unsorted_segment_max(d, _UNSORTED, 3),
           lambda d: _np_segments(d, _UNSORTED, 3, np.max, 0.0), shapes=[(5, 2)]),
    OpCase("unsorted_segment_prod", lambda d: ef.math.unsorted_segment_prod(d, _UNSORTED, 3),
           lambda d: _np_segments(d, _UNSORTED, 3, np.prod, 1.0), shapes=[(5,)]),
    OpCase("bincount_weights", lambda w: ef.math.bincount([1, 1, 3, 0, 1], weights=w),
           lambda w: np.bincount([1, 1, 3, 0, 1], weights=w), shapes=[(5,)]),
    OpCase("confusion_matrix_weights",
           lambda w: ef.math.confusion_matrix([0, 1, 1], [1, 1, 0], 2, weights=w,
                                              dtype=w.dtype),
           lambda w: np.array([[0.0, w[0]], [w[2], w[1]]]), shapes=[(3,)]),
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


def test_empty_unsorted_max_is_the_lowest_value():
    out = ef.math.unsorted_segment_max([1.0], [0], 2).numpy()
    assert out[1] == np.finfo(np.float32).min


def test_data_dependent_sizes_raise_inside_a_trace_unless_fixed():
    @ef.function
    def counts(x):
        return ef.math.bincount(x)

    with pytest.raises(ef.errors.InvalidArgumentError,
                       match="pass minlength equal to maxlength to fix it"):
        counts(ef.constant([1, 2]))

    @ef.function
    def fixed(x):
        return ef.math.bincount(x, minlength=4, maxlength=4)

    np.testing.assert_array_equal(fixed(ef.constant([1, 1, 7])).numpy(), [0, 2, 0, 0])

    @ef.function
    def sums(x):
        return ef.math.segment_sum(x, [0, 1])

    with pytest.raises(ef.errors.InvalidArgumentError, match="call it outside ef.function"):
        sums(ef.constant([1.0, 2.0]))

    @ef.function
    def matrix(a, b):
        return ef.math.confusion_matrix(a, b)

    with pytest.raises(ef.errors.InvalidArgumentError, match="pass num_classes"):
        matrix(ef.constant([0]), ef.constant([1]))


@pytest.mark.parametrize("call, match", [
    (lambda: ef.math.segment_sum([1.0, 2.0], [1, 0]), "non-negative and sorted"),
    (lambda: ef.math.segment_sum([1.0, 2.0], [0.0, 1.0]), "segment_ids must be integers"),
    (lambda: ef.math.unsorted_segment_sum([1.0, 2.0], [0], 2), "must be a prefix"),
    (lambda: ef.math.unsorted_segment_sum([1.0], [0], -1), "num_segments must be"),
    (lambda: ef.math.bincount([-1, 2]), "arr must be non-negative"),
    (lambda: ef.math.bincount([1, 2], axis=1), "axis must be None, 0 or -1"),
    (lambda: ef.math.confusion_matrix([0, 1], [0]), "vectors of one length"),
    (lambda: ef.math.confusion_matrix([0, -1], [0, 0]), "must be non-negative"),
    (lambda: ef.math.confusion_matrix([0, 3], [0, 0], num_classes=2), "< num_classes = 2"),
])
def test_bad_input_names_the_problem(call, match):
    with pytest.raises(ef.errors.InvalidArgumentError, match=match):
        call()
