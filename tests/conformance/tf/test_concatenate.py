"""`concatenate` against TensorFlow 2.21's tf.data: the cases of
`tensorflow/python/data/kernel_tests/concatenate_test.py` for eagerflow's API, with values,
cardinalities, element specs and exception classes recorded from TensorFlow.
"""

import pytest


from ._tfdata import Dataset, check, spec

INT64, INT32 = "int64", "int32"


def test_concatenate():
    check(Dataset.range(3).concatenate(Dataset.range(5, 7)), [0, 1, 2, 5, 6], 5, ((), INT64))
    assert int(Dataset.range(3).repeat().concatenate(Dataset.range(2)).cardinality()) == -1
    relaxed = Dataset.from_tensors([1, 2]).concatenate(Dataset.from_tensors([1, 2, 3]))
    assert spec(relaxed) == ((None,), INT32)


@pytest.mark.parametrize("other", [lambda: Dataset.from_tensor_slices([1.0, 2.0]),
                                   lambda: Dataset.from_tensor_slices(([1], [2]))],
                         ids=["dtype", "structure"])
def test_incompatible_elements_are_a_type_error(other):
    with pytest.raises(TypeError, match="ncompatible dataset elements"):
        Dataset.range(3).concatenate(other())
