"""Flatten and Reshape."""

import numpy as np
import pytest

import eagerflow as ef
from tests.layers.layer_contract import run_layer_test

X = np.random.default_rng(0).standard_normal((2, 3, 4)).astype("float32")


def test_flatten():
    run_layer_test(ef.layers.Flatten, {}, input_data=X, expected_output_shape=(2, 12),
                   weights=[], expected_output=X.reshape(2, 12))


def test_flatten_channels_first_moves_channels_last():
    run_layer_test(ef.layers.Flatten, {"data_format": "channels_first"}, input_data=X,
                   expected_output_shape=(2, 12), weights=[],
                   expected_output=X.transpose(0, 2, 1).reshape(2, 12))


def test_flatten_rank_1_and_bad_data_format():
    assert ef.layers.Flatten()(ef.ones([4])).shape == (4, 1)
    with pytest.raises(ValueError, match="data_format.*channels_middle"):
        ef.layers.Flatten(data_format="channels_middle")


def test_reshape_with_inferred_axis():
    run_layer_test(ef.layers.Reshape, {"target_shape": (-1, 2)}, input_data=X,
                   expected_output_shape=(2, 6, 2), weights=[],
                   expected_output=X.reshape(2, 6, 2))


def test_reshape_errors():
    with pytest.raises(ValueError, match="at most one -1"):
        ef.layers.Reshape((-1, -1))
    with pytest.raises(ValueError, match=r"cannot reshape an input of shape \(2, 3, 4\)"):
        ef.layers.Reshape((5,))(ef.constant(X))
    with pytest.raises(ValueError, match="cannot reshape"):
        ef.layers.Reshape((5, -1))(ef.constant(X))


def test_reshape_traced_with_an_unknown_batch_size():
    # reshape(x, (None, -1)) has two free dimensions; the -1 is now resolved from the known
    # per-example size, and the batch is the one left free.
    x = np.random.default_rng(0).standard_normal((5, 4, 3))
    for target in ((-1,), (2, -1), (3, 4)):
        layer = ef.layers.Reshape(target, dtype="float64")
        traced = ef.function(layer, input_signature=[ef.TensorSpec((None, 4, 3), "float64")])
        np.testing.assert_array_equal(traced(ef.constant(x)), layer(ef.constant(x)))
    ambiguous = ef.function(ef.layers.Reshape((-1, 3)), input_signature=[
        ef.TensorSpec((None, None, 3), "float32")])
    with pytest.raises(ValueError, match="ambiguous"):
        ambiguous(ef.ones([2, 4, 3]))
