"""The one shape-probing mechanism (graph/shape_probe.py) and its two users: the tracer
(per op) and the functional API (per layer call) find the same unknown dimensions."""

import numpy as np
import pytest

import eagerflow as ef
from eagerflow.graph import shape_probe


def test_concrete_fills_unknown_dims_batch_first():
    assert shape_probe.concrete((None, 3, None), 5) == (5, 3, 5)
    assert shape_probe.concrete((None, 3, None), 32, batch_size=2) == (2, 3, 32)
    assert shape_probe.concrete((), 4) == ()


def test_merge_unknown_where_runs_differ():
    assert shape_probe.merge((2, 3, 8), (4, 3, 16)) == (None, 3, None)
    assert shape_probe.merge((2, 3), (2, 3)) == (2, 3)
    assert shape_probe.merge((2, 3), (2, 3, 1)) == (None, None)  # ranks differ
    assert shape_probe.is_known((1, 2)) and not shape_probe.is_known((None, 2))


def test_dummy_values():
    eye = shape_probe.dummy((None, 3, 3), np.float32)
    assert eye.shape == (2, 3, 3) and eye.dtype == np.float32
    np.testing.assert_array_equal(eye[1], np.eye(3))
    assert not shape_probe.dummy((2, 3), np.float64).any()
    assert (shape_probe.dummy((None, 3), np.float32, size=3, fill="ones") == 1).all()
    ints = shape_probe.dummy((None,), np.int32, size=4, fill="ones")
    assert ints.tolist() == [0, 0, 0, 0] and ints.dtype == np.int32
    text = shape_probe.dummy((2,), ef.string)
    assert text.dtype == object and text.tolist() == [b"", b""]
    with pytest.raises(ValueError, match="fill must be 'identity' or 'ones', got 'zeros'"):
        shape_probe.dummy((2,), np.float32, fill="zeros")


def test_resize_repeats_along_unknown_dims():
    value = np.arange(6).reshape(2, 3)
    np.testing.assert_array_equal(shape_probe.resize(value, (None, 3)),
                                  [[0, 1, 2], [3, 4, 5], [0, 1, 2], [3, 4, 5]])
    assert shape_probe.resize(np.zeros((0, 3)), (None, 3)).shape == (3, 3)


def _traced_shape(fn, spec):
    cf = ef.function(fn).get_concrete_function(spec)
    return tuple(cf.outputs[0].shape)


@pytest.mark.parametrize("make_layer, input_shape", [
    (lambda: ef.layers.Dense(4), (None, 3)),
    (lambda: ef.layers.Conv1D(2, 3), (None, 8, 5)),
    (lambda: ef.layers.Flatten(), (None, 4, 2)),
    (lambda: ef.layers.GlobalAveragePooling1D(), (None, None, 6)),
])
def test_functional_api_and_tracer_agree(make_layer, input_shape):
    layer = make_layer()
    symbolic = layer(ef.layers.Input(batch_shape=input_shape)).shape
    traced = _traced_shape(layer, ef.TensorSpec(input_shape))
    assert symbolic == traced
    assert symbolic[0] is None and None not in symbolic[-1:]
