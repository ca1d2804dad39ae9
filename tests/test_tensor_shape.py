"""ef.TensorShape against TensorFlow 2.21's tf.TensorShape (values recorded from the
reference install as literals), and `.shape` staying a plain tuple everywhere."""

import pickle

import numpy as np
import pytest

import eagerflow as ef

T = ef.TensorShape


# (expression, TensorFlow 2.21's result)
@pytest.mark.parametrize("make, expected", [
    (lambda: T([None, 3]).as_list(), [None, 3]),
    (lambda: T([2, 3]).rank, 2),
    (lambda: T([2, 3]).ndims, 2),
    (lambda: T(None).rank, None),
    (lambda: T([2, 3]).num_elements(), 6),
    (lambda: T([None, 3]).num_elements(), None),
    (lambda: T(None).num_elements(), None),
    (lambda: T([]).num_elements(), 1),
    (lambda: T([2, 3]).is_fully_defined(), True),
    (lambda: T([None, 3]).is_fully_defined(), False),
    (lambda: T(None).is_fully_defined(), False),
    (lambda: T([None, 3]).is_compatible_with([5, 3]), True),
    (lambda: T([None, 3]).is_compatible_with([5, 4]), False),
    (lambda: T([None, 3]).is_compatible_with([5, 3, 1]), False),
    (lambda: T(None).is_compatible_with([5, 3]), True),
    (lambda: T([None, 3]).is_compatible_with(None), True),
    (lambda: T([None, 3]).merge_with([5, None]).as_list(), [5, 3]),
    (lambda: T(None).merge_with([5, None]).as_list(), [5, None]),
    (lambda: T([None, 3]).concatenate([4, None]).as_list(), [None, 3, 4, None]),
    (lambda: T([None, 3]).concatenate(None).rank, None),
    (lambda: T([None, 3]).with_rank(2).as_list(), [None, 3]),
    (lambda: T(None).with_rank(2).as_list(), [None, None]),
    (lambda: T([None, 3]).most_specific_compatible_shape([2, 3]).as_list(), [None, 3]),
    (lambda: T([1, 3]).most_specific_compatible_shape([2, 3]).as_list(), [None, 3]),
    (lambda: T([1, 3]).most_specific_compatible_shape([2, 3, 4]).rank, None),
    (lambda: T([2, 3])[-1], 3),
    (lambda: str(T([None, 3])), "(None, 3)"),
    (lambda: str(T(None)), "<unknown>"),
    (lambda: repr(T([None, 3])), "TensorShape([None, 3])"),
    (lambda: repr(T(None)), "TensorShape(None)"),
    (lambda: repr(T([])), "TensorShape([])"),
    (lambda: T([2, 3]) == [2, 3], True),
    (lambda: T([2, 3]) == (2, 3), True),
    (lambda: T([2, 3]) != (2, 3), False),
    (lambda: T([None, 3]) == T([None, 3]), True),
    (lambda: T([None, 3]) == (None, 3), True),
    (lambda: T(None) == T(None), True),
    (lambda: T(3).as_list(), [3]),
    (lambda: T(T([2, 3])).as_list(), [2, 3]),
    (lambda: list(T([2, 3]) + (4,)), [2, 3, 4]),
    (lambda: bool(T(None)), False),
])
def test_matches_tensorflow(make, expected):
    assert make() == expected


@pytest.mark.parametrize("make, error, message", [
    (lambda: T(None).as_list(), ValueError,
     "as_list() is not defined on an unknown TensorShape."),
    (lambda: T([None, 3]).merge_with([5, 4]), ValueError,
     "Shapes (None, 3) and (5, 4) are not compatible"),
    (lambda: T([None, 3]).merge_with([5]), ValueError,
     "Shapes (None, 3) and (5,) are not compatible"),
    (lambda: T([None, 3]).with_rank(3), ValueError, "Shape (None, 3) must have rank 3"),
    (lambda: T([None, 3]).assert_has_rank(3), ValueError, "Shape (None, 3) must have rank 3"),
    (lambda: T([None, 3]).assert_is_compatible_with([2, 4]), ValueError,
     "Shapes (None, 3) and [2, 4] are incompatible"),
    (lambda: T([None, 3]).assert_is_fully_defined(), ValueError,
     "Shape (None, 3) is not fully defined"),
    (lambda: len(T(None)), ValueError, "Cannot take the length of shape with unknown rank."),
    (lambda: ef.TensorSpec(T(None)), ValueError,
     "Cannot iterate over a shape with unknown rank."),  # not taken for a scalar's ()
    (lambda: T([2.0, 3]), TypeError,
     "TensorShape: a dimension must be an int or None, got 2.0 of type float"),
    (lambda: T(["a"]), TypeError,
     "TensorShape: a dimension must be an int or None, got 'a' of type str"),
    (lambda: T([-1, 3]), ValueError, "TensorShape: dimension -1 must be >= 0"),
    (lambda: T(2.5), TypeError, "TensorShape: expected a list of dimensions, an int or None"),
])
def test_errors_match_tensorflow(make, error, message):
    with pytest.raises(error) as info:
        make()
    assert str(info.value).startswith(message)


def test_is_a_tuple_that_goes_where_shapes_go():
    shape = T([2, 3])
    assert isinstance(shape, tuple) and hash(shape) == hash((2, 3))
    assert {(2, 3): "found"}[shape] == "found"
    rows, cols = shape
    assert (rows, cols) == (2, 3) and shape[1:] == (3,)
    assert ef.zeros(shape).shape == (2, 3) and np.zeros(shape).shape == (2, 3)
    assert ef.TensorSpec(T([None, 4])).shape == (None, 4)
    assert T(ef.zeros([2, 4]).shape).num_elements() == 8  # TF's x.shape.num_elements()
    assert T(ef.shape(ef.zeros([2, 4]))).as_list() == [2, 4]
    assert T([np.int64(2), None]).as_list() == [2, None]
    assert T(None) != T([]) and T(None) != ()


def test_pickles():
    for shape in (T([None, 3]), T(None), T([])):
        back = pickle.loads(pickle.dumps(shape))
        assert type(back) is T and back == shape and back.rank == shape.rank


def test_shapes_stay_plain_tuples():
    # The decision (see docs/guides/keras-compatibility.md): one form for every shape.
    x = ef.constant([[1.0, 2.0, 3.0]])
    assert type(x.shape) is tuple and type(ef.Variable(x).shape) is tuple
    assert type(ef.layers.Input(shape=(3,)).shape) is tuple
    assert type(ef.TensorSpec([None, 3]).shape) is tuple
    with pytest.raises(AttributeError, match="as_list"):
        x.shape.as_list()
