"""Cases of tf.data's `map_test.py` (None components) with TensorFlow 2.21's values."""

import eagerflow as ef


def _with_none():
    return ef.data.Dataset.range(3).map(lambda x: (x, None))


def test_none_component():
    assert [(int(a), b) for a, b in _with_none()] == [(0, None), (1, None), (2, None)]  # TF
    assert _with_none().element_spec[1] is None  # TF: NoneTensorSpec()


def test_none_component_in_dict():
    got = list(ef.data.Dataset.range(2).map(lambda x: {"a": x, "b": None}).as_numpy_iterator())
    assert got == [{"a": 0, "b": None}, {"a": 1, "b": None}]  # TF


def test_none_component_batches_to_none():
    got = [(a.numpy().tolist(), b) for a, b in _with_none().batch(2)]
    assert got == [([0, 1], None), ([2], None)]  # TF


def test_none_component_passed_to_the_next_map():
    assert [int(a) for a in _with_none().map(lambda a, b: a * 2)] == [0, 2, 4]  # TF
