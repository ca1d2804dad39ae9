"""Hashing: bins checked against Keras 3.15.1 (literals produced by it) for strings,
integers, floats, masks, salts and every output mode; config, graphs and errors."""

import numpy as np
import pytest

import eagerflow as ef

H = ef.layers.Hashing
PAIRS = np.array([["A", "B"], ["C", "D"]])


def values(layer, inputs):
    return np.asarray(layer(inputs))


def test_int_bins_match_keras():
    out = values(H(num_bins=5), np.array([["A", "B"], ["C", "D"], ["E", "F"]]))
    np.testing.assert_array_equal(out, [[4, 3], [2, 0], [2, 1]])
    assert out.dtype == np.int64
    np.testing.assert_array_equal(values(H(num_bins=5), [[1, 2], [33, -7]]), [[4, 4], [4, 2]])
    np.testing.assert_array_equal(values(H(num_bins=5), [[1.7, 2.2], [33.0, -7.9]]),
                                  [[4, 4], [4, 2]])  # floats truncate to ints first
    np.testing.assert_array_equal(values(H(num_bins=5, mask_value=""), [["A", ""], ["C", "D"]]),
                                  [[1, 0], [4, 4]])
    np.testing.assert_array_equal(values(H(num_bins=5, mask_value=0), [[0, 5, 9]]), [[0, 4, 2]])
    np.testing.assert_array_equal(values(H(num_bins=5, salt=133), PAIRS), [[4, 3], [2, 3]])
    np.testing.assert_array_equal(values(H(num_bins=5, salt=(133, 7)), PAIRS), [[3, 0], [1, 4]])
    assert values(H(num_bins=5, dtype="int32"), PAIRS).dtype == np.int32


@pytest.mark.parametrize("mode, inputs, expected", [
    ("one_hot", ["A", "B", "C"], [[1, 0, 0, 0], [1, 0, 0, 0], [0, 0, 0, 1]]),
    ("one_hot", [["A"], ["B"]], [[1, 0, 0, 0], [1, 0, 0, 0]]),
    ("multi_hot", [["A", "B"], ["C", "A"]], [[1, 0, 0, 0], [1, 0, 0, 1]]),
    ("count", [["A", "B", "A"]], [[3, 0, 0, 0]]),
    ("count", ["A", "B", "A"], [3, 0, 0, 0]),
])
def test_vector_modes_match_keras(mode, inputs, expected):
    layer = H(num_bins=4, output_mode=mode)
    out = values(layer, inputs)
    np.testing.assert_array_equal(out, expected)
    assert out.dtype == np.float32
    assert layer.compute_output_shape(np.shape(inputs)) == out.shape


def test_config_graphs_and_pipelines():
    layer = H(num_bins=4, salt=3, name="h")
    config = layer.get_config()
    assert config["salt"] == [3, 3] and config["num_bins"] == 4 and config["dtype"] == "int64"
    clone = H.from_config(config)
    np.testing.assert_array_equal(values(clone, PAIRS), values(layer, PAIRS))
    traced = ef.function(lambda x: layer(x))
    np.testing.assert_array_equal(traced(ef.constant(PAIRS)).numpy(), values(layer, PAIRS))
    ds = ef.data.Dataset.from_tensor_slices(PAIRS).batch(2).map(layer)
    np.testing.assert_array_equal(np.asarray(next(iter(ds))), values(layer, PAIRS))


@pytest.mark.parametrize("kwargs, match", [
    ({"num_bins": 0}, r"num_bins` must be a positive int.*num_bins=0"),
    ({"num_bins": 3, "output_mode": "bag"}, r"output_mode.*one of.*'bag'"),
    ({"num_bins": 3, "sparse": True}, r"sparse=True is not supported"),
    ({"num_bins": 3, "salt": (1, 2, 3)}, r"salt` must be an int or a tuple of 2 ints"),
    ({"num_bins": 3, "dtype": "float32"}, r"output_mode='int', `dtype` must be 'int32' or"),
])
def test_bad_arguments_are_refused(kwargs, match):
    with pytest.raises(ValueError, match=match):
        H(**kwargs)


def test_bad_inputs_are_refused():
    with pytest.raises(ValueError, match=r"Hashing expects strings or numbers.*complex"):
        H(num_bins=3)(np.array([1j]))
