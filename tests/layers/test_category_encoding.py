"""CategoryEncoding: Keras 3's values for every mode, shapes, config, the functional API,
Dataset.map and the errors (out-of-range ids, bad modes, sparse)."""

import numpy as np
import pytest

import eagerflow as ef


def test_modes_match_keras():
    ids = np.array([[0, 1, 1], [3, 3, 2]])
    multi = ef.layers.CategoryEncoding(4)(ids).numpy()
    np.testing.assert_array_equal(multi, [[1, 1, 0, 0], [0, 0, 1, 1]])
    count = ef.layers.CategoryEncoding(4, output_mode="count")(ids).numpy()
    np.testing.assert_array_equal(count, [[1, 2, 0, 0], [0, 0, 1, 2]])
    weighted = ef.layers.CategoryEncoding(4, output_mode="count")(
        [[0, 1, 1]], count_weights=[[0.5, 1.0, 2.0]]).numpy()
    np.testing.assert_allclose(weighted, [[0.5, 3.0, 0.0, 0.0]])
    one_hot = ef.layers.CategoryEncoding(4, output_mode="one_hot")([0, 3, 1]).numpy()
    np.testing.assert_array_equal(one_hot, np.eye(4)[[0, 3, 1]])
    column = ef.layers.CategoryEncoding(4, output_mode="one_hot")([[0], [3]]).numpy()
    np.testing.assert_array_equal(column, np.eye(4)[[0, 3]])
    rank1 = ef.layers.CategoryEncoding(4)([1, 3]).numpy()
    np.testing.assert_array_equal(rank1, [0, 1, 0, 1])
    assert multi.dtype == np.float32


@pytest.mark.parametrize("mode, in_shape, out_shape", [
    ("one_hot", (5,), (5, 4)), ("one_hot", (5, 1), (5, 4)),
    ("multi_hot", (5, 3), (5, 4)), ("count", (3,), (4,)),
])
def test_output_shape_agrees_with_the_call(mode, in_shape, out_shape):
    layer = ef.layers.CategoryEncoding(4, output_mode=mode)
    ids = np.random.default_rng(0).integers(0, 4, in_shape)
    assert layer(ids).shape == out_shape
    assert tuple(layer.compute_output_shape(in_shape)) == out_shape


def test_config_round_trip_and_functional_model():
    layer = ef.layers.CategoryEncoding(6, output_mode="count", name="enc")
    config = layer.get_config()
    assert config["num_tokens"] == 6 and config["output_mode"] == "count"
    clone = ef.layers.CategoryEncoding.from_config(config)
    ids = np.array([[1, 5, 5]])
    np.testing.assert_array_equal(clone(ids).numpy(), layer(ids).numpy())
    inputs = ef.Input(shape=(3,), dtype="int32")
    model = ef.Model(inputs, ef.layers.Dense(2)(ef.layers.CategoryEncoding(6)(inputs)))
    assert model(ids).shape == (1, 2)


def test_in_a_dataset_pipeline():
    layer = ef.layers.CategoryEncoding(3, output_mode="one_hot")
    ds = ef.data.Dataset.from_tensor_slices(np.array([2, 0, 1])).batch(3).map(layer)
    (batch,) = list(ds)
    np.testing.assert_array_equal(np.asarray(batch), np.eye(3)[[2, 0, 1]])


def test_out_of_range_ids_are_refused():
    with pytest.raises(ef.errors.InvalidArgumentError, match=r"\[0, num_tokens=4\).*-1 to 4"):
        ef.layers.CategoryEncoding(4)([[-1, 4]])


@pytest.mark.parametrize("kwargs, match", [
    ({"num_tokens": None}, "num_tokens"),
    ({"num_tokens": 3, "output_mode": "tf_idf"}, "output_mode"),
    ({"num_tokens": 3, "sparse": True}, "sparse"),
])
def test_bad_constructor_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        ef.layers.CategoryEncoding(**kwargs)


def test_bad_inputs():
    with pytest.raises(ValueError, match="rank 1 or 2"):
        ef.layers.CategoryEncoding(3)(np.zeros((1, 1, 1), np.int32))
    with pytest.raises(ValueError, match="one id per sample"):
        ef.layers.CategoryEncoding(3, output_mode="one_hot")([[0, 1]])
    with pytest.raises(ValueError, match="only for output_mode='count'"):
        ef.layers.CategoryEncoding(3)([[0, 1]], count_weights=[[1.0, 1.0]])
    with pytest.raises(ValueError, match="integer ids"):
        ef.layers.CategoryEncoding(3)(np.array([["a"]], dtype=object))
