"""`as_numpy_iterator` against TensorFlow 2.21's tf.data: the cases of
`tensorflow/python/data/kernel_tests/as_numpy_iterator_test.py` for eagerflow's API, with values,
cardinalities, element specs and exception classes recorded from TensorFlow.
"""

from ._tfdata import Dataset, py


def test_as_numpy_iterator():
    elements = list(Dataset.from_tensor_slices(([1, 2], [3.0, 4.0])).as_numpy_iterator())
    assert [py(e) for e in elements] == [[1, 3.0], [2, 4.0]]
    assert [type(e[0]).__name__ for e in elements] == ["int32", "int32"]
    assert [type(x).__name__ for x in Dataset.range(2).as_numpy_iterator()] == ["int64"] * 2
