"""ef.ops's number, bitwise, lookup and data-dependent ops: the argument checks and the
forms the recorded conformance cases do not cover."""

import numpy as np
import pytest

import eagerflow as ef


def test_unique_forms_and_axis():
    values, counts = ef.ops.unique(ef.constant([[1, 2], [1, 2], [0, 5]]), axis=0,
                                   return_counts=True)
    np.testing.assert_array_equal(values.numpy(), [[0, 5], [1, 2]])
    np.testing.assert_array_equal(counts.numpy(), [1, 2])
    truncated = ef.ops.unique(ef.constant([4, 3, 2, 1]), size=2)
    np.testing.assert_array_equal(truncated.numpy(), [1, 2])


def test_histogram_of_integers_counts_in_int32():
    counts, edges = ef.ops.histogram(ef.constant([0, 1, 1, 3]), bins=3)
    assert counts.dtype == np.int32 and edges.dtype == np.float32
    np.testing.assert_array_equal(counts.numpy(), [1, 2, 1])


def test_windows_and_shifts():
    assert ef.ops.kaiser(4, 0.0).numpy().tolist() == [1.0, 1.0, 1.0, 1.0]
    np.testing.assert_array_equal(ef.ops.left_shift(ef.constant([1, 2]), 3).numpy(), [8, 16])


@pytest.mark.parametrize("call, error, match", [
    (lambda: ef.ops.gcd([1.5], [2]), TypeError, "`gcd` expects integer inputs"),
    (lambda: ef.ops.lcm([1.5], [2]), TypeError, "`lcm` expects integer inputs"),
    (lambda: ef.ops.bitwise_left_shift([1.0], [1]), TypeError, "bitwise_left_shift"),
    (lambda: ef.ops.bitwise_right_shift([1.0], [1]), TypeError, "bitwise_right_shift"),
    (lambda: ef.ops.searchsorted(np.ones((2, 2)), [1.0]), ValueError, "only supports 1-D"),
    (lambda: ef.ops.searchsorted([1.0, 2.0], [1.0], side="middle"), ValueError, "`side`"),
    (lambda: ef.ops.bincount([1, 2], sparse=True), ValueError, "sparse=True"),
    (lambda: ef.ops.bincount([1, 2], minlength=-1), ValueError, "`minlength` must be"),
    (lambda: ef.ops.bincount([-1, 2]), ef.errors.InvalidArgumentError, "non-negative"),
    (lambda: ef.ops.histogram([1.0], bins=0), ValueError, "`bins` must be a positive"),
    (lambda: ef.ops.histogram(np.ones((2, 2))), ValueError, "expects a 1-D input"),
])
def test_bad_arguments(call, error, match):
    with pytest.raises(error, match=match):
        call()
